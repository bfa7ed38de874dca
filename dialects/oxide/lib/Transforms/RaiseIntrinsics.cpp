//===- RaiseIntrinsics.cpp - __oxide_* calls to oxide ops -----------------===//
//
// The C++ headers express kernel semantics as calls to undefined `__oxide_*` functions
// (include/oxide/device/intrinsics.hpp); this pass turns them into oxide ops so later passes
// reason about ops, not symbol names.
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDERAISE
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kIntrinsicPrefix = "__oxide_";

/// One raised call: checks its operands and builds the replacement.
class CallRaiser {
public:
  CallRaiser(LLVM::CallOp call, IRRewriter &rewriter)
      : call(call), rewriter(rewriter), name(*call.getCallee()) {
    rewriter.setInsertionPoint(call);
  }

  LogicalResult raise() {
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type(),
         ptr = LLVM::LLVMPointerType::get(call.getContext());
    Location loc = call.getLoc();

    if (name == "__oxide_index_1d")
      return expect({}, i64,
                    [&] { return oxide::ThreadIndexOp::create(rewriter, loc, i64, 1, oxide::Dim::x); });
    if (name == "__oxide_thread_index")
      return expect({i32, i32}, i64, [&]() -> Operation * {
        auto rankDim = rankAndDimension(0);
        if (!rankDim)
          return nullptr;
        return oxide::ThreadIndexOp::create(rewriter, loc, i64, rankDim->first, rankDim->second);
      });
    if (name == "__oxide_grid_stride_next")
      return expect({i64, i32, i32}, i64, [&]() -> Operation * {
        auto rankDim = rankAndDimension(1);
        if (!rankDim)
          return nullptr;
        return oxide::GridStrideNextOp::create(rewriter, loc, i64, call.getOperand(0), rankDim->first,
                                               rankDim->second);
      });
    if (name == "__oxide_disjoint_tile")
      return expect({ptr, i64, i64, i64, i64, i64}, ptr, [&]() -> Operation * {
        APInt elemSize, tile;
        if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) ||
            !matchPattern(call.getOperand(3), m_ConstantInt(&tile)) || elemSize.isZero() || tile.isZero()) {
          call.emitError() << "the element size and tile length of oxide intrinsic '" << name
                           << "' must be non-zero constants";
          return nullptr;
        }
        auto op = oxide::DisjointGetOp::create(rewriter, loc, ptr, call.getOperand(0),
                                               ValueRange{call.getOperand(1)}, ValueRange{call.getOperand(4)},
                                               ValueRange{call.getOperand(5)},
                                               rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
        op.setTile(tile.getZExtValue());
        return op;
      });
    if (name == "__oxide_disjoint_tile_2d")
      return expect({ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64}, ptr, [&]() -> Operation * {
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
      });
    if (name == "__oxide_span_elem")
      return expect({ptr, i64, i64, i64}, ptr, [&]() -> Operation * {
        APInt elemSize;
        if (!matchPattern(call.getOperand(2), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
          call.emitError() << "the element size of oxide intrinsic '" << name
                           << "' must be a non-zero constant";
          return nullptr;
        }
        return oxide::SpanElemOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1),
                                         call.getOperand(3),
                                         rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
      });
    if (name == "__oxide_disjoint_get")
      return expect({ptr, i64, i64, i64}, ptr, [&] { return raiseDisjointGet(ptr, 1); });
    if (name == "__oxide_disjoint_get_2d")
      return expect({ptr, i64, i64, i64, i64, i64}, ptr, [&] { return raiseDisjointGet(ptr, 2); });
    if (name == "__oxide_disjoint_get_3d")
      return expect({ptr, i64, i64, i64, i64, i64, i64, i64}, ptr, [&] { return raiseDisjointGet(ptr, 3); });
    if (auto kind = geometryKind(); kind)
      return expect({i32}, i32, [&]() -> Operation * {
        auto dim = constantOperand(0, 2);
        if (!dim)
          return nullptr;
        return oxide::GeometryOp::create(rewriter, loc, i32, *kind, static_cast<oxide::Dim>(*dim));
      });
    if (name == "__oxide_sync_threads")
      return expect({}, nullptr, [&] { return oxide::BarrierOp::create(rewriter, loc); });
    if (name == "__oxide_fence")
      return expect({i32}, nullptr, [&]() -> Operation * {
        auto scope = constantOperand(0, 2);
        if (!scope)
          return nullptr;
        return oxide::FenceOp::create(rewriter, loc, static_cast<oxide::Scope>(*scope));
      });
    if (name == "__oxide_shared_alloc")
      return expect({i64, i64, ptr}, ptr, [&]() -> Operation * { return raiseSharedAlloc(ptr); });
    if (name == "__oxide_dynamic_shared")
      return expect({}, ptr, [&] { return oxide::DynamicSharedOp::create(rewriter, loc, ptr); });
    if (name == "__oxide_dynamic_shared_size")
      return expect({}, i32, [&] { return oxide::DynamicSharedSizeOp::create(rewriter, loc, i32); });
    if (name == "__oxide_lane_id")
      return expect({}, i32, [&] { return oxide::LaneIdOp::create(rewriter, loc, i32); });
    if (name == "__oxide_warp_shuffle")
      return expect({i32, i32, i32, i32}, i32, [&]() -> Operation * {
        auto mode = constantOperand(3, 3);
        if (!mode)
          return nullptr;
        return oxide::WarpShuffleOp::create(rewriter, loc, i32, static_cast<oxide::ShuffleMode>(*mode),
                                            call.getOperand(0), call.getOperand(1), call.getOperand(2));
      });
    if (name == "__oxide_warp_vote")
      return expect({i32, i32, i32}, i32, [&]() -> Operation * {
        auto mode = constantOperand(2, 2);
        if (!mode)
          return nullptr;
        return oxide::WarpVoteOp::create(rewriter, loc, i32, static_cast<oxide::VoteMode>(*mode),
                                         call.getOperand(0), call.getOperand(1));
      });
    if (name == "__oxide_warp_sync")
      return expect({i32}, nullptr,
                    [&] { return oxide::WarpSyncOp::create(rewriter, loc, call.getOperand(0)); });
    if (name == "__oxide_bounds_fail")
      return expect({i64, i64}, nullptr, [&] {
        return oxide::BoundsFailOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
      });
    if (name == "__oxide_warp_redux")
      return expect({i32, i32, i32}, i32, [&]() -> Operation * {
        auto kind = constantOperand(2, 7);
        if (!kind)
          return nullptr;
        return oxide::WarpReduxOp::create(rewriter, loc, i32, static_cast<oxide::ReduxKind>(*kind),
                                          call.getOperand(0), call.getOperand(1));
      });
    if (name == "__oxide_warp_match")
      return expect({i32, i32, i32}, i32, [&]() -> Operation * {
        auto kind = constantOperand(2, 1);
        if (!kind)
          return nullptr;
        return oxide::WarpMatchOp::create(rewriter, loc, i32, static_cast<oxide::MatchKind>(*kind),
                                          call.getOperand(0), call.getOperand(1));
      });
    if (name == "__oxide_clock")
      return expect({i32}, i64, [&]() -> Operation * {
        auto kind = constantOperand(0, 1);
        if (!kind)
          return nullptr;
        return oxide::ClockOp::create(rewriter, loc, i64, static_cast<oxide::ClockKind>(*kind));
      });
    if (name == "__oxide_cluster_geometry")
      return expect({i32, i32}, i32, [&]() -> Operation * {
        auto kind = constantOperand(0, 5);
        auto dim = kind ? constantOperand(1, 2) : std::nullopt;
        if (!kind || !dim)
          return nullptr;
        return oxide::ClusterGeometryOp::create(rewriter, loc, i32,
                                                static_cast<oxide::ClusterGeometryKind>(*kind),
                                                static_cast<oxide::Dim>(*dim));
      });
    if (name == "__oxide_cluster_sync")
      return expect({}, nullptr, [&] { return oxide::ClusterSyncOp::create(rewriter, loc); });
    if (name == "__oxide_cluster_map_shared")
      return expect({ptr, i32}, ptr, [&] {
        return oxide::MapSharedOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1));
      });
    if (name == "__oxide_grid_sync")
      return expect({}, nullptr, [&] { return oxide::GridSyncOp::create(rewriter, loc); });
    if (name == "__oxide_trap")
      return expect({ptr}, nullptr, [&] { return oxide::TrapOp::create(rewriter, loc, call.getOperand(0)); });
    return call.emitError() << "unknown oxide intrinsic '" << name
                            << "': the oxide headers and the compiler are from different versions";
  }

