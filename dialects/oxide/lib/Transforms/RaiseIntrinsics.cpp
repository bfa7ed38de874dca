//===- RaiseIntrinsics.cpp - __oxide_* calls to oxide ops -----------------===//
//
// The C++ headers express kernel semantics as calls to undefined `__oxide_*` functions
// (include/oxide/device/intrinsics.hpp); this pass turns them into oxide ops so later passes
// reason about ops, not symbol names. It takes each intrinsic's signature from that header's
// declaration, and the range of each enumerated operand from the dialect's enums, whose cases
// are the catalog's (include/oxide/detail/intrinsic_abi.hpp).
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/Passes.h"
#include "oxide/device/intrinsics.hpp"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>
#include <type_traits>

namespace oxide {
#define GEN_PASS_DEF_OXIDERAISE
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kIntrinsicPrefix = "__oxide_";

/// The IR types of an intrinsic's C signature, read from its declaration in
/// oxide/device/intrinsics.hpp, so that the header is the one statement of each signature.
enum class Abi : std::uint8_t { none, i16, i32, i64, ptr };

template <class T> constexpr Abi abiOf() {
  if constexpr (std::is_void_v<T>)
    return Abi::none;
  else if constexpr (std::is_pointer_v<T>)
    return Abi::ptr;
  else {
    static_assert(std::is_integral_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                  "intrinsic operands are 16-, 32- or 64-bit integers or pointers");
    return sizeof(T) == 2 ? Abi::i16 : sizeof(T) == 4 ? Abi::i32 : Abi::i64;
  }
}

struct Signature {
  static constexpr unsigned kMaxOperands = 10;
  Abi result = Abi::none;
  std::array<Abi, kMaxOperands> operands{};
  unsigned numOperands = 0;
};

template <class F> struct SignatureOf;
template <class R, class... A> struct SignatureOf<R(A...) noexcept> {
  static_assert(sizeof...(A) <= Signature::kMaxOperands);
  static constexpr Signature value{abiOf<R>(), {abiOf<A>()...}, sizeof...(A)};
};

constexpr std::uint64_t kMaxStridedCount = oxide::detail::kMaxStridedCount;

/// Largest launch rank (the `rank` operand of __oxide_thread_index and __oxide_grid_stride_next).
constexpr std::uint32_t kMaxRank = 3;

/// The largest arrival count of an mbarrier phase (PTX: 2^20 - 1).
constexpr std::uint64_t kMaxMbarrierCount = (1u << 20) - 1;
/// The largest rank of a TMA box, and the largest N of a wgmma.
constexpr std::uint32_t kMaxTensorRank = 5, kMaxWgmmaN = 256;

/// One raised call: checks its operands and builds the replacement.
class CallRaiser {
public:
  CallRaiser(LLVM::CallOp call, IRRewriter &rewriter)
      : call(call), rewriter(rewriter), name(*call.getCallee()), loc(call.getLoc()),
        i32(rewriter.getI32Type()), i64(rewriter.getI64Type()),
        ptr(LLVM::LLVMPointerType::get(call.getContext())) {
    rewriter.setInsertionPoint(call);
  }

