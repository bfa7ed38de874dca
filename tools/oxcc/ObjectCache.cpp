//===- ObjectCache.cpp - reuse objects of unchanged translation units -----===//
//
// Two kinds of files, both named llvmcache-* so that llvm::pruneCache can trim the directory:
//
//   llvmcache-m-<key>  manifest: what the translation unit read the last time it was compiled
//                      with these options (each file's BLAKE3 hash, and the paths that must stay
//                      absent); <key> covers oxcc, the toolchain, the options and the source.
//   llvmcache-o-<key'> the object and the compile's diagnostics; <key'> covers <key> and the
//                      manifest, so it is found only while every file still hashes the same.
//
// A lookup reads the manifest, re-hashes the files it lists and checks the absent paths; a
// miss scans the dependencies first (so a file edited during the compile makes the next
// lookup miss), compiles, re-checks the manifest and stores both files atomically.
//
//===----------------------------------------------------------------------===//

#include "ObjectCache.h"
#include "Dependencies.h"

#include "oxide/compiler/Build.h"
#include "oxide/compiler/DiagnosticFormat.h"
#include "oxide/compiler/VerboseLog.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Token.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

constexpr llvm::StringLiteral kManifestMagic = "oxcc-manifest-1\n";
constexpr llvm::StringLiteral kEntryMagic = "OXCCOBJ1\n";
constexpr size_t kManifestVariants = 8;

