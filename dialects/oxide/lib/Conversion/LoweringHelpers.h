//===- LoweringHelpers.h - what the oxide-to-nvvm lowerings share -*- C++ -*-===//
//
// Private to lib/Conversion: the constants and builders that the lowering files of
// oxide-to-nvvm (one per op family) have in common.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_LIB_CONVERSION_LOWERINGHELPERS_H
#define OXIDE_LIB_CONVERSION_LOWERINGHELPERS_H

#include "Oxide/IR/OxideOps.h"
#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace oxide::lowering {

inline constexpr unsigned kSharedAddressSpace = 3;
inline constexpr std::int64_t kWarpSize = oxide::detail::kWarpSize, kWarpShift = 5;
static_assert(kWarpSize == std::int64_t{1} << kWarpShift);

mlir::Value i32Constant(mlir::OpBuilder &b, mlir::Location loc, std::int32_t v);
/// `v` (i32, not negative) as i64.
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// The exact block shape of the kernel that contains `op` (its contract's `block`, which
/// oxide-optimize turned into nvvm.reqntid), if it has one.
std::optional<std::array<std::int32_t, 3>> exactBlock(mlir::Operation *op);
/// A geometry register. With the kernel's exact block known, blockDim is a constant and
/// threadIdx carries its range [0, blockDim), so index arithmetic on it folds (NVPTX forbids
/// .maxntid beside .reqntid, so this is how the bound reaches the optimiser).
mlir::Value readGeometry(mlir::OpBuilder &b, mlir::Location loc, GeometryKind kind, Dim dim,
                         const std::optional<std::array<std::int32_t, 3>> &block = std::nullopt);
/// A read of a special register through its NVVM intrinsic, e.g. "llvm.nvvm.read.ptx.sreg.clock64".
mlir::Value readSpecialRegister(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                                llvm::StringRef intrinsic);
/// Finds or declares an external function of the module.
mlir::LLVM::LLVMFuncOp declareFunction(mlir::ModuleOp module, mlir::OpBuilder &b, llvm::StringRef name,
                                       mlir::LLVM::LLVMFunctionType type);
/// A private constant C string, unique per module.
mlir::Value globalString(mlir::ModuleOp module, mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef prefix, llvm::StringRef text);
/// The file and line to blame for `op` (see userLocation), the file as the program may hold it
/// (the module's -fmacro-prefix-map, Oxide/IR/SourcePaths.h).
std::pair<std::string, unsigned> userSourceLocation(mlir::Operation *op);
/// Calls the CUDA device runtime's __assertfail (what `assert` uses): it prints the message
/// with the source location, block and thread, and stops the kernel with CUDA_ERROR_ASSERT.
void emitAssertFail(mlir::Operation *op, mlir::OpBuilder &b, mlir::Value message);
/// Replaces `op`, a checked element access, with `inBounds ? data + index * elemSize : null`
/// (a byte offset; nuw holds once the index is in bounds).
void replaceWithCheckedElement(mlir::ConversionPatternRewriter &rewriter, mlir::Operation *op,
                               mlir::Value data, mlir::Value index, std::int64_t elemSize,
                               mlir::Value inBounds);

} // namespace oxide::lowering

#endif // OXIDE_LIB_CONVERSION_LOWERINGHELPERS_H