  LogicalResult raise() {
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

private:
  /// An intrinsic: its name, the signature its declaration gives, and what replaces a call.
  struct Intrinsic {
    llvm::StringLiteral name;
    Signature signature;
    Operation *(CallRaiser::*raise)();
  };

  static ArrayRef<Intrinsic> intrinsics() {
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
        OXIDE_INTRINSIC(owned_elem, ownedElem),
        OXIDE_INTRINSIC(reserve, reserve),
        OXIDE_INTRINSIC(reserved_elem, reservedElem),
        OXIDE_INTRINSIC(permuted_elem, permutedElem),
        OXIDE_INTRINSIC(span_elem, spanElem),
        OXIDE_INTRINSIC(disjoint_get, disjointGet<1>),
        OXIDE_INTRINSIC(disjoint_get_2d, disjointGet<2>),
        OXIDE_INTRINSIC(disjoint_get_3d, disjointGet<3>),
        OXIDE_INTRINSIC(thread_idx, geometry<oxide::GeometryKind::thread_idx>),
        OXIDE_INTRINSIC(block_idx, geometry<oxide::GeometryKind::block_idx>),
        OXIDE_INTRINSIC(block_dim, geometry<oxide::GeometryKind::block_dim>),
        OXIDE_INTRINSIC(grid_dim, geometry<oxide::GeometryKind::grid_dim>),
        OXIDE_INTRINSIC(sync_threads, syncThreads),
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

  Type type(Abi abi) const {
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
  template <class Build> LogicalResult expect(ArrayRef<Type> operands, Type result, Build build) {
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

  // --- the intrinsics, in the order of oxide/device/intrinsics.hpp ----------------------------

  template <oxide::GeometryKind Kind> Operation *geometry() {
    auto dim = enumOperand<oxide::Dim>(0, oxide::getMaxEnumValForDim());
    if (!dim)
      return nullptr;
    return oxide::GeometryOp::create(rewriter, loc, i32, Kind, *dim);
  }

  Operation *index1d() { return oxide::ThreadIndexOp::create(rewriter, loc, i64, 1, oxide::Dim::x); }

  Operation *threadIndex() {
    auto rankDim = rankAndDimension(0);
    if (!rankDim)
      return nullptr;
    return oxide::ThreadIndexOp::create(rewriter, loc, i64, rankDim->first, rankDim->second);
  }

  Operation *gridStrideNext() {
    auto rankDim = rankAndDimension(1);
    if (!rankDim)
      return nullptr;
    return oxide::GridStrideNextOp::create(rewriter, loc, i64, call.getOperand(0), rankDim->first,
                                           rankDim->second);
  }

  /// Operands: data, `Rank` extents, the element size, `Rank` coordinates.
  template <unsigned Rank> Operation *disjointGet() {
    APInt elemSize;
    if (!matchPattern(call.getOperand(1 + Rank), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
      call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
      return nullptr;
    }
    auto operands = call.getOperands();
    return oxide::DisjointGetOp::create(rewriter, loc, ptr, operands[0], operands.slice(1, Rank),
                                        operands.slice(2 + Rank, Rank), ValueRange{},
                                        rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
  }

  Operation *disjointTile() {
    APInt elemSize, tile;
    if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) ||
        !matchPattern(call.getOperand(3), m_ConstantInt(&tile)) || elemSize.isZero() || tile.isZero()) {
      call.emitError() << "the element size and tile length of oxide intrinsic '" << name
                       << "' must be non-zero constants";
      return nullptr;
    }
    auto op =
        oxide::DisjointGetOp::create(rewriter, loc, ptr, call.getOperand(0), ValueRange{call.getOperand(1)},
                                     ValueRange{call.getOperand(4)}, ValueRange{call.getOperand(5)},
                                     rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
    op.setTile(tile.getZExtValue());
    return op;
  }

  Operation *disjointTile2D() {
    APInt elemSize, cols, rows;
    if (!matchPattern(call.getOperand(3), m_ConstantInt(&elemSize)) ||
        !matchPattern(call.getOperand(4), m_ConstantInt(&cols)) ||
        !matchPattern(call.getOperand(5), m_ConstantInt(&rows)) || elemSize.isZero() || cols.isZero() ||
        rows.isZero()) {
      call.emitError() << "the element size and tile extents of oxide intrinsic '" << name
                       << "' must be non-zero constants";
      return nullptr;
    }
    auto op = oxide::DisjointGetOp::create(rewriter, loc, ptr, call.getOperand(0),
                                           ValueRange{call.getOperand(1), call.getOperand(2)},
                                           ValueRange{call.getOperand(6), call.getOperand(7)},
                                           ValueRange{call.getOperand(8), call.getOperand(9)},
                                           rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
    op.setTile(cols.getZExtValue());
    op.setTileRows(rows.getZExtValue());
    return op;
  }

  Operation *groupIndex() {
    auto group = enumOperand<oxide::Group>(0, oxide::getMaxEnumValForGroup());
    if (!group)
      return nullptr;
    return oxide::GroupIndexOp::create(rewriter, loc, i64, *group);
  }

  Operation *groupStrideNext() {
    auto group = enumOperand<oxide::Group>(1, oxide::getMaxEnumValForGroup());
    if (!group)
      return nullptr;
    return oxide::GroupStrideNextOp::create(rewriter, loc, i64, call.getOperand(0), *group);
  }

  /// Operands: data, width, height, depth, the element size, the shape, its parameter, the owner's
  /// x and y, j. The shape decides how many extents and owner coordinates the op keeps.
  Operation *ownedElem() {
    APInt elemSize;
    if (!matchPattern(call.getOperand(4), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
      call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
      return nullptr;
    }
    auto shape = enumOperand<oxide::Ownership>(5, oxide::getMaxEnumValForOwnership());
    if (!shape)
      return nullptr;
    const unsigned rank = oxide::OwnedElemOp::outputRank(*shape);
    const unsigned owners = oxide::OwnedElemOp::ownerRank(*shape);
    Value param = call.getOperand(6), uniform;
    std::int64_t count = 1;
    if (*shape == oxide::Ownership::pair) {
      uniform = param;
    } else if (*shape == oxide::Ownership::block_strided || *shape == oxide::Ownership::strided_rows) {
      APInt k;
      if (!matchPattern(param, m_ConstantInt(&k)) || k.isZero() || k.ugt(kMaxStridedCount)) {
        call.emitError() << "the element count of oxide intrinsic '" << name
                         << "' must be a constant between 1 and " << kMaxStridedCount;
        return nullptr;
      }
      count = k.getZExtValue();
    }
    DenseI64ArrayAttr tile;
    if (*shape == oxide::Ownership::warpgroup_tile) {
      APInt packed;
      const auto fields = matchPattern(param, m_ConstantInt(&packed))
                              ? oxide::detail::WarpgroupTile::unpack(packed.getZExtValue())
                              : oxide::detail::WarpgroupTile{};
      if (!fields.valid()) {
        call.emitError() << "the tile of oxide intrinsic '" << name
                         << "' must be a constant oxide::detail::WarpgroupTile that is valid()";
        return nullptr;
      }
      tile = rewriter.getDenseI64ArrayAttr({fields.n, fields.consumers, fields.first, fields.group});
    }
    auto operands = call.getOperands();
    auto op = oxide::OwnedElemOp::create(rewriter, loc, ptr, operands[0], operands.slice(1, rank),
                                         operands.slice(7, owners), operands[9], uniform,
                                         elemSize.getZExtValue(), *shape, count, tile);
    return op;
  }

  Operation *reserve() {
    return oxide::ReserveOp::create(rewriter, loc, i64, call.getOperand(0), call.getOperand(1));
  }

  Operation *reservedElem() {
    APInt elemSize;
    if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
      call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
      return nullptr;
    }
    return oxide::ReservedElemOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1),
                                         call.getOperand(3), call.getOperand(4), call.getOperand(5),
                                         elemSize.getZExtValue());
  }

  Operation *permutedElem() {
    APInt elemSize;
    if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
      call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
      return nullptr;
    }
    return oxide::PermutedElemOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1),
                                         call.getOperand(3), call.getOperand(4), call.getOperand(5),
                                         elemSize.getZExtValue());
  }

  Operation *spanElem() {
    APInt elemSize;
    if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
      call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
      return nullptr;
    }
    return oxide::SpanElemOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1),
                                     call.getOperand(3), rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
  }

