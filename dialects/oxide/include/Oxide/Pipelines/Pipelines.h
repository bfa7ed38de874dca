//===- Pipelines.h - the oxide pass pipeline --------------------*- C++ -*-===//
//
// The one definition of the passes a device module goes through, and in which order. oxcc runs
// the two halves with the architecture check between them; oxide-opt registers the whole as
// `oxide-pipeline` (and the halves as `oxide-check-pipeline` / `oxide-lower-pipeline`).
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_PIPELINES_PIPELINES_H
#define OXIDE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace oxide {

/// Raising and the safety model's checks: the oxide dialect as the user's code produced it.
void buildOxideCheckPipeline(mlir::OpPassManager &pm);

/// From the checked oxide dialect to LLVM + NVVM.
void buildOxideLowerPipeline(mlir::OpPassManager &pm);

/// Both, in order.
void buildOxidePipeline(mlir::OpPassManager &pm);

/// Registers every oxide pass and the three pipelines with MLIR's pass registry.
void registerOxidePassesAndPipelines();

} // namespace oxide

#endif // OXIDE_PIPELINES_PIPELINES_H
