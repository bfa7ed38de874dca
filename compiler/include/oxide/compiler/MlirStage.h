//===- MlirStage.h - device IR through the oxide dialect --------*- C++ -*-===//
#ifndef OXIDE_COMPILER_MLIRSTAGE_H
#define OXIDE_COMPILER_MLIRSTAGE_H

#include "Oxide/IR/SourcePaths.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace oxide {

/// The passes of the MLIR stage, in the order they run (their command-line names, e.g.
/// "oxide-raise"): what `--emit=mlir-after=PASS` accepts.
std::vector<std::string> mlirPassNames();

/// The pass after which `--emit=mlir` (and --save-temps' NAME.sm_XX.mlir) print the module.
inline constexpr const char *kDefaultMlirPrintPass = "oxide-verify-safety";

/// Where the module is printed: after the pass named `pass` (one of mlirPassNames()).
struct MlirPrint {
  std::string pass;
  llvm::raw_ostream *out = nullptr;
};

struct MlirStageOptions {
  /// Print the module after these passes (through a pass instrumentation, so exactly what the
  /// next pass receives).
  std::vector<MlirPrint> printAfter;
  /// Where diagnostics go; null means stderr. Colours follow stderr's.
  llvm::raw_ostream *diagnostics = nullptr;
  /// The GPU architecture the module is compiled for (compute capability * 10 + minor; 0: no
  /// check) and how the user wrote it ("sm_80", "compute_80"), for messages.
  unsigned arch = 0;
  std::string archName;
  /// Whether the user chose `arch` (--arch). A kernel that needs a newer GPU is then an error at
  /// the kernel; otherwise the stage fails with an UnsupportedArchError (nothing printed), and
  /// the driver leaves the architecture out.
  bool archChosen = true;
  /// Further architectures the user chose, whose requirements the kernels are checked against
  /// without compiling for them (`oxcc check` compiles one architecture): number and name.
  std::vector<std::pair<unsigned, std::string>> alsoCheckArchs;
  /// Stop after the checks (`oxcc check`): no lowering, no LLVM IR; the stage returns null.
  bool checksOnly = false;
  /// Set (when given) if a kernel needs the architecture-specific features of `arch` (wgmma,
  /// setmaxnreg: sm_90a): the module must then be compiled for the "a" target, whose code runs
  /// on that compute capability only.
  bool *archSpecific = nullptr;
  /// -fmacro-prefix-map: the files that the kernels' reports name (a failed assert, a bounds
  /// failure) are written with these prefixes replaced; diagnostics keep the paths as given.
  std::vector<PathPrefix> macroPrefixMap;
};

/// Imports clang's device IR into MLIR, raises the __oxide_* intrinsics into the oxide dialect,
/// runs its checks (including that every kernel can run on `options.arch`), lowers it to NVVM
/// and translates back to LLVM IR in `ctx`.
/// Diagnostics carry source locations and are printed; failure is a ReportedError, or an
/// UnsupportedArchError (see MlirStageOptions::archChosen).
llvm::Expected<std::unique_ptr<llvm::Module>> runMlirStage(std::unique_ptr<llvm::Module> device,
                                                           llvm::LLVMContext &ctx,
                                                           const MlirStageOptions &options = {});

} // namespace oxide

#endif