  Operation *syncThreads() { return oxide::BarrierOp::create(rewriter, loc); }

  /// The mark of a scoped atomic's object: the atomic accesses of its result get the scope (an
  /// access through anything else, a phi say, keeps LLVM's system scope: correct, only slower),
  /// and the object replaces the mark.
  Operation *atomicScope() {
    auto scope = enumOperand<oxide::Scope>(1, oxide::getMaxEnumValForScope());
    if (!scope)
      return nullptr;
    StringAttr syncscope = oxide::llvmSyncScope(*scope).empty()
                               ? StringAttr()
                               : rewriter.getStringAttr(oxide::llvmSyncScope(*scope));
    Value object = call.getOperand(0);
    for (OpOperand &use : llvm::make_early_inc_range(call.getResult().getUses())) {
      Operation *user = use.getOwner();
      rewriter.modifyOpInPlace(user, [&] {
        TypeSwitch<Operation *>(user)
            .Case<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>([&](auto atomic) {
              if (use.get() == atomic.getPtr())
                atomic.setSyncscopeAttr(syncscope);
            })
            .Case<LLVM::LoadOp>([&](LLVM::LoadOp load) {
              if (load.getOrdering() != LLVM::AtomicOrdering::not_atomic)
                load.setSyncscopeAttr(syncscope);
            })
            .Case<LLVM::StoreOp>([&](LLVM::StoreOp store) {
              if (use.get() == store.getAddr() && store.getOrdering() != LLVM::AtomicOrdering::not_atomic)
                store.setSyncscopeAttr(syncscope);
            });
        use.set(object);
      });
    }
    return call.getOperation();
  }