std::string hashHex(llvm::StringRef bytes) {
  llvm::BLAKE3 hasher;
  hasher.update(bytes);
  auto digest = hasher.final<16>();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

/// A file's identity without reading it: enough for oxcc's own binary and the toolchain's.
std::string stamp(llvm::StringRef file) {
  fs::file_status status;
  if (file.empty() || fs::status(file, status))
    return "missing";
  return std::to_string(status.getSize()) + ":" +
         std::to_string(status.getLastModificationTime().time_since_epoch().count());
}

std::optional<std::string> readFile(llvm::StringRef p) {
  auto buffer = llvm::MemoryBuffer::getFile(p, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

} // namespace

std::string oxcc::cacheKeyMaterial(const oxide::TranslationUnit &tu, const oxide::Toolchain &tc,
                                   const oxide::CompileCommands &commands) {
  const oxide::CompileOptions &opts = tu.opts;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "oxcc-cache-1\noxide " << OXIDE_VERSION << " llvm " << LLVM_VERSION_STRING << "\n";
  os << "self " << tc.self << " " << stamp(tc.self) << "\n";
  os << "cuda " << tc.cudaPath << "\nptxas " << tc.ptxas << " " << stamp(tc.ptxas) << "\n";
  os << "libdevice " << tc.libdevice << " " << stamp(tc.libdevice) << "\n";
  os << "resource " << tc.clangResourceDir << "\nclang " << tc.clangDriver << " " << stamp(tc.clangDriver)
     << "\n";
  os << "include " << tc.oxideIncludeDir << "\n";
  llvm::SmallString<256> cwd;
  fs::current_path(cwd);
  os << "cwd " << cwd << "\ninput " << tu.input << "\n";
  for (const auto &arch : opts.targetArchs())
    os << "arch " << arch.name() << "\n";
  os << "O " << opts.optLevel << "\nstd " << opts.cxxStandard << "\nfast-math " << opts.fastMath << "\nfmad "
     << opts.fmad << "\ng " << opts.debug << "\nG " << opts.deviceDebug << "\nlineinfo " << opts.lineInfo
     << "\n";
  for (const auto &s : opts.sanitizers)
    os << "sanitize " << s << "\n";
  for (const auto &option : opts.ptxasOptions)
    os << "Xptxas " << option << "\n";
  os << "resource-usage " << opts.resourceUsage << "\noccupancy-step " << opts.occupancyStep << "\nfatbinary "
     << tc.fatbinary << " " << stamp(tc.fatbinary) << "\n";
  for (const auto &d : opts.includeDirs)
    os << "I " << d << "\n";
  for (const auto &d : opts.defines)
    os << "D " << d << "\n";
  for (const auto &prefix : opts.macroPrefixMap)
    os << "macro-prefix-map " << prefix.text() << "\n";
  for (const auto &prefix : opts.debugPrefixMap)
    os << "debug-prefix-map " << prefix.text() << "\n";
  // The compiles' own command lines: a flag the frontend adds or changes makes a new key.
  auto commandLine = [&](llvm::StringRef what, const std::vector<std::string> &args) {
    os << what;
    for (const std::string &arg : args)
      os << ' ' << arg;
    os << "\n";
  };
  commandLine("host", commands.host);
  for (const std::vector<std::string> &device : commands.device)
    commandLine("device", device);
  // The clang driver adds these to the include path on its own.
  for (const char *var : {"CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH"})
    if (auto value = llvm::sys::Process::GetEnv(var))
      os << "env " << var << "=" << *value << "\n";
  return s;
}

namespace {

/// What a compile can see of a source file: its tokens (kind, spelling, line and column), not
/// its comments or the spaces between tokens, so that an edit of a comment that moves no token is
/// a cache hit. Positions are part of it: they reach the object (assert messages, line tables,
/// diagnostics), so a comment that adds a line is a miss. The system's and the toolkit's
/// headers, which nobody edits, keep the cheaper hash of their bytes.
std::string fingerprint(llvm::StringRef path, llvm::StringRef contents) {
  if (path.starts_with("/usr/") || path.starts_with("/opt/") || contents.contains('\0'))
    return hashHex(contents);
  clang::LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CPlusPlus14 = lang.CPlusPlus17 = lang.CPlusPlus20 = true;
  lang.LineComment = true;
  lang.Digraphs = true;
  lang.Bool = true;
  clang::Lexer lexer(clang::SourceLocation(), lang, contents.begin(), contents.begin(), contents.end());
  lexer.SetCommentRetentionState(false);
  llvm::BLAKE3 hasher;
  unsigned line = 1;
  const char *lineStart = contents.begin(), *scanned = contents.begin();
  clang::Token token;
  do {
    lexer.LexFromRawLexer(token);
    const char *start = lexer.getBufferLocation() - token.getLength();
    for (; scanned < start; ++scanned)
      if (*scanned == '\n') {
        ++line;
        lineStart = scanned + 1;
      }
    const std::string record = std::to_string(token.getKind()) + ":" + std::to_string(line) + ":" +
                               std::to_string(start - lineStart) + ":";
    hasher.update(record);
    hasher.update(llvm::StringRef(start, token.getLength()));
  } while (token.isNot(clang::tok::eof));
  auto digest = hasher.final<16>();
  return "t" + llvm::toHex(digest, /*LowerCase=*/true);
}

/// The manifest text for these dependencies as they are now; nullopt if one cannot be read.
std::optional<std::string> makeManifest(const Dependencies &deps) {
  std::string s(kManifestMagic);
  for (const auto &file : deps.files) {
    if (file.find('\n') != std::string::npos)
      return std::nullopt;
    auto contents = readFile(file);
    if (!contents)
      return std::nullopt;
    s += "file " + fingerprint(file, *contents) + " " + file + "\n";
  }
  for (const auto &p : deps.absent) {
    if (p.find('\n') != std::string::npos)
      return std::nullopt;
    s += "absent " + p + "\n";
  }
  return s;
}

/// A manifest file's variants, each starting with kManifestMagic.
std::vector<std::string> splitVariants(llvm::StringRef text) {
  std::vector<std::string> variants;
  while (text.starts_with(kManifestMagic)) {
    size_t next = text.find(kManifestMagic, kManifestMagic.size());
    variants.push_back(text.substr(0, next).str());
    text = next == llvm::StringRef::npos ? llvm::StringRef() : text.drop_front(next);
  }
  return variants;
}

/// Whether the files of a stored manifest are unchanged; fills `deps` with them, or `why`
/// with the first difference.
bool manifestStillHolds(llvm::StringRef manifest, std::vector<std::string> &deps, std::string &why) {
  if (!manifest.consume_front(kManifestMagic)) {
    why = "unreadable manifest";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  manifest.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    if (line.consume_front("file ")) {
      auto [hash, file] = line.split(' ');
      auto contents = readFile(file);
      if (!contents || fingerprint(file, *contents) != hash) {
        why = (contents ? "'" + file + "' changed" : "'" + file + "' is gone").str();
        return false;
      }
      deps.push_back(file.str());
    } else if (line.consume_front("absent ")) {
      if (fs::exists(line)) {
        why = "'" + line.str() + "' appeared (it comes first in the include search)";
        return false;
      }
    } else {
      why = "unreadable manifest";
      return false;
    }
  }
  return true;
}

/// Stores a cache file atomically (see writeFileAtomically); a cache that cannot be written is
/// no error, the next build compiles again.
void storeAtomically(const std::string &target, llvm::StringRef bytes) {
  llvm::consumeError(oxide::writeFileAtomically(target, bytes));
}

// --- stderr capture: the compile's diagnostics are kept with its object -------------------

std::atomic<int> gSavedStderr{-1};
std::atomic<int> gCaptureFd{-1};

/// After a crash during a captured compile, put the stack trace and diagnostics back on the
/// real stderr (runs after LLVM's own handler has printed the stack trace into the capture).
void restoreStderrOnCrash(void *) {
  int saved = gSavedStderr.load();
  if (saved < 0)
    return;
  ::dup2(saved, STDERR_FILENO);
  int capture = gCaptureFd.load();
  if (capture < 0)
    return;
  char buffer[4096];
  ::lseek(capture, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(capture, buffer, sizeof buffer)) > 0;)
    if (::write(STDERR_FILENO, buffer, static_cast<size_t>(n)) < 0)
      break;
}

class StderrCapture {
public:
  StderrCapture() {
    static bool handlerInstalled = [] {
      llvm::sys::AddSignalHandler(restoreStderrOnCrash, nullptr);
      return true;
    }();
    (void)handlerInstalled;
    llvm::SmallString<128> p;
    if (fs::createTemporaryFile("oxcc-diagnostics", "txt", captureFd, p))
      return;
    fs::remove(p); // the descriptor keeps it alive; nothing is left behind on a crash
    llvm::errs().flush();
    savedFd = ::dup(STDERR_FILENO);
    if (savedFd < 0 || ::dup2(captureFd, STDERR_FILENO) < 0) {
      ::close(captureFd);
      captureFd = -1;
      return;
    }
    gCaptureFd = captureFd;
    gSavedStderr = savedFd;
    // -v's lines go to the real stderr, so they are never stored and replayed by a later hit.
    oxide::setVerboseLogDescriptor(savedFd);
  }
  ~StderrCapture() { (void)finish(); }

  bool active() const { return captureFd >= 0; }

  /// Restores stderr and returns what was written to it meanwhile.
  std::string finish() {
    if (captureFd < 0)
      return {};
    llvm::errs().flush();
    ::dup2(savedFd, STDERR_FILENO);
    oxide::setVerboseLogDescriptor(-1);
    gSavedStderr = -1;
    gCaptureFd = -1;
    ::close(savedFd);
    std::string text;
    ::lseek(captureFd, 0, SEEK_SET);
    char buffer[8192];
    for (ssize_t n; (n = ::read(captureFd, buffer, sizeof buffer)) > 0;)
      text.append(buffer, static_cast<size_t>(n));
    ::close(captureFd);
    captureFd = -1;
    return text;
  }

private:
  int savedFd = -1;
  int captureFd = -1;
};

/// Prints stored diagnostics; without colours on this stderr, their escape sequences go.
void replay(llvm::StringRef text) {
  if (text.empty())
    return;
  if (oxide::diagnosticColors()) {
    llvm::errs() << text;
    return;
  }
  std::string plain;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && (llvm::isDigit(text[j]) || text[j] == ';'))
        ++j;
      if (j < text.size() && text[j] == 'm') {
        i = j;
        continue;
      }
    }
    plain.push_back(text[i]);
  }
  llvm::errs() << plain;
}

