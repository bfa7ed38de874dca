//===- InputPointers.cpp - which pointers point into read-only inputs -----===//
//
// Each pointer gets a kind, `none` until every value it may be is known to be of one kind: a
// contracted kernel's input span parameters are spans; loading a span's first field gives data,
// and offsetting data gives data; a select or a block argument is what all its values are (a
// pointer that merges a span with data, or with anything else, is none); a helper's argument is
// what every call passes, when every use of the helper is a direct call, and a span only when the
// helper never writes through it. Kinds only rise from `none`, so the solver's fixed point is the
// least one: a pointer that a loop carries is data only if it is without the loop (a pointer
// incremented in a loop stays none), as the optimiser has always decided.
//
//===----------------------------------------------------------------------===//

#include "InputPointers.h"
#include "../SmallCopy.h"
#include "ValueFlowAnalysis.h"

#include "Oxide/IR/OxideDialect.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

using namespace mlir;
using oxide::InputPointers;
using Kind = InputPointers::Kind;

namespace {

struct PointerKind {
  Kind kind = Kind::none;

  /// Kinds only rise from none, and a pointer never holds both other kinds on its way (each
  /// transfer gives data only from data or spans, a span only from spans).
  static PointerKind join(const PointerKind &lhs, const PointerKind &rhs) {
    return lhs.kind >= rhs.kind ? lhs : rhs;
  }
  bool operator==(const PointerKind &other) const { return kind == other.kind; }
  void print(raw_ostream &os) const {
    os << (kind == Kind::span ? "span" : kind == Kind::data ? "data" : "none");
  }
};

class PointerKindLattice : public dataflow::Lattice<PointerKind> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PointerKindLattice)
  using Lattice::Lattice;
};

/// The pointers that may be of a kind: block arguments, and what loads, offsets and selects give.
/// Every other value is none, and gets no state.
bool mayPointToInput(Value value) {
  if (!isa<LLVM::LLVMPointerType>(value.getType()))
    return false;
  return isa<BlockArgument>(value) || isa<LLVM::LoadOp, LLVM::GEPOp, LLVM::SelectOp>(value.getDefiningOp());
}

/// The kind of all `kinds` when they agree and are not none; none otherwise.
Kind common(ArrayRef<Kind> kinds) {
  if (kinds.empty() || kinds.front() == Kind::none)
    return Kind::none;
  return llvm::all_equal(kinds) ? kinds.front() : Kind::none;
}

/// Whether nothing writes the memory `pointer` points to where it is passed: it is only loaded
/// from, offset, copied from (a constant-length memcpy's source), or passed on to a function that copies it
/// (byval) or, in turn, never writes it. A helper's span is then its caller's, which stays an input span.
bool neverWritten(Value pointer, SymbolTableCollection &symbols, unsigned depth = 0) {
  if (depth > 8)
    return false;
  for (OpOperand &use : pointer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<LLVM::LoadOp>(user))
      continue; // its one operand is the address
    if (auto gep = dyn_cast<LLVM::GEPOp>(user); gep && gep.getBase() == pointer) {
      if (!neverWritten(gep.getResult(), symbols, depth + 1))
        return false;
      continue;
    }
    if (auto copy = oxide::SmallCopy::match(user); copy && copy->src == pointer && copy->dst != pointer)
      continue;
    auto call = dyn_cast<LLVM::CallOp>(user);
    auto callee = call && call.getCalleeAttr()
                      ? symbols.lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(call, call.getCalleeAttr())
                      : LLVM::LLVMFuncOp();
    if (!callee || callee.isExternal())
      return false;
    const unsigned first = call.getArgOperands().getBeginOperandIndex();
    const unsigned k = use.getOperandNumber() - first;
    if (use.getOperandNumber() < first || k >= callee.getNumArguments())
      return false;
    if (callee.getArgAttr(k, LLVM::LLVMDialect::getByValAttrName()))
      continue; // the callee gets a copy
    if (!neverWritten(callee.getArgument(k), symbols, depth + 1))
      return false;
  }
  return true;
}

