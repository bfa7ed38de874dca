//===- VerifySafety.cpp - witness provenance and contract domains ---------===//

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"
#include "Oxide/Transforms/Passes.h"
#include "Oxide/Transforms/WriteProof.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/Demangle/Demangle.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDEVERIFYSAFETY
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

class ProvenanceChecker {
public:
  explicit ProvenanceChecker(ModuleOp module) {
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCalleeAttr())
        callers[callee.getAttr()].push_back(call);
    });
  }

  /// Whether `value` is, on every path, the calling thread's `oxide.thread_index rank dim`, or
  /// (with `strides`) a grid-stride step of it.
  bool isWitness(Value value, unsigned rank, oxide::Dim dim, bool strides = true) {
    const unsigned key = (rank * 4 + static_cast<unsigned>(dim)) * 2 + (strides ? 1 : 0);
    return traces(value, key, [&](Operation *op) -> Source {
      if (auto index = dyn_cast<oxide::ThreadIndexOp>(op))
        return index.getRank() == rank && index.getDim() == dim ? Source::witness() : Source::reject();
      // A grid-stride step keeps a thread inside its own residue class of indices.
      if (auto next = dyn_cast<oxide::GridStrideNextOp>(op); next && strides)
        return next.getRank() == rank && next.getDim() == dim ? Source::step(next.getIndex())
                                                              : Source::reject();
      return Source::reject();
    });
  }

  /// Whether `value` is a witness (`isWitness`), or equal to one where `at` runs: `at` lies
  /// behind the edge of a branch on `value == w` (taken when it holds) or `value != w` (taken
  /// when it fails) for a witness w. The optimiser gives the compared value to the uses the
  /// comparison dominates: `if (i.get() != grid.thread_rank()) continue; out.get_mut(i)` reaches
  /// the verifier indexed by the rank.
  bool isWitnessAt(Value value, Operation *at, llvm::function_ref<bool(Value)> isWitness) {
    if (isWitness(value))
      return true;
    Block *use = at->getBlock();
    // A region of one block has no branches (and MLIR builds no dominator tree for it).
    if (use->getParent()->hasOneBlock())
      return false;
    DominanceInfo &dominance = dominanceOf(at);
    for (auto *node = dominance.getNode(use); node; node = node->getIDom()) {
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
      if (equal->getSinglePredecessor() != node->getBlock() || !dominance.dominates(equal, use))
        continue;
      Value other = cmp.getLhs() == value ? cmp.getRhs() : cmp.getRhs() == value ? cmp.getLhs() : Value();
      if (other && isWitness(other))
        return true;
    }
    return false;
  }

  /// Whether `value` is, on every path, the calling thread's `oxide.group_index group`, or a
  /// group-stride step of it.
  bool isGroupWitness(Value value, oxide::Group group) {
    const unsigned key = 100 + static_cast<unsigned>(group);
    return traces(value, key, [&](Operation *op) -> Source {
      if (auto index = dyn_cast<oxide::GroupIndexOp>(op))
        return index.getGroup() == group ? Source::witness() : Source::reject();
      if (auto next = dyn_cast<oxide::GroupStrideNextOp>(op))
        return next.getGroup() == group ? Source::step(next.getIndex()) : Source::reject();
      return Source::reject();
    });
  }

  /// Whether `value` is the same for every thread of the launch: a constant, a kernel's scalar
  /// parameter (or a helper's argument that every call gives such a value), arithmetic and
  /// comparisons of such values, or a select between such values on such a condition (a distance
  /// chosen by a flag). Not a phi: which value it gives may depend on the path the thread took.
  /// Not undef or poison: each thread may see its own value of an uninitialised variable.
  static bool isUniform(Value value, unsigned depth = 0) {
    if (depth > 64)
      return false;
    if (value.getDefiningOp<LLVM::UndefOp>() || value.getDefiningOp<LLVM::PoisonOp>())
      return false;
    if (matchPattern(value, m_Constant()))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto func = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
      return arg.getOwner()->isEntryBlock() && func &&
             func->hasAttr(oxide::OxideDialect::getKernelAttrName()) &&
             !isa<LLVM::LLVMPointerType>(arg.getType());
    }
    Operation *def = value.getDefiningOp();
    if (!isa<LLVM::ZExtOp, LLVM::SExtOp, LLVM::TruncOp, LLVM::AddOp, LLVM::SubOp, LLVM::MulOp, LLVM::ShlOp,
             LLVM::LShrOp, LLVM::AShrOp, LLVM::UDivOp, LLVM::URemOp, LLVM::AndOp, LLVM::OrOp, LLVM::XOrOp,
             LLVM::ICmpOp, LLVM::SelectOp, LLVM::UMinOp, LLVM::UMaxOp, LLVM::SMinOp, LLVM::SMaxOp>(def))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value v) { return isUniform(v, depth + 1); });
  }

