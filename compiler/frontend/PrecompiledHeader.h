//===- PrecompiledHeader.h - Oxide's headers, parsed once -------*- C++ -*-===//
//
// Most of a compile's time is parsing: Oxide's headers and the standard library behind them,
// and in the device compile clang's CUDA wrappers too. Both compiles of a file that mentions
// kernels therefore start from a precompiled header of that prefix, built on first use for
// each distinct compile (flags, architecture) and kept in the cache directory.
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_COMPILER_FRONTEND_PRECOMPILEDHEADER_H
#define OXIDE_COMPILER_FRONTEND_PRECOMPILEDHEADER_H

#include "oxide/compiler/ArchDependence.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace oxide {

/// What to precompile for one kind of compile.
struct PrecompiledPrefix {
  std::string directory;  ///< where the headers and their sources are kept
  std::string text;       ///< the prefix: what the compile's main file would include first
  std::string includeDir; ///< holds oxide/, whose files are part of the key
  /// An AST consumer that must also see the prefix's declarations (may be empty).
  std::function<std::unique_ptr<clang::ASTConsumer>()> extraConsumer;
};

/// The precompiled header of `prefix` for compiles run as `invocation` (whose command line is
/// `argv`, the input last), built now if this is the first such compile; empty if it cannot be
/// built, and the compile then parses the headers itself. The key covers the command line, the
/// prefix, the files of Oxide's include directory and the compiler binary.
std::string findOrBuildPrecompiledHeader(const clang::CompilerInvocation &invocation,
                                         llvm::ArrayRef<const char *> argv, const PrecompiledPrefix &prefix,
                                         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs, bool verbose,
                                         llvm::raw_ostream &log);

/// Where preprocessing `prefix` in compiles run as `invocation` (command line `argv`) sees the
/// architecture, kept beside its precompiled header (under the same key); nullopt if the
/// prefix cannot be preprocessed. A compile that starts from the precompiled header does not
/// preprocess the prefix again: this is its record of that part. `invocation` is made only
/// when the record is not kept yet.
std::optional<ArchDependence>
prefixArchDependence(llvm::function_ref<std::shared_ptr<clang::CompilerInvocation>()> invocation,
                     llvm::ArrayRef<const char *> argv, const PrecompiledPrefix &prefix,
                     llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs);

} // namespace oxide

#endif // OXIDE_COMPILER_FRONTEND_PRECOMPILEDHEADER_H
