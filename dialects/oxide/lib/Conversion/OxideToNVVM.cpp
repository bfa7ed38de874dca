//===- OxideToNVVM.cpp - oxide ops to NVVM/LLVM ---------------------------===//

#include "Oxide/Conversion/Passes.h"
#include "Oxide/Conversion/TensorCoreToNVVM.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Demangle/Demangle.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDETONVVM
#include "Oxide/Conversion/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

constexpr unsigned kSharedAddressSpace = 3;
constexpr std::int64_t kWarpSize = oxide::detail::kWarpSize, kWarpShift = 5;
static_assert(kWarpSize == std::int64_t{1} << kWarpShift);
constexpr llvm::StringLiteral kDynamicSharedName = "__oxide_dynamic_shared";

Value i32Constant(OpBuilder &b, Location loc, std::int32_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
}

Value widen(OpBuilder &b, Location loc, Value v) {
  return LLVM::ZExtOp::create(b, loc, b.getI64Type(), v, /*nonNeg=*/true);
}

/// The exact block shape of the kernel that contains `op` (its contract's `block`, which
/// oxide-optimize turned into nvvm.reqntid), if it has one.
std::optional<std::array<std::int32_t, 3>> exactBlock(Operation *op) {
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  auto reqntid =
      func ? func->getAttrOfType<DenseI32ArrayAttr>(NVVM::NVVMDialect::getReqntidAttrName()) : nullptr;
  if (!reqntid || reqntid.size() != 3)
    return std::nullopt;
  return std::array<std::int32_t, 3>{reqntid[0], reqntid[1], reqntid[2]};
}

/// A geometry register. With the kernel's exact block known, blockDim is a constant and
/// threadIdx carries its range [0, blockDim), so index arithmetic on it folds (NVPTX forbids
/// .maxntid beside .reqntid, so this is how the bound reaches the optimiser).
Value readGeometry(OpBuilder &b, Location loc, oxide::GeometryKind kind, oxide::Dim dim,
                   const std::optional<std::array<std::int32_t, 3>> &block = std::nullopt) {
  Type i32 = b.getI32Type();
  const auto d = static_cast<unsigned>(dim);
  if (block && kind == oxide::GeometryKind::block_dim)
    return i32Constant(b, loc, (*block)[d]);
  LLVM::ConstantRangeAttr range;
  if (block && kind == oxide::GeometryKind::thread_idx)
    range = LLVM::ConstantRangeAttr::get(b.getContext(), 32, 0, (*block)[d]);
  auto pick = [&](auto x, auto y, auto z) -> Value {
    using X = decltype(x);
    using Y = decltype(y);
    using Z = decltype(z);
    switch (dim) {
    case oxide::Dim::x:
      return X::create(b, loc, i32, range);
    case oxide::Dim::y:
      return Y::create(b, loc, i32, range);
    case oxide::Dim::z:
      return Z::create(b, loc, i32, range);
    }
    llvm_unreachable("bad dimension");
  };
  switch (kind) {
  case oxide::GeometryKind::thread_idx:
    return pick(NVVM::ThreadIdXOp{}, NVVM::ThreadIdYOp{}, NVVM::ThreadIdZOp{});
  case oxide::GeometryKind::block_idx:
    return pick(NVVM::BlockIdXOp{}, NVVM::BlockIdYOp{}, NVVM::BlockIdZOp{});
  case oxide::GeometryKind::block_dim:
    return pick(NVVM::BlockDimXOp{}, NVVM::BlockDimYOp{}, NVVM::BlockDimZOp{});
  case oxide::GeometryKind::grid_dim:
    return pick(NVVM::GridDimXOp{}, NVVM::GridDimYOp{}, NVVM::GridDimZOp{});
  }
  llvm_unreachable("bad geometry kind");
}

/// Finds or declares an external function of the module.
LLVM::LLVMFuncOp declareFunction(ModuleOp module, OpBuilder &b, StringRef name, LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// A private constant C string, unique per module.
Value globalString(ModuleOp module, OpBuilder &b, Location loc, StringRef prefix, StringRef text) {
  static constexpr llvm::StringLiteral kSuffix = ".str";
  unsigned counter = 0;
  std::string name;
  do
    name = (prefix + kSuffix + std::to_string(counter++)).str();
  while (module.lookupSymbol(name));
  return LLVM::createGlobalString(loc, b, name, (text + llvm::Twine('\0')).str(), LLVM::Linkage::Private);
}

/// The file and line to blame for `loc` (see userLocation).
std::pair<std::string, unsigned> userSourceLocation(Location loc) {
  if (auto frame = dyn_cast<FileLineColLoc>(oxide::userLocation(loc)))
    return {frame.getFilename().str(), frame.getLine()};
  return {"<unknown>", 0};
}

/// Calls the CUDA device runtime's __assertfail (what `assert` uses): it prints the message
/// with the source location, block and thread, and stops the kernel with CUDA_ERROR_ASSERT.
void emitAssertFail(Operation *op, OpBuilder &b, Value message) {
  Location loc = op->getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  MLIRContext *ctx = op->getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr, ptr, i32, ptr, i64});
  LLVM::LLVMFuncOp assertFail = declareFunction(module, b, "__assertfail", fnType);

  auto [file, line] = userSourceLocation(loc);
  auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
  std::string function = func ? llvm::demangle(func.getSymName()) : std::string("<kernel>");
  Value fileStr = globalString(module, b, loc, "__oxide_file", file);
  Value functionStr = globalString(module, b, loc, "__oxide_function", function);
  LLVM::CallOp::create(b, loc, assertFail,
                       ValueRange{message, fileStr, i32Constant(b, loc, line), functionStr,
                                  LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1))});
}

/// Replaces `op`, a checked element access, with `inBounds ? data + index * elemSize : null`
/// (a byte offset; nuw holds once the index is in bounds).
void replaceWithCheckedElement(ConversionPatternRewriter &rewriter, Operation *op, Value data, Value index,
                               std::int64_t elemSize, Value inBounds) {
  Location loc = op->getLoc();
  Type type = op->getResult(0).getType();
  Value elem =
      LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), rewriter.getI64IntegerAttr(elemSize));
  Value offset = LLVM::MulOp::create(rewriter, loc, index, elem, LLVM::IntegerOverflowFlags::nuw);
  Value element = LLVM::GEPOp::create(rewriter, loc, type, rewriter.getI8Type(), data, ValueRange{offset},
                                      LLVM::GEPNoWrapFlags::inbounds);
  Value null = LLVM::ZeroOp::create(rewriter, loc, type);
  rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, inBounds, element, null);
}

struct ThreadIndexLowering : OpConversionPattern<oxide::ThreadIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  /// index = ctaid.d * ntid.d + tid.d as a widening 32x32->64 multiply-add: NVPTX selects
  /// mul.wide.u32, and the index cannot wrap even for 2^31 blocks of 1024 threads.
  LogicalResult matchAndRewrite(oxide::ThreadIndexOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    oxide::Dim dim = op.getDim();
    const auto block = exactBlock(op);
    Value tid =
        widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::thread_idx, dim, block));
    Value ctaid = widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::block_idx, dim));
    Value ntid =
        widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::block_dim, dim, block));
    auto nuw = LLVM::IntegerOverflowFlags::nuw;
    Value base = LLVM::MulOp::create(rewriter, loc, ctaid, ntid, nuw);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, base, tid, nuw);
    return success();
  }
};

