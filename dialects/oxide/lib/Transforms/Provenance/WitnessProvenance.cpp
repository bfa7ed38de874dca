//===- WitnessProvenance.cpp - which values are the thread's witnesses ----===//
//
// Each value gets the set of witness kinds it is on every path that reaches it: a bit per
// (rank, dimension, stride steps allowed) for thread indices and one per group for group
// indices. The solver meets the sets of a block's incoming values (intersection: a phi is a
// witness only if every incoming value is); the transfer functions here say what an operation
// makes of its operands' sets, and two overrides decide the flow between functions: a helper's
// argument is what every call site passes (a kernel's, called by the host, is no witness), and a
// call's result is none.
//
//===----------------------------------------------------------------------===//

#include "WitnessProvenance.h"

#include "Oxide/IR/OxideDialect.h"

#include "EveryBlockLive.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using oxide::WitnessProvenance;

namespace {

/// The bit of thread-index witnesses of `rank` and `dim`, stride steps allowed or not.
std::uint64_t threadBit(unsigned rank, oxide::Dim dim, bool strides) {
  return std::uint64_t{1} << ((rank * 4 + static_cast<unsigned>(dim)) * 2 + (strides ? 1 : 0));
}

/// The bit of group-index witnesses of `group`.
std::uint64_t groupBit(oxide::Group group) { return std::uint64_t{1} << (32 + static_cast<unsigned>(group)); }

/// The witness kinds a value is on every path; nothing yet (the optimistic start) until a path
/// reaches it.
struct WitnessKinds {
  std::optional<std::uint64_t> bits;

  static WitnessKinds join(const WitnessKinds &lhs, const WitnessKinds &rhs) {
    if (!lhs.bits)
      return rhs;
    if (!rhs.bits)
      return lhs;
    return {*lhs.bits & *rhs.bits};
  }
  bool operator==(const WitnessKinds &other) const { return bits == other.bits; }
  void print(raw_ostream &os) const {
    if (bits)
      os << llvm::format_hex(*bits, 18);
    else
      os << "<none yet>";
  }
};

class WitnessLattice : public dataflow::Lattice<WitnessKinds> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WitnessLattice)
  using Lattice::Lattice;
};

class WitnessAnalysis : public dataflow::SparseForwardDataFlowAnalysis<WitnessLattice> {
public:
  WitnessAnalysis(DataFlowSolver &solver, ModuleOp module) : SparseForwardDataFlowAnalysis(solver) {
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCalleeAttr())
        callers[callee.getAttr()].push_back(call);
    });
    // A function whose address is taken may be called with anything.
    module.walk(
        [&](LLVM::AddressOfOp address) { addressTaken.insert(address.getGlobalNameAttr().getAttr()); });
  }

  LogicalResult visitOperation(Operation *op, ArrayRef<const WitnessLattice *>,
                               ArrayRef<WitnessLattice *> results) override {
    if (results.size() != 1)
      return success();
    std::uint64_t bits = 0;
    auto of = [&](Value operand) {
      return getLatticeElementFor(getProgramPointAfter(op), operand)->getValue().bits.value_or(0);
    };
    if (auto index = dyn_cast<oxide::ThreadIndexOp>(op))
      bits = threadBit(index.getRank(), index.getDim(), false) |
             threadBit(index.getRank(), index.getDim(), true);
    // A grid-stride step keeps a thread inside its own residue class of indices.
    else if (auto next = dyn_cast<oxide::GridStrideNextOp>(op))
      bits = of(next.getIndex()) & threadBit(next.getRank(), next.getDim(), true);
    else if (auto index = dyn_cast<oxide::GroupIndexOp>(op))
      bits = groupBit(index.getGroup());
    else if (auto next = dyn_cast<oxide::GroupStrideNextOp>(op))
      bits = of(next.getIndex()) & groupBit(next.getGroup());
    // `freeze x` is x unless x is poison or undef, and no witness is: the index ops are defined
    // values (registers). LLVM freezes a value before it lets a branch on it or a division by it
    // execute unconditionally (speculation, select formation, loop unswitching) and then may
    // replace every other use of the value by the frozen one (InstCombine's freezeOtherUses).
    else if (auto freeze = dyn_cast<LLVM::FreezeOp>(op))
      bits = of(freeze.getVal());
    // A select is a phi without the branch (SimplifyCFG turns one into the other): it is a
    // witness when both of its values are, whichever the condition picks.
    else if (auto select = dyn_cast<LLVM::SelectOp>(op))
      bits = of(select.getTrueValue()) & of(select.getFalseValue());
    propagateIfChanged(results.front(), results.front()->join(WitnessKinds{bits}));
    return success();
  }

  /// A call's result is no witness, whatever the callee returns.
  LogicalResult visitCallOperation(CallOpInterface, ArrayRef<const dataflow::AbstractSparseLattice *>,
                                   ArrayRef<dataflow::AbstractSparseLattice *> results) override {
    AbstractSparseForwardDataFlowAnalysis::setAllToEntryStates(results);
    return success();
  }

  /// A function argument: every call must pass a witness. Kernels are called by the host, and a
  /// function whose address is taken by anything.
  void visitCallableOperation(CallableOpInterface callable,
                              ArrayRef<dataflow::AbstractSparseLattice *> argLattices) override {
    auto fn = dyn_cast<LLVM::LLVMFuncOp>(callable.getOperation());
    auto it = fn ? callers.find(fn.getSymNameAttr()) : callers.end();
    if (!fn || fn.isExternal() || fn->hasAttr(oxide::OxideDialect::getKernelAttrName()) ||
        it == callers.end() || addressTaken.contains(fn.getSymNameAttr())) {
      AbstractSparseForwardDataFlowAnalysis::setAllToEntryStates(argLattices);
      return;
    }
    ProgramPoint *entry = getProgramPointBefore(&fn.getBody().front());
    for (auto [number, lattice] : llvm::enumerate(argLattices))
      for (LLVM::CallOp call : it->second) {
        if (number >= call.getArgOperands().size()) {
          setToEntryState(static_cast<WitnessLattice *>(lattice));
          break;
        }
        join(lattice, *getLatticeElementFor(entry, call.getArgOperands()[number]));
      }
  }

  void setToEntryState(WitnessLattice *lattice) override {
    propagateIfChanged(lattice, lattice->join(WitnessKinds{0}));
  }

