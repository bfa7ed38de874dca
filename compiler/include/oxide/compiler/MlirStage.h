//===- MlirStage.h - device IR through the oxide dialect --------*- C++ -*-===//
#ifndef OXIDE_COMPILER_MLIRSTAGE_H
#define OXIDE_COMPILER_MLIRSTAGE_H

#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace oxide {

/// Imports clang's device IR into MLIR, raises the __oxide_* intrinsics into the oxide dialect,
/// runs its checks, lowers it to NVVM and translates back to LLVM IR in `ctx`. When `dumpRaised`
/// is set, the module is printed there right after raising (what `--emit=mlir` shows).
/// Diagnostics carry source locations and are printed; failure is a ReportedError.
llvm::Expected<std::unique_ptr<llvm::Module>> runMlirStage(std::unique_ptr<llvm::Module> device,
                                                           llvm::LLVMContext &ctx,
                                                           llvm::raw_ostream *dumpRaised = nullptr);

} // namespace oxide

#endif
