//===- LoweringHelpers.cpp - what the oxide-to-nvvm lowerings share -------===//

#include "LoweringHelpers.h"

#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/SourcePaths.h"
#include "Oxide/IR/UserLocation.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Demangle/Demangle.h"

using namespace mlir;

namespace oxide::lowering {

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
                   const std::optional<std::array<std::int32_t, 3>> &block) {
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

std::pair<std::string, unsigned> userSourceLocation(Operation *op) {
  auto frame = dyn_cast<FileLineColLoc>(oxide::userLocation(op->getLoc()));
  if (!frame)
    return {"<unknown>", 0};
  std::vector<oxide::PathPrefix> map;
  if (auto module = op->getParentOfType<ModuleOp>())
    if (auto pairs = module->getAttrOfType<ArrayAttr>(oxide::OxideDialect::getMacroPrefixMapAttrName()))
      for (auto pair : pairs.getAsValueRange<StringAttr>())
        if (std::optional<oxide::PathPrefix> prefix = oxide::PathPrefix::parse(pair))
          map.push_back(std::move(*prefix));
  return {oxide::remapPathPrefix(frame.getFilename(), map), frame.getLine()};
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

  auto [file, line] = userSourceLocation(op);
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

/// A read of a special register through its NVVM intrinsic, e.g. "llvm.nvvm.read.ptx.sreg.clock64".
Value readSpecialRegister(OpBuilder &b, Location loc, Type type, StringRef intrinsic) {
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(intrinsic), ValueRange{}).getResult(0);
}

} // namespace oxide::lowering
