//===- Optimize.cpp - launch-contract facts into code generation ----------===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/Passes.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/IR/Matchers.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDEOPTIMIZE
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

class RequiresLowering {
public:
  RequiresLowering(LLVM::LLVMFuncOp func, const oxide::KernelContract &kc, OpBuilder &b)
      : func(func), kc(kc), b(b), loc(func.getLoc()) {}

  /// Emits `llvm.intr.assume(relation)` for each `requires` relation; returns false when a
  /// parameter does not have the layout the contract expects (then nothing is assumed).
  bool emitAssumes() {
    for (const auto &relation : kc.contract.requires_) {
      Value lhs = expression(relation.lhs), rhs = expression(relation.rhs);
      if (!lhs || !rhs)
        return false;
      using Op = oxide::detail::ContractRelation::Op;
      LLVM::ICmpPredicate predicate = relation.op == Op::Eq   ? LLVM::ICmpPredicate::eq
                                      : relation.op == Op::Ne ? LLVM::ICmpPredicate::ne
                                      : relation.op == Op::Lt ? LLVM::ICmpPredicate::ult
                                      : relation.op == Op::Le ? LLVM::ICmpPredicate::ule
                                      : relation.op == Op::Gt ? LLVM::ICmpPredicate::ugt
                                                              : LLVM::ICmpPredicate::uge;
      Value holds = LLVM::ICmpOp::create(b, loc, predicate, lhs, rhs);
      LLVM::AssumeOp::create(b, loc, holds);
    }
    return true;
  }

private:
  Value constant(int64_t v) {
    return LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(v));
  }

  /// The i64 at byte `offset` of byval parameter `index`.
  Value loadField(unsigned index, int64_t offset) {
    Value arg = func.getArgument(index);
    if (!isa<LLVM::LLVMPointerType>(arg.getType()) ||
        !func.getArgAttr(index, LLVM::LLVMDialect::getByValAttrName()))
      return {};
    Value field =
        LLVM::GEPOp::create(b, loc, arg.getType(), b.getI8Type(), arg, ArrayRef<LLVM::GEPArg>{offset});
    return LLVM::LoadOp::create(b, loc, b.getI64Type(), field);
  }

  Value spanSize(unsigned index) {
    const oxide::KernelParam &param = kc.params[index];
    // The layout of include/oxide/device/span.hpp, which static_asserts these offsets.
    const unsigned extents = oxide::detail::span_extents(param.kind);
    Value size;
    for (unsigned e = 0; e < extents; ++e) {
      Value extent = loadField(index, static_cast<int64_t>(oxide::detail::kSpanExtentOffset +
                                                           e * oxide::detail::kSpanExtentStride));
      if (!extent)
        return {};
      size = size ? LLVM::MulOp::create(b, loc, size, extent, LLVM::IntegerOverflowFlags::nuw).getResult()
                  : extent;
    }
    return size;
  }

  Value scalar(unsigned index) {
    Value arg = func.getArgument(index);
    auto type = dyn_cast<IntegerType>(arg.getType());
    if (!type || type.getWidth() > 64)
      return {};
    // The runtime rejects a negative signed scalar that `requires` reads (NegativeArgument), so
    // it is known to be >= 0, and its zero extension is its value; the relations compare unsigned.
    if (index < kc.params.size() && kc.params[index].kind == oxide::detail::ParamKind::signed_integer) {
      Value zero = LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, 0));
      LLVM::AssumeOp::create(b, loc, LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, arg, zero));
    }
    return type.getWidth() == 64 ? arg : LLVM::ZExtOp::create(b, loc, b.getI64Type(), arg).getResult();
  }

  Value expression(uint32_t node) {
    using Kind = oxide::detail::ContractNode::Kind;
    const auto &n = kc.contract.nodes[node];
    if (n.kind != Kind::Literal && n.value >= func.getNumArguments())
      return {};
    switch (n.kind) {
    case Kind::Literal:
      return constant(static_cast<int64_t>(n.value));
    case Kind::Size:
      return spanSize(static_cast<unsigned>(n.value));
    case Kind::Scalar:
      return scalar(static_cast<unsigned>(n.value));
    default:
      break;
    }
    Value lhs = expression(n.lhs), rhs = expression(n.rhs);
    if (!lhs || !rhs)
      return {};
    // The runtime rejects launches whose requires arithmetic overflows, so it does not wrap.
    auto nuw = LLVM::IntegerOverflowFlags::nuw;
    if (n.kind == Kind::Add)
      return LLVM::AddOp::create(b, loc, lhs, rhs, nuw);
    if (n.kind == Kind::Sub)
      return LLVM::SubOp::create(b, loc, lhs, rhs, nuw);
    return LLVM::MulOp::create(b, loc, lhs, rhs, nuw);
  }

  LLVM::LLVMFuncOp func;
  const oxide::KernelContract &kc;
  OpBuilder &b;
  Location loc;
};

