//===- WitnessProvenance.cpp - which values are the thread's witnesses ----===//
//
// Each value that may be a witness gets the set of witness kinds it is on every path that
// reaches it: a bit per (rank, dimension, stride steps allowed) for thread indices and one per
// group for group indices. A block argument meets the sets of its incoming values (intersection:
// a phi is a witness only if every incoming value is), a helper's argument those of every call
// (a kernel's, called by the host, is no witness), an index op gives its own, a step, freeze or
// select what its operands allow; a call's result, or any other value, is none. The analysis
// runs on MLIR's DataFlowSolver, which re-visits a value's users when its set shrinks.
//
//===----------------------------------------------------------------------===//

#include "WitnessProvenance.h"
#include "ValueFlowAnalysis.h"

#include "Oxide/IR/OxideDialect.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
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

/// The values that may be witnesses: what the index ops and their steps give, and what freezes,
/// selects and integer block arguments pass on. Every other value is none, and gets no state.
bool mayBeWitness(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return isa<IntegerType>(arg.getType());
  return isa<oxide::ThreadIndexOp, oxide::GridStrideNextOp, oxide::GroupIndexOp, oxide::GroupStrideNextOp,
             LLVM::FreezeOp, LLVM::SelectOp>(value.getDefiningOp());
}

/// A forward must-analysis on the solver, with states only for the values that may be witnesses.
/// It starts optimistic (a value no path has reached yet is every witness), so a transfer waits
/// for its operands: an operand not reached yet would otherwise make the result none for good.
class WitnessAnalysis : public oxide::ValueFlowAnalysis {
public:
  WitnessAnalysis(DataFlowSolver &solver, ModuleOp module) : ValueFlowAnalysis(solver) {
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCalleeAttr())
        callers[callee.getAttr()].push_back(call);
    });
    // A function whose address is taken may be called with anything.
    module.walk(
        [&](LLVM::AddressOfOp address) { addressTaken.insert(address.getGlobalNameAttr().getAttr()); });
  }

  LogicalResult initialize(Operation *top) override {
    top->walk([&](Block *block) {
      if (llvm::any_of(block->getArguments(), mayBeWitness))
        visitBlock(block);
    });
    top->walk([&](Operation *op) {
      if (op->getNumResults() == 1 && mayBeWitness(op->getResult(0)))
        visitOperation(op);
    });
    return success();
  }

private:
  /// The witness kinds of `value` where `dependent` reads them (it is visited again when they
  /// change); std::nullopt while no path has reached it.
  std::optional<std::uint64_t> kindsOf(Value value, ProgramPoint *dependent) {
    if (!mayBeWitness(value))
      return 0;
    return getOrCreateFor<WitnessLattice>(dependent, value)->getValue().bits;
  }

  void meet(Value value, std::uint64_t bits) {
    auto *state = getOrCreate<WitnessLattice>(value);
    propagateIfChanged(state, state->join(WitnessKinds{bits}));
  }

  void visitOperation(Operation *op) override {
    ProgramPoint *after = getProgramPointAfter(op);
    auto of = [&](Value operand) { return kindsOf(operand, after); };
    auto masked = [](std::optional<std::uint64_t> kinds, std::uint64_t mask) {
      return kinds ? std::optional(*kinds & mask) : std::nullopt;
    };
    std::optional<std::uint64_t> bits;
    if (auto index = dyn_cast<oxide::ThreadIndexOp>(op))
      bits = threadBit(index.getRank(), index.getDim(), false) |
             threadBit(index.getRank(), index.getDim(), true);
    // A grid-stride step keeps a thread inside its own residue class of indices.
    else if (auto next = dyn_cast<oxide::GridStrideNextOp>(op))
      bits = masked(of(next.getIndex()), threadBit(next.getRank(), next.getDim(), true));
    else if (auto index = dyn_cast<oxide::GroupIndexOp>(op))
      bits = groupBit(index.getGroup());
    else if (auto next = dyn_cast<oxide::GroupStrideNextOp>(op))
      bits = masked(of(next.getIndex()), groupBit(next.getGroup()));
    // `freeze x` is x unless x is poison or undef, and no witness is: the index ops are defined
    // values (registers). LLVM freezes a value before it lets a branch on it or a division by it
    // execute unconditionally (speculation, select formation, loop unswitching) and then may
    // replace every other use of the value by the frozen one (InstCombine's freezeOtherUses).
    else if (auto freeze = dyn_cast<LLVM::FreezeOp>(op))
      bits = of(freeze.getVal());
    // A select is a phi without the branch (SimplifyCFG turns one into the other): it is a
    // witness when both of its values are, whichever the condition picks.
    else if (auto select = dyn_cast<LLVM::SelectOp>(op)) {
      auto onTrue = of(select.getTrueValue()), onFalse = of(select.getFalseValue());
      if (onTrue && onFalse)
        bits = *onTrue & *onFalse;
    }
    if (bits)
      meet(op->getResult(0), *bits);
  }

  /// A block's arguments: a function's, what every call passes (kernels are called by the host,
  /// and a function whose address is taken by anything); a phi's, what every edge brings.
  void visitBlock(Block *block) override {
    ProgramPoint *before = getProgramPointBefore(block);
    auto incoming = [&](BlockArgument arg, Value value) {
      if (!value)
        return meet(arg, 0);
      if (std::optional<std::uint64_t> bits = kindsOf(value, before))
        meet(arg, *bits);
    };
    for (BlockArgument arg : block->getArguments()) {
      if (!mayBeWitness(arg))
        continue;
      if (block->isEntryBlock()) {
        auto fn = dyn_cast<LLVM::LLVMFuncOp>(block->getParentOp());
        auto it = fn ? callers.find(fn.getSymNameAttr()) : callers.end();
        if (!fn || fn->hasAttr(oxide::OxideDialect::getKernelAttrName()) || it == callers.end() ||
            addressTaken.contains(fn.getSymNameAttr())) {
          meet(arg, 0);
          continue;
        }
        for (LLVM::CallOp call : it->second)
          incoming(arg, arg.getArgNumber() < call.getArgOperands().size()
                            ? call.getArgOperands()[arg.getArgNumber()]
                            : Value());
        continue;
      }
      for (auto pred = block->pred_begin(); pred != block->pred_end(); ++pred) {
        auto branch = dyn_cast<BranchOpInterface>((*pred)->getTerminator());
        incoming(arg, branch ? branch.getSuccessorOperands(pred.getSuccessorIndex())[arg.getArgNumber()]
                             : Value());
      }
    }
  }

  llvm::DenseMap<StringAttr, SmallVector<LLVM::CallOp>> callers;
  llvm::DenseSet<StringAttr> addressTaken;
};

} // namespace

