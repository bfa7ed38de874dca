//===- Build.h - translation units into objects and executables -*- C++ -*-===//
#ifndef OXIDE_COMPILER_BUILD_H
#define OXIDE_COMPILER_BUILD_H

#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace oxide {

/// Compiles the translation unit `tu` (host and device, one device compile per architecture
/// of its options' targetArchs()) into a relocatable x86-64 object that embeds its device
/// image and registers it at start-up. A file without kernels skips the device compile.
/// With `opts.tempsDir` set, the intermediate files are written there too.
llvm::Expected<std::string> compileObject(const TranslationUnit &tu, const Toolchain &tc);

/// The clang command lines compileObject runs for `tu`: the host compile's, then one
/// per device architecture it builds (hostCompileArgs and deviceCompileArgs of Frontend.h).
/// The dependency scan and the object cache's key take them from here.
struct CompileCommands {
  std::vector<std::string> host;
  std::vector<std::vector<std::string>> device;
};
CompileCommands compileCommands(const TranslationUnit &tu, const Toolchain &tc);

/// Runs both frontends and the oxide dialect's checks on `tu`, with one device compile (the
/// first --arch, else sm_90) whose kernels' requirements are checked against every --arch; no
/// code is generated beyond the checks. Its options' `emit` is EmitStage::Check. With
/// `unsafeReport`, prints the file's unsafe surface to stdout once its host compile passes.
llvm::Error checkTranslationUnit(const TranslationUnit &tu, const Toolchain &tc);

/// Writes the device stage `emit` (LLVM, MLIR, PTX or Cubin) of `tu` to `output` ("-" or
/// empty: stdout). Needs a single --arch; without one, sm_90.
llvm::Error emitDeviceStage(const TranslationUnit &tu, const Toolchain &tc);

/// The start of the -v note that names the default architectures a translation unit leaves out
/// (a kernel needs a newer GPU): "oxcc: note: leaving out sm_80, sm_86 (of the default
/// architectures) for FILE: kernel 'k' uses ..., which needs sm_90 or newer".
inline constexpr llvm::StringLiteral kLeavingOutNote = "oxcc: note: leaving out ";

/// Links `objects` and `opts.linkInputs` with the Oxide runtime into `opts.output`.
llvm::Error linkExecutable(llvm::ArrayRef<std::string> objects, const CompileOptions &opts,
                           const Toolchain &tc);

/// Writes `bytes` to `path` through a temporary file and a rename, so that parallel compiles
/// and other processes never see a partial file.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef bytes);

/// Fails with a clear message when `path` cannot be created or replaced (missing or read-only
/// directory, an existing directory of that name).
llvm::Error checkWritableOutput(llvm::StringRef path);

} // namespace oxide

#endif
