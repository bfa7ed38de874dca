//===- Toolchain.h - where oxcc finds its tools and libraries ---*- C++ -*-===//
#ifndef OXIDE_COMPILER_TOOLCHAIN_H
#define OXIDE_COMPILER_TOOLCHAIN_H

#include "llvm/Support/Error.h"

#include <string>

namespace oxide {

/// Paths to everything outside oxcc that a build needs. An installed oxcc finds the oxide
/// headers and runtime next to itself (bin/../include, bin/../lib); a build-tree oxcc uses the
/// source and build directories it was configured with.
struct Toolchain {
  std::string cudaPath; ///< CUDA toolkit root ($OXIDE_CUDA_PATH or the configured one)
  std::string ptxas;    ///< empty when ptxas is not available: PTX-only images
  /// The toolkit's `fatbinary` ($OXIDE_FATBINARY): packs the code objects into the standard
  /// CUDA fatbinary NVIDIA's tools read. Empty without it (code objects inside Oxide's image).
  std::string fatbinary;
  std::string libdevice;        ///< libdevice.10.bc
  std::string clangResourceDir; ///< clang's builtin headers (cuda wrappers, stddef.h...)
  std::string clangDriver;      ///< clang++ used as the link driver
  /// LLVM's linker (lld-22), which clang++ then links with: two to three times faster than the
  /// system's ld on an Oxide executable. Empty without it (the system linker).
  std::string lld;
  std::string oxideIncludeDir; ///< include/ holding oxide/oxide.hpp
  std::string runtimeLibrary;  ///< liboxide_runtime.a
  /// liboxide_cub.a (oxide::cub, include/oxide/cub.hpp) and the CUDA runtime it launches
  /// through (the toolkit's libcudart_static.a): linked before the runtime, so that only a
  /// program that calls oxide::cub takes them in. Empty where either is missing.
  std::string cubLibrary;
  std::string cudaRuntimeStatic;
  /// compiler-rt's builtins archive: conversions libgcc 12 lacks (float <-> bfloat16). Empty
  /// when clang's resource directory has none.
  std::string builtinsLibrary;

  /// oxcc's own executable and the prefix it was installed into (bin/..); `installed` is true
  /// when that prefix holds Oxide's headers and runtime, false for a build-tree oxcc.
  std::string self;
  std::string prefix;
  bool installed = false;

  /// Locates everything; `argv0` is oxcc's own path. Fails with a message naming what is
  /// missing and how to provide it.
  static llvm::Expected<Toolchain> discover(const char *argv0);

  /// Looks everything up without failing: what is missing is left empty (or, for paths that
  /// must exist, set to where it was expected). `oxcc doctor` reports on each part.
  static Toolchain locate(const char *argv0);

  /// The first missing required part, as an error naming it and how to provide it.
  llvm::Error validate() const;
};

} // namespace oxide

#endif
