//===- LLVMPasses.cpp - Oxide's LLVM IR passes by name --------------------===//

#include "oxide/compiler/LLVMPasses.h"
#include "oxide/compiler/ColumnLoops.h"
#include "oxide/compiler/DebugKernelParameters.h"
#include "oxide/compiler/FailureReports.h"
#include "oxide/compiler/FenceOrderedAtomics.h"
#include "oxide/compiler/GuardedWrites.h"
#include "oxide/compiler/HoistBoundsChecks.h"
#include "oxide/compiler/KernelGeometryFacts.h"
#include "oxide/compiler/LoopBoundsChecks.h"
#include "oxide/compiler/LoopLatchBranches.h"
#include "oxide/compiler/NarrowLoopCounters.h"
#include "oxide/compiler/ProveIndexBounds.h"
#include "oxide/compiler/ScopedAtomics.h"
#include "oxide/compiler/UndefinedBehaviour.h"

#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

void oxide::registerOxideLLVMPasses(PassBuilder &builder) {
  if (PassInstrumentationCallbacks *callbacks = builder.getPassInstrumentationCallbacks()) {
#define OXIDE_FUNCTION_PASS(NAME, CLASS) callbacks->addClassToPassName(CLASS::name(), NAME);
#define OXIDE_MODULE_PASS(NAME, CLASS) callbacks->addClassToPassName(CLASS::name(), NAME);
#include "PassRegistry.def"
  }
  builder.registerPipelineParsingCallback(
      [](StringRef name, FunctionPassManager &passes, ArrayRef<PassBuilder::PipelineElement>) {
#define OXIDE_FUNCTION_PASS(NAME, CLASS)                                                                     \
  if (name == NAME) {                                                                                        \
    passes.addPass(CLASS());                                                                                 \
    return true;                                                                                             \
  }
#define OXIDE_MODULE_PASS(NAME, CLASS)
#include "PassRegistry.def"
        return false;
      });
  builder.registerPipelineParsingCallback(
      [](StringRef name, ModulePassManager &passes, ArrayRef<PassBuilder::PipelineElement>) {
#define OXIDE_FUNCTION_PASS(NAME, CLASS)
#define OXIDE_MODULE_PASS(NAME, CLASS)                                                                       \
  if (name == NAME) {                                                                                        \
    passes.addPass(CLASS());                                                                                 \
    return true;                                                                                             \
  }
#include "PassRegistry.def"
        return false;
      });
}
