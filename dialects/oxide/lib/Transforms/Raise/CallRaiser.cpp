//===- CallRaiser.cpp - raising one __oxide_* call --------------------------===//
//
// The raise of one call: finds the intrinsic in the table (whose names and signatures come from
// the declarations in oxide/device/intrinsics.hpp), checks the call against its signature and
// replaces it; and the checks of constant operands that every family uses.
//
//===----------------------------------------------------------------------===//

#include "CallRaiser.h"
#include "oxide/device/intrinsics.hpp"

namespace oxide::raise {

LogicalResult CallRaiser::raise() {
  auto table = intrinsics();
  const auto *entry = llvm::find_if(table, [&](const Intrinsic &i) { return i.name == name; });
  if (entry == table.end())
    return call.emitError() << "unknown oxide intrinsic '" << name
                            << "': the oxide headers and the compiler are from different versions";
  SmallVector<Type> operands;
  for (unsigned i = 0; i < entry->signature.numOperands; ++i)
    operands.push_back(type(entry->signature.operands[i]));
  return expect(operands, type(entry->signature.result), [&] { return (this->*entry->raise)(); });
}

ArrayRef<CallRaiser::Intrinsic> CallRaiser::intrinsics() {
  // The name and the signature both come from the declaration of __oxide_NAME.
#define OXIDE_INTRINSIC(NAME, RAISE)                                                                         \
  Intrinsic { "__oxide_" #NAME, SignatureOf<decltype(__oxide_##NAME)>::value, &CallRaiser::RAISE }
  static constexpr Intrinsic kIntrinsics[] = {
      OXIDE_INTRINSIC(index_1d, index1d),
      OXIDE_INTRINSIC(thread_index, threadIndex),
      OXIDE_INTRINSIC(grid_stride_next, gridStrideNext),
      OXIDE_INTRINSIC(disjoint_tile, disjointTile),
      OXIDE_INTRINSIC(disjoint_tile_2d, disjointTile2D),
      OXIDE_INTRINSIC(group_index, groupIndex),
      OXIDE_INTRINSIC(group_stride_next, groupStrideNext),
      OXIDE_INTRINSIC(owned_elem, ownedElem<1>),
      OXIDE_INTRINSIC(owned_pair, ownedElem<2>),
      OXIDE_INTRINSIC(reserve, reserve),
      OXIDE_INTRINSIC(reserved_elem, slotElem<oxide::ReservedElemOp>),
      OXIDE_INTRINSIC(permuted_elem, slotElem<oxide::PermutedElemOp>),
      OXIDE_INTRINSIC(claimed_elem, slotElem<oxide::ClaimedElemOp>),
      OXIDE_INTRINSIC(span_elem, spanElem),
      OXIDE_INTRINSIC(disjoint_get, disjointGet<1>),
      OXIDE_INTRINSIC(disjoint_get_2d, disjointGet<2>),
      OXIDE_INTRINSIC(disjoint_get_3d, disjointGet<3>),
      OXIDE_INTRINSIC(thread_idx, geometry<oxide::GeometryKind::thread_idx>),
      OXIDE_INTRINSIC(block_idx, geometry<oxide::GeometryKind::block_idx>),
      OXIDE_INTRINSIC(block_dim, geometry<oxide::GeometryKind::block_dim>),
      OXIDE_INTRINSIC(grid_dim, geometry<oxide::GeometryKind::grid_dim>),
      OXIDE_INTRINSIC(sync_threads, syncThreads),
      OXIDE_INTRINSIC(named_barrier, namedBarrier),
      OXIDE_INTRINSIC(fence, fence),
      OXIDE_INTRINSIC(shared_alloc, sharedAlloc),
      OXIDE_INTRINSIC(dynamic_shared, dynamicShared),
      OXIDE_INTRINSIC(dynamic_shared_size, dynamicSharedSize),
      OXIDE_INTRINSIC(lane_id, laneId),
      OXIDE_INTRINSIC(warp_shuffle, warpShuffle),
      OXIDE_INTRINSIC(warp_vote, warpVote),
      OXIDE_INTRINSIC(warp_sync, warpSync),
      OXIDE_INTRINSIC(bounds_fail, boundsFail),
      OXIDE_INTRINSIC(warp_redux, warpRedux),
      OXIDE_INTRINSIC(warp_match, warpMatch),
      OXIDE_INTRINSIC(warp_match_b64, warpMatch),
      OXIDE_INTRINSIC(active_mask, activeMask),
      OXIDE_INTRINSIC(lane_mask, laneMask),
      OXIDE_INTRINSIC(clock, clock),
      OXIDE_INTRINSIC(cluster_geometry, clusterGeometry),
      OXIDE_INTRINSIC(cluster_sync, clusterSync),
      OXIDE_INTRINSIC(cluster_map_shared, mapShared),
      OXIDE_INTRINSIC(grid_sync, gridSync),
      OXIDE_INTRINSIC(trap, trap),
      OXIDE_INTRINSIC(mma_m16n8k16_bf16, mmaBf16),
      OXIDE_INTRINSIC(mma_m16n8k16_f16, mmaF16),
      OXIDE_INTRINSIC(mma_m16n8k8_tf32, mmaTf32),
      OXIDE_INTRINSIC(mma_m16n8k32_s8, mmaS8),
      OXIDE_INTRINSIC(ldmatrix, ldmatrix),
      OXIDE_INTRINSIC(stmatrix, stmatrix),
      OXIDE_INTRINSIC(cp_async, cpAsync),
      OXIDE_INTRINSIC(cp_async_commit, cpAsyncCommit),
      OXIDE_INTRINSIC(cp_async_wait, cpAsyncWait),
      OXIDE_INTRINSIC(shared_address, sharedAddress),
      OXIDE_INTRINSIC(mbarrier_init, mbarrierInit),
      OXIDE_INTRINSIC(mbarrier_init_fence, mbarrierInitFence),
      OXIDE_INTRINSIC(mbarrier_arrive, mbarrierArrive),
      OXIDE_INTRINSIC(mbarrier_arrive_expect_tx, mbarrierArriveExpectTx),
      OXIDE_INTRINSIC(mbarrier_arrive_cluster, mbarrierArriveCluster),
      OXIDE_INTRINSIC(mbarrier_try_wait_parity, mbarrierTryWaitParity),
      OXIDE_INTRINSIC(mbarrier_inval, mbarrierInval),
      OXIDE_INTRINSIC(fence_proxy_async_shared, fenceProxyAsyncShared),
      OXIDE_INTRINSIC(tma_load, tmaLoad),
      OXIDE_INTRINSIC(tma_load_multicast, tmaLoadMulticast),
      OXIDE_INTRINSIC(tma_prefetch, tmaPrefetch),
      OXIDE_INTRINSIC(tma_store, tmaStore),
      OXIDE_INTRINSIC(tma_store_commit, tmaStoreCommit),
      OXIDE_INTRINSIC(tma_store_wait, tmaStoreWait),
      OXIDE_INTRINSIC(wgmma, wgmma),
      OXIDE_INTRINSIC(wgmma_rs, wgmmaRegisterA),
      OXIDE_INTRINSIC(wgmma_fence, wgmmaFence),
      OXIDE_INTRINSIC(wgmma_commit_group, wgmmaCommitGroup),
      OXIDE_INTRINSIC(wgmma_wait_group, wgmmaWaitGroup),
      OXIDE_INTRINSIC(setmaxnreg, setmaxnreg),
      OXIDE_INTRINSIC(cached_load, cachedLoad),
      OXIDE_INTRINSIC(cached_store, cachedStore),
      OXIDE_INTRINSIC(atomic_scope, atomicScope),
  };
#undef OXIDE_INTRINSIC
  return kIntrinsics;
}

Type CallRaiser::type(Abi abi) const {
  switch (abi) {
  case Abi::none:
    break;
  case Abi::i16:
    return rewriter.getI16Type();
  case Abi::i32:
    return i32;
  case Abi::i64:
    return i64;
  case Abi::ptr:
    return ptr;
  }
  return nullptr;
}

/// Checks the call against the intrinsic's declared signature (a mismatch means the headers
/// and the compiler disagree), then replaces it with the op that `build` creates.
template <class Build> LogicalResult CallRaiser::expect(ArrayRef<Type> operands, Type result, Build build) {
  if (TypeRange(call.getOperandTypes()) != TypeRange(operands))
    return call.emitError() << "oxide intrinsic '" << name << "' called with unexpected operands";
  bool hasResult = call.getNumResults() == 1;
  if (hasResult != static_cast<bool>(result) || (hasResult && call.getResult().getType() != result))
    return call.emitError() << "oxide intrinsic '" << name << "' has an unexpected result type";
  Operation *op = build();
  if (!op)
    return failure();
  if (op == call.getOperation()) // the raise forwarded an operand itself: nothing replaces the call
    rewriter.eraseOp(call);
  else
    rewriter.replaceOp(call, op->getResults());
  return success();
}

/// Operands `first` and `first + 1`: a launch rank (1..kMaxRank) and one of its dimensions.
std::optional<std::pair<std::uint32_t, oxide::Dim>> CallRaiser::rankAndDimension(unsigned first) {
  auto rank = constantOperand(first, kMaxRank);
  auto dim = rank ? constantOperand(first + 1, oxide::getMaxEnumValForDim()) : std::nullopt;
  if (!rank || !dim)
    return std::nullopt;
  if (*rank == 0 || *dim >= *rank) {
    call.emitError() << "oxide intrinsic '" << name << "' asks for dimension " << *dim << " of a rank-"
                     << *rank << " launch";
    return std::nullopt;
  }
  return std::pair{*rank, static_cast<oxide::Dim>(*dim)};
}

/// The value of operand `index`, which must be a constant in [0, max].
std::optional<std::uint32_t> CallRaiser::constantOperand(unsigned index, std::uint32_t max) {
  APInt value;
  if (!matchPattern(call.getOperand(index), m_ConstantInt(&value))) {
    call.emitError() << "argument " << index << " of oxide intrinsic '" << name
                     << "' must be a compile-time constant; call it through the oxide device API";
    return std::nullopt;
  }
  if (value.getZExtValue() > max) {
    call.emitError() << "argument " << index << " of oxide intrinsic '" << name << "' is "
                     << value.getZExtValue() << ", outside 0.." << max;
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(value.getZExtValue());
}

} // namespace oxide::raise