/// The diagnostics without -v's command lines, which a cache hit does not run.
std::string withoutCommandLines(llvm::StringRef text) {
  std::string kept;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    if (line.starts_with("oxcc: host compile:") || line.starts_with("oxcc: device compile:") ||
        line.starts_with("oxcc: ptxas:") || line.starts_with(oxide::kLeavingOutNote))
      continue;
    kept += line.str() + "\n";
  }
  return kept;
}

void prune(const std::string &dir) {
  llvm::CachePruningPolicy policy;
  policy.Interval = std::chrono::hours(1);
  policy.Expiration = std::chrono::hours(24 * 30);
  policy.MaxSizeBytes = 2ull << 30;
  policy.MaxSizePercentageOfAvailableSpace = 20;
  llvm::pruneCache(dir, policy);
}

} // namespace

CacheConfig CacheConfig::fromEnvironment(bool noCacheFlag) {
  CacheConfig config;
  auto noCache = llvm::sys::Process::GetEnv("OXCC_NO_CACHE");
  config.enabled = !noCacheFlag && !(noCache && !noCache->empty() && *noCache != "0");
  if (auto dir = llvm::sys::Process::GetEnv("OXCC_CACHE_DIR"); dir && !dir->empty()) {
    config.dir = *dir;
  } else {
    llvm::SmallString<256> p;
    if (!path::cache_directory(p)) {
      config.enabled = false;
      return config;
    }
    path::append(p, "oxide", "objects");
    config.dir = std::string(p);
  }
  return config;
}

