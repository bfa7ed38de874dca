//===- PointerRoots.cpp - what each pointer may point into ----------------===//
//
// A points-to analysis over the LLVM dialect: each pointer value gets the set of places it may
// point into (its roots). A forward analysis on MLIR's DataFlowSolver over the functions the
// proof covers: a block argument joins the roots of what every edge brings (a helper's, what
// its checked call sites pass), an operation's transfer function says what it makes of its
// operands' roots (a call, what its callee returns), and the solver visits a user again when the
// roots it read grow. Only values that hold pointers get a state.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "../Provenance/ValueFlowAnalysis.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
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

/// A pointer's roots as a lattice value: a set that only grows, the union over what reaches it.
struct RootSetValue {
  RootSet roots;

  static RootSetValue join(const RootSetValue &lhs, const RootSetValue &rhs) {
    RootSetValue result = lhs;
    for (const Root &root : rhs.roots)
      if (!llvm::is_contained(result.roots, root))
        result.roots.push_back(root);
    return result;
  }
  bool operator==(const RootSetValue &other) const { return roots == other.roots; }
  void print(raw_ostream &os) const { os << roots.size() << " roots"; }
};

class RootsLattice : public dataflow::Lattice<RootSetValue> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RootsLattice)
  using Lattice::Lattice;
};

/// A forward analysis on the solver over the checked functions, with a state for each value that
/// holds pointers; the solver visits an operation or a block again when the roots it read grow.
class PointerRootsAnalysis : public oxide::ValueFlowAnalysis {
public:
  PointerRootsAnalysis(DataFlowSolver &solver, CheckedCode &code) : ValueFlowAnalysis(solver), code(code) {}

  LogicalResult initialize(Operation *) override {
    for (LLVMFuncOp fn : code.checked)
      fn.walk([&](Block *block) {
        visitBlock(block);
        for (Operation &op : *block)
          visitOperation(&op);
      });
    return success();
  }

private:
  void visitOperation(Operation *op) override {
    if (op->getNumResults() != 1 || !holdsPointers(op->getResult(0).getType()))
      return;
    auto *result = getOrCreate<RootsLattice>(op->getResult(0));
    if (auto call = dyn_cast<LLVM::CallOp>(op))
      transferCall(call, result);
    else
      transfer(op, result);
  }

  /// A block's pointer arguments. A checked function's: a byval copy is the function's own; a
  /// kernel's (called by the host) or an uncalled helper's pointer is unknown; a helper's, what
  /// its checked call sites pass. A phi's: what every edge brings.
  void visitBlock(Block *block) override {
    ProgramPoint *before = getProgramPointBefore(block);
    auto fn = dyn_cast<LLVMFuncOp>(block->getParentOp());
    auto callers = fn ? code.callers.find(fn) : code.callers.end();
    const bool unknownCallers = !fn || code.kernels.contains(fn) || callers == code.callers.end();
    for (BlockArgument arg : block->getArguments()) {
      if (!holdsPointers(arg.getType()))
        continue;
      auto *roots = getOrCreate<RootsLattice>(arg);
      auto from = [&](Value incoming) {
        if (incoming)
          propagateIfChanged(roots, roots->join(*getOrCreateFor<RootsLattice>(before, incoming)));
      };
      if (!block->isEntryBlock()) {
        for (auto pred = block->pred_begin(); pred != block->pred_end(); ++pred)
          if (auto branch = dyn_cast<BranchOpInterface>((*pred)->getTerminator()))
            from(branch.getSuccessorOperands(pred.getSuccessorIndex())[arg.getArgNumber()]);
      } else if (isByval(arg)) {
        add(roots, {RootKind::Private, arg});
      } else if (unknownCallers) {
        add(roots, {RootKind::Unknown, arg});
      } else {
        for (LLVM::CallOp call : callers->second)
          if (arg.getArgNumber() < call.getArgOperands().size())
            from(call.getArgOperands()[arg.getArgNumber()]);
      }
    }
  }

  void add(RootsLattice *lattice, Root root) {
    propagateIfChanged(lattice, lattice->join(RootSetValue{{root}}));
  }

  /// The roots of `value` where `op` uses them (so `op` is visited again when they grow).
  const RootSet &rootsAt(Operation *op, Value value) {
    return getOrCreateFor<RootsLattice>(getProgramPointAfter(op), value)->getValue().roots;
  }

  void addAll(Operation *op, RootsLattice *result, Value from) {
    if (from != result->getAnchor())
      propagateIfChanged(result, result->join(*getOrCreateFor<RootsLattice>(getProgramPointAfter(op), from)));
  }

  RootKind globalKind(LLVM::AddressOfOp address) {
    auto global = code.symbols.lookup<LLVM::GlobalOp>(address.getGlobalName());
    return !global                              ? RootKind::Unknown
           : global.getAddrSpace() == kShared   ? RootKind::Shared
           : global.getAddrSpace() == kConstant ? RootKind::Constant
           : global.getConstant()               ? RootKind::Constant
                                                : RootKind::Global;
  }

