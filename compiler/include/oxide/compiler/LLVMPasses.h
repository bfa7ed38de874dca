//===- LLVMPasses.h - Oxide's LLVM IR passes by name ------------*- C++ -*-===//
//
// The LLVM IR passes that run on the device module after inlining (compiler/passes/), made
// known to a PassBuilder under the names that textual pipelines use:
//
//   oxide-kernel-geometry-facts  KernelGeometryFactsPass  (KernelGeometryFacts.h)
//   oxide-prove-index-bounds     ProveIndexBoundsPass     (ProveIndexBounds.h)
//   oxide-hoist-bounds-checks    HoistBoundsChecksPass    (HoistBoundsChecks.h)
//
// oxcc adds the three itself, in that order, at the end of the scalar optimiser
// (TargetCodegen.cpp); the OxidePasses plugin registers them with opt, so each runs alone:
//
//   opt -load-pass-plugin=build/lib/OxidePasses.so -passes=oxide-prove-index-bounds in.ll
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_LLVMPASSES_H
#define OXIDE_COMPILER_LLVMPASSES_H

namespace llvm {
class PassBuilder;
}

namespace oxide {

/// Lets `builder` parse the three function passes' names in pipeline text (a module pipeline
/// runs them on every function), and tells its instrumentation, if any, the same names
/// (`-print-after=oxide-prove-index-bounds`, `-print-pipeline-passes`).
void registerOxideLLVMPasses(llvm::PassBuilder &builder);

} // namespace oxide

#endif