class InputPointerAnalysis : public oxide::ValueFlowAnalysis {
public:
  InputPointerAnalysis(DataFlowSolver &solver, ModuleOp module,
                       const llvm::MapVector<Operation *, SmallVector<unsigned>> &kernelInputs)
      : ValueFlowAnalysis(solver), kernelInputs(kernelInputs) {
    // The helpers whose every use is a direct call, with those calls.
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      if (fn.isExternal() || fn->hasAttr(oxide::OxideDialect::getKernelAttrName()))
        continue;
      auto uses = SymbolTable::getSymbolUses(fn, module);
      if (!uses)
        continue;
      SmallVector<LLVM::CallOp> calls;
      bool onlyCalls = true;
      for (const SymbolTable::SymbolUse &use : *uses) {
        auto call = dyn_cast<LLVM::CallOp>(use.getUser());
        onlyCalls &= call && call.getCalleeAttr() && call.getCalleeAttr().getAttr() == fn.getSymNameAttr();
        if (call)
          calls.push_back(call);
      }
      if (onlyCalls && !calls.empty())
        helperCalls[fn] = std::move(calls);
    }
  }

  LogicalResult initialize(Operation *top) override {
    top->walk([&](Block *block) {
      if (llvm::any_of(block->getArguments(), mayPointToInput))
        visitBlock(block);
    });
    top->walk([&](Operation *op) {
      if (op->getNumResults() == 1 && mayPointToInput(op->getResult(0)))
        visitOperation(op);
    });
    return success();
  }

private:
  /// The kind of `value` where `dependent` reads it (visited again when it rises).
  Kind kindOf(Value value, ProgramPoint *dependent) {
    if (!value || !mayPointToInput(value))
      return Kind::none;
    return getOrCreateFor<PointerKindLattice>(dependent, value)->getValue().kind;
  }

  void rise(Value value, Kind kind) {
    auto *state = getOrCreate<PointerKindLattice>(value);
    propagateIfChanged(state, state->join(PointerKind{kind}));
  }

  void visitOperation(Operation *op) override {
    ProgramPoint *after = getProgramPointAfter(op);
    Kind kind = Kind::none;
    if (auto load = dyn_cast<LLVM::LoadOp>(op))
      kind = kindOf(load.getAddr(), after) == Kind::span ? Kind::data : Kind::none;
    else if (auto gep = dyn_cast<LLVM::GEPOp>(op))
      kind = kindOf(gep.getBase(), after) == Kind::data ? Kind::data : Kind::none;
    else if (auto select = dyn_cast<LLVM::SelectOp>(op))
      kind = common({kindOf(select.getTrueValue(), after), kindOf(select.getFalseValue(), after)});
    if (kind != Kind::none)
      rise(op->getResult(0), kind);
  }

  void visitBlock(Block *block) override {
    ProgramPoint *before = getProgramPointBefore(block);
    for (BlockArgument arg : block->getArguments()) {
      if (!mayPointToInput(arg))
        continue;
      SmallVector<Kind, 4> incoming;
      if (!block->isEntryBlock()) {
        for (auto pred = block->pred_begin(); pred != block->pred_end(); ++pred) {
          auto branch = dyn_cast<BranchOpInterface>((*pred)->getTerminator());
          incoming.push_back(kindOf(
              branch ? branch.getSuccessorOperands(pred.getSuccessorIndex())[arg.getArgNumber()] : Value(),
              before));
        }
        rise(arg, common(incoming));
        continue;
      }
      auto fn = dyn_cast<LLVM::LLVMFuncOp>(block->getParentOp());
      if (!fn)
        continue;
      if (auto kernel = kernelInputs.find(fn); kernel != kernelInputs.end()) {
        if (llvm::is_contained(kernel->second, arg.getArgNumber()))
          rise(arg, Kind::span);
        continue;
      }
      auto helper = helperCalls.find(fn);
      if (helper == helperCalls.end())
        continue;
      for (LLVM::CallOp call : helper->second)
        incoming.push_back(arg.getArgNumber() < call.getArgOperands().size()
                               ? kindOf(call.getArgOperands()[arg.getArgNumber()], before)
                               : Kind::none);
      Kind kind = common(incoming);
      if (kind == Kind::span && !neverWritten(arg, symbols))
        kind = Kind::none;
      rise(arg, kind);
    }
  }

  const llvm::MapVector<Operation *, SmallVector<unsigned>> &kernelInputs;
  llvm::DenseMap<Operation *, SmallVector<LLVM::CallOp>> helperCalls;
  SymbolTableCollection symbols;
};

} // namespace

InputPointers::InputPointers(ModuleOp module,
                             const llvm::MapVector<Operation *, SmallVector<unsigned>> &kernelInputs)
    : solver(std::make_unique<DataFlowSolver>()) {
  solver->load<InputPointerAnalysis>(module, kernelInputs);
  (void)solver->initializeAndRun(module);
}

InputPointers::~InputPointers() = default;

Kind InputPointers::kindOf(Value pointer) const {
  const auto *lattice = solver->lookupState<PointerKindLattice>(pointer);
  return lattice ? lattice->getValue().kind : Kind::none;
}
