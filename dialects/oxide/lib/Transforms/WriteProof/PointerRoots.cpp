//===- PointerRoots.cpp - what each pointer may point into ----------------===//
//
// A points-to analysis over the LLVM dialect: each pointer value gets the set of places it may
// point into (its roots), computed as a fixpoint over the functions the contracted kernels
// reach, through phis, selects, calls and returns.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// Whether every pointer in the part of type `type` at `path` lies under one of `written`.
bool coversPointers(Type type, SmallVector<int64_t> &path, ArrayRef<ArrayRef<int64_t>> written) {
  for (ArrayRef<int64_t> w : written)
    if (w.size() <= path.size() && llvm::equal(w, ArrayRef<int64_t>(path).take_front(w.size())))
      return true;
  if (!holdsPointers(type))
    return true;
  auto covered = [&](int64_t i, Type member) {
    path.push_back(i);
    bool ok = coversPointers(member, path, written);
    path.pop_back();
    return ok;
  };
  if (auto s = dyn_cast<LLVM::LLVMStructType>(type)) {
    for (auto [i, member] : llvm::enumerate(s.getBody()))
      if (!covered(static_cast<int64_t>(i), member))
        return false;
    return true;
  }
  if (auto a = dyn_cast<LLVM::LLVMArrayType>(type); a && a.getNumElements() <= 64) {
    for (unsigned i = 0; i < a.getNumElements(); ++i)
      if (!covered(i, a.getElementType()))
        return false;
    return true;
  }
  return false;
}

/// Whether `insert` and the inserts it builds on start from llvm.mlir.poison or
/// llvm.mlir.undef and write every part of the aggregate that holds a pointer. A part they do
/// not write is still the base's: a poison pointer, which keeps its Unknown root. Poison as an
/// address is not accepted as such: it is UB only if the write executes, and LLVM makes it of
/// user code that may reach it too (a pointer variable left uninitialised on one path), where
/// the back end may give it any value; here no pointer of the base is left to write through.
bool overwritesUndefinedPointers(LLVM::InsertValueOp insert) {
  SmallVector<ArrayRef<int64_t>> written;
  Value base = insert.getResult();
  while (auto in = base.getDefiningOp<LLVM::InsertValueOp>()) {
    if (written.size() == 64)
      return false;
    written.push_back(in.getPosition());
    base = in.getContainer();
  }
  if (!base.getDefiningOp<LLVM::PoisonOp>() && !base.getDefiningOp<LLVM::UndefOp>())
    return false;
  SmallVector<int64_t> path;
  return coversPointers(insert.getType(), path, written);
}

} // namespace

PointerRoots::PointerRoots(CheckedCode &code) : code(code) {
  do {
    changed = false;
    for (LLVMFuncOp fn : code.checked) {
      for (BlockArgument arg : fn.getArguments())
        transferArgument(fn, arg);
      fn.walk([&](Operation *op) { transfer(op); });
    }
  } while (changed);
}

const RootSet &PointerRoots::rootsOf(Value value) const {
  static const RootSet none;
  auto it = roots.find(value);
  return it == roots.end() ? none : it->second;
}

Value PointerRoots::paramArgument(Value address) const {
  const RootSet &set = rootsOf(address);
  if (set.size() != 1 || set.front().kind != RootKind::Private || !code.isKernelArgument(set.front().source))
    return Value();
  return set.front().source;
}

void PointerRoots::add(Value value, Root root) {
  RootSet &set = roots[value];
  if (!llvm::is_contained(set, root)) {
    set.push_back(root);
    changed = true;
  }
}

void PointerRoots::addAll(Value to, Value from) {
  if (to == from)
    return;
  RootSet copy = rootsOf(from);
  for (const Root &root : copy)
    add(to, root);
}

void PointerRoots::transferArgument(LLVMFuncOp fn, BlockArgument arg) {
  if (!holdsPointers(arg.getType()))
    return;
  if (isByval(arg)) {
    add(arg, {RootKind::Private, arg});
    return;
  }
  auto it = code.callers.find(fn);
  if (code.kernels.contains(fn) || it == code.callers.end()) {
    add(arg, {RootKind::Unknown, arg});
    return;
  }
  for (LLVM::CallOp call : it->second)
    if (arg.getArgNumber() < call.getArgOperands().size())
      addAll(arg, call.getArgOperands()[arg.getArgNumber()]);
}

void PointerRoots::transferSuccessors(BranchOpInterface branch) {
  Operation *op = branch.getOperation();
  for (unsigned s = 0; s < op->getNumSuccessors(); ++s) {
    SuccessorOperands operands = branch.getSuccessorOperands(s);
    Block *succ = op->getSuccessor(s);
    for (unsigned k = 0; k < operands.size() && k < succ->getNumArguments(); ++k)
      if (Value incoming = operands[k])
        addAll(succ->getArgument(k), incoming);
  }
}

