//===- Optimize.cpp - launch-contract facts into code generation ----------===//

#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/Passes.h"
#include "Provenance/InputPointers.h"
#include "SmallCopy.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDEOPTIMIZE
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;
using oxide::SmallCopy;

namespace {

class RequiresLowering {
public:
  RequiresLowering(LLVM::LLVMFuncOp func, oxide::KernelAttr kernel, OpBuilder &b)
      : func(func), contract(*kernel.getParsedContract()), kinds(kernel.getParamKinds()), b(b),
        loc(func.getLoc()) {}

  /// Emits `llvm.intr.assume(relation)` for each `requires` relation; returns false when a
  /// parameter does not have the layout the contract expects (then nothing is assumed).
  bool emitAssumes() {
    for (const auto &relation : contract.requires_) {
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
    // The layout of include/oxide/device/span.hpp, which static_asserts these offsets.
    const unsigned extents = oxide::detail::span_extents(kinds[index]);
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

  /// Extent `axis` (width, height, depth) of a 2-D or 3-D span parameter.
  Value spanExtent(unsigned index, unsigned axis) {
    if (axis >= oxide::detail::span_extents(kinds[index]))
      return {};
    return loadField(index, static_cast<int64_t>(oxide::detail::kSpanExtentOffset +
                                                 axis * oxide::detail::kSpanExtentStride));
  }

  Value scalar(unsigned index) {
    Value arg = func.getArgument(index);
    auto type = dyn_cast<IntegerType>(arg.getType());
    if (!type || type.getWidth() > 64)
      return {};
    // The runtime rejects a negative signed scalar that `requires` reads (NegativeArgument), so
    // it is known to be >= 0, and its zero extension is its value; the relations compare unsigned.
    if (index < kinds.size() && kinds[index] == oxide::detail::ParamKind::signed_integer) {
      Value zero = LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, 0));
      LLVM::AssumeOp::create(b, loc, LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, arg, zero));
    }
    return type.getWidth() == 64 ? arg : LLVM::ZExtOp::create(b, loc, b.getI64Type(), arg).getResult();
  }

  Value expression(uint32_t node) {
    using Kind = oxide::detail::ContractNode::Kind;
    const auto &n = contract.nodes[node];
    if (n.kind != Kind::Literal && n.value >= func.getNumArguments())
      return {};
    switch (n.kind) {
    case Kind::Literal:
      return constant(static_cast<int64_t>(n.value));
    case Kind::Size:
      return spanSize(static_cast<unsigned>(n.value));
    case Kind::Scalar:
      return scalar(static_cast<unsigned>(n.value));
    case Kind::Extent:
      return spanExtent(static_cast<unsigned>(n.value), n.axis);
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
    // It rejects a division by zero too.
    if (n.kind == Kind::Div)
      return LLVM::UDivOp::create(b, loc, lhs, rhs);
    if (n.kind == Kind::Mod)
      return LLVM::URemOp::create(b, loc, lhs, rhs);
    return LLVM::MulOp::create(b, loc, lhs, rhs, nuw);
  }

  LLVM::LLVMFuncOp func;
  const oxide::detail::Contract &contract;
  ArrayRef<oxide::detail::ParamKind> kinds;
  OpBuilder &b;
  Location loc;
};

/// A 4-, 8- or 16-byte copy (a struct assignment such as `*o = in[i]` for a float4-like
/// element) as one vector load and store: clang leaves it a memcpy, which NVPTX splits into plain
/// 64-bit loads, losing the 128-bit access (and, out of an input span, the read-only cache).
/// Returns the load, or nullptr when the copy stays.
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

/// Marks the loads through the data pointers of the read-only span parameters of contracted
/// kernels (`kernelInputs`: each kernel's parameter numbers) invariant (ld.global.nc), and the small
/// copies out of them, made vector loads, in the kernels and in the helpers they call that the
/// compiler did not inline (oxide::InputPointers says which pointers those are). In a helper the
/// address also becomes a global one (address space 1): NVPTX emits ld.global.nc only for those,
/// and knows by itself only that a kernel's span parameters point there.
void markInputLoadsInvariant(ModuleOp module,
                             const llvm::MapVector<Operation *, SmallVector<unsigned>> &kernelInputs) {
  constexpr unsigned kGlobalAddressSpace = 1;
  const oxide::InputPointers pointers(module, kernelInputs);
  auto isData = [&](Value pointer) { return pointers.kindOf(pointer) == oxide::InputPointers::Kind::data; };
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    const bool kernel = kernelInputs.contains(func);
    auto mark = [&](LLVM::LoadOp load) {
      load.setInvariant(true);
      auto type = cast<LLVM::LLVMPointerType>(load.getAddr().getType());
      if (kernel || type.getAddressSpace() != 0)
        return;
      OpBuilder b(load);
      load.getAddrMutable().assign(LLVM::AddrSpaceCastOp::create(
          b, load.getLoc(), LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace), load.getAddr()));
    };
    SmallVector<Operation *> users;
    func.walk([&](Operation *op) { users.push_back(op); });
    for (Operation *user : users) {
      if (auto load = dyn_cast<LLVM::LoadOp>(user); load && isData(load.getAddr()))
        mark(load);
      else if (auto copy = SmallCopy::match(user); copy && isData(copy->src) && !isData(copy->dst))
        if (LLVM::LoadOp load = copyAsVectorLoad(*copy))
          mark(load);
    }
  }
}

