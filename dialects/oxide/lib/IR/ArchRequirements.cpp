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

/// The architecture `op` needs and what to call it, or 0 when every target has it.
std::pair<unsigned, const char *> opRequirement(Operation *op) {
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
    ArchRequirement strongest{kernel, 0, "", kernel.getLoc()};
    auto consider = [&](unsigned minArch, std::string feature, Location where) {
      if (minArch > strongest.minArch)
        strongest = {kernel, minArch, std::move(feature), where};
    };
    // What the code does comes first: it names the user's line.
    for (auto fn : reachableFunctions(kernel, symbols))
      fn.walk([&](Operation *op) {
        if (auto [minArch, feature] = opRequirement(op); minArch)
          consider(minArch, feature, userLocation(op->getLoc()));
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