llvm::Expected<CompiledObject> oxcc::compileWithCache(const oxide::TranslationUnit &tu,
                                                      const oxide::Toolchain &tc, const CacheConfig &cache,
                                                      bool wantDependencies) {
  const oxide::CompileOptions &opts = tu.opts;
  CompiledObject result;
  auto plainCompile = [&]() -> llvm::Expected<CompiledObject> {
    if (wantDependencies) {
      auto deps = scanDependencies(tu, tc);
      if (!deps)
        llvm::consumeError(deps.takeError()); // the compile reports the real problem
      else
        result.dependencies = std::move(deps->files);
    }
    auto object = oxide::compileObject(tu, tc);
    if (!object)
      return object.takeError();
    result.bytes = std::move(*object);
    return std::move(result);
  };
  if (!cache.enabled || !opts.tempsDir.empty())
    return plainCompile();

  auto source = readFile(tu.input);
  if (!source)
    return plainCompile(); // the compile reports why it cannot be read
  const std::string primary = hashHex(cacheKeyMaterial(tu, tc, oxide::compileCommands(tu, tc)) + "\nsource " +
                                      fingerprint(tu.input, *source));
  llvm::SmallString<256> manifestPath(cache.dir);
  path::append(manifestPath, "llvmcache-m-" + primary);

  std::string why = "nothing cached for this source and these options";
  // The manifest file keeps the last few variants (e.g. two branches of a header), newest first.
  std::vector<std::string> variants;
  if (auto stored = readFile(manifestPath))
    variants = splitVariants(*stored);
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string &manifest = variants[i];
    std::vector<std::string> deps;
    std::string variantWhy;
    if (!manifestStillHolds(manifest, deps, variantWhy)) {
      if (i == 0)
        why = variantWhy;
      continue;
    }
    llvm::SmallString<256> entryPath(cache.dir);
    path::append(entryPath, "llvmcache-o-" + hashHex(primary + manifest));
    auto entry = readFile(entryPath);
    llvm::StringRef rest = entry ? llvm::StringRef(*entry) : llvm::StringRef();
    size_t diagSize = 0;
    if (!entry || !rest.consume_front(kEntryMagic) || rest.consumeInteger(10, diagSize) ||
        !rest.consume_front("\n") || rest.size() < diagSize) {
      why = "the object was pruned";
      continue;
    }
    if (opts.verbose)
      llvm::errs() << "oxcc: " << tu.input << ": reusing the cached object " << entryPath << "\n";
    replay(rest.take_front(diagSize));
    ::utimensat(AT_FDCWD, entryPath.c_str(), nullptr, 0); // recently used: pruned last
    result.bytes = rest.drop_front(diagSize).str();
    result.dependencies = std::move(deps);
    result.fromCache = true;
    return std::move(result);
  }

  // A miss: record what the compile will read before it reads it.
  if (opts.verbose)
    llvm::errs() << "oxcc: " << tu.input << ": compiling (cache miss: " << why << ")\n";
  auto deps = scanDependencies(tu, tc);
  if (!deps) {
    llvm::consumeError(deps.takeError());
    return plainCompile(); // not cacheable; the compile shows the errors
  }
  std::optional<std::string> manifest = makeManifest(*deps);
  result.dependencies = deps->files;

  StderrCapture capture;
  const bool captured = capture.active(); // without the diagnostics, a hit could not replay them
  auto object = oxide::compileObject(tu, tc);
  std::string diagnostics = capture.finish();
  replay(diagnostics);
  diagnostics = withoutCommandLines(diagnostics);
  if (!object)
    return object.takeError();
  result.bytes = std::move(*object);

  // Store only if nothing changed while compiling.
  if (manifest && captured && makeManifest(*deps) == manifest) {
    if (std::error_code ec = fs::create_directories(cache.dir)) {
      if (opts.verbose)
        llvm::errs() << "oxcc: cannot create the cache directory '" << cache.dir << "': " << ec.message()
                     << "\n";
      return std::move(result);
    }
    llvm::SmallString<256> entryPath(cache.dir);
    path::append(entryPath, "llvmcache-o-" + hashHex(primary + *manifest));
    std::string entry = kEntryMagic.str() + std::to_string(diagnostics.size()) + "\n" + diagnostics;
    entry += result.bytes;
    storeAtomically(std::string(entryPath), entry);
    std::string stored = *manifest;
    size_t kept = 1;
    for (const std::string &variant : variants)
      if (variant != *manifest && kept++ < kManifestVariants)
        stored += variant;
    storeAtomically(std::string(manifestPath), stored);
    prune(cache.dir);
  }
  return std::move(result);
}

