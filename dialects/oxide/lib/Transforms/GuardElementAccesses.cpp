//===- GuardElementAccesses.cpp - trap at unguarded null element accesses --===//
//
// An element accessor (get_mut and its kin) gives null to a thread that owns no element, and
// device malloc gives null when the heap is exhausted. Where the program tests the pointer
// before using it, nothing changes; where it does not, a branch to oxide.trap goes in front of
// the access, so that LLVM cannot turn the null into "cannot happen" and the access into one
// past the end of the span (or at an absolute address).
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDEGUARDELEMENTACCESSES
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMessageName = "__oxide_null_element.str";
constexpr llvm::StringLiteral kMessage =
    "access through a null pointer: get_mut (and the other element accessors) return nullptr to a "
    "thread that owns no element, malloc when the device heap is exhausted; test the pointer before "
    "using it";

/// An access through `base`, or through an address computed from it, and the base whose
/// null-ness decides whether it is allowed.
struct Access {
  Value base;
  Operation *op;
};

bool isNull(Value v) { return v.getDefiningOp<LLVM::ZeroOp>() != nullptr; }

bool isCallTo(Operation *op, StringRef name) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  return call && call.getCallee() == name;
}

/// Whether operand `index` of `call` is a parameter marked non-null or dereferenceable, at the
/// call or on the callee.
bool promisesNonNull(LLVM::CallOp call, unsigned index) {
  if (index < call.getCalleeOperands().getBeginOperandIndex() ||
      index >= call.getCalleeOperands().getBeginOperandIndex() + call.getCalleeOperands().size())
    return false;
  const unsigned arg = index - call.getCalleeOperands().getBeginOperandIndex() - (call.getCallee() ? 0 : 1);
  auto promises = [](DictionaryAttr attrs) {
    return attrs && (attrs.contains(LLVM::LLVMDialect::getNonNullAttrName()) ||
                     attrs.contains(LLVM::LLVMDialect::getDereferenceableAttrName()));
  };
  if (ArrayAttr attrs = call.getArgAttrsAttr();
      attrs && arg < attrs.size() && promises(dyn_cast<DictionaryAttr>(attrs[arg])))
    return true;
  auto callee = call.getCallee()
                    ? SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(call, call.getCalleeAttr())
                    : LLVM::LLVMFuncOp();
  return callee && arg < callee.getNumArguments() && promises(callee.getArgAttrDict(arg));
}

/// Whether `use` runs only after a branch on `base` being non-null took its non-null edge:
/// the edge's target has that branch as its only predecessor and dominates `use`.
bool guardedByNullTest(Value base, Operation *use, DominanceInfo &dominance) {
  for (Operation *user : base.getUsers()) {
    auto compare = dyn_cast<LLVM::ICmpOp>(user);
    if (!compare || !(isNull(compare.getLhs()) || isNull(compare.getRhs())))
      continue;
    const auto predicate = compare.getPredicate();
    if (predicate != LLVM::ICmpPredicate::eq && predicate != LLVM::ICmpPredicate::ne)
      continue;
    for (Operation *test : compare->getUsers()) {
      auto branch = dyn_cast<LLVM::CondBrOp>(test);
      if (!branch || branch.getCondition() != compare.getResult())
        continue;
      Block *nonNull = predicate == LLVM::ICmpPredicate::eq ? branch.getFalseDest() : branch.getTrueDest();
      Block *other = predicate == LLVM::ICmpPredicate::eq ? branch.getTrueDest() : branch.getFalseDest();
      if (nonNull != other && nonNull->getSinglePredecessor() == branch->getBlock() &&
          dominance.dominates(nonNull, use->getBlock()))
        return true;
    }
  }
  return false;
}