struct GridStrideNextLowering : OpConversionPattern<oxide::GridStrideNextOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GridStrideNextOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value blocks =
        widen(rewriter, loc, readGeometry(rewriter, loc, oxide::GeometryKind::grid_dim, op.getDim()));
    Value threads =
        widen(rewriter, loc,
              readGeometry(rewriter, loc, oxide::GeometryKind::block_dim, op.getDim(), exactBlock(op)));
    Value stride = LLVM::MulOp::create(rewriter, loc, blocks, threads, LLVM::IntegerOverflowFlags::nuw);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, adaptor.getIndex(), stride);
    return success();
  }
};

struct DisjointGetLowering : OpConversionPattern<oxide::DisjointGetOp> {
  using OpConversionPattern::OpConversionPattern;
  /// in bounds = all(coord_d < extent_d); element = data + linear * elem_size, else null.
  LogicalResult matchAndRewrite(oxide::DisjointGetOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto nuw = LLVM::IntegerOverflowFlags::nuw;
    auto coords = adaptor.getCoords();
    auto extents = adaptor.getExtents();
    auto within = adaptor.getWithin();
    Value inBounds, linear;
    // Per dimension, the element's coordinate: coordinate * tile extent + in-tile coordinate (1
    // and 0 without a tile). In bounds when the in-tile coordinate is below the tile extent and
    // coordinate < ceil((extent - in-tile) / tile), which cannot overflow.
    const int64_t tiles[3] = {static_cast<int64_t>(op.getTile()), static_cast<int64_t>(op.getTileRows()), 1};
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, i64, rewriter.getI64IntegerAttr(v));
    };
    auto both = [&](Value a, Value b) -> Value {
      return a ? LLVM::AndOp::create(rewriter, loc, a, b).getResult() : b;
    };
    for (int d = static_cast<int>(coords.size()) - 1; d >= 0; --d) {
      Value coord = coords[d], limit = extents[d];
      if (tiles[d] != 1) {
        Value room = extents[d];
        if (!within.empty()) {
          inBounds = both(inBounds, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, within[d],
                                                         constant(tiles[d])));
          room = LLVM::USubSat::create(rewriter, loc, extents[d], within[d]);
        }
        limit = LLVM::UDivOp::create(rewriter, loc,
                                     LLVM::AddOp::create(rewriter, loc, room, constant(tiles[d] - 1), nuw),
                                     constant(tiles[d]));
        coord = LLVM::MulOp::create(rewriter, loc, coords[d], constant(tiles[d]), nuw);
        if (!within.empty())
          coord = LLVM::AddOp::create(rewriter, loc, coord, within[d], nuw);
      } else if (!within.empty()) {
        // A tile one element long along d (tile_mut<1>): its only in-tile coordinate is 0.
        inBounds = both(inBounds,
                        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, within[d], constant(0)));
      }
      inBounds =
          both(inBounds, LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, coords[d], limit));
      // Horner's rule from the slowest dimension; nuw holds once every coordinate is in bounds.
      linear = linear ? LLVM::AddOp::create(rewriter, loc,
                                            LLVM::MulOp::create(rewriter, loc, linear, extents[d], nuw),
                                            coord, nuw)
                            .getResult()
                      : coord;
    }
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), linear, op.getElemSize(), inBounds);
    return success();
  }
};

struct SpanElemLowering : OpConversionPattern<oxide::SpanElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// index < size ? data + index * elem_size : null.
  LogicalResult matchAndRewrite(oxide::SpanElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value inBounds = LLVM::ICmpOp::create(rewriter, op.getLoc(), LLVM::ICmpPredicate::ult, adaptor.getIndex(),
                                          adaptor.getSize());
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), adaptor.getIndex(), op.getElemSize(),
                              inBounds);
    return success();
  }
};

struct GeometryLowering : OpConversionPattern<oxide::GeometryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GeometryOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, readGeometry(rewriter, op.getLoc(), op.getKind(), op.getDim(), exactBlock(op)));
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<oxide::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::BarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};

struct FenceLowering : OpConversionPattern<oxide::FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::FenceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FenceOp>(op, LLVM::AtomicOrdering::seq_cst,
                                               oxide::llvmSyncScope(op.getScope()));
    return success();
  }
};

struct SharedAllocLowering : OpConversionPattern<oxide::SharedAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  /// One addrspace(3) global per site, so every use of a declaration shares its memory.
  LogicalResult matchAndRewrite(oxide::SharedAllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    std::string name = ("__oxide_shared_" + op.getSite()).str();
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), op.getBytes());
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      global = LLVM::GlobalOp::create(rewriter, op.getLoc(), arrayType, /*isConstant=*/false,
                                      LLVM::Linkage::Internal, name, Attribute(), op.getAlignment(),
                                      kSharedAddressSpace);
      // Shared memory has no initial value: an undef initializer, as NVPTX requires.
      Block *init = rewriter.createBlock(&global.getInitializerRegion());
      rewriter.setInsertionPointToStart(init);
      Value undef = LLVM::UndefOp::create(rewriter, op.getLoc(), arrayType);
      LLVM::ReturnOp::create(rewriter, op.getLoc(), undef);
    } else if (global.getType() != arrayType) {
      return op.emitOpError() << "site '" << op.getSite() << "' is used with two different sizes";
    }
    auto sharedPtr = LLVM::LLVMPointerType::get(op.getContext(), kSharedAddressSpace);
    Value address = LLVM::AddressOfOp::create(rewriter, op.getLoc(), sharedPtr, global.getSymName());
    rewriter.replaceOpWithNewOp<LLVM::AddrSpaceCastOp>(op, op.getType(), address);
    return success();
  }
};

struct DynamicSharedLowering : OpConversionPattern<oxide::DynamicSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::DynamicSharedOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), 0);
    if (!module.lookupSymbol<LLVM::GlobalOp>(kDynamicSharedName)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, op.getLoc(), arrayType, false, LLVM::Linkage::External,
                             kDynamicSharedName, Attribute(), /*alignment=*/16, kSharedAddressSpace);
    }
    auto sharedPtr = LLVM::LLVMPointerType::get(op.getContext(), kSharedAddressSpace);
    Value address = LLVM::AddressOfOp::create(rewriter, op.getLoc(), sharedPtr, kDynamicSharedName);
    rewriter.replaceOpWithNewOp<LLVM::AddrSpaceCastOp>(op, op.getType(), address);
    return success();
  }
};