private:
  /// What a value's defining op contributes to a witness: it is one, it is one if its operand
  /// is, or it is not one.
  struct Source {
    enum { Witness, Step, Reject } kind;
    Value from;
    static Source witness() { return {Witness, Value()}; }
    static Source step(Value from) { return {Step, from}; }
    static Source reject() { return {Reject, Value()}; }
  };

  /// Whether every value `value` may take comes from a source `classify` accepts, through
  /// steps, phis, selects, freezes and function arguments. A worklist, not a recursion: a chain of
  /// grid-stride steps or phis may be as long as the program, and the stack is not.
  bool traces(Value value, unsigned key, llvm::function_ref<Source(Operation *)> classify) {
    llvm::DenseSet<Value> seen;
    SmallVector<Value> work = {value};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (proven.contains({v, key}) || !seen.insert(v).second)
        continue; // a cycle adds no new source of values
      if (Operation *def = v.getDefiningOp()) {
        // `freeze x` is x unless x is poison or undef, and no witness is: the index ops are
        // defined values (registers), and a phi or call argument is followed only to such ops.
        // LLVM freezes a value before it lets a branch on it or a division by it execute
        // unconditionally (speculation, select formation, loop unswitching) and then may replace
        // every other use of the value by the frozen one (InstCombine's freezeOtherUses): the
        // witnesses' intrinsics are extern "C", whose results clang does not mark noundef.
        if (auto freeze = dyn_cast<LLVM::FreezeOp>(def)) {
          work.push_back(freeze.getVal());
          continue;
        }
        // A select is a phi without the branch (SimplifyCFG turns one into the other): it is a
        // witness when both of its values are, whichever the condition picks.
        if (auto select = dyn_cast<LLVM::SelectOp>(def)) {
          work.push_back(select.getTrueValue());
          work.push_back(select.getFalseValue());
          continue;
        }
        Source source = classify(def);
        if (source.kind == Source::Reject)
          return false;
        if (source.kind == Source::Step)
          work.push_back(source.from);
        continue;
      }
      auto arg = cast<BlockArgument>(v);
      Block *block = arg.getOwner();
      auto func = dyn_cast<LLVM::LLVMFuncOp>(block->getParentOp());
      if (!func)
        return false;
      if (block->isEntryBlock()) {
        // A function argument: every call must pass a witness. Kernels are called by the host.
        auto it = callers.find(func.getSymNameAttr());
        if (func->hasAttr(oxide::OxideDialect::getKernelAttrName()) || it == callers.end())
          return false;
        for (LLVM::CallOp call : it->second) {
          if (arg.getArgNumber() >= call.getArgOperands().size())
            return false;
          work.push_back(call.getArgOperands()[arg.getArgNumber()]);
        }
        continue;
      }
      // A block argument (phi): every incoming value must be a witness.
      for (Block *pred : block->getPredecessors()) {
        auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
        if (!branch)
          return false;
        for (unsigned s = 0; s < branch->getNumSuccessors(); ++s) {
          if (branch->getSuccessor(s) != block)
            continue;
          Value incoming = branch.getSuccessorOperands(s)[arg.getArgNumber()];
          if (!incoming)
            return false;
          work.push_back(incoming);
        }
      }
    }
    // Every value reached is a witness: later queries through them stop there.
    for (Value v : seen)
      proven.insert({v, key});
    return true;
  }

  /// The dominance of the function that holds `op`, computed once per function.
  DominanceInfo &dominanceOf(Operation *op) {
    Operation *func = op->getParentOfType<LLVM::LLVMFuncOp>();
    auto &info = dominances[func];
    if (!info)
      info = std::make_unique<DominanceInfo>(func);
    return *info;
  }

  llvm::DenseMap<StringAttr, SmallVector<LLVM::CallOp>> callers;
  llvm::DenseMap<Operation *, std::unique_ptr<DominanceInfo>> dominances;
  /// (value, key) already shown to be a witness of the kind `key` names.
  llvm::DenseSet<std::pair<Value, unsigned>> proven;
};

