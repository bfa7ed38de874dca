//===- CacheToNVVM.cpp - cache-hinted loads and stores to inline PTX ------===//
//
// LLVM's NVPTX back end chooses ld.global.nc itself (for invariant loads from address space 1)
// but has no way to ask for a cache operator (ld.global.cs, st.global.wt ...), so each op is one
// inline PTX statement, as CUDA's __ldcs and __stwt are: 1 and 2 bytes through a 16-bit register
// (ld.u8 widens into it), 4 and 8 bytes as one b32 or b64, and vectors of two or four 32-bit
// words as ld.v2.b32 / ld.v4.b32. The address stays generic, as CUDA's; the ops' verifiers
// keep it generic or global, and in a contracted kernel oxide-verify-safety proves it global.
//
//===----------------------------------------------------------------------===//

#include "Oxide/Conversion/LoweringPatterns.h"
#include "Oxide/IR/OxideOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <string>

using namespace mlir;

namespace {

/// How a value crosses the asm statement: the PTX type, the register constraint, the number of
/// 32-bit words of a vector (0 for a scalar) and the type of each register.
struct Registers {
  llvm::StringRef ptxType;
  char constraint;
  unsigned words;
  Type registerType;
};

Registers registersOf(Type type) {
  MLIRContext *ctx = type.getContext();
  if (auto vector = dyn_cast<VectorType>(type))
    return {"b32", 'r', static_cast<unsigned>(vector.getNumElements()), IntegerType::get(ctx, 32)};
  switch (type.getIntOrFloatBitWidth()) {
  case 8:
    return {"u8", 'h', 0, IntegerType::get(ctx, 16)};
  case 16:
    return {"u16", 'h', 0, IntegerType::get(ctx, 16)};
  case 32:
    return {"b32", 'r', 0, IntegerType::get(ctx, 32)};
  default:
    return {"b64", 'l', 0, IntegerType::get(ctx, 64)};
  }
}

/// "{$first, $first + 1, ...}" for a vector's words, "$first" for a scalar.
std::string operandList(const Registers &regs, unsigned first) {
  if (regs.words == 0)
    return "$" + std::to_string(first);
  std::string list = "{";
  for (unsigned i = 0; i < regs.words; ++i)
    list += (i ? ", $" : "$") + std::to_string(first + i);
  return list + "}";
}

/// ".v2" / ".v4" for a vector, nothing for a scalar.
std::string vectorSuffix(const Registers &regs) {
  return regs.words == 0 ? std::string() : ".v" + std::to_string(regs.words);
}

struct CachedLoadLowering : OpConversionPattern<oxide::CachedLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::CachedLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getValue().getType();
    const Registers regs = registersOf(type);
    const unsigned outputs = regs.words ? regs.words : 1;
    const std::string text = "ld.global." + oxide::stringifyCacheHint(op.getHint()).str() +
                             vectorSuffix(regs) + "." + regs.ptxType.str() + " " + operandList(regs, 0) +
                             ", [$" + std::to_string(outputs) + "];";
    std::string constraints;
    for (unsigned i = 0; i < outputs; ++i)
      constraints += std::string("=") + regs.constraint + ",";
    constraints += "l";
    Type result = outputs == 1 ? regs.registerType
                               : LLVM::LLVMStructType::getLiteral(
                                     rewriter.getContext(), SmallVector<Type>(outputs, regs.registerType));
    // Not a side effect: a load the program does not use may go. Its memory effects stay unknown
    // to LLVM, so it is never moved across a store (as `cv` and `lu` need).
    auto asmOp = LLVM::InlineAsmOp::create(rewriter, loc, TypeRange{result}, ValueRange{adaptor.getPtr()},
                                           text, constraints, /*has_side_effects=*/false,
                                           /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                                           LLVM::AsmDialectAttr(), ArrayAttr());
    Value value = asmOp.getResult(0);
    if (regs.words) {
      Value vector = LLVM::PoisonOp::create(rewriter, loc, type);
      for (unsigned i = 0; i < regs.words; ++i) {
        Value word = LLVM::ExtractValueOp::create(rewriter, loc, value, ArrayRef<int64_t>{i});
        Value index =
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), rewriter.getI32IntegerAttr(i));
        vector = LLVM::InsertElementOp::create(rewriter, loc, vector, word, index);
      }
      value = vector;
    } else if (regs.registerType != type) {
      value = LLVM::TruncOp::create(rewriter, loc, type, value);
    }
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct CachedStoreLowering : OpConversionPattern<oxide::CachedStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(oxide::CachedStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value value = adaptor.getValue();
    const Registers regs = registersOf(value.getType());
    SmallVector<Value> operands = {adaptor.getPtr()};
    if (regs.words) {
      for (unsigned i = 0; i < regs.words; ++i) {
        Value index =
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), rewriter.getI32IntegerAttr(i));
        operands.push_back(LLVM::ExtractElementOp::create(rewriter, loc, value, index));
      }
    } else if (regs.registerType != value.getType()) {
      operands.push_back(LLVM::ZExtOp::create(rewriter, loc, regs.registerType, value));
    } else {
      operands.push_back(value);
    }
    const std::string text = "st.global." + oxide::stringifyCacheHint(op.getHint()).str() +
                             vectorSuffix(regs) + "." + regs.ptxType.str() + " [$0], " +
                             operandList(regs, 1) + ";";
    std::string constraints = "l";
    for (unsigned i = 1; i < operands.size(); ++i)
      constraints += std::string(",") + regs.constraint;
    constraints += ",~{memory}";
    LLVM::InlineAsmOp::create(rewriter, loc, TypeRange{}, operands, text, constraints,
                              /*has_side_effects=*/true,
                              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void oxide::populateCacheToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<CachedLoadLowering, CachedStoreLowering>(patterns.getContext());
}
