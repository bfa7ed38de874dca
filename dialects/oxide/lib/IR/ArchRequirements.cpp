//===- ArchRequirements.cpp - what kernels need of the GPU ----------------===//

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;

SmallVector<LLVM::LLVMFuncOp> oxide::reachableFunctions(LLVM::LLVMFuncOp root, SymbolTable &symbols) {
  SmallVector<LLVM::LLVMFuncOp> order = {root};
  llvm::DenseSet<Operation *> seen = {root};
  for (size_t i = 0; i < order.size(); ++i)
    order[i].walk([&](LLVM::CallOp call) {
      auto callee = call.getCalleeAttr();
      if (!callee)
        return;
      auto fn = symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue());
      if (fn && !fn.isExternal() && seen.insert(fn).second)
        order.push_back(fn);
    });
  return order;
}

namespace {

struct OpRequirement {
  unsigned minArch = 0;
  const char *feature = nullptr;
  bool archSpecific = false;
};

/// The architecture `op` needs and what to call it, or 0 when every target has it.
OpRequirement opRequirement(Operation *op) {
  // Hopper: the warpgroup operations exist on sm_90a only; the copy engine (TMA), transaction
  // counts and the async proxy on sm_90 and newer, and so are the mbarrier forms the lowering
  // emits (the .release.cta/.acquire.cta qualifiers of PTX 8).
  if (isa<oxide::WgmmaOp, oxide::WgmmaFenceOp, oxide::WgmmaCommitGroupOp, oxide::WgmmaWaitGroupOp>(op))
    return {90, "uses warpgroup matrix multiply-accumulate (oxide::wgmma, wgmma.mma_async)", true};
  if (isa<oxide::SetMaxNRegOp>(op))
    return {90, "changes its warpgroups' register budget (setmaxnreg)", true};
  if (isa<oxide::TmaLoadOp, oxide::TmaPrefetchOp, oxide::TmaStoreOp, oxide::TmaStoreCommitOp,
          oxide::TmaStoreWaitOp>(op))
    return {90, "uses bulk tensor copies (TMA, cp.async.bulk.tensor)"};
  if (isa<oxide::StMatrixOp>(op))
    return {90, "uses a warp matrix store to shared memory (oxide::mma::stmatrix)"};
  if (isa<oxide::MbarrierArriveExpectTxOp, oxide::MbarrierTryWaitParityOp>(op))
    return {90, "waits for transactions on an mbarrier (mbarrier expect_tx / try_wait)"};
  if (isa<oxide::MbarrierArriveClusterOp>(op))
    return {90, "arrives on an mbarrier of another block of its cluster"};
  if (isa<oxide::MbarrierInitFenceOp, oxide::FenceProxyAsyncSharedOp>(op))
    return {90, "orders shared memory for the async proxy (fence.mbarrier_init, fence.proxy.async)"};
  if (isa<oxide::MbarrierInitOp, oxide::MbarrierArriveOp, oxide::MbarrierInvalOp>(op))
    return {90, "uses an mbarrier (oxide::mbarrier)"};
  if (isa<oxide::ClusterSyncOp>(op))
    return {90, "uses a thread-block cluster barrier (oxide::cluster::sync)"};
  if (isa<oxide::MapSharedOp>(op))
    return {90, "uses distributed shared memory (oxide::cluster::map_shared)"};
  if (isa<oxide::ClusterGeometryOp>(op))
    return {90, "uses thread-block clusters (oxide::cluster::block_rank, block_count...)"};
  auto group = dyn_cast<oxide::GroupIndexOp>(op);
  auto stride = dyn_cast<oxide::GroupStrideNextOp>(op);
  auto owned = dyn_cast<oxide::OwnedElemOp>(op);
  if ((group && group.getGroup() == oxide::Group::cluster) ||
      (stride && stride.getGroup() == oxide::Group::cluster) ||
      (owned && owned.getShape() == oxide::Ownership::cluster_leader))
    return {90, "uses a cluster witness (oxide::cluster::index)"};
  if (isa<oxide::WarpReduxOp>(op))
    return {80, "uses a one-instruction warp reduction (oxide::warp::reduce_*, redux.sync)"};
  if (isa<oxide::MmaSyncOp>(op))
    return {80, "uses the tensor cores (oxide::mma::mma_sync, mma.sync)"};
  if (isa<oxide::LdMatrixOp>(op))
    return {80, "uses a warp matrix load from shared memory (oxide::mma::ldmatrix)"};
  if (isa<oxide::CpAsyncOp, oxide::CpAsyncCommitOp, oxide::CpAsyncWaitOp>(op))
    return {80, "uses asynchronous copies to shared memory (oxide::cp_async)"};
  return {0, nullptr};
}

} // namespace

SmallVector<oxide::ArchRequirement> oxide::collectArchRequirements(ModuleOp module) {
  SmallVector<ArchRequirement> result;
  SymbolTable symbols(module);
  for (auto kernel : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!kernel->hasAttr(OxideDialect::getKernelAttrName()))
      continue;
    ArchRequirement strongest{kernel, 0, false, "", kernel.getLoc()};
    auto consider = [&](unsigned minArch, std::string feature, Location where, bool archSpecific = false) {
      // An architecture-specific need names the one architecture that can run the kernel: it
      // stays the reason whatever else the kernel needs.
      if (strongest.archSpecific)
        return;
      if (archSpecific || minArch > strongest.minArch)
        strongest = {kernel, minArch, archSpecific, std::move(feature), where};
    };
    // What the code does comes first: it names the user's line.
    for (auto fn : reachableFunctions(kernel, symbols))
      fn.walk([&](Operation *op) {
        if (OpRequirement r = opRequirement(op); r.minArch)
          consider(r.minArch, r.feature, userLocation(op->getLoc()), r.archSpecific);
      });
    // What the launch contract asks for: the runtime launches in clusters what it says, and
    // min_compute_capability is the user's own statement.
    auto contract = getKernelContract(kernel);
    if (succeeded(contract) && *contract) {
      const detail::Contract &c = (*contract)->contract;
      if (c.has_cluster())
        consider(90,
                 "is launched in thread-block clusters (its launch contract's 'cluster = (" +
                     std::to_string(c.cluster[0]) + ", " + std::to_string(c.cluster[1]) + ", " +
                     std::to_string(c.cluster[2]) + ")')",
                 kernel.getLoc());
      const unsigned minCc = c.min_cc_major * 10 + c.min_cc_minor;
      if (minCc)
        consider(minCc,
                 "requires compute capability " + std::to_string(c.min_cc_major) + "." +
                     std::to_string(c.min_cc_minor) + " (its launch contract's 'min_compute_capability')",
                 kernel.getLoc());
    }
    if (strongest.minArch)
      result.push_back(std::move(strongest));
  }
  return result;
}

std::string oxide::requiredTargetName(const ArchRequirement &requirement) {
  return "sm_" + std::to_string(requirement.minArch) + (requirement.archSpecific ? "a" : "");
}