/// The C++ call that makes an owner's witness, for messages.
std::string witnessSpelling(oxide::Ownership shape) {
  switch (shape) {
  case oxide::Ownership::warp_leader:
  case oxide::Ownership::warp_lanes:
    return "oxide::warp::index()";
  case oxide::Ownership::block_leader:
  case oxide::Ownership::block_threads:
  case oxide::Ownership::warpgroup_tile:
    return "oxide::block::index()";
  case oxide::Ownership::cluster_leader:
    return "oxide::cluster::index()";
  case oxide::Ownership::strided_rows:
  case oxide::Ownership::z_column:
    return "oxide::thread::index_2d()";
  default:
    return "oxide::thread::index_1d()";
  }
}

/// The owner coordinates of `owned` are its shape's witnesses, and a pair's distance is uniform.
bool verifyOwners(oxide::OwnedElemOp owned, ProvenanceChecker &provenance) {
  const oxide::Ownership shape = owned.getShape();
  auto owners = owned.getOwners();
  bool ok = true;
  // Shapes that compute the thread's place in its block from the launch registers need the
  // thread's own index itself, not a grid-stride step of it (whose set would be another's).
  auto witness = [&](Value owner, unsigned rank, oxide::Dim dim, bool strides = true) {
    return provenance.isWitnessAt(owner, owned,
                                  [&](Value v) { return provenance.isWitness(v, rank, dim, strides); });
  };
  switch (shape) {
  case oxide::Ownership::block_strided:
    ok = witness(owners[0], 1, oxide::Dim::x, /*strides=*/false);
    break;
  case oxide::Ownership::launch_strided:
  case oxide::Ownership::pair:
    ok = witness(owners[0], 1, oxide::Dim::x);
    break;
  case oxide::Ownership::strided_rows:
    ok = witness(owners[0], 2, oxide::Dim::x) && witness(owners[1], 2, oxide::Dim::y, /*strides=*/false);
    break;
  case oxide::Ownership::z_column:
    ok = witness(owners[0], 2, oxide::Dim::x) && witness(owners[1], 2, oxide::Dim::y);
    break;
  default: {
    const oxide::Group group = *oxide::OwnedElemOp::owningGroup(shape);
    ok = provenance.isWitnessAt(owners[0], owned,
                                [&](Value v) { return provenance.isGroupWitness(v, group); });
    break;
  }
  }
  if (!ok) {
    emitError(oxide::userLocation(owned.getLoc()))
        << "this output is written through a " << oxide::stringifyOwnership(shape)
        << " set whose owner is not the calling thread's witness; pass the witness from "
        << witnessSpelling(shape)
        << " itself (a computed, stored or forged owner would let two threads write the same element)"
        << (shape == oxide::Ownership::block_strided || shape == oxide::Ownership::strided_rows
                ? ", and not a grid-stride step of it"
                : "")
        << " [safety rule: witness]";
    return false;
  }
  if (shape == oxide::Ownership::warpgroup_tile && owned.getUniform() &&
      !ProvenanceChecker::isUniform(owned.getUniform())) {
    emitError(oxide::userLocation(owned.getLoc()))
        << "the period of this longest-first warpgroup tile is not the same for every thread: the blocks' "
           "tiles are a bijection only when they all use one period; pass a constant or a kernel parameter "
           "(or arithmetic of them, such as seq_len / 128) [safety rule: witness]";
    return false;
  }
  if (shape == oxide::Ownership::pair && !ProvenanceChecker::isUniform(owned.getUniform())) {
    emitError(oxide::userLocation(owned.getLoc()))
        << "the distance of this pair is not the same for every thread: pairs of different threads "
           "are disjoint only when they all use one distance; pass a constant or a kernel parameter "
           "(not a value computed from the thread's index or loaded from memory) [safety rule: witness]";
    return false;
  }
  return true;
}