/// A constant-length, non-volatile memcpy: the LLVM dialect op, or the intrinsic call that the
/// LLVM IR import produces.
struct SmallCopy {
  Operation *op;
  Value dst, src;
  std::uint64_t bytes;
  ArrayAttr argAttrs;

  static std::optional<SmallCopy> match(Operation *op) {
    Value dst, src, len;
    ArrayAttr attrs;
    if (auto copy = dyn_cast<LLVM::MemcpyOp>(op)) {
      if (copy.getIsVolatile())
        return std::nullopt;
      dst = copy.getDst(), src = copy.getSrc(), len = copy.getLen(), attrs = copy.getArgAttrsAttr();
    } else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
               call && call.getIntrin().starts_with("llvm.memcpy.") && call.getArgs().size() == 4) {
      APInt isVolatileValue;
      if (!matchPattern(call.getArgs()[3], m_ConstantInt(&isVolatileValue)) || !isVolatileValue.isZero())
        return std::nullopt;
      dst = call.getArgs()[0], src = call.getArgs()[1], len = call.getArgs()[2],
      attrs = call.getArgAttrsAttr();
    } else {
      return std::nullopt;
    }
    APInt length;
    if (!matchPattern(len, m_ConstantInt(&length)))
      return std::nullopt;
    return SmallCopy{op, dst, src, length.getZExtValue(), attrs};
  }

  /// The alignment operand `operand` (0 = dst, 1 = src) is known to have.
  std::uint64_t alignment(unsigned operand) const {
    if (argAttrs && operand < argAttrs.size())
      if (auto dict = dyn_cast<DictionaryAttr>(argAttrs[operand]))
        if (auto align = dict.getAs<IntegerAttr>(LLVM::LLVMDialect::getAlignAttrName()))
          return align.getInt();
    return 1;
  }
};

/// A 4-, 8- or 16-byte copy out of an input span (a struct assignment such as `*o = in[i]` for
/// a float4-like element) as one vector load and store: clang leaves it a memcpy, which NVPTX
/// splits into plain 64-bit loads, losing both the 128-bit access and the read-only cache.
/// Returns the load, to be marked invariant, or nullptr when the copy stays.
LLVM::LoadOp copyAsVectorLoad(const SmallCopy &copy) {
  if (copy.bytes != 4 && copy.bytes != 8 && copy.bytes != 16)
    return nullptr;
  OpBuilder b(copy.op);
  Type i32 = b.getI32Type();
  Type type = copy.bytes == 4 ? i32 : VectorType::get({static_cast<std::int64_t>(copy.bytes / 4)}, i32);
  Location loc = copy.op->getLoc();
  auto load = LLVM::LoadOp::create(b, loc, type, copy.src, copy.alignment(1));
  LLVM::StoreOp::create(b, loc, load, copy.dst, copy.alignment(0));
  copy.op->erase();
  return load;
}