struct DynamicSharedSizeLowering : OpConversionPattern<oxide::DynamicSharedSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  /// The register, and in a contracted kernel the contract's dynamic_shared range as assumptions
  /// (the runtime launches it only within the range): a kernel's check that it got enough then
  /// folds away, which matters where any call (the check's failure report) would make ptxas
  /// serialise wgmma.
  LogicalResult matchAndRewrite(oxide::DynamicSharedSizeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value size = LLVM::CallIntrinsicOp::create(
                     rewriter, loc, rewriter.getI32Type(),
                     rewriter.getStringAttr("llvm.nvvm.read.ptx.sreg.dynamic_smem_size"), ValueRange{})
                     .getResult(0);
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (func && func->hasAttr(oxide::OxideDialect::getKernelAttrName())) {
      auto contract = oxide::getKernelContract(func);
      if (succeeded(contract) && *contract) {
        const auto &c = (*contract)->contract;
        auto assume = [&](LLVM::ICmpPredicate predicate, std::uint32_t bound) {
          Value limit = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), bound);
          LLVM::AssumeOp::create(rewriter, loc, LLVM::ICmpOp::create(rewriter, loc, predicate, size, limit));
        };
        if (c.dynamic_shared_min > 0)
          assume(LLVM::ICmpPredicate::uge, c.dynamic_shared_min);
        assume(LLVM::ICmpPredicate::ule, c.dynamic_shared_max);
      }
    }
    rewriter.replaceOp(op, size);
    return success();
  }
};

struct LaneIdLowering : OpConversionPattern<oxide::LaneIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::LaneIdOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::LaneIdOp>(op, rewriter.getI32Type());
    return success();
  }
};

struct WarpShuffleLowering : OpConversionPattern<oxide::WarpShuffleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpShuffleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The c operand of shfl.sync: the segment mask (32 - width) in bits 8..12, over the clamp:
    // 0 for `up` (the segment's first lane bounds it), 31 for the others (its last lane).
    NVVM::ShflKind kind;
    std::int32_t clamp = 0x1f;
    const std::int32_t segment = static_cast<std::int32_t>(32 - op.getWidth()) << 8;
    switch (op.getMode()) {
    case oxide::ShuffleMode::idx:
      kind = NVVM::ShflKind::idx;
      break;
    case oxide::ShuffleMode::up:
      kind = NVVM::ShflKind::up;
      clamp = 0;
      break;
    case oxide::ShuffleMode::down:
      kind = NVVM::ShflKind::down;
      break;
    case oxide::ShuffleMode::bfly:
      kind = NVVM::ShflKind::bfly;
      break;
    }
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(op, rewriter.getI32Type(), adaptor.getMask(),
                                              adaptor.getValue(), adaptor.getArg(),
                                              i32Constant(rewriter, loc, segment | clamp), kind, UnitAttr());
    return success();
  }
};

struct WarpVoteLowering : OpConversionPattern<oxide::WarpVoteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpVoteOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type();
    Value predicate = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, adaptor.getPredicate(),
                                           i32Constant(rewriter, loc, 0));
    if (op.getMode() == oxide::VoteMode::ballot) {
      rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(op, i32, adaptor.getMask(), predicate,
                                                    NVVM::VoteSyncKind::ballot);
      return success();
    }
    auto kind = op.getMode() == oxide::VoteMode::all ? NVVM::VoteSyncKind::all : NVVM::VoteSyncKind::any;
    Value vote = NVVM::VoteSyncOp::create(rewriter, loc, i1, adaptor.getMask(), predicate, kind);
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, i32, vote);
    return success();
  }
};

struct WarpSyncLowering : OpConversionPattern<oxide::WarpSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpSyncOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SyncWarpOp>(op, adaptor.getMask());
    return success();
  }
};

struct WarpReduxLowering : OpConversionPattern<oxide::WarpReduxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpReduxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    NVVM::ReduxKind kind = NVVM::ReduxKind::ADD;
    switch (op.getKind()) {
    case oxide::ReduxKind::add:
      kind = NVVM::ReduxKind::ADD;
      break;
    case oxide::ReduxKind::min:
      kind = NVVM::ReduxKind::MIN;
      break;
    case oxide::ReduxKind::max:
      kind = NVVM::ReduxKind::MAX;
      break;
    case oxide::ReduxKind::umin:
      kind = NVVM::ReduxKind::UMIN;
      break;
    case oxide::ReduxKind::umax:
      kind = NVVM::ReduxKind::UMAX;
      break;
    case oxide::ReduxKind::and_:
      kind = NVVM::ReduxKind::AND;
      break;
    case oxide::ReduxKind::or_:
      kind = NVVM::ReduxKind::OR;
      break;
    case oxide::ReduxKind::xor_:
      kind = NVVM::ReduxKind::XOR;
      break;
    }
    rewriter.replaceOpWithNewOp<NVVM::ReduxOp>(op, rewriter.getI32Type(), adaptor.getValue(), kind,
                                               adaptor.getMask());
    return success();
  }
};

struct WarpMatchLowering : OpConversionPattern<oxide::WarpMatchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::WarpMatchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    if (op.getKind() == oxide::MatchKind::any) {
      rewriter.replaceOpWithNewOp<NVVM::MatchSyncOp>(op, i32, adaptor.getMask(), adaptor.getValue(),
                                                     NVVM::MatchSyncKind::any);
      return success();
    }
    // match.sync.all gives {mask, all-equal}; the op's result is the mask (0 when not all equal,
    // which the instruction already returns).
    auto pair = LLVM::LLVMStructType::getLiteral(getContext(), {i32, rewriter.getI1Type()});
    Value both = NVVM::MatchSyncOp::create(rewriter, loc, pair, adaptor.getMask(), adaptor.getValue(),
                                           NVVM::MatchSyncKind::all);
    rewriter.replaceOpWithNewOp<LLVM::ExtractValueOp>(op, both, ArrayRef<std::int64_t>{0});
    return success();
  }
};

struct ActiveMaskLowering : OpConversionPattern<oxide::ActiveMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ActiveMaskOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The NVVM dialect has no op for it; llvm.nvvm.activemask is convergent and not readnone,
    // so LLVM neither merges nor moves it either.
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getI32Type(), rewriter.getStringAttr("llvm.nvvm.activemask"), ValueRange{});
    return success();
  }
};

struct LaneMaskLowering : OpConversionPattern<oxide::LaneMaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::LaneMaskOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    switch (op.getKind()) {
    case oxide::LaneMaskKind::lt:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskLtOp>(op, i32);
      break;
    case oxide::LaneMaskKind::le:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskLeOp>(op, i32);
      break;
    case oxide::LaneMaskKind::eq:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskEqOp>(op, i32);
      break;
    case oxide::LaneMaskKind::ge:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskGeOp>(op, i32);
      break;
    case oxide::LaneMaskKind::gt:
      rewriter.replaceOpWithNewOp<NVVM::LaneMaskGtOp>(op, i32);
      break;
    }
    return success();
  }
};

struct TrapLowering : OpConversionPattern<oxide::TrapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::TrapOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    emitAssertFail(op, rewriter, adaptor.getMessage());
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

/// The report of a failed bounds check, out of line: one cold, noinline function per module
/// that prints the index and the size with vprintf and then fails like an assert. Inlined at
/// every check, the printf buffer took a stack frame and registers in the hot path of kernels
/// such as SGEMM; out of line, each check costs a compare and a call on its cold path.
constexpr llvm::StringLiteral kBoundsFailureName = "__oxide_bounds_failure";

