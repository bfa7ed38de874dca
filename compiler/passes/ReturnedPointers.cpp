//===- ReturnedPointers.cpp - objects read through helpers that return pointers ----===//
//
// See ReturnedPointers.h.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/ReturnedPointers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

std::optional<SmallVector<const Value *, 2>> oxide::returnedObjects(const CallBase &call) {
  const Function *callee = call.getCalledFunction();
  if (!callee || callee->isDeclaration() || !callee->getReturnType()->isPointerTy())
    return std::nullopt;
  SmallVector<const Value *, 2> result;
  for (const BasicBlock &block : *callee)
    if (const auto *ret = dyn_cast<ReturnInst>(block.getTerminator())) {
      SmallVector<const Value *, 4> objects;
      getUnderlyingObjects(ret->getReturnValue(), objects, nullptr, 0);
      for (const Value *object : objects) {
        if (isa<ConstantPointerNull>(object))
          continue;
        const auto *argument = dyn_cast<Argument>(object);
        if (!argument || argument->getArgNo() >= call.arg_size())
          return std::nullopt;
        SmallVector<const Value *, 4> mapped;
        getUnderlyingObjects(call.getArgOperand(argument->getArgNo()), mapped, nullptr, 0);
        for (const Value *m : mapped)
          if (!is_contained(result, m))
            result.push_back(m);
      }
    }
  return result;
}

SmallVector<const Value *, 4> oxide::underlyingObjectsThroughCalls(const Value *pointer) {
  SmallVector<const Value *, 4> objects;
  getUnderlyingObjects(pointer, objects, nullptr, 0);
  // Nested calls (a helper passing its argument to another) up to a depth, as far as a chain of
  // helpers goes in practice; a call left is an object of its own.
  for (unsigned depth = 0; depth < 4; ++depth) {
    SmallVector<const Value *, 4> next;
    bool changed = false;
    for (const Value *object : objects) {
      const auto *call = dyn_cast<CallBase>(object);
      std::optional<SmallVector<const Value *, 2>> returned = call ? returnedObjects(*call) : std::nullopt;
      changed |= returned.has_value();
      for (const Value *o : returned ? ArrayRef<const Value *>(*returned) : ArrayRef<const Value *>(object))
        if (!is_contained(next, o))
          next.push_back(o);
    }
    objects = std::move(next);
    if (!changed)
      break;
  }
  return objects;
}
