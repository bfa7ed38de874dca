//===- BoundsFailure.h - recognising a bounds check's failure report ----*- C++ -*-===//
//
// oxide-to-nvvm lowers a failed bounds check to a block that calls __oxide_bounds_failure(index,
// size, file, line, function) and ends in `unreachable`; the passes that move or prove checks
// recognise checks by that block.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_BOUNDSFAILURE_H
#define OXIDE_COMPILER_BOUNDSFAILURE_H

#include "oxide/detail/intrinsic_abi.hpp"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Instructions.h"

namespace oxide {

inline constexpr llvm::StringLiteral kBoundsFailureName = detail::kBoundsFailureFunction;

/// Whether `block` only reports a failed bounds check: a call to __oxide_bounds_failure, then
/// unreachable (phis of the report's arguments may precede it).
inline bool isBoundsFailureBlock(const llvm::BasicBlock *block) {
  const llvm::Instruction *first = &*block->getFirstNonPHIOrDbg();
  const auto *call = llvm::dyn_cast_or_null<llvm::CallInst>(first);
  const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  return callee && callee->getName() == kBoundsFailureName &&
         llvm::isa<llvm::UnreachableInst>(call->getNextNode());
}

/// Whether `block` reports a failed bounds check and stops, as isBoundsFailureBlock says, or
/// computes some of the report's arguments first: IndVarSimplify writes the index that a check
/// failing on a loop's exit sees as an expression of the loop's bounds (`umax(size, base)`).
/// What precedes the call must only compute its arguments, without touching memory.
inline bool reportsBoundsFailure(const llvm::BasicBlock *block) {
  const auto *call = llvm::dyn_cast_or_null<llvm::CallInst>(block->getTerminator()->getPrevNode());
  const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  if (!callee || callee->getName() != kBoundsFailureName ||
      !llvm::isa<llvm::UnreachableInst>(block->getTerminator()))
    return false;
  for (const llvm::Instruction &inst : *block) {
    if (&inst == call)
      return true;
    if (inst.mayReadOrWriteMemory() || inst.mayHaveSideEffects() ||
        llvm::any_of(inst.users(), [&](const llvm::User *user) {
          return llvm::cast<llvm::Instruction>(user)->getParent() != block;
        }))
      return false;
  }
  return false;
}

/// The report call of failure block `failure` (the call before its `unreachable`).
inline llvm::CallInst *boundsFailureReport(llvm::BasicBlock *failure) {
  return llvm::cast<llvm::CallInst>(failure->getTerminator()->getPrevNode());
}

/// What the report of `failure` receives when `pred` branches there: SimplifyCFG shares one
/// failure block among the checks of a function, with phis of their indices.
inline llvm::SmallVector<llvm::Value *, 8> boundsFailureArguments(llvm::BasicBlock *failure,
                                                                  llvm::BasicBlock *pred) {
  llvm::SmallVector<llvm::Value *, 8> values;
  for (llvm::Value *argument : boundsFailureReport(failure)->args()) {
    auto *phi = llvm::dyn_cast<llvm::PHINode>(argument);
    values.push_back(phi && phi->getParent() == failure ? phi->getIncomingValueForBlock(pred) : argument);
  }
  return values;
}

} // namespace oxide

#endif
