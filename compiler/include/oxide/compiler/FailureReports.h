//===- FailureReports.h - a failed bounds check reports without a call --*- C++ -*-===//
#ifndef OXIDE_COMPILER_FAILUREREPORTS_H
#define OXIDE_COMPILER_FAILUREREPORTS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Replaces the calls to __oxide_bounds_failure with a report written in place: each failing
/// check's block sets its site (file, line and function, numbered in the module's table
/// kFailureSitesGlobal), index and size, and jumps to its function's one report block, which
/// claims the context's FailureRecord (oxide/detail/failure_record.hpp), writes it with the
/// block and thread, fences and traps. __oxide_bounds_failure and what only it used (vprintf,
/// its format strings) are then removed.
///
/// Until here the call is how the passes find checks (BoundsFailure.h), so this runs last,
/// after the audits. A call anywhere in a kernel, even on a path that never runs, makes ptxas
/// put a YIELD into the kernel's loops: the histograms' atomics loop ran 3 % behind nvcc's for
/// it. The record is host memory mapped into the device (the runtime sets kFailureRecordGlobal
/// when it loads the module), because the trap leaves the context unusable: nothing in device
/// memory could be read back.
struct WriteFailureReportsPass : llvm::PassInfoMixin<WriteFailureReportsPass> {
  llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);
  /// Correctness, not optimisation: runs at -O0 too.
  static bool isRequired() { return true; }
};

/// WriteFailureReportsPass on `module` (generatePtx, after the audits).
void writeFailureReports(llvm::Module &module);

} // namespace oxide

#endif
