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
#include "llvm/Support/MemoryBuffer.h"
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
/// new oxcc, new flags or a new architecture make new ones) and kMaxRecords architecture
/// records (small, one per architecture of a build; see prefixArchDependence).
constexpr size_t kMaxHeaders = 24, kMaxRecords = 96;
void pruneOldFiles(llvm::StringRef directory, llvm::StringRef extension, size_t keep) {
  std::vector<std::pair<llvm::sys::TimePoint<>, std::string>> files;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; it != end && !ec; it.increment(ec)) {
    fs::file_status status;
    if (path::extension(it->path()) == extension && !fs::status(it->path(), status))
      files.push_back({status.getLastModificationTime(), it->path()});
  }
  if (files.size() <= keep)
    return;
  llvm::sort(files, [](const auto &a, const auto &b) { return a.first > b.first; });
  for (size_t i = keep; i < files.size(); ++i) {
    fs::remove(files[i].second);
    // The prefix's source goes with its header, or with a record that has no header.
    llvm::SmallString<256> source(files[i].second), header(files[i].second);
    path::replace_extension(source, ".h");
    path::replace_extension(header, ".pch");
    if (!fs::exists(header))
      fs::remove(source);
  }
}
void pruneOldHeaders(llvm::StringRef directory) {
  pruneOldFiles(directory, ".pch", kMaxHeaders);
  pruneOldFiles(directory, ".arch", kMaxRecords);
}

/// The cache key of `prefix` in compiles run as `argv`.
std::string keyOf(llvm::ArrayRef<const char *> argv, const PrecompiledPrefix &prefix) {
  const std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(llvm::arrayRefFromStringRef(keyMaterial(argv, prefix)));
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest).take_front(12), /*LowerCase=*/true);
}

/// Writes the prefix's text to `source` unless it is there; false if it cannot.
bool ensurePrefixSource(const PrecompiledPrefix &prefix, llvm::StringRef source) {
  if (fs::exists(source))
    return true;
  if (fs::create_directories(prefix.directory))
    return false;
  llvm::SmallString<256> tempSource;
  int fd;
  if (fs::createUniqueFile(source + ".tmp-%%%%%%%%", fd, tempSource))
    return false;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << prefix.text;
  }
  // A link, unlike a rename, never replaces a source another process wrote meanwhile: its
  // header may already record that file's time stamp, which clang checks when loading it.
  const std::error_code linked = fs::create_hard_link(tempSource, source);
  fs::remove(tempSource);
  return !linked || fs::exists(source);
}

/// A compile of the prefix's source alone, as `invocation` but for `action`.
std::shared_ptr<clang::CompilerInvocation> prefixInvocation(const clang::CompilerInvocation &invocation,
                                                            llvm::StringRef source,
                                                            clang::frontend::ActionKind action) {
  auto result = std::make_shared<clang::CompilerInvocation>(invocation);
  clang::FrontendOptions &frontend = result->getFrontendOpts();
  const clang::InputKind kind =
      frontend.Inputs.empty() ? clang::InputKind(clang::Language::CXX) : frontend.Inputs.front().getKind();
  frontend.Inputs = {clang::FrontendInputFile(source, kind.getHeader())};
  frontend.ProgramAction = action;
  result->getPreprocessorOpts().ImplicitPCHInclude.clear();
  result->getDiagnosticOpts().ShowColors = false;
  return result;
}

/// Preprocessing only, with the architecture recorded.
class RecordArchDependence : public clang::PreprocessOnlyAction {
public:
  explicit RecordArchDependence(ArchDependence &record) : record(record) {}

protected:
  bool BeginSourceFileAction(clang::CompilerInstance &ci) override {
    ci.getPreprocessor().addPPCallbacks(record.watch(ci.getPreprocessor(), /*sites=*/true));
    return PreprocessOnlyAction::BeginSourceFileAction(ci);
  }

private:
  ArchDependence &record;
};

} // namespace

std::optional<ArchDependence>
oxide::prefixArchDependence(llvm::function_ref<std::shared_ptr<clang::CompilerInvocation>()> invocation,
                            llvm::ArrayRef<const char *> argv, const PrecompiledPrefix &prefix,
                            llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs) {
  const std::string key = keyOf(argv, prefix);
  llvm::SmallString<256> cached(prefix.directory), source(prefix.directory);
  path::append(cached, key + ".arch");
  path::append(source, key + ".h");
  if (auto buffer = llvm::MemoryBuffer::getFile(cached))
    if (auto record = ArchDependence::deserialize((*buffer)->getBuffer()))
      return record;
  const std::shared_ptr<clang::CompilerInvocation> compile = invocation();
  if (!compile || !ensurePrefixSource(prefix, source))
    return std::nullopt;
  clang::CompilerInstance ci(prefixInvocation(*compile, source, clang::frontend::RunPreprocessorOnly));
  ci.setVirtualFileSystem(vfs);
  ci.createDiagnostics(new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  ArchDependence record;
  RecordArchDependence action(record);
  if (!ci.ExecuteAction(action) || ci.getDiagnostics().hasErrorOccurred())
    return std::nullopt;
  // Under a unique name and renamed into place, as the headers are; a record that cannot be
  // kept is computed again next time.
  llvm::SmallString<256> temp;
  int fd;
  if (!fs::createUniqueFile(cached + ".tmp-%%%%%%%%", fd, temp)) {
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << record.serialize();
    }
    if (fs::rename(temp, cached))
      fs::remove(temp);
  }
  pruneOldHeaders(prefix.directory);
  return record;
}

std::string oxide::findOrBuildPrecompiledHeader(const clang::CompilerInvocation &invocation,
                                                llvm::ArrayRef<const char *> argv,
                                                const PrecompiledPrefix &prefix,
                                                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                                                bool verbose, llvm::raw_ostream &log) {
  const std::string key = keyOf(argv, prefix);
  llvm::SmallString<256> pch(prefix.directory), source(prefix.directory);
  path::append(pch, key + ".pch");
  path::append(source, key + ".h");
  if (fs::exists(pch) && fs::exists(source))
    return std::string(pch);

  // Built under a unique name and renamed into place: compiles running at the same time (the
  // architectures of one build, or other oxcc processes) never see a partial file.
  if (!ensurePrefixSource(prefix, source))
    return {};
  llvm::SmallString<256> tempPch;
  fs::createUniquePath(pch + ".tmp-%%%%%%%%", tempPch, /*MakeAbsolute=*/false);

  auto generation = prefixInvocation(invocation, source, clang::frontend::GeneratePCH);
  generation->getFrontendOpts().OutputFile = std::string(tempPch);
  // The templates the headers' own inline functions use are instantiated once, here, and not
  // again at the end of every compile that includes them (clang++ -x c++-header does the same).
  generation->getLangOpts().PCHInstantiateTemplates = true;
  // The compile that follows reports any problem in the headers, with its usual context.
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