void buildBoundsFailureFunction(ModuleOp module) {
  Location loc = module.getLoc();
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  Type ptr = LLVM::LLVMPointerType::get(ctx), i32 = b.getI32Type(), i64 = b.getI64Type();
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  // (index, size, file, line, function)
  auto fnType = LLVM::LLVMFunctionType::get(voidType, {i64, i64, ptr, i32, ptr});
  auto fn = LLVM::LLVMFuncOp::create(b, loc, kBoundsFailureName, fnType, LLVM::Linkage::Internal);
  fn.setPassthroughAttr(
      b.getArrayAttr({b.getStringAttr("noinline"), b.getStringAttr("cold"), b.getStringAttr("noreturn")}));
  Block *entry = fn.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  auto argsType = LLVM::LLVMStructType::getLiteral(ctx, {i64, i64});
  Value args = LLVM::AllocaOp::create(b, loc, ptr, argsType, i32Constant(b, loc, 1), 8);
  for (std::int32_t i = 0; i < 2; ++i) {
    Value field = LLVM::GEPOp::create(b, loc, ptr, argsType, args, ArrayRef<LLVM::GEPArg>{0, i});
    LLVM::StoreOp::create(b, loc, entry->getArgument(i), field);
  }
  LLVM::LLVMFuncOp vprintf =
      declareFunction(module, b, "vprintf", LLVM::LLVMFunctionType::get(i32, {ptr, ptr}));
  Value format = globalString(module, b, loc, "__oxide_bounds",
                              "oxide: index %llu out of bounds for span of size %llu\n");
  LLVM::CallOp::create(b, loc, vprintf, ValueRange{format, args});
  LLVM::LLVMFuncOp assertFail = declareFunction(
      module, b, "__assertfail", LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i32, ptr, i64}));
  Value message = globalString(module, b, loc, "__oxide_bounds", "span index in bounds");
  LLVM::CallOp::create(b, loc, assertFail,
                       ValueRange{message, entry->getArgument(2), entry->getArgument(3),
                                  entry->getArgument(4),
                                  LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1))});
  LLVM::Trap::create(b, loc);
  LLVM::UnreachableOp::create(b, loc);
}

struct BoundsFailLowering : OpConversionPattern<oxide::BoundsFailOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::BoundsFailOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto failure = module.lookupSymbol<LLVM::LLVMFuncOp>(kBoundsFailureName);
    if (!failure)
      return LogicalResult::failure();
    auto [file, line] = userSourceLocation(loc);
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    std::string function = func ? llvm::demangle(func.getSymName()) : std::string("<kernel>");
    Value fileStr = globalString(module, rewriter, loc, "__oxide_file", file);
    Value functionStr = globalString(module, rewriter, loc, "__oxide_function", function);
    LLVM::CallOp::create(rewriter, loc, failure,
                         ValueRange{adaptor.getIndex(), adaptor.getSize(), fileStr,
                                    i32Constant(rewriter, loc, static_cast<std::int32_t>(line)),
                                    functionStr});
    rewriter.replaceOpWithNewOp<LLVM::Trap>(op);
    return success();
  }
};

/// A read of a special register through its NVVM intrinsic, e.g. "llvm.nvvm.read.ptx.sreg.clock64".
Value readSpecialRegister(OpBuilder &b, Location loc, Type type, StringRef intrinsic) {
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(intrinsic), ValueRange{}).getResult(0);
}

struct ClockLowering : OpConversionPattern<oxide::ClockOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ClockOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    StringRef intrinsic = op.getKind() == oxide::ClockKind::clock64 ? "llvm.nvvm.read.ptx.sreg.clock64"
                                                                    : "llvm.nvvm.read.ptx.sreg.globaltimer";
    rewriter.replaceOp(op, readSpecialRegister(rewriter, op.getLoc(), rewriter.getI64Type(), intrinsic));
    return success();
  }
};

struct ClusterGeometryLowering : OpConversionPattern<oxide::ClusterGeometryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ClusterGeometryOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    StringRef suffix = op.getDim() == oxide::Dim::x ? ".x" : op.getDim() == oxide::Dim::y ? ".y" : ".z";
    std::string intrinsic = "llvm.nvvm.read.ptx.sreg.";
    switch (op.getKind()) {
    case oxide::ClusterGeometryKind::block_rank:
      intrinsic += "cluster.ctarank";
      break;
    case oxide::ClusterGeometryKind::block_count:
      intrinsic += "cluster.nctarank";
      break;
    case oxide::ClusterGeometryKind::block_idx:
      intrinsic += ("cluster.ctaid" + suffix).str();
      break;
    case oxide::ClusterGeometryKind::cluster_dim:
      intrinsic += ("cluster.nctaid" + suffix).str();
      break;
    case oxide::ClusterGeometryKind::cluster_idx:
      intrinsic += ("clusterid" + suffix).str();
      break;
    case oxide::ClusterGeometryKind::grid_clusters:
      intrinsic += ("nclusterid" + suffix).str();
      break;
    }
    rewriter.replaceOp(op, readSpecialRegister(rewriter, op.getLoc(), rewriter.getI32Type(), intrinsic));
    return success();
  }
};

/// The launch quantities the group and ownership shapes are written in, as i64, for the function
/// that contains `op`: with a 1-D contract (`domain = 1`, whose launches are 1-D) only the x
/// registers, else the linear forms over x, y and z (x fastest, as the hardware numbers threads).
class LaunchQuantities {
public:
  LaunchQuantities(Operation *op, OpBuilder &b)
      : b(b), loc(op->getLoc()), block(exactBlock(op)), oneDimensional(isOneDimensional(op)) {}

