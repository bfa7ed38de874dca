//===- ObjectCache.h - reuse objects of unchanged translation units -*- C++ -*-===//
#ifndef OXIDE_OXCC_OBJECTCACHE_H
#define OXIDE_OXCC_OBJECTCACHE_H

#include "oxide/compiler/Build.h"
#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"

#include <string>
#include <vector>

namespace oxcc {

/// Where compiled objects are kept: $OXCC_CACHE_DIR, else $XDG_CACHE_HOME/oxide/objects, else
/// ~/.cache/oxide/objects. Disabled by --no-cache or OXCC_NO_CACHE=1 (any value but 0/empty).
struct CacheConfig {
  bool enabled = false;
  std::string dir;
  static CacheConfig fromEnvironment(bool noCacheFlag);
};

/// One translation unit's object (host code with its embedded device image).
struct CompiledObject {
  std::string bytes;
  /// Every file the compiles read (main file first); filled when asked for or from the cache.
  std::vector<std::string> dependencies;
  bool fromCache = false;
};

/// Compiles `tu` with oxide::compileObject, or returns the object a previous compile
/// stored for the same inputs. The key covers oxcc itself (version and binary), the toolchain
/// it found (clang, CUDA, ptxas, libdevice), every option that reaches the compile, the working
/// directory, the contents of the source and of every file it includes, and the absence of
/// files that would shadow an included header; the diagnostics of the compile are stored and
/// printed again on a hit. A translation unit whose compile failed is never stored.
/// `wantDependencies` fills CompiledObject::dependencies even with the cache off.
llvm::Expected<CompiledObject> compileWithCache(const oxide::TranslationUnit &tu, const oxide::Toolchain &tc,
                                                const CacheConfig &cache, bool wantDependencies);

/// Everything besides file contents that decides what compileObject produces for `tu`, whose
/// clang command lines are `commands` (oxide::compileCommands): the cache key before the source
/// and the files it reads are hashed in.
std::string cacheKeyMaterial(const oxide::TranslationUnit &tu, const oxide::Toolchain &tc,
                             const oxide::CompileCommands &commands);

/// The cache directory's size and number of entries, or removes them all (`oxcc cache`).
std::string describeCache(const CacheConfig &cache);
llvm::Error clearCache(const CacheConfig &cache);

} // namespace oxcc

#endif