  Operation *fence() {
    auto scope = enumOperand<oxide::Scope>(0, oxide::getMaxEnumValForScope());
    if (!scope)
      return nullptr;
    return oxide::FenceOp::create(rewriter, loc, *scope);
  }

  Operation *sharedAlloc() {
    APInt bytes, align;
    if (!matchPattern(call.getOperand(0), m_ConstantInt(&bytes)) ||
        !matchPattern(call.getOperand(1), m_ConstantInt(&align))) {
      call.emitError() << "shared memory size and alignment must be compile-time constants; use "
                          "oxide::dynamic_shared for sizes known at launch";
      return nullptr;
    }
    // The site variable is a device constant (addrspace 4): its generic address is a cast.
    Value siteAddress = call.getOperand(2);
    if (auto cast = siteAddress.getDefiningOp<LLVM::AddrSpaceCastOp>())
      siteAddress = cast.getArg();
    auto site = siteAddress.getDefiningOp<LLVM::AddressOfOp>();
    if (!site) {
      call.emitError() << "shared memory site must be the address of a global; use oxide::shared_array";
      return nullptr;
    }
    return oxide::SharedAllocOp::create(rewriter, loc, ptr, site.getGlobalNameAttr(),
                                        rewriter.getI64IntegerAttr(bytes.getZExtValue()),
                                        rewriter.getI64IntegerAttr(align.getZExtValue()));
  }

  Operation *dynamicShared() { return oxide::DynamicSharedOp::create(rewriter, loc, ptr); }
  Operation *dynamicSharedSize() { return oxide::DynamicSharedSizeOp::create(rewriter, loc, i32); }
  Operation *laneId() { return oxide::LaneIdOp::create(rewriter, loc, i32); }

  Operation *warpShuffle() {
    auto mode = enumOperand<oxide::ShuffleMode>(3, oxide::getMaxEnumValForShuffleMode());
    auto width = mode ? constantOperand(4, 32) : std::nullopt;
    if (!width)
      return nullptr;
    if (!llvm::isPowerOf2_32(*width)) {
      call.emitError() << "argument 4 of oxide intrinsic '" << name << "' is " << *width
                       << ", not a power of two (1..32)";
      return nullptr;
    }
    return oxide::WarpShuffleOp::create(rewriter, loc, i32, *mode, call.getOperand(0), call.getOperand(1),
                                        call.getOperand(2), *width);
  }

  Operation *warpVote() {
    auto mode = enumOperand<oxide::VoteMode>(2, oxide::getMaxEnumValForVoteMode());
    if (!mode)
      return nullptr;
    return oxide::WarpVoteOp::create(rewriter, loc, i32, *mode, call.getOperand(0), call.getOperand(1));
  }

  Operation *warpSync() { return oxide::WarpSyncOp::create(rewriter, loc, call.getOperand(0)); }

  Operation *warpRedux() {
    auto kind = enumOperand<oxide::ReduxKind>(2, oxide::getMaxEnumValForReduxKind());
    if (!kind)
      return nullptr;
    return oxide::WarpReduxOp::create(rewriter, loc, i32, *kind, call.getOperand(0), call.getOperand(1));
  }

  Operation *warpMatch() {
    auto kind = enumOperand<oxide::MatchKind>(2, oxide::getMaxEnumValForMatchKind());
    if (!kind)
      return nullptr;
    return oxide::WarpMatchOp::create(rewriter, loc, i32, *kind, call.getOperand(0), call.getOperand(1));
  }

  Operation *activeMask() { return oxide::ActiveMaskOp::create(rewriter, loc, i32); }

  Operation *laneMask() {
    auto kind = enumOperand<oxide::LaneMaskKind>(0, oxide::getMaxEnumValForLaneMaskKind());
    if (!kind)
      return nullptr;
    return oxide::LaneMaskOp::create(rewriter, loc, i32, *kind);
  }

  Operation *clock() {
    auto kind = enumOperand<oxide::ClockKind>(0, oxide::getMaxEnumValForClockKind());
    if (!kind)
      return nullptr;
    return oxide::ClockOp::create(rewriter, loc, i64, *kind);
  }

