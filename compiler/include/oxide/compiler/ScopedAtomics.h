//===- ScopedAtomics.h - atomicrmw with the scope it was given --*- C++ -*-===//
#ifndef OXIDE_COMPILER_SCOPEDATOMICS_H
#define OXIDE_COMPILER_SCOPEDATOMICS_H

#include "llvm/IR/PassManager.h"

namespace llvm {
class TargetMachine;
}

namespace oxide {

/// Writes each relaxed atomicrmw whose sync scope is not the device's as one PTX `atom` that
/// names its scope (`.cta`, `.cluster`, `.sys`), state space, operation and type.
///
/// LLVM 22's NVPTX back end prints every atomicrmw without a scope, which PTX reads as `.gpu`
/// (cmpxchg, atomic loads and stores keep theirs). For `Scope::block` that is stronger than
/// asked; for `Scope::system` it is weaker: a fetch_add on memory the host shares is not atomic
/// with respect to the host in the PTX memory model, and the fences oxide-fence-ordered-atomics
/// puts around it order nothing for the host either. The rewrite is inline assembly, so it runs
/// last, after every optimisation and after the audits of the optimised code: LLVM learns
/// nothing from an atomicrmw that it would lose. An operation PTX has no `atom` for at the
/// function's architecture (nand, 16-bit floats before sm_70 / sm_90, vectors) is left to the
/// back end, which expands it into a loop of cmpxchg: those keep their scope.
struct ScopedAtomicsPass : llvm::PassInfoMixin<ScopedAtomicsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
  /// Correctness, not optimisation: runs at -O0 too.
  static bool isRequired() { return true; }
};

/// ScopedAtomicsPass on every function of `module` (generatePtx, after the audits), each after
/// InferAddressSpaces: the back end would give a generic address its state space only after
/// the rewrite, and a shared atomic needs `.shared` in its text to stay one (ATOMS).
void scopeAtomics(llvm::Module &module, llvm::TargetMachine &target);

} // namespace oxide

#endif
