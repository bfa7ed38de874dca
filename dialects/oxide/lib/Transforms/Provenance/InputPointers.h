//===- InputPointers.h - which pointers point into read-only inputs -------*- C++ -*-===//
//
// oxide-optimize's question about a load: is its address, on every path, inside the read-only
// input memory of a contracted kernel (a span parameter whose kind is `input`)? Then the load may
// be marked invariant (ld.global.nc). A forward analysis on MLIR's DataFlowSolver answers it for
// every pointer of the module at once, through the kernels and the helpers they call.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_TRANSFORMS_INPUTPOINTERS_H
#define OXIDE_TRANSFORMS_INPUTPOINTERS_H

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

#include <memory>

namespace oxide {

class InputPointers {
public:
  /// What a pointer is: nothing known, a pointer into input data, or a pointer to an input span
  /// (loading its first field gives the span's data pointer).
  enum class Kind : std::uint8_t { none, data, span };

  /// `kernelInputs`: each contracted kernel, with the numbers of its read-only span parameters.
  InputPointers(mlir::ModuleOp module,
                const llvm::MapVector<mlir::Operation *, llvm::SmallVector<unsigned>> &kernelInputs);
  ~InputPointers();

  Kind kindOf(mlir::Value pointer) const;

private:
  std::unique_ptr<mlir::DataFlowSolver> solver;
};

} // namespace oxide

#endif