RootKind PointerRoots::globalKind(LLVM::AddressOfOp address) {
  auto global = code.symbols.lookup<LLVM::GlobalOp>(address.getGlobalName());
  return !global                              ? RootKind::Unknown
         : global.getAddrSpace() == kShared   ? RootKind::Shared
         : global.getAddrSpace() == kConstant ? RootKind::Constant
         : global.getConstant()               ? RootKind::Constant
                                              : RootKind::Global;
}

void PointerRoots::transferCall(LLVM::CallOp call, Value result) {
  auto returnsOf = [&](LLVMFuncOp fn) {
    fn.walk([&](LLVM::ReturnOp ret) {
      if (ret.getArg())
        addAll(result, ret.getArg());
    });
  };
  auto callee = call.getCalleeAttr();
  if (!callee) { // through a pointer: any function whose address is taken
    for (LLVMFuncOp fn : code.addressTaken)
      if (fn.isExternal())
        add(result, {RootKind::Unknown, result});
      else if (code.checked.contains(fn))
        returnsOf(fn);
    return;
  }
  auto fn = code.symbols.lookup<LLVMFuncOp>(callee.getValue());
  if (fn && fn.isExternal() && fn.getSymName() == "malloc") {
    add(result, {RootKind::Heap, result});
    return;
  }
  if (!fn || fn.isExternal() || !code.checked.contains(fn)) {
    add(result, {RootKind::Unknown, result});
    return;
  }
  returnsOf(fn);
}

void PointerRoots::transfer(Operation *op) {
  if (auto branch = dyn_cast<BranchOpInterface>(op)) {
    transferSuccessors(branch);
    return;
  }
  if (op->getNumResults() != 1 || !holdsPointers(op->getResult(0).getType()))
    return;
  Value result = op->getResult(0);
  auto fromBase = [&](Value base) {
    addAll(result, base);
    if (llvm::is_contained(rootsOf(base), Root{RootKind::Null, Value()}) && !isa<LLVM::BitcastOp>(op))
      add(result, {RootKind::Unknown, result}); // arithmetic on null makes an address from an integer
  };
  llvm::TypeSwitch<Operation *, void>(op)
      .Case<LLVM::AllocaOp>([&](auto) { add(result, {RootKind::Private, result}); })
      .Case<LLVM::GEPOp>([&](LLVM::GEPOp gep) { fromBase(gep.getBase()); })
      .Case<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>([&](Operation *cast) { fromBase(cast->getOperand(0)); })
      .Case<LLVM::PtrMaskOp>([&](LLVM::PtrMaskOp mask) { fromBase(mask.getPtr()); })
      .Case<LLVM::SelectOp>([&](LLVM::SelectOp select) {
        addAll(result, select.getTrueValue());
        addAll(result, select.getFalseValue());
      })
      .Case<LLVM::InsertValueOp>([&](LLVM::InsertValueOp insert) {
        // An aggregate built field by field over poison or undef (how SROA writes a struct
        // returned by value) holds no pointer of that base once the inserts cover every part
        // that holds pointers: only the inserted ones.
        if (overwritesUndefinedPointers(insert)) {
          for (auto in = insert; in; in = in.getContainer().getDefiningOp<LLVM::InsertValueOp>())
            addAll(result, in.getValue());
          return;
        }
        addAll(result, insert.getContainer());
        addAll(result, insert.getValue());
      })
      .Case<LLVM::ExtractValueOp>(
          [&](LLVM::ExtractValueOp extract) { addAll(result, extract.getContainer()); })
      .Case<LLVM::InsertElementOp>([&](LLVM::InsertElementOp insert) {
        addAll(result, insert.getVector());
        addAll(result, insert.getValue());
      })
      .Case<LLVM::ExtractElementOp>([&](LLVM::ExtractElementOp e) { addAll(result, e.getVector()); })
      .Case<LLVM::ShuffleVectorOp>([&](LLVM::ShuffleVectorOp s) {
        addAll(result, s.getV1());
        addAll(result, s.getV2());
      })
      .Case<LLVM::ZeroOp>([&](auto) { add(result, {RootKind::Null, Value()}); })
      .Case<LLVM::AddressOfOp>([&](LLVM::AddressOfOp address) { add(result, {globalKind(address), result}); })
      .Case<oxide::DisjointGetOp, oxide::OwnedElemOp, oxide::ReservedElemOp, oxide::PermutedElemOp,
            oxide::ClaimedElemOp, oxide::SpanElemOp>([&](auto) { add(result, {RootKind::Element, result}); })
      .Case<oxide::SharedAllocOp, oxide::DynamicSharedOp, oxide::MapSharedOp>(
          [&](auto) { add(result, {RootKind::Shared, result}); })
      .Case<LLVM::LoadOp>([&](LLVM::LoadOp load) {
        // A pointer loaded from a kernel's own parameter is the span's memory; any other
        // loaded pointer has lost where it came from.
        Value param = paramArgument(load.getAddr());
        add(result, param ? Root{RootKind::Param, param} : Root{RootKind::Unknown, result});
      })
      .Case<LLVM::CallOp>([&](LLVM::CallOp call) { transferCall(call, result); })
      .Default([&](Operation *) { add(result, {RootKind::Unknown, result}); });
}