std::string oxcc::describeCache(const CacheConfig &cache) {
  uint64_t bytes = 0, entries = 0;
  std::error_code ec;
  for (fs::directory_iterator it(cache.dir, ec), end; it != end && !ec; it.increment(ec)) {
    if (!path::filename(it->path()).starts_with("llvmcache-o-"))
      continue;
    fs::file_status status;
    if (!fs::status(it->path(), status)) {
      bytes += status.getSize();
      ++entries;
    }
  }
  std::string s;
  llvm::raw_string_ostream(s) << cache.dir << ": " << entries << " objects, "
                              << (bytes + 512 * 1024) / (1024 * 1024) << " MiB"
                              << (cache.enabled ? "" : " (caching is off)");
  return s;
}

llvm::Error oxcc::clearCache(const CacheConfig &cache) {
  std::error_code ec;
  for (fs::directory_iterator it(cache.dir, ec), end; it != end && !ec; it.increment(ec))
    if (path::filename(it->path()).starts_with("llvmcache"))
      if (std::error_code rm = fs::remove(it->path()))
        return llvm::createStringError("cannot remove '" + it->path() + "': " + rm.message());
  if (ec && ec != std::errc::no_such_file_or_directory)
    return llvm::createStringError("cannot read '" + cache.dir + "': " + ec.message());
  // The precompiled headers (compiler/frontend/PrecompiledHeader.h) live in pch/.
  llvm::SmallString<256> headers(cache.dir);
  path::append(headers, "pch");
  if (std::error_code rm = fs::remove_directories(headers))
    return llvm::createStringError("cannot remove '" + headers.str() + "': " + rm.message());
  return llvm::Error::success();
}
