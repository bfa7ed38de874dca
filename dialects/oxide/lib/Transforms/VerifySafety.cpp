//===- VerifySafety.cpp - witness provenance and contract domains ---------===//
//
// Every index an output is written at is the calling thread's witness (WitnessProvenance, on
// MLIR's dataflow framework), every kernel's thread indices have its contract's rank, grid and
// cluster operations have the launch they need; then the write proof (WriteProof/).
//

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"
#include "Oxide/Transforms/Passes.h"
#include "Oxide/Transforms/WriteProof.h"
#include "Provenance/WitnessProvenance.h"

#include "llvm/Demangle/Demangle.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDEVERIFYSAFETY
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

/// Whether `value` is computed from a phi (a loop counter, most often): for messages.
bool fromPhi(Value value, unsigned depth = 0) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return !arg.getOwner()->isEntryBlock();
  Operation *def = value.getDefiningOp();
  return def && depth < 16 &&
         llvm::any_of(def->getOperands(), [&](Value v) { return fromPhi(v, depth + 1); });
}

/// The C++ call that makes an owner's witness, for messages.
std::string witnessSpelling(const oxide::intrinsic::OwnershipShape &info) {
  if (!info.grouped)
    return "oxide::thread::index_" + std::to_string(info.witness_rank) + "d()";
  switch (info.group) {
  case oxide::intrinsic::Group::warp:
    return "oxide::warp::index()";
  case oxide::intrinsic::Group::block:
    return "oxide::block::index()";
  case oxide::intrinsic::Group::cluster:
    return "oxide::cluster::index()";
  }
  return "?";
}

/// The owner coordinates of `owned` are the witnesses its shape names (the catalog's
/// kOwnershipShapes), and a pair's distance is uniform.
bool verifyOwners(oxide::OwnedElemOp owned, oxide::WitnessProvenance &provenance) {
  const oxide::Ownership shape = owned.getShape();
  const oxide::intrinsic::OwnershipShape &info = oxide::OwnedElemOp::shapeInfo(shape);
  auto owners = owned.getOwners();
  bool ok = true;
  if (info.grouped) {
    const auto group = static_cast<oxide::Group>(info.group);
    ok = provenance.isWitnessAt(owners[0], owned,
                                [&](Value v) { return provenance.isGroupWitness(v, group); });
  } else {
    // Shapes that compute the thread's place in its block from the launch registers need the
    // thread's own index itself, not a grid-stride step of it (whose set would be another's).
    const bool steps[2] = {info.steps_x, info.steps_y};
    for (unsigned d = 0; d < info.owner_rank && ok; ++d)
      ok = provenance.isWitnessAt(owners[d], owned, [&](Value v) {
        return provenance.isWitness(v, info.witness_rank, static_cast<oxide::Dim>(d), steps[d]);
      });
  }
  if (!ok) {
    emitError(oxide::userLocation(owned.getLoc()))
        << "this output is written through a " << oxide::stringifyOwnership(shape)
        << " set whose owner is not the calling thread's witness; pass the witness from "
        << witnessSpelling(info)
        << " itself (a computed, stored or forged owner would let two threads write the same element)"
        << (!info.grouped && (!info.steps_x || (info.owner_rank > 1 && !info.steps_y))
                ? ", and not a grid-stride step of it"
                : "")
        << " [safety rule: witness]";
    return false;
  }
  if (shape == oxide::Ownership::warpgroup_tile && owned.getUniform() &&
      !oxide::WitnessProvenance::isUniform(owned.getUniform())) {
    emitError(oxide::userLocation(owned.getLoc()))
        << "the order of this longest-first warpgroup tile (its period and runs at once) is not the same "
           "for every thread: the blocks' tiles are a bijection only when they all use one order; pass "
           "constants or kernel parameters (or a span parameter's extent, the launch's blockDim or gridDim, "
           "or arithmetic of them, such as seq_len / 128; not the block's or the thread's index) [safety "
           "rule: witness]";
    return false;
  }
  if (info.param == oxide::intrinsic::OwnedParam::distance &&
      !oxide::WitnessProvenance::isUniform(owned.getUniform())) {
    InFlightDiagnostic error = emitError(oxide::userLocation(owned.getLoc()))
                               << "the distance of this pair is not the same for every thread: pairs of "
                                  "different threads are disjoint only when they all use one distance; ";
    if (fromPhi(owned.getUniform()))
      error << "this one changes from one loop iteration to the next, and threads in different "
               "iterations would write overlapping pairs at once: launch the kernel once per distance, "
               "passing it as a parameter (as a bitonic sort launches once per step) [safety rule: witness]";
    else
      error
          << "pass a constant or a kernel parameter (or a span parameter's extent; not a value computed from "
             "the thread's index or loaded from other memory) [safety rule: witness]";
    return false;
  }
  return true;
}

struct OxideVerifySafetyPass : oxide::impl::OxideVerifySafetyBase<OxideVerifySafetyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failed = false;

    oxide::WitnessProvenance provenance(module);
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

    // Once per line: LLVM may have copied the op (a peeled or unrolled loop).
    llvm::DenseSet<Location> refused;
    module.walk([&](oxide::OwnedElemOp owned) {
      const Location at = oxide::userLocation(owned.getLoc());
      if (!refused.contains(at) && !verifyOwners(owned, provenance)) {
        refused.insert(at);
        failed = true;
      }
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
      const oxide::detail::Contract *contract = oxide::getKernelContract(kernel);
      const std::string kernelName = llvm::demangle(kernel.getSymName().str());
      const bool cooperative = contract && contract->cooperative;
      const bool clustered = contract && contract->has_cluster();
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
      if (!contract)
        continue;
      unsigned domain = contract->domain;
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