struct OxideVerifySafetyPass : oxide::impl::OxideVerifySafetyBase<OxideVerifySafetyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failed = false;

    ProvenanceChecker provenance(module);
    module.walk([&](oxide::DisjointGetOp get) {
      unsigned rank = get.getCoords().size();
      for (auto [d, coord] : llvm::enumerate(get.getCoords())) {
        if (provenance.isWitnessAt(coord, get, [&](Value v) {
              return provenance.isWitness(v, rank, static_cast<oxide::Dim>(d));
            }))
          continue;
        emitError(oxide::userLocation(get.getLoc()))
            << "this DisjointSpan element is indexed by a value that is not the calling thread's "
               "witness; pass the witness from oxide::thread::index_"
            << rank << "d() itself (a computed, stored or forged index would let two threads "
            << "write the same element) [safety rule: witness]";
        failed = true;
        break;
      }
    });

    module.walk([&](oxide::OwnedElemOp owned) {
      if (!verifyOwners(owned, provenance))
        failed = true;
    });

    // A scatter through a permutation is disjoint because the indices are: the thread's witness.
    module.walk([&](oxide::PermutedElemOp permuted) {
      if (provenance.isWitnessAt(permuted.getI(), permuted,
                                 [&](Value v) { return provenance.isWitness(v, 1, oxide::Dim::x); }))
        return;
      emitError(oxide::userLocation(permuted.getLoc()))
          << "this output is scattered through a permutation at an index that is not the calling "
             "thread's witness; pass the witness from oxide::thread::index_1d() itself (or a grid-stride "
             "step of it): two threads with the same index would write the same element perm[i] "
             "[safety rule: witness]";
      failed = true;
    });

    SymbolTable symbols(module);
    for (auto kernel : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!kernel->hasAttr(oxide::OxideDialect::getKernelAttrName()))
        continue;
      auto contract = oxide::getKernelContract(kernel);
      if (mlir::failed(contract)) {
        failed = true;
        continue;
      }
      const std::string kernelName = llvm::demangle(kernel.getSymName().str());
      const bool cooperative = *contract && (*contract)->contract.cooperative;
      const bool clustered = *contract && (*contract)->contract.has_cluster();
      for (auto fn : oxide::reachableFunctions(kernel, symbols))
        fn.walk([&](Operation *op) {
          // A grid barrier deadlocks unless every block is resident: only a cooperative
          // launch guarantees that, and the runtime launches cooperatively what the contract says.
          if (isa<oxide::GridSyncOp>(op) && !cooperative) {
            emitError(oxide::userLocation(op->getLoc()))
                << "kernel '" << kernelName << "' synchronises the whole grid, which needs a cooperative "
                << "launch; add 'cooperative = true' to its launch contract";
            failed = true;
          }
          // What ops state (Oxide_NeedsCluster, or in C++): a cluster barrier, distributed shared
          // memory, a remote arrival or a multicast copy reach other blocks of the cluster.
          if (oxide::needsClusterLaunch(op) && !clustered) {
            emitError(oxide::userLocation(op->getLoc()))
                << "kernel '" << kernelName << "' uses thread-block cluster operations but is not launched "
                << "in clusters; add 'cluster = (x, y, z)' to its launch contract";
            failed = true;
          }
        });
      if (!*contract)
        continue;
      unsigned domain = (*contract)->contract.domain;
      for (auto fn : oxide::reachableFunctions(kernel, symbols))
        fn.walk([&](oxide::ThreadIndexOp index) {
          if (index.getRank() == domain)
            return;
          emitError(oxide::userLocation(index.getLoc()))
              << "kernel '" << kernelName << "' has 'domain = " << domain
              << "' in its launch contract but uses a " << index.getRank()
              << "-D thread index; use oxide::thread::index_" << domain
              << "d() or change the contract's domain to " << index.getRank();
          failed = true;
        });
    }
    // The write proof of the contracted kernels (an analysis), then what follows from it: the
    // work of oxide-record-element-sizes and oxide-confine-private-writes, called here rather
    // than run as a nested pipeline, which would verify the whole module after each.
    if (failed || getAnalysis<oxide::WriteProof>().failed()) {
      signalPassFailure();
      return;
    }
    const oxide::WriteProof &proof = getAnalysis<oxide::WriteProof>();
    oxide::recordElementSizes(proof);
    oxide::confinePrivateWrites(proof);
  }
};

} // namespace
