//===- LoweringPatterns.h - the op families of oxide-to-nvvm ----*- C++ -*-===//
//
// oxide-to-nvvm (lib/Conversion/OxideToNVVM.cpp) lowers each family of oxide ops with the
// patterns of one file of lib/Conversion; these are their entry points.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_CONVERSION_LOWERINGPATTERNS_H
#define OXIDE_CONVERSION_LOWERINGPATTERNS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace oxide {

/// thread_index, grid_stride_next, disjoint_get and span_elem: bounds tests and element
/// addresses (SpanAccessToNVVM.cpp).
void populateSpanAccessToNVVMPatterns(mlir::RewritePatternSet &patterns);
/// Freezes the indices the element accessors of `module` test, before the conversion, so that
/// the test and the address see one value (SpanAccessToNVVM.cpp).
void freezeGuardedIndices(mlir::ModuleOp module);

/// The ownership shapes: group_index, group_stride_next, owned_elem, reserve, reserved_elem,
/// permuted_elem, claimed_elem (OwnershipToNVVM.cpp).
void populateOwnershipToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// Geometry and clock registers, barriers and fences of the block, the cluster and the grid
/// (GeometryAndSyncToNVVM.cpp).
void populateGeometryAndSyncToNVVMPatterns(mlir::RewritePatternSet &patterns);
/// Adds `__oxide_grid_barrier`, which every lowered grid_sync calls, to `module`.
void buildGridBarrierFunction(mlir::ModuleOp module);

/// shared_alloc, dynamic_shared and dynamic_shared_size (SharedMemoryToNVVM.cpp).
void populateSharedMemoryToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// The warp operations (WarpToNVVM.cpp).
void populateWarpToNVVMPatterns(mlir::RewritePatternSet &patterns);

/// trap and bounds_fail (KernelFailuresToNVVM.cpp).
void populateKernelFailuresToNVVMPatterns(mlir::RewritePatternSet &patterns);
/// Adds `__oxide_bounds_failure`, which every lowered bounds_fail calls, to `module`.
void buildBoundsFailureFunction(mlir::ModuleOp module);

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

#endif // OXIDE_CONVERSION_LOWERINGPATTERNS_H
