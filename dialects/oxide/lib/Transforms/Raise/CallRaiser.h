//===- CallRaiser.h - raising one __oxide_* call to an oxide op -*- C++ -*-===//
//
// Private to oxide-raise (RaiseIntrinsics.cpp). CallRaiser raises one call; its table maps each
// intrinsic to a member function, defined in the file of the intrinsic's family (in the order of
// oxide/device/intrinsics.hpp).
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_LIB_TRANSFORMS_RAISE_CALLRAISER_H
#define OXIDE_LIB_TRANSFORMS_RAISE_CALLRAISER_H

#include "Oxide/IR/OxideOps.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace oxide::raise {

using namespace mlir;

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

  LogicalResult raise();

private:
  /// An intrinsic: its name, the signature its declaration gives, and what replaces a call.
  struct Intrinsic {
    llvm::StringLiteral name;
    Signature signature;
    Operation *(CallRaiser::*raise)();
  };

  // --- the table, the signature check and the operand checks (CallRaiser.cpp)

  static ArrayRef<Intrinsic> intrinsics();
  Type type(Abi abi) const;

  /// Checks the call against the intrinsic's declared signature (a mismatch means the headers
  /// and the compiler disagree), then replaces it with the op that `build` creates.
  template <class Build> LogicalResult expect(ArrayRef<Type> operands, Type result, Build build);

  /// Operands `first` and `first + 1`: a launch rank (1..kMaxRank) and one of its dimensions.
  std::optional<std::pair<std::uint32_t, oxide::Dim>> rankAndDimension(unsigned first);

  /// Operand `index` as an `E`: a constant in [0, max], the largest code the catalog gives E
  /// (oxide/detail/intrinsic_abi.hpp, from which OxideEnums.td takes its cases).
  template <class E> std::optional<E> enumOperand(unsigned index, unsigned max) {
    auto value = constantOperand(index, max);
    if (!value)
      return std::nullopt;
    return static_cast<E>(*value);
  }

  /// The value of operand `index`, which must be a constant in [0, max].
  std::optional<std::uint32_t> constantOperand(unsigned index, std::uint32_t max);

  // --- indices and witnesses (RaiseIndicesAndWitnesses.cpp)

  template <oxide::GeometryKind Kind> Operation *geometry() {
    auto dim = enumOperand<oxide::Dim>(0, oxide::getMaxEnumValForDim());
    if (!dim)
      return nullptr;
    return oxide::GeometryOp::create(rewriter, loc, i32, Kind, *dim);
  }

  /// The element size in operand `i`: a non-zero constant, or std::nullopt after an error.
  std::optional<std::uint64_t> elementSize(unsigned i);

  Operation *index1d();
  Operation *threadIndex();
  Operation *gridStrideNext();

  /// Operands: data, `Rank` extents, the element size, `Rank` coordinates.
  template <unsigned Rank> Operation *disjointGet() {
    std::optional<std::uint64_t> elemSize = elementSize(1 + Rank);
    if (!elemSize)
      return nullptr;
    auto operands = call.getOperands();
    return oxide::DisjointGetOp::create(rewriter, loc, ptr, operands[0], operands.slice(1, Rank),
                                        operands.slice(2 + Rank, Rank), ValueRange{},
                                        rewriter.getI64IntegerAttr(*elemSize));
  }

  Operation *disjointTile();
  Operation *disjointTile2D();
  Operation *groupIndex();
  Operation *groupStrideNext();

  /// Operands: data, width, height, depth, the element size, the shape, its parameter, the owner's
  /// x and y, j. The shape decides how many extents and owner coordinates the op keeps; `Lanes`
  /// elements from j (2: __oxide_owned_pair, an accumulator pair).
  template <std::int64_t Lanes> Operation *ownedElem() { return ownedElements(Lanes); }
  Operation *ownedElements(std::int64_t lanes);
  Operation *reserve();
  /// Operands: data, size, the element size, then the three of `ElementOp`: a reservation's
  /// start, count and j (reserved_elem), a permutation, its size and i (permuted_elem), claim
  /// bits, their size and j (claimed_elem).
  template <class ElementOp> Operation *slotElem() {
    std::optional<std::uint64_t> elemSize = elementSize(2);
    if (!elemSize)
      return nullptr;
    return ElementOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1), call.getOperand(3),
                             call.getOperand(4), call.getOperand(5), *elemSize);
  }
  Operation *spanElem();

  // --- block, warp, cluster and grid operations (RaiseThreadOps.cpp)

  Operation *syncThreads();
  /// Operands: the id, the thread count and whether it only arrives (a constant).
  Operation *namedBarrier();

  /// The mark of a scoped atomic's object: the atomic accesses of its result get the scope (an
  /// access through anything else, a phi say, keeps LLVM's system scope: correct, only slower),
  /// and the object replaces the mark.
  Operation *atomicScope();
  Operation *fence();
  Operation *sharedAlloc();
  Operation *dynamicShared();
  Operation *dynamicSharedSize();
  Operation *laneId();
  Operation *warpShuffle();
  Operation *warpVote();
  Operation *warpSync();
  Operation *warpRedux();
  Operation *warpMatch();
  Operation *activeMask();
  Operation *laneMask();
  Operation *clock();
  Operation *clusterGeometry();
  Operation *clusterSync();
  Operation *mapShared();
  Operation *gridSync();
  Operation *boundsFail();
  Operation *trap();

  // --- tensor cores and cp.async (RaiseTensorCores.cpp)

  /// The `count` 32-bit registers of `type` of the fragment at `base`.
  SmallVector<Value> loadRegisters(Value base, Type type, unsigned count);

  /// Stores `values` as the registers of the fragment at `base`; the last store stands for the
  /// call, which has no result.
  Operation *storeRegisters(Value base, ValueRange values);

  /// Operands: d, a, b, c.
  Operation *mma(Type multiplicand, Type accumulator);
  Operation *mmaBf16();
  Operation *mmaF16();
  Operation *mmaTf32();
  Operation *mmaS8();

  /// Operands: fragment, row, count, transpose.
  Operation *ldmatrix();

  /// Operands: row, fragment, count, transpose. The fragment's registers are loaded before the op.
  Operation *stmatrix();

  /// Operands: dst, src, bytes, src_bytes (dropped when it is `bytes`: a whole copy).
  Operation *cpAsync();
  Operation *cpAsyncCommit();
  Operation *cpAsyncWait();

  // --- Hopper (RaiseHopper.cpp)

  Operation *sharedAddress();

  /// Operands: bar, count (1 .. 2^20 - 1, checked when it is a constant).
  Operation *mbarrierInit();
  Operation *mbarrierInitFence();
  Operation *mbarrierArrive();
  Operation *mbarrierArriveExpectTx();
  Operation *mbarrierArriveCluster();
  Operation *mbarrierTryWaitParity();
  Operation *mbarrierInval();
  Operation *fenceProxyAsyncShared();

  /// Operands: dst, map, bar, rank (constant, 1..5), c0..c4 (the first `rank` are the box's
  /// coordinates), and for the multicast form the 16-bit mask.
  Operation *tmaLoad(Value mask);
  Operation *tmaLoad();
  Operation *tmaLoadMulticast();
  Operation *tmaPrefetch();

  /// Operands: map, src, rank (constant, 1..5), c0..c4 (the first `rank` are the box's coordinates).
  Operation *tmaStore();
  Operation *tmaStoreCommit();
  Operation *tmaStoreWait();

  /// The constant operands of a wgmma: n, type, accumulate and up to two transpose flags.
  struct WgmmaForm {
    std::uint32_t n;
    oxide::WgmmaType type;
    bool accumulate;
    std::array<bool, 2> transpose;
  };
  std::optional<WgmmaForm> wgmmaForm(unsigned first, unsigned transposes);
  /// Operands: acc, desc_a, desc_b, n, type, accumulate, trans_a, trans_b. The accumulator's
  /// n / 2 registers are loaded before the op and stored after it, as mma.sync's are.
  Operation *wgmma();
  /// Operands: acc, a (4 registers), desc_b, n, type, accumulate, trans_b: wgmma with A in
  /// registers, which are loaded before the op as the accumulator's are.
  Operation *wgmmaRegisterA();
  Operation *wgmmaFence();
  Operation *wgmmaCommitGroup();
  Operation *wgmmaWaitGroup();

  /// Operands: count (a multiple of 8 in 24..256), increase (0 or 1).
  Operation *setmaxnreg();

  // --- cache-hinted loads and stores (RaiseCacheHints.cpp)

  /// The bits of an element of `bytes` bytes, as the cache ops move them: 8 and 16 bytes as
  /// vectors of 32-bit words (ld.v2.b32, ld.v4.b32); null (after an error) for another size.
  Type cachedType(unsigned operand);

  /// Operands: dst (the thread's copy), src (global), bytes, hint. The op's verifier rejects a
  /// store's hint.
  Operation *cachedLoad();

  /// Operands: dst (global), src (the thread's copy), bytes, hint.
  Operation *cachedStore();

  /// The headers align an element of a cache op to its size (oxide/device/cache.hpp).
  static unsigned alignmentOf(Type type);

  LLVM::CallOp call;
  IRRewriter &rewriter;
  StringRef name;
  Location loc;
  Type i32, i64, ptr;
};

} // namespace oxide::raise

#endif // OXIDE_LIB_TRANSFORMS_RAISE_CALLRAISER_H