/// The other small copies whose ends are aligned to their size (a whole Float4 or Int2 between
/// shared, local and global memory) as one vector access each, in every function.
void copiesAsVectorAccesses(ModuleOp module) {
  SmallVector<SmallCopy> copies;
  module.walk([&](Operation *op) {
    if (auto copy = SmallCopy::match(op);
        copy && copy->alignment(0) >= copy->bytes && copy->alignment(1) >= copy->bytes)
      copies.push_back(*copy);
  });
  for (const SmallCopy &copy : copies)
    copyAsVectorLoad(copy);
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
    // Each contracted kernel's read-only span parameters.
    llvm::MapVector<Operation *, SmallVector<unsigned>> kernelInputs;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      oxide::KernelAttr kernel = oxide::getKernelAttr(func);
      if (!kernel || func.isExternal())
        continue;
      const oxide::detail::Contract *contract = kernel.getParsedContract();
      MLIRContext *ctx = &getContext();
      // Launch bounds apply with or without a contract: they bound the registers ptxas may use.
      const bool exactBlock = contract && contract->block;
      // PTX forbids .maxntid beside .reqntid; an exact block is the tighter bound anyway.
      if (kernel.getMaxThreads() && !exactBlock)
        func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                      DenseI32ArrayAttr::get(ctx, {int32_t(kernel.getMaxThreads()), 1, 1}));
      if (kernel.getMinBlocks())
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 32), kernel.getMinBlocks()));
      if (!contract)
        continue;
      if (contract->block) {
        auto [x, y, z] = *contract->block;
        func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                      DenseI32ArrayAttr::get(ctx, {int32_t(x), int32_t(y), int32_t(z)}));
      }

      OpBuilder b(ctx);
      b.setInsertionPointToStart(&func.getBody().front());
      RequiresLowering(func, kernel, b).emitAssumes();

      SmallVector<unsigned> inputs;
      for (auto [i, kind] : llvm::enumerate(kernel.getParamKinds())) {
        if (i >= func.getNumArguments())
          break;
        if (oxide::detail::is_span(kind))
          assumeDataNonNull(func, i, b);
        if (kind == oxide::detail::ParamKind::input)
          inputs.push_back(i);
      }
      kernelInputs[func] = std::move(inputs);
    }
    markInputLoadsInvariant(module, kernelInputs);
    copiesAsVectorAccesses(module);
  }
};

} // namespace