  Operation *clusterGeometry() {
    auto kind = enumOperand<oxide::ClusterGeometryKind>(0, oxide::getMaxEnumValForClusterGeometryKind());
    auto dim = kind ? enumOperand<oxide::Dim>(1, oxide::getMaxEnumValForDim()) : std::nullopt;
    if (!kind || !dim)
      return nullptr;
    return oxide::ClusterGeometryOp::create(rewriter, loc, i32, *kind, *dim);
  }

  Operation *clusterSync() { return oxide::ClusterSyncOp::create(rewriter, loc); }

  Operation *mapShared() {
    return oxide::MapSharedOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1));
  }

  Operation *gridSync() { return oxide::GridSyncOp::create(rewriter, loc); }

  Operation *boundsFail() {
    return oxide::BoundsFailOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
  }

  Operation *trap() { return oxide::TrapOp::create(rewriter, loc, call.getOperand(0)); }

  // --- tensor cores: fragments pass by address; the ops take and give their registers -------

  /// The `count` 32-bit registers of `type` of the fragment at `base`.
  SmallVector<Value> loadRegisters(Value base, Type type, unsigned count) {
    SmallVector<Value> values;
    for (unsigned i = 0; i < count; ++i) {
      Value at = LLVM::GEPOp::create(rewriter, loc, ptr, type, base,
                                     ArrayRef<LLVM::GEPArg>{static_cast<std::int32_t>(i)});
      values.push_back(LLVM::LoadOp::create(rewriter, loc, type, at, /*alignment=*/4));
    }
    return values;
  }

  /// Stores `values` as the registers of the fragment at `base`; the last store stands for the
  /// call, which has no result.
  Operation *storeRegisters(Value base, ValueRange values) {
    Operation *last = nullptr;
    for (auto [i, value] : llvm::enumerate(values)) {
      Value at = LLVM::GEPOp::create(rewriter, loc, ptr, value.getType(), base,
                                     ArrayRef<LLVM::GEPArg>{static_cast<std::int32_t>(i)});
      last = LLVM::StoreOp::create(rewriter, loc, value, at, /*alignment=*/4);
    }
    return last;
  }

  /// Operands: d, a, b, c.
  Operation *mma(Type multiplicand, Type accumulator) {
    SmallVector<Value> a = loadRegisters(call.getOperand(1), i32, 4);
    SmallVector<Value> b = loadRegisters(call.getOperand(2), i32, 2);
    SmallVector<Value> c = loadRegisters(call.getOperand(3), accumulator, 4);
    auto op = oxide::MmaSyncOp::create(rewriter, loc, SmallVector<Type>(4, accumulator),
                                       TypeAttr::get(multiplicand), a, b, c);
    return storeRegisters(call.getOperand(0), op.getD());
  }
  Operation *mmaBf16() { return mma(rewriter.getBF16Type(), rewriter.getF32Type()); }
  Operation *mmaF16() { return mma(rewriter.getF16Type(), rewriter.getF32Type()); }
  Operation *mmaTf32() { return mma(rewriter.getTF32Type(), rewriter.getF32Type()); }
  Operation *mmaS8() { return mma(rewriter.getI8Type(), i32); }

  /// Operands: fragment, row, count, transpose.
  Operation *ldmatrix() {
    auto count = constantOperand(2, 4);
    auto transpose = count ? constantOperand(3, 1) : std::nullopt;
    if (!count || !transpose)
      return nullptr;
    if (*count != 1 && *count != 2 && *count != 4) {
      call.emitError() << "oxide intrinsic '" << name << "' loads 1, 2 or 4 matrices, not " << *count;
      return nullptr;
    }
    auto op = oxide::LdMatrixOp::create(rewriter, loc, SmallVector<Type>(*count, i32), call.getOperand(1),
                                        *count, *transpose != 0);
    return storeRegisters(call.getOperand(0), op.getFragment());
  }

  /// Operands: row, fragment, count, transpose. The fragment's registers are loaded before the op.
  Operation *stmatrix() {
    auto count = constantOperand(2, 4);
    auto transpose = count ? constantOperand(3, 1) : std::nullopt;
    if (!count || !transpose)
      return nullptr;
    if (*count != 1 && *count != 2 && *count != 4) {
      call.emitError() << "oxide intrinsic '" << name << "' stores 1, 2 or 4 matrices, not " << *count;
      return nullptr;
    }
    SmallVector<Value> fragment = loadRegisters(call.getOperand(1), i32, *count);
    return oxide::StMatrixOp::create(rewriter, loc, call.getOperand(0), fragment, *transpose != 0);
  }

  /// Operands: dst, src, bytes, src_bytes (dropped when it is `bytes`: a whole copy).
  Operation *cpAsync() {
    auto bytes = constantOperand(2, 16);
    if (!bytes)
      return nullptr;
    if (*bytes != 4 && *bytes != 8 && *bytes != 16) {
      call.emitError() << "oxide intrinsic '" << name << "' copies 4, 8 or 16 bytes, not " << *bytes;
      return nullptr;
    }
    Value srcBytes = call.getOperand(3);
    if (APInt whole; matchPattern(srcBytes, m_ConstantInt(&whole)) && whole == *bytes)
      srcBytes = nullptr;
    return oxide::CpAsyncOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1), *bytes, srcBytes);
  }

  Operation *cpAsyncCommit() { return oxide::CpAsyncCommitOp::create(rewriter, loc); }

  Operation *cpAsyncWait() {
    auto pending = constantOperand(0, 7);
    if (!pending)
      return nullptr;
    return oxide::CpAsyncWaitOp::create(rewriter, loc, *pending);
  }

  // --- Hopper: mbarriers, TMA, wgmma, setmaxnreg ----------------------------------------------

  Operation *sharedAddress() {
    return oxide::SharedAddressOp::create(rewriter, loc, i32, call.getOperand(0));
  }

  /// Operands: bar, count (1 .. 2^20 - 1, checked when it is a constant).
  Operation *mbarrierInit() {
    if (APInt count; matchPattern(call.getOperand(1), m_ConstantInt(&count)) &&
                     (count.isZero() || count.getZExtValue() > kMaxMbarrierCount)) {
      call.emitError() << "oxide intrinsic '" << name << "' expects 1 to " << kMaxMbarrierCount
                       << " arrivals per phase, not " << count.getZExtValue();
      return nullptr;
    }
    return oxide::MbarrierInitOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
  }
  Operation *mbarrierInitFence() { return oxide::MbarrierInitFenceOp::create(rewriter, loc); }
  Operation *mbarrierArrive() { return oxide::MbarrierArriveOp::create(rewriter, loc, call.getOperand(0)); }
  Operation *mbarrierArriveExpectTx() {
    return oxide::MbarrierArriveExpectTxOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
  }
  Operation *mbarrierArriveCluster() {
    return oxide::MbarrierArriveClusterOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
  }
  Operation *mbarrierTryWaitParity() {
    return oxide::MbarrierTryWaitParityOp::create(rewriter, loc, i32, call.getOperand(0), call.getOperand(1));
  }
  Operation *mbarrierInval() { return oxide::MbarrierInvalOp::create(rewriter, loc, call.getOperand(0)); }
  Operation *fenceProxyAsyncShared() { return oxide::FenceProxyAsyncSharedOp::create(rewriter, loc); }

  /// Operands: dst, map, bar, rank (constant, 1..5), c0..c4 (the first `rank` are the box's
  /// coordinates), and for the multicast form the 16-bit mask.
  Operation *tmaLoad(Value mask) {
    auto rank = constantOperand(3, kMaxTensorRank);
    if (!rank)
      return nullptr;
    if (*rank == 0) {
      call.emitError() << "oxide intrinsic '" << name << "' copies a box of rank 1 to " << kMaxTensorRank
                       << ", not 0";
      return nullptr;
    }
    return oxide::TmaLoadOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1), call.getOperand(2),
                                    call.getOperands().slice(4, *rank), mask);
  }
  Operation *tmaLoad() { return tmaLoad(nullptr); }
  Operation *tmaLoadMulticast() { return tmaLoad(call.getOperand(9)); }
  Operation *tmaPrefetch() { return oxide::TmaPrefetchOp::create(rewriter, loc, call.getOperand(0)); }
  /// Operands: map, src, rank (constant, 1..5), c0..c4 (the first `rank` are the box's coordinates).
  Operation *tmaStore() {
    auto rank = constantOperand(2, kMaxTensorRank);
    if (!rank)
      return nullptr;
    if (*rank == 0) {
      call.emitError() << "oxide intrinsic '" << name << "' copies a box of rank 1 to " << kMaxTensorRank
                       << ", not 0";
      return nullptr;
    }
    return oxide::TmaStoreOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1),
                                     call.getOperands().slice(3, *rank));
  }
  Operation *tmaStoreCommit() { return oxide::TmaStoreCommitOp::create(rewriter, loc); }
  Operation *tmaStoreWait() {
    auto pending = constantOperand(0, 7);
    if (!pending)
      return nullptr;
    return oxide::TmaStoreWaitOp::create(rewriter, loc, *pending);
  }

  /// Operands: acc, desc_a, desc_b, n, type, accumulate, trans_a, trans_b. The accumulator's
  /// n / 2 registers are loaded before the op and stored after it, as mma.sync's are.
  Operation *wgmma() {
    auto n = constantOperand(3, kMaxWgmmaN);
    auto type = n ? enumOperand<oxide::WgmmaType>(4, oxide::getMaxEnumValForWgmmaType()) : std::nullopt;
    auto accumulate = type ? constantOperand(5, 1) : std::nullopt;
    auto transA = accumulate ? constantOperand(6, 1) : std::nullopt;
    auto transB = transA ? constantOperand(7, 1) : std::nullopt;
    if (!transB)
      return nullptr;
    const std::uint32_t step = *type == oxide::WgmmaType::s8 ? 16 : 8;
    if (*n < step || *n % step != 0) {
      call.emitError() << "oxide intrinsic '" << name << "': n of a " << oxide::stringifyWgmmaType(*type)
                       << " wgmma is " << step << ".." << kMaxWgmmaN << " in steps of " << step << ", not "
                       << *n;
      return nullptr;
    }
    if ((*transA || *transB) && *type != oxide::WgmmaType::bf16 && *type != oxide::WgmmaType::f16) {
      call.emitError() << "oxide intrinsic '" << name << "' transposes only bf16 and f16 operands, not "
                       << oxide::stringifyWgmmaType(*type);
      return nullptr;
    }
    Type accumulator = oxide::WgmmaOp::accumulatorType(rewriter.getContext(), *type);
    SmallVector<Value> c = loadRegisters(call.getOperand(0), accumulator, *n / 2);
    auto op = oxide::WgmmaOp::create(rewriter, loc, SmallVector<Type>(*n / 2, accumulator), *type, *n,
                                     call.getOperand(1), call.getOperand(2), c, *accumulate != 0,
                                     *transA != 0, *transB != 0);
    return storeRegisters(call.getOperand(0), op.getD());
  }
  Operation *wgmmaFence() { return oxide::WgmmaFenceOp::create(rewriter, loc); }
  Operation *wgmmaCommitGroup() { return oxide::WgmmaCommitGroupOp::create(rewriter, loc); }
  Operation *wgmmaWaitGroup() {
    auto pending = constantOperand(0, 7);
    if (!pending)
      return nullptr;
    return oxide::WgmmaWaitGroupOp::create(rewriter, loc, *pending);
  }

  /// Operands: count (a multiple of 8 in 24..256), increase (0 or 1).
  Operation *setmaxnreg() {
    auto count = constantOperand(0, 256);
    auto increase = count ? constantOperand(1, 1) : std::nullopt;
    if (!increase)
      return nullptr;
    if (*count < 24 || *count % 8 != 0) {
      call.emitError() << "oxide intrinsic '" << name
                       << "' sets a register count that is a multiple of 8 in 24..256, not " << *count;
      return nullptr;
    }
    return oxide::SetMaxNRegOp::create(rewriter, loc, *count, *increase != 0);
  }

  // --- cache-hinted global loads and stores: the element passes by address ----------------------

  /// The bits of an element of `bytes` bytes, as the cache ops move them: 8 and 16 bytes as
  /// vectors of 32-bit words (ld.v2.b32, ld.v4.b32); null (after an error) for another size.
  Type cachedType(unsigned operand) {
    auto bytes = constantOperand(operand, 16);
    if (!bytes)
      return nullptr;
    switch (*bytes) {
    case 1:
    case 2:
    case 4:
      return rewriter.getIntegerType(8 * *bytes);
    case 8:
    case 16:
      return VectorType::get({static_cast<std::int64_t>(*bytes / 4)}, i32);
    default:
      call.emitError() << "oxide intrinsic '" << name << "' moves 1, 2, 4, 8 or 16 bytes, not " << *bytes;
      return nullptr;
    }
  }

  /// Operands: dst (the thread's copy), src (global), bytes, hint. The op's verifier rejects a
  /// store's hint.
  Operation *cachedLoad() {
    Type type = cachedType(2);
    auto hint = type ? enumOperand<oxide::CacheHint>(3, oxide::getMaxEnumValForCacheHint()) : std::nullopt;
    if (!hint)
      return nullptr;
    auto load = oxide::CachedLoadOp::create(rewriter, loc, type, *hint, call.getOperand(1));
    return LLVM::StoreOp::create(rewriter, loc, load.getValue(), call.getOperand(0), alignmentOf(type));
  }

  /// Operands: dst (global), src (the thread's copy), bytes, hint.
  Operation *cachedStore() {
    Type type = cachedType(2);
    auto hint = type ? enumOperand<oxide::CacheHint>(3, oxide::getMaxEnumValForCacheHint()) : std::nullopt;
    if (!hint)
      return nullptr;
    Value value = LLVM::LoadOp::create(rewriter, loc, type, call.getOperand(1), alignmentOf(type));
    return oxide::CachedStoreOp::create(rewriter, loc, *hint, value, call.getOperand(0));
  }

  /// The headers align an element of a cache op to its size (oxide/device/cache.hpp).
  static unsigned alignmentOf(Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      return 4 * vector.getNumElements();
    return type.getIntOrFloatBitWidth() / 8;
  }

  // --- operand checks --------------------------------------------------------------------------

  /// Operands `first` and `first + 1`: a launch rank (1..kMaxRank) and one of its dimensions.
  std::optional<std::pair<std::uint32_t, oxide::Dim>> rankAndDimension(unsigned first) {
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

  /// Operand `index` as an `E`: a constant in [0, max], the largest code the catalog gives E
  /// (oxide/detail/intrinsic_abi.hpp, from which OxideEnums.td takes its cases).
  template <class E> std::optional<E> enumOperand(unsigned index, unsigned max) {
    auto value = constantOperand(index, max);
    if (!value)
      return std::nullopt;
    return static_cast<E>(*value);
  }

  /// The value of operand `index`, which must be a constant in [0, max].
  std::optional<std::uint32_t> constantOperand(unsigned index, std::uint32_t max) {
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

  LLVM::CallOp call;
  IRRewriter &rewriter;
  StringRef name;
  Location loc;
  Type i32, i64, ptr;
};

/// The frontend's "oxide.contract"/"oxide.params"/"oxide.launch_bounds" string function
/// attributes arrive in `passthrough`; the dialect's passes read them as discardable
/// attributes. Passthrough keeps its copy, which carries them on to the kernel table.
void copyContractAttributes(LLVM::LLVMFuncOp func) {
  auto passthrough = func.getPassthroughAttr();
  if (!passthrough)
    return;
  for (Attribute entry : passthrough) {
    auto pair = dyn_cast<ArrayAttr>(entry);
    if (!pair || pair.size() != 2)
      continue;
    auto key = dyn_cast<StringAttr>(pair[0]);
    auto value = dyn_cast<StringAttr>(pair[1]);
    if (key && value &&
        llvm::is_contained({oxide::kContractAttr, oxide::kParamsAttr, oxide::kLaunchBoundsAttr},
                           key.getValue()))
      func->setAttr(key, value);
  }
}

struct OxideRaisePass : oxide::impl::OxideRaiseBase<OxideRaisePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());

    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCallee(); callee && callee->starts_with(kIntrinsicPrefix))
        calls.push_back(call);
    });
    bool failed = false;
    for (LLVM::CallOp call : calls)
      failed |= mlir::failed(CallRaiser(call, rewriter).raise());
    if (failed)
      return signalPassFailure();

    auto kernelAttr = StringAttr::get(&getContext(), oxide::OxideDialect::getKernelAttrName());
    for (auto func : llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>())) {
      if (func.getCConv() == LLVM::CConv::PTX_Kernel) {
        func->setAttr(kernelAttr, UnitAttr::get(&getContext()));
        copyContractAttributes(func);
      } else if (func.isExternal() && func.getSymName().starts_with(kIntrinsicPrefix) &&
                 SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    }
  }
};

} // namespace
