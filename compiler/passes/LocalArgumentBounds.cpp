//===- LocalArgumentBounds.cpp - a caller's local array's bounds, passed to helpers ---===//
//
// See LocalArgumentBounds.h. The bounds are generic addresses so that a caller's local pointer
// and a helper's agree whatever address space either holds it in.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/LocalArgumentBounds.h"
#include "oxide/compiler/ReturnedPointers.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <limits>

using namespace llvm;
using oxide::LocalBounds;

namespace {

/// The pointer arguments of each helper that need bounds, by number, in order.
using Needs = MapVector<Function *, SmallVector<unsigned, 2>>;

bool addNeed(Needs &needs, const Argument &argument) {
  SmallVector<unsigned, 2> &numbers = needs[const_cast<Function *>(argument.getParent())];
  const unsigned number = argument.getArgNo();
  if (is_contained(numbers, number))
    return false;
  numbers.insert(upper_bound(numbers, number), number);
  return true;
}

/// Calls `each` with every pointer argument of `function` that `pointer` may be based on and
/// whose bounds a caller must pass: not a byval argument, which is the function's own copy.
template <typename Each> void argumentsOf(const Value *pointer, const Function &function, Each &&each) {
  for (const Value *object : oxide::underlyingObjectsThroughCalls(pointer))
    if (const auto *argument = dyn_cast<Argument>(object);
        argument && argument->getParent() == &function && !argument->hasByValAttr())
      each(*argument);
}

/// A byval argument is the function's own copy of the caller's value, at an address of its own
/// (the caller's object is not the one written): its bounds are its own, taken at the entry.
void boundByValArguments(Function &function, DenseMap<const Argument *, LocalBounds> &bounds) {
  const DataLayout &layout = function.getParent()->getDataLayout();
  for (Argument &argument : function.args()) {
    if (!argument.hasByValAttr() || argument.use_empty() || bounds.contains(&argument))
      continue;
    IRBuilder<> b(&*function.getEntryBlock().getFirstInsertionPt());
    Value *lo =
        b.CreatePtrToInt(b.CreatePointerBitCastOrAddrSpaceCast(&argument, b.getPtrTy()), b.getInt64Ty());
    const uint64_t bytes = layout.getTypeAllocSize(argument.getParamByValType());
    bounds[&argument] = {lo, b.CreateAdd(lo, b.getInt64(bytes))};
  }
}

/// The helpers' arguments that a local write is based on, and those that calls pass on to them.
Needs findNeeds(ArrayRef<Function *> helpers, function_ref<const Value *(Instruction &)> localWrite) {
  Needs needs;
  for (Function *helper : helpers)
    for (Instruction &inst : instructions(*helper))
      if (const Value *address = localWrite(inst))
        argumentsOf(address, *helper, [&](const Argument &a) { addNeed(needs, a); });
  for (bool changed = !needs.empty(); changed;) {
    changed = false;
    for (Function *caller : helpers)
      for (Instruction &inst : instructions(*caller)) {
        auto *call = dyn_cast<CallBase>(&inst);
        auto it = call ? needs.find(call->getCalledFunction()) : needs.end();
        if (it == needs.end())
          continue;
        const SmallVector<unsigned, 2> numbers = it->second; // addNeed may grow the map
        for (unsigned k : numbers)
          argumentsOf(call->getArgOperand(k), *caller,
                      [&](const Argument &a) { changed |= addNeed(needs, a); });
      }
  }
  return needs;
}

/// `function` with two i64 parameters (lo, hi) appended for each of `numbers`.
Function *cloneWithBounds(Function &function, ArrayRef<unsigned> numbers,
                          DenseMap<const Argument *, LocalBounds> &bounds) {
  Type *i64 = Type::getInt64Ty(function.getContext());
  SmallVector<Type *, 8> params(function.getFunctionType()->params());
  params.append(2 * numbers.size(), i64);
  auto *type = FunctionType::get(function.getReturnType(), params, function.isVarArg());
  Function *clone = Function::Create(type, GlobalValue::InternalLinkage, function.getAddressSpace(),
                                     function.getName() + oxide::kBoundedSuffix, function.getParent());
  ValueToValueMapTy map;
  for (Argument &argument : function.args()) {
    map[&argument] = clone->getArg(argument.getArgNo());
    clone->getArg(argument.getArgNo())->setName(argument.getName());
  }
  SmallVector<ReturnInst *, 4> returns;
  CloneFunctionInto(clone, &function, map, CloneFunctionChangeType::LocalChangesOnly, returns);
  clone->setLinkage(GlobalValue::InternalLinkage);
  clone->setComdat(nullptr);
  for (auto [j, number] : enumerate(numbers)) {
    Argument *lo = clone->getArg(function.arg_size() + 2 * j),
             *hi = clone->getArg(function.arg_size() + 2 * j + 1);
    lo->setName("oxide.array.lo");
    hi->setName("oxide.array.hi");
    bounds[clone->getArg(number)] = {lo, hi};
  }
  return clone;
}

/// The bounds of the array that `pointer`, passed by a call before `b`'s insertion point, points
/// into: an alloca of the caller, or the caller's bounded argument; the whole address space for a
/// pointer into neither. Where it may be into one of several (a loop's pointer that starts at
/// one argument and continues from another, as std::sort's), the one that holds it, its end
/// included: bounds that hold a pointer are those of an array of the thread, whichever the
/// pointer was made from; none (every write fails) where no array holds it. nullopt where it
/// may also point elsewhere.
std::optional<LocalBounds> boundsOf(Value *pointer, const DenseMap<const Argument *, LocalBounds> &bounds,
                                    IRBuilder<> &b) {
  const DataLayout &layout = b.GetInsertBlock()->getModule()->getDataLayout();
  SmallVector<LocalBounds, 2> candidates;
  bool others = false;
  for (const Value *object : oxide::underlyingObjectsThroughCalls(pointer)) {
    if (isa<ConstantPointerNull>(object))
      continue; // a write to null faults
    if (const auto *array = dyn_cast<AllocaInst>(object)) {
      std::optional<TypeSize> size = array->getAllocationSize(layout);
      if (!size || size->isScalable())
        return std::nullopt;
      Value *generic = b.CreatePointerBitCastOrAddrSpaceCast(const_cast<AllocaInst *>(array), b.getPtrTy());
      Value *lo = b.CreatePtrToInt(generic, b.getInt64Ty());
      candidates.push_back({lo, b.CreateAdd(lo, b.getInt64(size->getFixedValue()))});
    } else if (const auto *argument = dyn_cast<Argument>(object); argument && bounds.contains(argument)) {
      candidates.push_back(bounds.lookup(argument));
    } else {
      others = true;
    }
  }
  if (candidates.empty())
    return LocalBounds{b.getInt64(0), b.getInt64(std::numeric_limits<uint64_t>::max())};
  if (others)
    return std::nullopt;
  if (candidates.size() == 1)
    return candidates[0];
  Value *address =
      b.CreatePtrToInt(b.CreatePointerBitCastOrAddrSpaceCast(pointer, b.getPtrTy()), b.getInt64Ty());
  LocalBounds chosen{b.getInt64(0), b.getInt64(0)};
  for (const LocalBounds &candidate : reverse(candidates)) {
    Value *holds =
        b.CreateICmpULE(b.CreateSub(address, candidate.lo), b.CreateSub(candidate.hi, candidate.lo));
    chosen = {b.CreateSelect(holds, candidate.lo, chosen.lo), b.CreateSelect(holds, candidate.hi, chosen.hi)};
  }
  return chosen;
}

/// Erases the originals of `clones` that only the originals still call (their own recursion):
/// those unchecked code calls stay, with the originals they call.
void eraseUnused(const DenseMap<Function *, Function *> &clones) {
  SmallPtrSet<Function *, 8> kept;
  SmallVector<Function *, 8> work;
  for (auto [original, clone] : clones)
    if (any_of(original->users(), [&](const User *user) {
          const auto *inst = dyn_cast<Instruction>(user);
          return !inst || !clones.contains(inst->getFunction());
        }))
      work.push_back(original);
  while (!work.empty()) {
    Function *original = work.pop_back_val();
    if (!kept.insert(original).second)
      continue;
    for (Instruction &inst : instructions(*original))
      if (auto *call = dyn_cast<CallBase>(&inst); call && clones.contains(call->getCalledFunction()))
        work.push_back(call->getCalledFunction());
  }
  SmallVector<Function *, 8> dead;
  for (auto [original, clone] : clones)
    if (!kept.contains(original))
      dead.push_back(original);
  for (Function *original : dead)
    original->dropAllReferences();
  for (Function *original : dead)
    original->eraseFromParent();
}

} // namespace