  Value constant(std::int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
  }
  Value read(oxide::GeometryKind kind, oxide::Dim dim) {
    return widen(b, loc, readGeometry(b, loc, kind, dim, block));
  }
  Value sreg(StringRef name) {
    return widen(b, loc,
                 readSpecialRegister(b, loc, b.getI32Type(), ("llvm.nvvm.read.ptx.sreg." + name).str()));
  }
  Value add(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y, LLVM::IntegerOverflowFlags::nuw); }
  Value mul(Value x, Value y) { return LLVM::MulOp::create(b, loc, x, y, LLVM::IntegerOverflowFlags::nuw); }
  Value ult(Value x, Value y) { return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, x, y); }
  Value eq(Value x, Value y) { return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, x, y); }
  Value both(Value x, Value y) { return LLVM::AndOp::create(b, loc, x, y); }

  /// x + n.x * (y + n.y * z) over the registers of `index` sized by those of `extent`.
  Value linear(oxide::GeometryKind index, oxide::GeometryKind extent) {
    Value x = read(index, oxide::Dim::x);
    if (oneDimensional)
      return x;
    Value yz = add(read(index, oxide::Dim::y), mul(read(extent, oxide::Dim::y), read(index, oxide::Dim::z)));
    return add(x, mul(read(extent, oxide::Dim::x), yz));
  }
  Value product(oxide::GeometryKind extent) {
    Value x = read(extent, oxide::Dim::x);
    if (oneDimensional)
      return x;
    return mul(x, mul(read(extent, oxide::Dim::y), read(extent, oxide::Dim::z)));
  }
  Value threadInBlock() { return linear(oxide::GeometryKind::thread_idx, oxide::GeometryKind::block_dim); }
  Value blockThreads() { return product(oxide::GeometryKind::block_dim); }
  Value blockInGrid() { return linear(oxide::GeometryKind::block_idx, oxide::GeometryKind::grid_dim); }
  Value gridBlocks() { return product(oxide::GeometryKind::grid_dim); }
  Value warpsPerBlock() {
    return LLVM::LShrOp::create(b, loc, add(blockThreads(), constant(kWarpSize - 1)), constant(kWarpShift));
  }
  Value clusterInGrid() {
    Value yz = add(sreg("clusterid.y"), mul(sreg("nclusterid.y"), sreg("clusterid.z")));
    return add(sreg("clusterid.x"), mul(sreg("nclusterid.x"), yz));
  }
  Value gridClusters() { return mul(sreg("nclusterid.x"), mul(sreg("nclusterid.y"), sreg("nclusterid.z"))); }

  /// The group's index (oxide.group_index) and the number of such groups in the launch.
  Value groupIndex(oxide::Group group) {
    switch (group) {
    case oxide::Group::warp:
      return add(mul(blockInGrid(), warpsPerBlock()),
                 LLVM::LShrOp::create(b, loc, threadInBlock(), constant(kWarpShift)));
    case oxide::Group::block:
      return blockInGrid();
    case oxide::Group::cluster:
      return clusterInGrid();
    }
    llvm_unreachable("bad group");
  }
  Value groupCount(oxide::Group group) {
    switch (group) {
    case oxide::Group::warp:
      return mul(gridBlocks(), warpsPerBlock());
    case oxide::Group::block:
      return gridBlocks();
    case oxide::Group::cluster:
      return gridClusters();
    }
    llvm_unreachable("bad group");
  }

private:
  /// Whether the kernel that contains `op` has a 1-D contract: the runtime then launches it only
  /// with 1-D configurations (check_domain), so y and z are 0 and their extents 1.
  static bool isOneDimensional(Operation *op) {
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!func || !func->hasAttr(oxide::OxideDialect::getKernelAttrName()))
      return false;
    auto contract = oxide::getKernelContract(func);
    return succeeded(contract) && *contract && (*contract)->contract.domain == 1;
  }

  OpBuilder &b;
  Location loc;
  std::optional<std::array<std::int32_t, 3>> block;
  bool oneDimensional;
};

struct GroupIndexLowering : OpConversionPattern<oxide::GroupIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GroupIndexOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, LaunchQuantities(op, rewriter).groupIndex(op.getGroup()));
    return success();
  }
};

struct GroupStrideNextLowering : OpConversionPattern<oxide::GroupStrideNextOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GroupStrideNextOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities launch(op, rewriter);
    rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, adaptor.getIndex(), launch.groupCount(op.getGroup()));
    return success();
  }
};

/// The element and the condition of Ownership::warpgroup_tile (oxide::detail::WarpgroupTile):
/// block b's tile in the grouped order, then the consumer warpgroup's rows and the accumulator
/// layout. Every quantity is below 2^40 (tiles below the output's extents, threads below 2^10),
/// so nothing wraps; blocks past the last tile, and threads outside the consumers, write nothing.
std::pair<Value, Value> warpgroupTileElement(LaunchQuantities &q, OpBuilder &b, Location loc,
                                             const oxide::detail::WarpgroupTile &tile, Value block, Value j,
                                             Value width, Value height) {
  auto div = [&](Value x, Value y) { return LLVM::UDivOp::create(b, loc, x, y).getResult(); };
  auto rem = [&](Value x, Value y) { return LLVM::URemOp::create(b, loc, x, y).getResult(); };
  auto sub = [&](Value x, Value y) { return LLVM::SubOp::create(b, loc, x, y).getResult(); };
  auto ceilDiv = [&](Value x, std::int64_t y) { return div(q.add(x, q.constant(y - 1)), q.constant(y)); };
  const std::int64_t tileRows = 64 * std::int64_t{tile.consumers};
  Value tilesM = ceilDiv(height, tileRows), tilesN = ceilDiv(width, tile.n);
  Value group = q.constant(tile.group);
  Value inside = q.ult(block, q.mul(tilesM, tilesN));
  // Outside the tiles the divisors below may be 0: use 1 there (the element is not written).
  Value one = q.constant(1);
  Value per = LLVM::SelectOp::create(b, loc, inside, q.mul(group, tilesN), one);
  Value firstM = q.mul(div(block, per), group);
  Value left = LLVM::SelectOp::create(b, loc, inside, sub(tilesM, firstM), one);
  Value rows = LLVM::SelectOp::create(b, loc, q.ult(left, group), left, group);
  Value local = rem(block, per);
  Value bm = q.add(firstM, rem(local, rows)), bn = div(local, rows);
  Value t = q.threadInBlock();
  Value w = div(t, q.constant(128)), first = q.constant(tile.first);
  Value consumer = q.both(q.ult(w, q.constant(tile.first + tile.consumers)),
                          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, w, first));
  Value c = LLVM::SelectOp::create(b, loc, consumer, sub(w, first), q.constant(0));
  Value warp = div(rem(t, q.constant(128)), q.constant(32)), lane = rem(t, q.constant(32));
  Value half = rem(div(j, q.constant(2)), q.constant(2));
  Value row =
      q.add(q.add(q.mul(bm, q.constant(tileRows)), q.mul(c, q.constant(64))),
            q.add(q.add(q.mul(warp, q.constant(16)), div(lane, q.constant(4))), q.mul(half, q.constant(8))));
  Value column = q.add(q.add(q.mul(bn, q.constant(tile.n)), q.mul(div(j, q.constant(4)), q.constant(8))),
                       q.add(q.mul(rem(lane, q.constant(4)), q.constant(2)), rem(j, q.constant(2))));
  Value ok = q.both(q.both(inside, consumer), q.both(q.ult(j, q.constant(tile.n / 2)),
                                                     q.both(q.ult(row, height), q.ult(column, width))));
  return {q.add(q.mul(row, width), column), ok};
}

