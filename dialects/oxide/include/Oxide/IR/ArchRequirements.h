//===- ArchRequirements.h - what kernels need of the GPU --------*- C++ -*-===//
//
// Some of what a kernel may do exists only on newer GPUs: thread-block clusters and distributed
// shared memory (sm_90), one-instruction warp reductions (sm_80), or a launch contract's
// min_compute_capability. Some exist on one architecture only: warpgroup MMA and setmaxnreg are
// sm_90a features, which code compiled for sm_90a has, and which no later GPU runs (sm_90a code
// loads on compute capability 9.0 alone). The NVPTX back end cannot compile those for an older target (it
// aborts), so the driver asks here first, on the checked oxide dialect.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_ARCHREQUIREMENTS_H
#define OXIDE_ARCHREQUIREMENTS_H

#include "Oxide/IR/ArchNeed.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace oxide {

/// The newest GPU architecture a kernel needs and the first thing found that needs it.
struct ArchRequirement {
  mlir::LLVM::LLVMFuncOp kernel;
  unsigned minArch = 0; ///< compute capability * 10 + minor: 90 = sm_90
  /// Whether it needs minArch's architecture-specific features ("sm_90a"): then only code
  /// compiled for that "a" target has it, and no other architecture can run the kernel.
  bool archSpecific = false;
  /// What needs it, to follow "kernel 'k' ": e.g. "uses distributed shared memory
  /// (oxide::cluster::map_shared)".
  std::string feature;
  /// Where: the user's line that uses the feature, or the kernel for a launch-contract field.
  mlir::Location where;
};

/// For each kernel of `module` (the oxide dialect after oxide-verify-safety) that needs more than
/// sm_70 (what every architecture Oxide compiles for has), the newest architecture anything it
/// does, or any function it reaches, needs; an architecture-specific need (sm_90a) outranks
/// the plain need of the same architecture.
llvm::SmallVector<ArchRequirement> collectArchRequirements(mlir::ModuleOp module);

/// The PTX target name of a requirement's architecture: "sm_90", or "sm_90a" when it is
/// architecture-specific.
std::string requiredTargetName(const ArchRequirement &requirement);

/// What `op` needs of the GPU, as it states through OxideTargetRequirementOpInterface (an op
/// that does not implement it runs everywhere).
ArchNeed archNeed(mlir::Operation *op);

/// Whether `op` needs its kernel launched in thread-block clusters (Oxide_NeedsCluster, or what
/// it states through OxideTargetRequirementOpInterface).
bool needsClusterLaunch(mlir::Operation *op);

/// Functions reachable from `root` through direct calls, `root` included.
llvm::SmallVector<mlir::LLVM::LLVMFuncOp> reachableFunctions(mlir::LLVM::LLVMFuncOp root,
                                                             mlir::SymbolTable &symbols);

} // namespace oxide

#endif
