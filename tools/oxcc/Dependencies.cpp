//===- Dependencies.cpp - the files a translation unit reads --------------===//
//
// The object cache and -MD depfiles need every file a compile reads. The compiles themselves
// run in compiler/frontend; this runs clang's preprocessor in-process on their own command
// lines (oxide::compileCommands: the host compile, then the device wrapper for each
// architecture) and records each #include, __has_include and #embed: the file found and, for
// the search directories that come before it and that the user controls, the paths that were
// probed and missing.
//
//===----------------------------------------------------------------------===//

#include "Dependencies.h"

#include "oxide/compiler/Build.h"
#include "oxide/compiler/Frontend.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

std::string normalize(llvm::StringRef p) {
  llvm::SmallString<256> result(p);
  fs::make_absolute(result);
  path::remove_dots(result, /*remove_dot_dot=*/true);
  return std::string(result);
}

struct Recorder {
  std::vector<std::string> files;
  std::vector<std::string> absent;
  llvm::StringSet<> seenFiles, seenAbsent;
  /// The device compile's in-memory wrapper, which is read but is no file.
  std::string wrapper;

  void file(llvm::StringRef p) {
    std::string n = normalize(p);
    if (n != wrapper && seenFiles.insert(n).second)
      files.push_back(std::move(n));
  }
  void missing(std::string p) {
    std::string n = normalize(p);
    if (seenAbsent.insert(n).second)
      absent.push_back(std::move(n));
  }
};

/// Records what each inclusion found and what it would have found first had it existed.
class IncludeRecorder : public clang::PPCallbacks {
public:
  IncludeRecorder(clang::SourceManager &sm, Recorder &out, std::vector<std::string> searchDirs)
      : sm(sm), out(out), searchDirs(std::move(searchDirs)) {}

  void FileChanged(clang::SourceLocation loc, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    if (reason != EnterFile)
      return;
    if (auto entry = sm.getFileEntryRefForID(sm.getFileID(sm.getExpansionLoc(loc))))
      out.file(entry->getName());
  }

  void InclusionDirective(clang::SourceLocation hashLoc, const clang::Token &, llvm::StringRef fileName,
                          bool isAngled, clang::CharSourceRange, clang::OptionalFileEntryRef file,
                          llvm::StringRef searchPath, llvm::StringRef, const clang::Module *, bool,
                          clang::SrcMgr::CharacteristicKind) override {
    lookedUp(hashLoc, fileName, isAngled, file, searchPath);
  }

  void HasInclude(clang::SourceLocation loc, llvm::StringRef fileName, bool isAngled,
                  clang::OptionalFileEntryRef file, clang::SrcMgr::CharacteristicKind) override {
    // The directory it was found in is not reported: every user directory counts as probed
    // before it, unless the file is in one of them.
    std::string foundDir;
    if (file) {
      out.file(file->getName());
      foundDir = foundDirectoryOf(file->getName(), fileName);
    }
    lookedUp(loc, fileName, isAngled, std::nullopt, foundDir);
  }

  void EmbedDirective(clang::SourceLocation loc, llvm::StringRef fileName, bool isAngled,
                      clang::OptionalFileEntryRef file, const clang::LexEmbedParametersResult &) override {
    if (file)
      out.file(file->getName());
    lookedUp(loc, fileName, isAngled, std::nullopt,
             file ? foundDirectoryOf(file->getName(), fileName) : std::string());
  }

private:
  /// "dir" for a file "dir/sub/x.h" found through the spelling "sub/x.h".
  static std::string foundDirectoryOf(llvm::StringRef found, llvm::StringRef spelled) {
    std::string n = normalize(found);
    llvm::StringRef rest(n);
    std::string suffix = "/" + normalize("/" + spelled.str()).substr(1);
    if (rest.consume_back(suffix))
      return rest.str();
    return std::string();
  }