private:
  llvm::DenseMap<StringAttr, SmallVector<LLVM::CallOp>> callers;
  llvm::DenseSet<StringAttr> addressTaken;
};

} // namespace

WitnessProvenance::WitnessProvenance(ModuleOp module) : solver(std::make_unique<DataFlowSolver>()) {
  solver->load<EveryBlockLive>();
  solver->load<WitnessAnalysis>(module);
  (void)solver->initializeAndRun(module);
}

WitnessProvenance::~WitnessProvenance() = default;

std::uint64_t WitnessProvenance::witnessBits(Value value) const {
  const auto *lattice = solver->lookupState<WitnessLattice>(value);
  return lattice ? lattice->getValue().bits.value_or(0) : 0;
}

bool WitnessProvenance::isWitness(Value value, unsigned rank, Dim dim, bool strides) const {
  return witnessBits(value) & threadBit(rank, dim, strides);
}

bool WitnessProvenance::isGroupWitness(Value value, Group group) const {
  return witnessBits(value) & groupBit(group);
}

bool WitnessProvenance::isWitnessAt(Value value, Operation *at, llvm::function_ref<bool(Value)> isWitness) {
  if (isWitness(value))
    return true;
  Block *use = at->getBlock();
  // A region of one block has no branches (and MLIR builds no dominator tree for it).
  if (use->getParent()->hasOneBlock())
    return false;
  auto &dominance = dominances[at->getParentOfType<LLVM::LLVMFuncOp>()];
  if (!dominance)
    dominance = std::make_unique<DominanceInfo>(at->getParentOfType<LLVM::LLVMFuncOp>());
  for (auto *node = dominance->getNode(use); node; node = node->getIDom()) {
    auto branch = dyn_cast_or_null<LLVM::CondBrOp>(node->getBlock()->getTerminator());
    auto cmp = branch ? branch.getCondition().getDefiningOp<LLVM::ICmpOp>() : nullptr;
    if (!cmp ||
        (cmp.getPredicate() != LLVM::ICmpPredicate::eq && cmp.getPredicate() != LLVM::ICmpPredicate::ne))
      continue;
    Block *equal =
        cmp.getPredicate() == LLVM::ICmpPredicate::eq ? branch.getTrueDest() : branch.getFalseDest();
    if (equal == branch.getTrueDest() && equal == branch.getFalseDest())
      continue;
    // The edge to `equal` dominates the use only if `equal` is entered from this branch alone.
    if (equal->getSinglePredecessor() != node->getBlock() || !dominance->dominates(equal, use))
      continue;
    Value other = cmp.getLhs() == value ? cmp.getRhs() : cmp.getRhs() == value ? cmp.getLhs() : Value();
    if (other && isWitness(other))
      return true;
  }
  return false;
}

bool WitnessProvenance::isUniform(Value value, unsigned depth) {
  if (depth > 64)
    return false;
  if (value.getDefiningOp<LLVM::UndefOp>() || value.getDefiningOp<LLVM::PoisonOp>())
    return false;
  if (matchPattern(value, m_Constant()))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
    return arg.getOwner()->isEntryBlock() && func && func->hasAttr(OxideDialect::getKernelAttrName()) &&
           !isa<LLVM::LLVMPointerType>(arg.getType());
  }
  Operation *def = value.getDefiningOp();
  if (!isa<LLVM::ZExtOp, LLVM::SExtOp, LLVM::TruncOp, LLVM::AddOp, LLVM::SubOp, LLVM::MulOp, LLVM::ShlOp,
           LLVM::LShrOp, LLVM::AShrOp, LLVM::UDivOp, LLVM::URemOp, LLVM::AndOp, LLVM::OrOp, LLVM::XOrOp,
           LLVM::ICmpOp, LLVM::SelectOp, LLVM::UMinOp, LLVM::UMaxOp, LLVM::SMinOp, LLVM::SMaxOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value v) { return isUniform(v, depth + 1); });
}