  void transferCall(LLVM::CallOp call, RootsLattice *result) {
    Value value = call.getResult();
    auto returnsOf = [&](LLVMFuncOp fn) {
      fn.walk([&](LLVM::ReturnOp ret) {
        if (ret.getArg())
          addAll(call, result, ret.getArg());
      });
    };
    auto callee = call.getCalleeAttr();
    if (!callee) { // through a pointer: any function whose address is taken
      for (LLVMFuncOp fn : code.addressTaken)
        if (fn.isExternal())
          add(result, {RootKind::Unknown, value});
        else if (code.checked.contains(fn))
          returnsOf(fn);
      return;
    }
    auto fn = code.symbols.lookup<LLVMFuncOp>(callee.getValue());
    if (fn && fn.isExternal() && fn.getSymName() == "malloc") {
      add(result, {RootKind::Heap, value});
      return;
    }
    if (!fn || fn.isExternal() || !code.checked.contains(fn)) {
      add(result, {RootKind::Unknown, value});
      return;
    }
    returnsOf(fn);
  }

  void transfer(Operation *op, RootsLattice *result) {
    Value value = op->getResult(0);
    auto fromBase = [&](Value base) {
      addAll(op, result, base);
      if (llvm::is_contained(rootsAt(op, base), Root{RootKind::Null, Value()}) && !isa<LLVM::BitcastOp>(op))
        add(result, {RootKind::Unknown, value}); // arithmetic on null makes an address from an integer
    };
    llvm::TypeSwitch<Operation *, void>(op)
        .Case<LLVM::AllocaOp>([&](auto) { add(result, {RootKind::Private, value}); })
        .Case<LLVM::GEPOp>([&](LLVM::GEPOp gep) { fromBase(gep.getBase()); })
        .Case<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>([&](Operation *cast) { fromBase(cast->getOperand(0)); })
        .Case<LLVM::PtrMaskOp>([&](LLVM::PtrMaskOp mask) { fromBase(mask.getPtr()); })
        .Case<LLVM::SelectOp>([&](LLVM::SelectOp select) {
          addAll(op, result, select.getTrueValue());
          addAll(op, result, select.getFalseValue());
        })
        .Case<LLVM::InsertValueOp>([&](LLVM::InsertValueOp insert) {
          // An aggregate built field by field over poison or undef (how SROA writes a struct
          // returned by value) holds no pointer of that base once the inserts cover every part
          // that holds pointers: only the inserted ones.
          if (overwritesUndefinedPointers(insert)) {
            for (auto in = insert; in; in = in.getContainer().getDefiningOp<LLVM::InsertValueOp>())
              addAll(op, result, in.getValue());
            return;
          }
          addAll(op, result, insert.getContainer());
          addAll(op, result, insert.getValue());
        })
        .Case<LLVM::ExtractValueOp>(
            [&](LLVM::ExtractValueOp extract) { addAll(op, result, extract.getContainer()); })
        .Case<LLVM::InsertElementOp>([&](LLVM::InsertElementOp insert) {
          addAll(op, result, insert.getVector());
          addAll(op, result, insert.getValue());
        })
        .Case<LLVM::ExtractElementOp>([&](LLVM::ExtractElementOp e) { addAll(op, result, e.getVector()); })
        .Case<LLVM::ShuffleVectorOp>([&](LLVM::ShuffleVectorOp s) {
          addAll(op, result, s.getV1());
          addAll(op, result, s.getV2());
        })
        .Case<LLVM::ZeroOp>([&](auto) { add(result, {RootKind::Null, Value()}); })
        .Case<LLVM::AddressOfOp>(
            [&](LLVM::AddressOfOp address) { add(result, {globalKind(address), value}); })
        .Case<oxide::DisjointGetOp, oxide::OwnedElemOp, oxide::ReservedElemOp, oxide::PermutedElemOp,
              oxide::ClaimedElemOp, oxide::SpanElemOp>([&](auto) { add(result, {RootKind::Element, value}); })
        .Case<oxide::SharedAllocOp, oxide::DynamicSharedOp, oxide::MapSharedOp>(
            [&](auto) { add(result, {RootKind::Shared, value}); })
        .Case<LLVM::LoadOp>([&](LLVM::LoadOp load) {
          // A pointer loaded from a kernel's own parameter is the span's memory; any other
          // loaded pointer has lost where it came from. Not before the address has roots: the
          // solver visits the load again when they come, and "unknown" would stay.
          const RootSet &address = rootsAt(op, load.getAddr());
          if (address.empty())
            return;
          Value param = paramArgumentOf(address, code);
          add(result, param ? Root{RootKind::Param, param} : Root{RootKind::Unknown, value});
        })
        .Default([&](Operation *) { add(result, {RootKind::Unknown, value}); });
  }

  CheckedCode &code;
};

} // namespace

PointerRoots::PointerRoots(CheckedCode &code) : code(code), solver(std::make_unique<DataFlowSolver>()) {
  solver->load<PointerRootsAnalysis>(code);
  (void)solver->initializeAndRun(code.module);
}

PointerRoots::~PointerRoots() = default;

const RootSet &PointerRoots::rootsOf(Value value) const {
  static const RootSet none;
  const auto *lattice = solver->lookupState<RootsLattice>(value);
  return lattice ? lattice->getValue().roots : none;
}

Value oxide::writeproof::paramArgumentOf(const RootSet &set, const CheckedCode &code) {
  if (set.size() != 1 || set.front().kind != RootKind::Private || !code.isKernelArgument(set.front().source))
    return Value();
  return set.front().source;
}

Value PointerRoots::paramArgument(Value address) const { return paramArgumentOf(rootsOf(address), code); }