private:
  std::optional<oxide::GeometryKind> geometryKind() const {
    return llvm::StringSwitch<std::optional<oxide::GeometryKind>>(name)
        .Case("__oxide_thread_idx", oxide::GeometryKind::thread_idx)
        .Case("__oxide_block_idx", oxide::GeometryKind::block_idx)
        .Case("__oxide_block_dim", oxide::GeometryKind::block_dim)
        .Case("__oxide_grid_dim", oxide::GeometryKind::grid_dim)
        .Default(std::nullopt);
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
    rewriter.replaceOp(call, op->getResults());
    return success();
  }

  /// Operands `first` and `first + 1`: a launch rank (1..3) and one of its dimensions.
  std::optional<std::pair<std::uint32_t, oxide::Dim>> rankAndDimension(unsigned first) {
    auto rank = constantOperand(first, 3);
    auto dim = rank ? constantOperand(first + 1, 2) : std::nullopt;
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

  /// Operands: data, `rank` extents, the element size, `rank` coordinates.
  Operation *raiseDisjointGet(Type ptr, unsigned rank) {
    APInt elemSize;
    if (!matchPattern(call.getOperand(1 + rank), m_ConstantInt(&elemSize)) || elemSize.isZero()) {
      call.emitError() << "the element size of oxide intrinsic '" << name << "' must be a non-zero constant";
      return nullptr;
    }
    auto operands = call.getOperands();
    return oxide::DisjointGetOp::create(rewriter, call.getLoc(), ptr, operands[0], operands.slice(1, rank),
                                        operands.slice(2 + rank, rank), ValueRange{},
                                        rewriter.getI64IntegerAttr(elemSize.getZExtValue()));
  }

  Operation *raiseSharedAlloc(Type ptr) {
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
    return oxide::SharedAllocOp::create(rewriter, call.getLoc(), ptr, site.getGlobalNameAttr(),
                                        rewriter.getI64IntegerAttr(bytes.getZExtValue()),
                                        rewriter.getI64IntegerAttr(align.getZExtValue()));
  }

  LLVM::CallOp call;
  IRRewriter &rewriter;
  StringRef name;
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
