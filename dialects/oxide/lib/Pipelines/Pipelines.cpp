//===- Pipelines.cpp - the oxide pass pipeline ----------------------------===//

#include "Oxide/Pipelines/Pipelines.h"

#include "Oxide/Conversion/Passes.h"
#include "Oxide/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassRegistry.h"

void oxide::buildOxideCheckPipeline(mlir::OpPassManager &pm) {
  pm.addPass(createOxideRaise());
  pm.addPass(createOxideVerifySafety());
}

void oxide::buildOxideLowerPipeline(mlir::OpPassManager &pm) {
  pm.addPass(createOxideGuardElementAccesses());
  pm.addPass(createOxideOptimize());
  pm.addPass(createOxideToNVVM());
}

void oxide::buildOxidePipeline(mlir::OpPassManager &pm) {
  buildOxideCheckPipeline(pm);
  buildOxideLowerPipeline(pm);
}

void oxide::registerOxidePassesAndPipelines() {
  registerOxideTransformsPasses();
  registerOxideConversionPasses();
  mlir::PassPipelineRegistration<>(
      "oxide-pipeline", "The whole device pipeline of oxcc: raise, verify, optimise, lower to NVVM",
      buildOxidePipeline);
  mlir::PassPipelineRegistration<>("oxide-check-pipeline",
                                   "oxcc's checking half: raise the intrinsics and verify the safety model",
                                   buildOxideCheckPipeline);
  mlir::PassPipelineRegistration<>("oxide-lower-pipeline",
                                   "oxcc's lowering half: contract facts into code, then the NVVM dialect",
                                   buildOxideLowerPipeline);
}