/// The accesses through the element pointer `element` and the addresses computed from it.
/// A pointer that flows through a select or a block argument is a base of its own: null there
/// means the selected element was null.
void collectAccesses(Value element, SmallVectorImpl<Access> &accesses) {
  SmallVector<std::pair<Value, Value>> worklist{{element, element}}; // (value, its base)
  llvm::SmallPtrSet<Value, 8> seen{element};
  auto push = [&](Value value, Value base) {
    if (seen.insert(value).second)
      worklist.push_back({value, base});
  };
  while (!worklist.empty()) {
    auto [value, base] = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto gep = dyn_cast<LLVM::GEPOp>(user); gep && gep.getBase() == value) {
        push(gep.getResult(), base);
      } else if (auto cast = dyn_cast<LLVM::AddrSpaceCastOp>(user)) {
        push(cast.getResult(), base);
      } else if (auto select = dyn_cast<LLVM::SelectOp>(user); select && select.getCondition() != value) {
        push(select.getResult(), select.getResult());
      } else if (auto branch = dyn_cast<BranchOpInterface>(user)) {
        for (unsigned s = 0; s < user->getNumSuccessors(); ++s) {
          SuccessorOperands operands = branch.getSuccessorOperands(s);
          for (unsigned i = 0; i < operands.size(); ++i)
            if (operands[i] == value) {
              Value argument = user->getSuccessor(s)->getArgument(operands.getProducedOperandCount() + i);
              push(argument, argument);
            }
        }
      } else if (auto store = dyn_cast<LLVM::StoreOp>(user)) {
        if (store.getAddr() == value)
          accesses.push_back({base, user});
      } else if (auto call = dyn_cast<LLVM::CallOp>(user)) {
        // A function that is not inlined may test its argument itself, and an access it makes
        // through a null one faults: only a parameter that promises a non-null pointer (a C++
        // reference: the caller could drop the null) needs the test here.
        if (promisesNonNull(call, use.getOperandNumber()))
          accesses.push_back({base, user});
      } else if (isa<LLVM::ICmpOp, LLVM::PtrToIntOp, LLVM::ReturnOp, LLVM::DbgValueOp, LLVM::DbgDeclareOp>(
                     user)) {
        // Comparing, printing or returning an address reads no memory, and neither does -G's
        // record of the variable that holds it (a guard there trapped before the program's own
        // test of the pointer).
      } else {
        // Loads, atomics, memory intrinsics, calls, the oxide ops that read or write memory.
        accesses.push_back({base, user});
      }
    }
  }
}

/// The message's address, at `b`'s insertion point; the module's one copy of the text.
Value message(ModuleOp module, OpBuilder &b, Location loc) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kMessageName);
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), kMessage.size() + 1);
    global = LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Private,
                                    kMessageName, b.getStringAttr((kMessage + llvm::Twine('\0')).str()));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// `if (base == null) oxide.trap` in front of `access`.
void guard(ModuleOp module, Access access) {
  Operation *op = access.op;
  Location loc = op->getLoc();
  Block *before = op->getBlock();
  Block *after = before->splitBlock(op);
  Block *trap = new Block();
  trap->insertBefore(after);
  OpBuilder b(op->getContext());
  b.setInsertionPointToEnd(before);
  Value null = LLVM::ZeroOp::create(b, loc, access.base.getType());
  Value isNull = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, access.base, null);
  LLVM::CondBrOp::create(b, loc, isNull, trap, after);
  b.setInsertionPointToEnd(trap);
  oxide::TrapOp::create(b, loc, message(module, b, loc));
  LLVM::UnreachableOp::create(b, loc);
}

struct OxideGuardElementAccessesPass
    : oxide::impl::OxideGuardElementAccessesBase<OxideGuardElementAccessesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<Access> accesses;
      func.walk([&](Operation *op) {
        // Device malloc gives null when the heap is exhausted: the heap rule lets a kernel
        // write its block at constant offsets, which from null reach absolute addresses.
        if (isa<oxide::DisjointGetOp, oxide::OwnedElemOp, oxide::ReservedElemOp, oxide::PermutedElemOp,
                oxide::ClaimedElemOp, oxide::SpanElemOp>(op) ||
            isCallTo(op, "malloc"))
          collectAccesses(op->getResult(0), accesses);
      });
      if (accesses.empty())
        continue;
      // Judged before any guard goes in: a later access behind an earlier guard of the same
      // base gets one too, which LLVM folds away.
      DominanceInfo dominance(func);
      SmallVector<Access> unguarded;
      for (const Access &access : accesses)
        if (!guardedByNullTest(access.base, access.op, dominance))
          unguarded.push_back(access);
      for (const Access &access : unguarded)
        guard(module, access);
    }
  }
};

} // namespace
