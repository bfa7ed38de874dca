//===- TensorCoreToNVVM.h - tensor-core ops to NVVM -------------*- C++ -*-===//
#ifndef OXIDE_CONVERSION_TENSORCORETONVVM_H
#define OXIDE_CONVERSION_TENSORCORETONVVM_H

#include "mlir/IR/PatternMatch.h"

namespace oxide {

/// The lowerings of mma_sync, ldmatrix and the cp_async ops to NVVM's ops, for oxide-to-nvvm.
void populateTensorCoreToNVVMPatterns(mlir::RewritePatternSet &patterns);

} // namespace oxide

#endif // OXIDE_CONVERSION_TENSORCORETONVVM_H