/// Marks loads through the data pointer of read-only span parameter `index` invariant.
void markInputLoadsInvariant(LLVM::LLVMFuncOp func, unsigned index) {
  Value arg = func.getArgument(index);
  SmallVector<Value> worklist;
  // The data pointer is the first field of the byval span: a load straight from the argument.
  for (Operation *user : arg.getUsers())
    if (auto load = dyn_cast<LLVM::LoadOp>(user);
        load && load.getAddr() == arg && isa<LLVM::LLVMPointerType>(load.getType()))
      worklist.push_back(load.getResult());
  llvm::DenseSet<Value> seen(worklist.begin(), worklist.end());
  while (!worklist.empty()) {
    Value ptr = worklist.pop_back_val();
    for (Operation *user : llvm::make_early_inc_range(ptr.getUsers())) {
      if (auto load = dyn_cast<LLVM::LoadOp>(user); load && load.getAddr() == ptr)
        load.setInvariant(true);
      else if (auto copy = SmallCopy::match(user); copy && copy->src == ptr && copy->dst != ptr) {
        if (LLVM::LoadOp load = copyAsVectorLoad(*copy))
          load.setInvariant(true);
      } else if (auto gep = dyn_cast<LLVM::GEPOp>(user);
                 gep && gep.getBase() == ptr && seen.insert(gep).second)
        worklist.push_back(gep.getResult());
    }
  }
}

/// The runtime never binds a null data pointer to a span (empty buffers get a dangling,
/// aligned one), so a span's data pointer is non-null; this lets the `if (T *o = get_mut(i))`
/// test fold to the bounds check alone.
void assumeDataNonNull(LLVM::LLVMFuncOp func, unsigned index, OpBuilder &b) {
  Value arg = func.getArgument(index);
  if (!isa<LLVM::LLVMPointerType>(arg.getType()) ||
      !func.getArgAttr(index, LLVM::LLVMDialect::getByValAttrName()))
    return;
  Location loc = func.getLoc();
  Value data = LLVM::LoadOp::create(b, loc, arg.getType(), arg);
  Value null = LLVM::ZeroOp::create(b, loc, arg.getType());
  LLVM::AssumeOp::create(b, loc, LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, data, null));
}

struct OxideOptimizePass : oxide::impl::OxideOptimizeBase<OxideOptimizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failed = false;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!func->hasAttr(oxide::OxideDialect::getKernelAttrName()) || func.isExternal())
        continue;
      auto kc = oxide::getKernelContract(func);
      if (mlir::failed(kc)) {
        failed = true;
        continue;
      }
      MLIRContext *ctx = &getContext();
      // Launch bounds apply with or without a contract: they bound the registers ptxas may use.
      auto bounds = oxide::getLaunchBounds(func);
      if (mlir::failed(bounds)) {
        failed = true;
        continue;
      }
      const bool exactBlock = *kc && (**kc).contract.block;
      // PTX forbids .maxntid beside .reqntid; an exact block is the tighter bound anyway.
      if (bounds->first && !exactBlock)
        func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                      DenseI32ArrayAttr::get(ctx, {int32_t(bounds->first), 1, 1}));
      if (bounds->second)
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 32), bounds->second));
      if (!*kc)
        continue;
      const oxide::KernelContract &contract = **kc;
      if (contract.contract.block) {
        auto [x, y, z] = *contract.contract.block;
        func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                      DenseI32ArrayAttr::get(ctx, {int32_t(x), int32_t(y), int32_t(z)}));
      }

      OpBuilder b(ctx);
      b.setInsertionPointToStart(&func.getBody().front());
      RequiresLowering(func, contract, b).emitAssumes();

      for (unsigned i = 0; i < contract.params.size() && i < func.getNumArguments(); ++i) {
        if (contract.params[i].isSpan())
          assumeDataNonNull(func, i, b);
        if (contract.params[i].kind == oxide::detail::ParamKind::input)
          markInputLoadsInvariant(func, i);
      }
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