struct OwnedElemLowering : OpConversionPattern<oxide::OwnedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// Each shape's element and the condition that the caller writes it, as in the Ownership enum.
  /// Every comparison is made before the arithmetic it guards could wrap: a wrapped index could
  /// name another owner's element.
  LogicalResult matchAndRewrite(oxide::OwnedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities q(op, rewriter);
    Location loc = op.getLoc();
    auto extents = adaptor.getExtents();
    auto owners = adaptor.getOwners();
    Value j = adaptor.getJ(), width = extents[0], owner = owners[0];
    Value zero = q.constant(0), element, ok;
    auto lane = [&] {
      return widen(rewriter, loc, NVVM::LaneIdOp::create(rewriter, loc, rewriter.getI32Type()));
    };
    // Row `row` of a 2-D output, column `first + step * j`, with j < width so that it cannot wrap.
    auto rowColumn = [&](Value row, Value first, Value step) {
      Value column = q.add(first, q.mul(step, j));
      ok = q.both(q.both(q.ult(row, extents[1]), q.ult(j, width)), q.ult(column, width));
      element = q.add(q.mul(row, width), column);
    };
    switch (op.getShape()) {
    case oxide::Ownership::warp_leader:
      ok = q.both(q.eq(lane(), zero), q.ult(owner, width));
      element = owner;
      break;
    case oxide::Ownership::warp_lanes:
      rowColumn(owner, lane(), q.constant(kWarpSize));
      break;
    case oxide::Ownership::block_leader:
      ok = q.both(q.eq(q.threadInBlock(), zero), q.ult(owner, width));
      element = owner;
      break;
    case oxide::Ownership::block_threads:
      rowColumn(owner, q.threadInBlock(), q.blockThreads());
      break;
    case oxide::Ownership::cluster_leader:
      ok = q.both(q.both(q.eq(q.sreg("cluster.ctarank"), zero), q.eq(q.threadInBlock(), zero)),
                  q.ult(owner, width));
      element = owner;
      break;
    case oxide::Ownership::launch_strided: {
      // owner + T * j, in bounds only if the product does not wrap and the sum stays below width.
      Value threads = LLVM::MulOp::create(rewriter, loc, q.read(oxide::GeometryKind::grid_dim, oxide::Dim::x),
                                          q.read(oxide::GeometryKind::block_dim, oxide::Dim::x),
                                          LLVM::IntegerOverflowFlags::nuw);
      auto i1 = rewriter.getI1Type(), i64 = rewriter.getI64Type();
      auto pair = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), {i64, i1});
      Value mul = LLVM::UMulWithOverflowOp::create(rewriter, loc, pair, threads, j);
      Value offset = LLVM::ExtractValueOp::create(rewriter, loc, mul, 0);
      Value wrapped = LLVM::ExtractValueOp::create(rewriter, loc, mul, 1);
      Value fits = LLVM::XOrOp::create(
          rewriter, loc, wrapped, LLVM::ConstantOp::create(rewriter, loc, i1, rewriter.getBoolAttr(true)));
      Value room = LLVM::SubOp::create(rewriter, loc, width, offset); // used only when offset < width
      ok = q.both(q.both(fits, q.ult(offset, width)), q.ult(owner, room));
      element = LLVM::AddOp::create(rewriter, loc, owner, offset);
      break;
    }
    case oxide::Ownership::block_strided: {
      // (b K + j) B + t; K <= 2^16 (the verifier), so with j < K nothing wraps.
      Value k = q.constant(op.getCount());
      Value chunk = q.add(q.mul(q.read(oxide::GeometryKind::block_idx, oxide::Dim::x), k), j);
      element = q.add(q.mul(chunk, q.read(oxide::GeometryKind::block_dim, oxide::Dim::x)),
                      q.read(oxide::GeometryKind::thread_idx, oxide::Dim::x));
      ok = q.both(q.ult(j, k), q.ult(element, width));
      break;
    }
    case oxide::Ownership::strided_rows: {
      Value k = q.constant(op.getCount());
      Value chunk = q.add(q.mul(q.read(oxide::GeometryKind::block_idx, oxide::Dim::y), k), j);
      Value row = q.add(q.mul(chunk, q.read(oxide::GeometryKind::block_dim, oxide::Dim::y)),
                        q.read(oxide::GeometryKind::thread_idx, oxide::Dim::y));
      ok = q.both(q.both(q.ult(j, k), q.ult(owner, width)), q.ult(row, extents[1]));
      element = q.add(q.mul(row, width), owner);
      break;
    }
    case oxide::Ownership::pair: {
      // element lo + h j with lo = (i / h) 2h + i % h; h < width and lo < width keep the sum from wrapping.
      Value h = adaptor.getUniform();
      Value one = q.constant(1);
      Value safeH = LLVM::SelectOp::create(rewriter, loc, q.eq(h, zero), one, h); // no division by zero
      Value quotient = LLVM::UDivOp::create(rewriter, loc, owner, safeH);
      // (i / h) 2h + i % h == (i / h) h + i.
      Value lo =
          LLVM::AddOp::create(rewriter, loc, LLVM::MulOp::create(rewriter, loc, quotient, safeH), owner);
      Value valid =
          q.both(q.both(q.ult(zero, h), q.ult(h, width)), q.both(q.ult(j, q.constant(2)), q.ult(lo, width)));
      element = LLVM::AddOp::create(rewriter, loc, lo, LLVM::MulOp::create(rewriter, loc, h, j));
      ok = q.both(valid, q.ult(element, width));
      break;
    }
    case oxide::Ownership::z_column:
      ok = q.both(q.both(q.ult(owner, width), q.ult(owners[1], extents[1])), q.ult(j, extents[2]));
      element = q.add(q.mul(q.add(q.mul(j, extents[1]), owners[1]), width), owner);
      break;
    case oxide::Ownership::warpgroup_tile:
      std::tie(element, ok) =
          warpgroupTileElement(q, rewriter, loc, *op.warpgroupTile(), owner, j, width, extents[1]);
      break;
    }
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), element, op.getElemSize(), ok);
    return success();
  }
};

// Reservations add oxide::detail::reserve_increment(counter, count) (intrinsic_abi.hpp), so that
// the counter cannot wrap.
constexpr auto kMaxAppendSlots = static_cast<std::int64_t>(oxide::detail::kMaxAppendSlots);

struct ReserveLowering : OpConversionPattern<oxide::ReserveOp> {
  using OpConversionPattern::OpConversionPattern;
  /// A relaxed device-scope atomic add: the slots only need to be distinct, not ordered. A count
  /// above kSmallReserve first reads the counter (reserve_increment), on a branch of its own, so
  /// that the small counts of ordinary appends (a constant, or one LLVM bounds) cost nothing more.
  LogicalResult matchAndRewrite(oxide::ReserveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value add = adaptor.getCount();
    APInt constantCount;
    if (!matchPattern(add, m_ConstantInt(&constantCount)) ||
        constantCount.ugt(oxide::detail::kSmallReserve)) {
      LaunchQuantities q(op, rewriter);
      Type i64 = rewriter.getI64Type();
      Block *before = op->getBlock();
      Block *atomic = rewriter.splitBlock(before, op->getIterator());
      add = atomic->addArgument(i64, loc);
      Block *large = rewriter.createBlock(atomic);
      rewriter.setInsertionPointToEnd(before);
      Value count = adaptor.getCount();
      Value small = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ule, count,
                                         q.constant(static_cast<std::int64_t>(oxide::detail::kSmallReserve)));
      LLVM::CondBrOp::create(rewriter, loc, small, atomic, ValueRange{count}, large, ValueRange{});
      rewriter.setInsertionPointToEnd(large);
      Value limit = q.constant(kMaxAppendSlots);
      Value counter = LLVM::LoadOp::create(rewriter, loc, i64, adaptor.getCounter(), 8, false, false, false,
                                           false, LLVM::AtomicOrdering::monotonic, "device");
      Value clamped = LLVM::UMinOp::create(rewriter, loc, count, limit);
      Value increment = LLVM::SelectOp::create(rewriter, loc, q.ult(counter, limit), clamped, q.constant(0));
      LLVM::BrOp::create(rewriter, loc, ValueRange{increment}, atomic);
      rewriter.setInsertionPoint(op);
    }
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(op, LLVM::AtomicBinOp::add, adaptor.getCounter(), add,
                                                   LLVM::AtomicOrdering::monotonic,
                                                   /*syncscope=*/"device", /*alignment=*/8);
    return success();
  }
};

