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

namespace {

/// The one value a local variable holds, for a load from it: unoptimised code keeps each
/// parameter in such a slot (stored once on entry, then only loaded). Any other use of the slot
/// (a second store, its address passed on) and the load is an object of its own.
const Value *heldValue(const Value *object) {
  const auto *load = dyn_cast<LoadInst>(object);
  const auto *slot = load ? dyn_cast<AllocaInst>(load->getPointerOperand()->stripPointerCasts()) : nullptr;
  if (!slot || !load->getType()->isPointerTy())
    return nullptr;
  const Value *held = nullptr;
  for (const User *user : slot->users()) {
    if (const auto *other = dyn_cast<LoadInst>(user); other && other->getPointerOperand() == slot)
      continue;
    const auto *store = dyn_cast<StoreInst>(user);
    if (!store || store->getPointerOperand() != slot || held)
      return nullptr;
    held = store->getValueOperand();
  }
  return held && held->getType()->isPointerTy() ? held : nullptr;
}

/// `objects`, each one that `expand` gives others for replaced by them, again for what replaces
/// it, up to a few levels (as far as a chain of variables or helpers goes in practice: what is
/// left is an object of its own); no object twice.
template <typename Expand>
SmallVector<const Value *, 4> expandObjects(SmallVector<const Value *, 4> objects, Expand &&expand) {
  for (unsigned depth = 0; depth < 4; ++depth) {
    SmallVector<const Value *, 4> next;
    bool changed = false;
    for (const Value *object : objects) {
      const std::optional<SmallVector<const Value *, 4>> replaced = expand(object);
      changed |= replaced.has_value();
      for (const Value *o : replaced ? ArrayRef<const Value *>(*replaced) : ArrayRef<const Value *>(object))
        if (!is_contained(next, o))
          next.push_back(o);
    }
    objects = std::move(next);
    if (!changed)
      break;
  }
  return objects;
}

/// getUnderlyingObjects, a load from a slot that holds one pointer replaced by that pointer's
/// (a variable of unoptimised code made from another).
SmallVector<const Value *, 4> objectsOf(const Value *pointer) {
  SmallVector<const Value *, 4> objects;
  getUnderlyingObjects(pointer, objects, nullptr, 0);
  return expandObjects(std::move(objects),
                       [](const Value *object) -> std::optional<SmallVector<const Value *, 4>> {
                         const Value *value = heldValue(object);
                         if (!value)
                           return std::nullopt;
                         SmallVector<const Value *, 4> held;
                         getUnderlyingObjects(value, held, nullptr, 0);
                         return held;
                       });
}

} // namespace

std::optional<SmallVector<const Value *, 2>> oxide::returnedObjects(const CallBase &call) {
  const Function *callee = call.getCalledFunction();
  if (!callee || callee->isDeclaration() || !callee->getReturnType()->isPointerTy())
    return std::nullopt;
  SmallVector<const Value *, 2> result;
  for (const BasicBlock &block : *callee)
    if (const auto *ret = dyn_cast<ReturnInst>(block.getTerminator())) {
      for (const Value *object : objectsOf(ret->getReturnValue())) {
        if (isa<ConstantPointerNull>(object))
          continue;
        const auto *argument = dyn_cast<Argument>(object);
        if (!argument || argument->getArgNo() >= call.arg_size())
          return std::nullopt;
        for (const Value *m : objectsOf(call.getArgOperand(argument->getArgNo())))
          if (!is_contained(result, m))
            result.push_back(m);
      }
    }
  return result;
}

SmallVector<const Value *, 4> oxide::underlyingObjectsThroughCalls(const Value *pointer) {
  // Nested calls: a helper passing its argument to another.
  return expandObjects(objectsOf(pointer),
                       [](const Value *object) -> std::optional<SmallVector<const Value *, 4>> {
                         const auto *call = dyn_cast<CallBase>(object);
                         std::optional<SmallVector<const Value *, 2>> returned =
                             call ? oxide::returnedObjects(*call) : std::nullopt;
                         if (!returned)
                           return std::nullopt;
                         return SmallVector<const Value *, 4>(returned->begin(), returned->end());
                       });
}