  void lookedUp(clang::SourceLocation loc, llvm::StringRef fileName, bool isAngled,
                clang::OptionalFileEntryRef file, llvm::StringRef searchPath) {
    if (file)
      out.file(file->getName());
    if (path::is_absolute(fileName))
      return;
    // Quoted includes look next to the including file first (system headers' own neighbours
    // are not the user's to change); then the -I directories, in order.
    std::vector<std::string> candidates;
    if (!isAngled && sm.getFileCharacteristic(loc) == clang::SrcMgr::C_User)
      if (auto includer = sm.getFileEntryRefForID(sm.getFileID(sm.getExpansionLoc(loc))))
        candidates.push_back(normalize(path::parent_path(includer->getName())));
    candidates.insert(candidates.end(), searchDirs.begin(), searchDirs.end());
    const std::string found = searchPath.empty() ? std::string() : normalize(searchPath);
    for (const std::string &dir : candidates) {
      if (dir == found)
        break;
      llvm::SmallString<256> probe(dir);
      path::append(probe, fileName);
      out.missing(std::string(probe));
    }
  }

  clang::SourceManager &sm;
  Recorder &out;
  std::vector<std::string> searchDirs;
};

class ScanAction : public clang::PreprocessOnlyAction {
public:
  ScanAction(Recorder &out, std::vector<std::string> searchDirs)
      : out(out), searchDirs(std::move(searchDirs)) {}

protected:
  bool BeginSourceFileAction(clang::CompilerInstance &ci) override {
    ci.getPreprocessor().addPPCallbacks(
        std::make_unique<IncludeRecorder>(ci.getSourceManager(), out, searchDirs));
    return PreprocessOnlyAction::BeginSourceFileAction(ci);
  }

private:
  Recorder &out;
  std::vector<std::string> searchDirs;
};

/// Preprocesses with the given clang driver arguments (a compile's, with -fsyntax-only added)
/// on `vfs`; false when it reported errors.
bool preprocess(std::vector<std::string> args, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                Recorder &out, const std::vector<std::string> &searchDirs) {
  args.push_back("-fsyntax-only");
  std::vector<const char *> argv;
  for (const auto &a : args)
    argv.push_back(a.c_str());
  clang::DiagnosticOptions diagOpts;
  auto diags = clang::CompilerInstance::createDiagnostics(*vfs, diagOpts, new clang::IgnoringDiagConsumer());
  clang::CreateInvocationOptions ciOpts;
  ciOpts.Diags = diags;
  ciOpts.VFS = vfs;
  std::shared_ptr<clang::CompilerInvocation> invocation = clang::createInvocation(argv, ciOpts);
  if (!invocation)
    return false;
  clang::CompilerInstance ci(std::move(invocation));
  ci.setVirtualFileSystem(vfs);
  ci.createDiagnostics(new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  ScanAction action(out, searchDirs);
  return ci.ExecuteAction(action) && !ci.getDiagnostics().hasErrorOccurred();
}

} // namespace

llvm::Expected<Dependencies> oxcc::scanDependencies(const oxide::TranslationUnit &tu,
                                                    const oxide::Toolchain &tc) {
  std::vector<std::string> searchDirs = {normalize(tc.oxideIncludeDir)};
  for (const auto &dir : tu.opts.includeDirs)
    searchDirs.push_back(normalize(dir));

  Recorder out;
  out.file(tu.input);

  const oxide::CompileCommands commands = oxide::compileCommands(tu, tc);
  if (!preprocess(commands.host, llvm::vfs::getRealFileSystem(), out, searchDirs))
    return llvm::createStringError("the dependency scan of '" + tu.input + "' failed");

  out.wrapper = normalize(oxide::deviceWrapperPath(tu.input));
  for (const std::vector<std::string> &device : commands.device)
    if (!preprocess(device, oxide::deviceFileSystem(tu.input), out, searchDirs))
      return llvm::createStringError("the device dependency scan of '" + tu.input + "' failed");

  // The frontend may include any of Oxide's headers on its own (the device wrapper does).
  std::error_code ec;
  for (fs::recursive_directory_iterator it(tc.oxideIncludeDir + "/oxide", ec), end; it != end && !ec;
       it.increment(ec))
    if (it->type() == fs::file_type::regular_file)
      out.file(it->path());

  // A path that exists cannot be a missing candidate (e.g. probed, then found via another route).
  std::erase_if(out.absent, [&](const std::string &p) { return out.seenFiles.contains(p); });
  return Dependencies{std::move(out.files), std::move(out.absent)};
}