struct ReservedElemLowering : OpConversionPattern<oxide::ReservedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// j < count && start < size && j < size - start && size <= 2^40: the slot is reserved and in
  /// the output, start + j cannot wrap, and the output is no larger than ReserveLowering assumes.
  LogicalResult matchAndRewrite(oxide::ReservedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    LaunchQuantities q(op, rewriter);
    Value room = LLVM::SubOp::create(rewriter, op.getLoc(), adaptor.getSize(), adaptor.getStart());
    Value ok = q.both(
        q.both(q.ult(adaptor.getJ(), adaptor.getCount()), q.ult(adaptor.getStart(), adaptor.getSize())),
        q.both(q.ult(adaptor.getJ(), room), q.ult(adaptor.getSize(), q.constant(kMaxAppendSlots + 1))));
    Value slot = LLVM::AddOp::create(rewriter, op.getLoc(), adaptor.getStart(), adaptor.getJ());
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), slot, op.getElemSize(), ok);
    return success();
  }
};

struct PermutedElemLowering : OpConversionPattern<oxide::PermutedElemOp> {
  using OpConversionPattern::OpConversionPattern;
  /// p = perm[i < perm_size ? i : 0] (index 0 always exists: an invariant load, since no thread
  /// writes a permutation during the launch), then i < perm_size && p < size ? data + p : null.
  LogicalResult matchAndRewrite(oxide::PermutedElemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LaunchQuantities q(op, rewriter);
    Value inPerm = q.ult(adaptor.getI(), adaptor.getPermSize());
    Value at = LLVM::SelectOp::create(rewriter, loc, inPerm, adaptor.getI(), q.constant(0));
    Value address = LLVM::GEPOp::create(rewriter, loc, adaptor.getPerm().getType(), rewriter.getI32Type(),
                                        adaptor.getPerm(), ValueRange{at}, LLVM::GEPNoWrapFlags::inbounds);
    auto load = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(), address, /*alignment=*/4);
    load.setInvariant(true);
    // Not zext nneg: an index may have its top bit set.
    Value index = LLVM::ZExtOp::create(rewriter, loc, rewriter.getI64Type(), load.getResult());
    Value ok = q.both(inPerm, q.ult(index, adaptor.getSize()));
    replaceWithCheckedElement(rewriter, op, adaptor.getData(), index, op.getElemSize(), ok);
    return success();
  }
};

struct ClusterSyncLowering : OpConversionPattern<oxide::ClusterSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::ClusterSyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The non-.aligned forms: correct even when the threads of a warp reach it apart.
    Location loc = op.getLoc();
    LLVM::CallIntrinsicOp::create(rewriter, loc, rewriter.getStringAttr("llvm.nvvm.barrier.cluster.arrive"),
                                  ValueRange{});
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getStringAttr("llvm.nvvm.barrier.cluster.wait"), ValueRange{});
    return success();
  }
};

struct MapSharedLowering : OpConversionPattern<oxide::MapSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::MapSharedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(op, op.getType(),
                                                       rewriter.getStringAttr("llvm.nvvm.mapa"),
                                                       ValueRange{adaptor.getPtr(), adaptor.getRank()});
    return success();
  }
};

/// The grid barrier of cooperative launches, as CUDA's cooperative groups implement it: the
/// driver passes a workspace in %envreg1/%envreg2 whose second word is the barrier. Thread 0
/// of each block adds 1 (block 0 adds 0x80000000 - (blocks - 1)) with release semantics, so
/// the top bit flips when the last block arrives; each then spins with acquire loads until it
/// sees the flip. Built once per module, before the conversion, as a function that every
/// grid_sync calls.
constexpr llvm::StringLiteral kGridBarrierName = "__oxide_grid_barrier";

void buildGridBarrierFunction(ModuleOp module) {
  Location loc = module.getLoc();
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToStart(module.getBody());
  MLIRContext *ctx = module.getContext();
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {});
  auto fn = LLVM::LLVMFuncOp::create(builder, loc, kGridBarrierName, fnType, LLVM::Linkage::Internal);
  // Convergent: the optimiser must not duplicate calls into divergent paths, where the copies'
  // bar.sync (aligned) would be reached by the threads of one warp at different places.
  fn.setConvergent(true);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type(), i8 = builder.getI8Type(),
       ptr = LLVM::LLVMPointerType::get(ctx);

  Block *entry = fn.addEntryBlock(builder);
  Block *arrive = builder.createBlock(&fn.getBody());
  Block *spin = builder.createBlock(&fn.getBody(), fn.getBody().end(), {i32}, {loc});
  Block *done = builder.createBlock(&fn.getBody());

  OpBuilder b(ctx);
  auto sum3 = [&](oxide::GeometryKind kind) {
    Value x = readGeometry(b, loc, kind, oxide::Dim::x), y = readGeometry(b, loc, kind, oxide::Dim::y),
          z = readGeometry(b, loc, kind, oxide::Dim::z);
    return LLVM::AddOp::create(b, loc, LLVM::AddOp::create(b, loc, x, y), z).getResult();
  };
  auto isZero = [&](Value v) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, v, i32Constant(b, loc, 0)).getResult();
  };

  b.setInsertionPointToStart(entry);
  NVVM::Barrier0Op::create(b, loc);
  LLVM::CondBrOp::create(b, loc, isZero(sum3(oxide::GeometryKind::thread_idx)), arrive, done);

  b.setInsertionPointToStart(arrive);
  // The workspace address: %envreg1 holds its high half, %envreg2 its low half.
  Value hi =
      LLVM::ZExtOp::create(b, loc, i64, readSpecialRegister(b, loc, i32, "llvm.nvvm.read.ptx.sreg.envreg1"));
  Value lo =
      LLVM::ZExtOp::create(b, loc, i64, readSpecialRegister(b, loc, i32, "llvm.nvvm.read.ptx.sreg.envreg2"));
  Value shift = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(32));
  Value address = LLVM::OrOp::create(b, loc, LLVM::ShlOp::create(b, loc, hi, shift), lo);
  Value workspace = LLVM::IntToPtrOp::create(b, loc, ptr, address);
  Value barrier = LLVM::GEPOp::create(b, loc, ptr, i8, workspace, ArrayRef<LLVM::GEPArg>{4});
  Value nx = readGeometry(b, loc, oxide::GeometryKind::grid_dim, oxide::Dim::x),
        ny = readGeometry(b, loc, oxide::GeometryKind::grid_dim, oxide::Dim::y),
        nz = readGeometry(b, loc, oxide::GeometryKind::grid_dim, oxide::Dim::z);
  Value blocks = LLVM::MulOp::create(b, loc, LLVM::MulOp::create(b, loc, nx, ny), nz);
  Value masterAdd =
      LLVM::SubOp::create(b, loc, i32Constant(b, loc, static_cast<std::int32_t>(0x80000001u)), blocks);
  Value add = LLVM::SelectOp::create(b, loc, isZero(sum3(oxide::GeometryKind::block_idx)), masterAdd,
                                     i32Constant(b, loc, 1));
  // A release fence and a relaxed add: NVPTX (LLVM 22) drops the release of an atomicrmw.
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  Value old = LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, barrier, add,
                                        LLVM::AtomicOrdering::monotonic, "device", 4);
  LLVM::BrOp::create(b, loc, ValueRange{old}, spin);

  b.setInsertionPointToStart(spin);
  Value current = LLVM::LoadOp::create(b, loc, i32, barrier, 4, false, false, false, false,
                                       LLVM::AtomicOrdering::acquire, "device");
  Value flipped = LLVM::AndOp::create(b, loc, LLVM::XOrOp::create(b, loc, spin->getArgument(0), current),
                                      i32Constant(b, loc, static_cast<std::int32_t>(0x80000000u)));
  LLVM::CondBrOp::create(b, loc, isZero(flipped), spin, ValueRange{spin->getArgument(0)}, done, ValueRange{});

  b.setInsertionPointToStart(done);
  NVVM::Barrier0Op::create(b, loc);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