WitnessProvenance::WitnessProvenance(ModuleOp module) : solver(std::make_unique<DataFlowSolver>()) {
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

namespace {

/// `address` stripped of GEPs whose indices are all constants.
Value stripConstantOffsets(Value address) {
  while (auto gep = address.getDefiningOp<LLVM::GEPOp>()) {
    if (!llvm::all_of(gep.getDynamicIndices(), [](Value index) { return matchPattern(index, m_Constant()); }))
      return address;
    address = gep.getBase();
  }
  return address;
}

/// Whether every use of `pointer`, through GEPs, only loads from it: the memory is never
/// written, so what it holds is what the launch put there.
bool onlyLoadedFrom(Value pointer, unsigned depth = 0) {
  if (depth > 16)
    return false;
  return llvm::all_of(pointer.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto load = dyn_cast<LLVM::LoadOp>(user))
      return load.getAddr() == pointer;
    if (auto gep = dyn_cast<LLVM::GEPOp>(user))
      return gep.getBase() == pointer && onlyLoadedFrom(gep.getResult(), depth + 1);
    return false;
  });
}

/// Whether `address` lies at a constant offset in a kernel's by-value parameter (a span's data
/// and extents, a struct's fields) that the kernel never writes or passes on: every thread's copy
/// of it holds the launch's bytes.
bool isReadOnlyKernelParameter(Value address) {
  auto arg = dyn_cast<BlockArgument>(stripConstantOffsets(address));
  if (!arg || !arg.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
  return func && func->hasAttr(oxide::OxideDialect::getKernelAttrName()) &&
         func.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getByValAttrName()) && onlyLoadedFrom(arg);
}

} // namespace

bool WitnessProvenance::isUniform(Value value, unsigned depth) {
  if (depth > 64)
    return false;
  if (value.getDefiningOp<LLVM::UndefOp>() || value.getDefiningOp<LLVM::PoisonOp>())
    return false;
  if (matchPattern(value, m_Constant()))
    return true;
  if (auto load = value.getDefiningOp<LLVM::LoadOp>())
    return !load.getVolatile_() && isReadOnlyKernelParameter(load.getAddr());
  if (auto geometry = value.getDefiningOp<oxide::GeometryOp>()) // blockDim and gridDim: the launch's own
    return geometry.getKind() == oxide::GeometryKind::block_dim ||
           geometry.getKind() == oxide::GeometryKind::grid_dim;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
    return arg.getOwner()->isEntryBlock() && func && func->hasAttr(OxideDialect::getKernelAttrName()) &&
           !isa<LLVM::LLVMPointerType>(arg.getType());
  }
  Operation *def = value.getDefiningOp();
  if (auto call = dyn_cast_or_null<LLVM::CallIntrinsicOp>(def)) { // the import's form of min and max
    const StringRef name = call.getIntrin();
    if (!name.starts_with("llvm.umax.") && !name.starts_with("llvm.umin.") &&
        !name.starts_with("llvm.smax.") && !name.starts_with("llvm.smin."))
      return false;
    return llvm::all_of(call.getArgs(), [&](Value v) { return isUniform(v, depth + 1); });
  }
  if (!isa<LLVM::ZExtOp, LLVM::SExtOp, LLVM::TruncOp, LLVM::AddOp, LLVM::SubOp, LLVM::MulOp, LLVM::ShlOp,
           LLVM::LShrOp, LLVM::AShrOp, LLVM::UDivOp, LLVM::URemOp, LLVM::AndOp, LLVM::OrOp, LLVM::XOrOp,
           LLVM::ICmpOp, LLVM::SelectOp, LLVM::UMinOp, LLVM::UMaxOp, LLVM::SMinOp, LLVM::SMaxOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value v) { return isUniform(v, depth + 1); });
}