oxide::BoundedArguments oxide::boundLocalArguments(Module &module, ArrayRef<Function *> kernels,
                                                   ArrayRef<Function *> helpers,
                                                   function_ref<const Value *(Instruction &)> localWrite) {
  BoundedArguments result;
  const Needs needs = findNeeds(helpers, localWrite);
  DenseMap<Function *, Function *> clones;
  for (Function *helper : helpers) {
    auto it = needs.find(helper);
    if (it == needs.end()) {
      result.helpers.insert(helper);
      continue;
    }
    if (helper->hasAddressTaken()) // a call through a pointer passes no bounds
      for (Instruction &inst : instructions(*helper))
        if (localWrite(inst))
          result.untold.push_back(&inst);
    Function *clone = cloneWithBounds(*helper, it->second, result.bounds);
    clones[helper] = clone;
    result.helpers.insert(clone);
  }
  // (A kernel's byval parameters are left as they were: the launch's copies, not a caller's.)
  for (Function *helper : result.helpers)
    boundByValArguments(*helper, result.bounds);
  if (clones.empty())
    return result;
  SmallVector<Function *, 8> callers(kernels.begin(), kernels.end());
  callers.append(result.helpers.begin(), result.helpers.end());
  for (Function *caller : callers) {
    SmallVector<CallInst *, 8> calls;
    for (Instruction &inst : instructions(*caller))
      if (auto *call = dyn_cast<CallInst>(&inst); call && clones.contains(call->getCalledFunction()))
        calls.push_back(call);
    for (CallInst *call : calls) {
      Function *callee = call->getCalledFunction();
      Function *clone = clones.lookup(callee);
      IRBuilder<> b(call);
      SmallVector<Value *, 8> args(call->args());
      bool told = true;
      for (unsigned k : needs.find(callee)->second) {
        std::optional<LocalBounds> bounds = boundsOf(call->getArgOperand(k), result.bounds, b);
        told &= bounds.has_value();
        if (!bounds)
          bounds = LocalBounds{b.getInt64(0), b.getInt64(std::numeric_limits<uint64_t>::max())};
        args.append({bounds->lo, bounds->hi});
      }
      SmallVector<OperandBundleDef, 1> bundles;
      call->getOperandBundlesAsDefs(bundles);
      CallInst *replacement = b.CreateCall(clone->getFunctionType(), clone, args, bundles);
      replacement->setCallingConv(call->getCallingConv());
      replacement->setAttributes(call->getAttributes());
      replacement->setTailCallKind(call->getTailCallKind());
      replacement->setDebugLoc(call->getDebugLoc());
      replacement->takeName(call);
      if (!told)
        result.untold.push_back(replacement);
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }
  eraseUnused(clones);
  return result;
}

uint64_t oxide::localElementUnit(const AllocaInst &array, const DataLayout &layout) {
  Type *element = array.getAllocatedType();
  if (!element->isArrayTy())
    return 1;
  while (auto *nested = dyn_cast<ArrayType>(element))
    element = nested->getElementType();
  return std::max<uint64_t>(1, layout.getTypeAllocSize(element));
}

oxide::LocalArrayTest oxide::testInsideLocalArrays(IRBuilder<> &b, Value *pointer, Value *width,
                                                   ArrayRef<LocalArray> arrays,
                                                   std::optional<uint64_t> fixedWidth) {
  Type *i64 = b.getInt64Ty();
  Value *address = b.CreatePtrToInt(pointer, i64), *generic = nullptr;
  LocalArrayTest test{};
  for (const LocalArray &array : arrays) {
    Value *from = nullptr, *bytes = nullptr;
    if (array.alloca) {
      Value *base =
          b.CreatePointerBitCastOrAddrSpaceCast(const_cast<AllocaInst *>(array.alloca), pointer->getType());
      from = b.CreateSub(address, b.CreatePtrToInt(base, i64), "oxide.local.offset");
      bytes = b.getInt64(array.bytes);
    } else {
      // A caller's array: its bounds are generic addresses.
      generic = generic ? generic
                        : b.CreatePtrToInt(b.CreatePointerBitCastOrAddrSpaceCast(pointer, b.getPtrTy()), i64);
      from = b.CreateSub(generic, array.bounds->lo, "oxide.local.offset");
      bytes = b.CreateSub(array.bounds->hi, array.bounds->lo);
    }
    Value *leaves =
        b.CreateOr(b.CreateICmpULT(bytes, width), b.CreateICmpUGT(from, b.CreateSub(bytes, width)));
    test.outside = test.outside ? b.CreateAnd(test.outside, leaves) : leaves;
    if (!test.offset) {
      const DataLayout &layout = b.GetInsertBlock()->getModule()->getDataLayout();
      test.unit = b.getInt64(array.alloca ? localElementUnit(*array.alloca, layout) : fixedWidth.value_or(1));
      test.offset = from;
      test.count = bytes;
    }
  }
  test.outside->setName("oxide.local.outside");
  return test;
}

SetVector<Function *>
oxide::reachedFunctions(ArrayRef<Function *> kernels,
                        function_ref<bool(const CallBase &, const Function &)> mayBeCalledThrough) {
  SetVector<Function *> reached(kernels.begin(), kernels.end());
  if (kernels.empty())
    return reached;
  Module &module = *kernels.front()->getParent();
  for (size_t i = 0; i < reached.size(); ++i)
    for (Instruction &inst : instructions(*reached[i])) {
      auto *call = dyn_cast<CallBase>(&inst);
      if (!call || call->isInlineAsm())
        continue;
      if (auto *callee = dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases())) {
        if (!callee->isDeclaration() && !callee->isIntrinsic())
          reached.insert(callee);
        continue;
      }
      for (Function &target : module)
        if (!target.isDeclaration() && target.hasAddressTaken() && mayBeCalledThrough(*call, target))
          reached.insert(&target);
    }
  return reached;
}
