//===- ProveIndexBounds.h - 2-D index bounds from contracts -----*- C++ -*-===//
#ifndef OXIDE_COMPILER_PROVEINDEXBOUNDS_H
#define OXIDE_COMPILER_PROVEINDEXBOUNDS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Removes bounds checks `i < size` that hold because `size == A * B` (a launch contract's
/// `requires`, or a 2-D span's width * height, both assumed by oxide-optimize) and the index
/// is a row-major position `i == k * A + r` with `0 <= k < B` and `0 <= r < A` known from the
/// conditions that guard it: the stencil's `in[y * w + x +- 1]` and `in[(y +- 1) * w + x]`
/// inside `x < w, y < h` and its border tests, a transpose's `in[row * width + col]` inside
/// `row < height, col < width`. LLVM cannot: the proof multiplies two unknowns.
///
/// The proof is done in unbounded integers over unsigned values (an index equal to k * A + r
/// modulo 2^64 and within [0, A * B) is that number), and only uses facts that hold where the
/// comparison is: conditions of the branches that dominate it and `llvm.assume`s.
struct ProveIndexBoundsPass : llvm::PassInfoMixin<ProveIndexBoundsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
