//===- TensorCoreToNVVM.h - tensor-core ops to NVVM -------------*- C++ -*-===//
#ifndef OXIDE_CONVERSION_TENSORCORETONVVM_H
#define OXIDE_CONVERSION_TENSORCORETONVVM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace oxide {

/// The lowerings of mma_sync, ldmatrix and the cp_async ops to NVVM's ops, for oxide-to-nvvm.
void populateTensorCoreToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// The lowerings of the Hopper ops (mbarriers, TMA, wgmma, setmaxnreg) to NVVM's ops, for
/// oxide-to-nvvm. NVVM's wgmma.mma_async has no intrinsic: oxide-to-nvvm then turns it into
/// its inline PTX (lowerPtxBuilderOps).
void populateHopperToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// The lowerings of the cache-hinted loads and stores (cached_load, cached_store) to inline PTX,
/// for oxide-to-nvvm.
void populateCacheToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// The NVVM ops of `module` that only exist as inline PTX (wgmma.mma_async), as that PTX.
mlir::LogicalResult lowerPtxBuilderOps(mlir::ModuleOp module);

} // namespace oxide

#endif // OXIDE_CONVERSION_TENSORCORETONVVM_H
