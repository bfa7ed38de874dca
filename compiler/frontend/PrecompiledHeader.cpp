//===- PrecompiledHeader.cpp - Oxide's headers, parsed once ---------------===//

#include "PrecompiledHeader.h"

#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <vector>

using namespace oxide;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// A file's identity for the key: its path, size and modification time.
void describeFile(llvm::raw_ostream &os, llvm::StringRef file) {
  fs::file_status status;
  if (fs::status(file, status))
    os << file << " missing\n";
  else
    os << file << ' ' << status.getSize() << ' '
       << status.getLastModificationTime().time_since_epoch().count() << '\n';
}

/// Everything a precompiled header depends on besides the system headers: the command line
/// without the input, the prefix, clang, this compiler's binary (its attribute plugins shape
/// the AST) and every file of Oxide's headers.
std::string keyMaterial(llvm::ArrayRef<const char *> argv, const PrecompiledPrefix &prefix) {
  std::string material;
  llvm::raw_string_ostream os(material);
  for (const char *arg : argv.drop_back())
    os << arg << '\n';
  os << "prefix\n" << prefix.text << "\nclang " << clang::getClangFullVersion() << '\n';
  static int anchor;
  describeFile(os, fs::getMainExecutable(nullptr, &anchor));
  std::vector<std::string> files;
  std::error_code ec;
  llvm::SmallString<256> oxideHeaders(prefix.includeDir);
  path::append(oxideHeaders, "oxide"); // not its siblings: an install may share /usr/local/include
  for (fs::recursive_directory_iterator it(oxideHeaders, ec), end; it != end && !ec; it.increment(ec))
    if (it->type() == fs::file_type::regular_file)
      files.push_back(it->path());
  llvm::sort(files); // directory order is not stable
  for (const auto &file : files)
    describeFile(os, file);
  return material;
}

/// Clang's PCH generation, with the compile's extra AST consumer (lambda numbering) seeing the
/// prefix as it would have in the compile itself.
class GeneratePrefixPCH : public clang::GeneratePCHAction {
public:
  explicit GeneratePrefixPCH(const PrecompiledPrefix &prefix) : prefix(prefix) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                        llvm::StringRef file) override {
    auto writer = GeneratePCHAction::CreateASTConsumer(ci, file);
    if (!writer || !prefix.extraConsumer)
      return writer;
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(prefix.extraConsumer());
    consumers.push_back(std::move(writer));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

private:
  const PrecompiledPrefix &prefix;
};

/// Keeps the directory to the kMaxHeaders most recently built headers (each is 10-20 MB; a
/// new oxcc, new flags or a new architecture make new ones).
constexpr size_t kMaxHeaders = 24;
void pruneOldHeaders(llvm::StringRef directory) {
  std::vector<std::pair<llvm::sys::TimePoint<>, std::string>> headers;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; it != end && !ec; it.increment(ec)) {
    fs::file_status status;
    if (path::extension(it->path()) == ".pch" && !fs::status(it->path(), status))
      headers.push_back({status.getLastModificationTime(), it->path()});
  }
  if (headers.size() <= kMaxHeaders)
    return;
  llvm::sort(headers, [](const auto &a, const auto &b) { return a.first > b.first; });
  for (size_t i = kMaxHeaders; i < headers.size(); ++i) {
    llvm::SmallString<256> source(headers[i].second);
    path::replace_extension(source, ".h");
    fs::remove(headers[i].second);
    fs::remove(source);
  }
}

} // namespace

std::string oxide::findOrBuildPrecompiledHeader(const clang::CompilerInvocation &invocation,
                                                llvm::ArrayRef<const char *> argv,
                                                const PrecompiledPrefix &prefix,
                                                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                                                bool verbose, llvm::raw_ostream &log) {
  const std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(llvm::arrayRefFromStringRef(keyMaterial(argv, prefix)));
  const std::string key = llvm::toHex(llvm::ArrayRef<uint8_t>(digest).take_front(12), /*LowerCase=*/true);
  llvm::SmallString<256> pch(prefix.directory), source(prefix.directory);
  path::append(pch, key + ".pch");
  path::append(source, key + ".h");
  if (fs::exists(pch) && fs::exists(source))
    return std::string(pch);

  // Built under a unique name and renamed into place: compiles running at the same time (the
  // architectures of one build, or other oxcc processes) never see a partial file.
  if (fs::create_directories(prefix.directory))
    return {};
  if (!fs::exists(source)) {
    llvm::SmallString<256> tempSource;
    int fd;
    if (fs::createUniqueFile(source + ".tmp-%%%%%%%%", fd, tempSource))
      return {};
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << prefix.text;
    }
    // A link, unlike a rename, never replaces a source another process wrote meanwhile: its
    // header may already record that file's time stamp, which clang checks when loading it.
    const std::error_code linked = fs::create_hard_link(tempSource, source);
    fs::remove(tempSource);
    if (linked && !fs::exists(source))
      return {};
  }
  llvm::SmallString<256> tempPch;
  fs::createUniquePath(pch + ".tmp-%%%%%%%%", tempPch, /*MakeAbsolute=*/false);

  auto generation = std::make_shared<clang::CompilerInvocation>(invocation);
  clang::FrontendOptions &frontend = generation->getFrontendOpts();
  const clang::InputKind kind =
      frontend.Inputs.empty() ? clang::InputKind(clang::Language::CXX) : frontend.Inputs.front().getKind();
  frontend.Inputs = {clang::FrontendInputFile(source, kind.getHeader())};
  frontend.OutputFile = std::string(tempPch);
  frontend.ProgramAction = clang::frontend::GeneratePCH;
  generation->getPreprocessorOpts().ImplicitPCHInclude.clear();
  // The compile that follows reports any problem in the headers, with its usual context.
  generation->getDiagnosticOpts().ShowColors = false;
  clang::CompilerInstance ci(std::move(generation));
  ci.setVirtualFileSystem(vfs);
  ci.createDiagnostics(new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  GeneratePrefixPCH action(prefix);
  const bool built = ci.ExecuteAction(action) && !ci.getDiagnostics().hasErrorOccurred();
  if (!built || fs::rename(tempPch, pch)) {
    fs::remove(tempPch);
    return {};
  }
  pruneOldHeaders(prefix.directory);
  if (verbose)
    log << "oxcc: precompiled the headers into " << pch << '\n';
  return std::string(pch);
}