struct GridSyncLowering : OpConversionPattern<oxide::GridSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::GridSyncOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto barrier = op->getParentOfType<ModuleOp>().lookupSymbol<LLVM::LLVMFuncOp>(kGridBarrierName);
    if (!barrier)
      return failure();
    auto call = rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, barrier, ValueRange{});
    call.setConvergent(true);
    return success();
  }
};

/// Replaces the uses of the index `value` by one `llvm.freeze` of it. The user's code computes
/// these indices; one that is poison (a signed overflow) or undef (an uninitialised variable)
/// would let LLVM pick one value for the bounds test and another for the address. Frozen once
/// at the definition, every test and every address sees the same value (docs/safety.md). A
/// poison or undef constant is frozen too, but only where the accessors (`guarded`) use it: the
/// importer shares one such constant among every use in a function (aggregates built over
/// poison among them), which must stay free to optimise.
void freezeAtDefinition(Value value, const llvm::SmallPtrSetImpl<Operation *> &guarded) {
  if (!value || value.getDefiningOp<LLVM::FreezeOp>())
    return;
  const bool undefined = value.getDefiningOp<LLVM::PoisonOp>() || value.getDefiningOp<LLVM::UndefOp>();
  if (matchPattern(value, m_Constant()) && !undefined)
    return;
  OpBuilder b(value.getContext());
  if (Operation *def = value.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  auto frozen = LLVM::FreezeOp::create(b, value.getLoc(), value);
  value.replaceUsesWithIf(frozen.getResult(), [&](OpOperand &use) {
    return use.getOwner() != frozen && (!undefined || guarded.contains(use.getOwner()));
  });
}

/// The operands of the element accessors that the user's code computes (not witnesses, not
/// the launch's sizes), frozen before their guards are built.
void freezeGuardedIndices(ModuleOp module) {
  SmallVector<Value> indices;
  llvm::SmallPtrSet<Operation *, 16> guarded;
  module.walk([&](Operation *op) {
    if (isa<oxide::DisjointGetOp, oxide::SpanElemOp, oxide::OwnedElemOp, oxide::ReserveOp,
            oxide::ReservedElemOp, oxide::PermutedElemOp>(op))
      guarded.insert(op);
    llvm::TypeSwitch<Operation *>(op)
        .Case<oxide::DisjointGetOp>([&](auto get) { llvm::append_range(indices, get.getWithin()); })
        .Case<oxide::SpanElemOp>([&](auto elem) { indices.push_back(elem.getIndex()); })
        .Case<oxide::OwnedElemOp>([&](auto elem) {
          indices.push_back(elem.getJ());
          indices.push_back(elem.getUniform());
        })
        .Case<oxide::ReserveOp>([&](auto reserve) { indices.push_back(reserve.getCount()); })
        .Case<oxide::ReservedElemOp>([&](auto elem) {
          indices.push_back(elem.getJ());
          indices.push_back(elem.getCount());
        })
        .Case<oxide::PermutedElemOp>([&](auto elem) { indices.push_back(elem.getI()); });
  });
  llvm::SmallPtrSet<Value, 16> done;
  for (Value index : indices)
    if (index && done.insert(index).second)
      freezeAtDefinition(index, guarded);
}

struct OxideToNVVMPass : oxide::impl::OxideToNVVMBase<OxideToNVVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    freezeGuardedIndices(module);
    if (module.walk([](oxide::GridSyncOp) { return WalkResult::interrupt(); }).wasInterrupted())
      buildGridBarrierFunction(module);
    if (module.walk([](oxide::BoundsFailOp) { return WalkResult::interrupt(); }).wasInterrupted())
      buildBoundsFailureFunction(module);
    ConversionTarget target(getContext());
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<oxide::OxideDialect>();
    RewritePatternSet patterns(&getContext());
    patterns.add<ThreadIndexLowering, GridStrideNextLowering, DisjointGetLowering, SpanElemLowering,
                 GroupIndexLowering, GroupStrideNextLowering, OwnedElemLowering, ReserveLowering,
                 ReservedElemLowering, PermutedElemLowering, GeometryLowering, BarrierLowering, FenceLowering,
                 SharedAllocLowering, DynamicSharedLowering, DynamicSharedSizeLowering, LaneIdLowering,
                 WarpShuffleLowering, WarpVoteLowering, WarpSyncLowering, TrapLowering, BoundsFailLowering,
                 ClockLowering, ClusterGeometryLowering, ClusterSyncLowering, MapSharedLowering,
                 GridSyncLowering, WarpReduxLowering, WarpMatchLowering>(&getContext());
    patterns.add<ActiveMaskLowering, LaneMaskLowering>(&getContext());
    oxide::populateTensorCoreToNVVMPatterns(patterns);
    oxide::populateHopperToNVVMPatterns(patterns);
    oxide::populateCacheToNVVMPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    if (failed(oxide::lowerPtxBuilderOps(module)))
      return signalPassFailure();

    // Entry points keep the ptx_kernel calling convention; the marker has served its purpose.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func->removeAttr(oxide::OxideDialect::getKernelAttrName()))
        func.setCConv(LLVM::CConv::PTX_Kernel);
      for (llvm::StringRef name : {oxide::kContractAttr, oxide::kParamsAttr, oxide::kLaunchBoundsAttr})
        func->removeAttr(name);
    }
  }
};

} // namespace
