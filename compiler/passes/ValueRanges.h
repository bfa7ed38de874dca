//===- ValueRanges.h - the values an index may take, flags unread -*- C++ -*-===//
//
// Bounds of integer values and of pointer offsets read from how the optimised code computes
// them, with no fact of undefined behaviour: what the audit of writes into a thread's own arrays
// proves them with (GuardedWrites.cpp). Private to the passes.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_PASSES_VALUERANGES_H
#define OXIDE_COMPILER_PASSES_VALUERANGES_H

#include "oxide/compiler/IndexFacts.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace llvm {
class DataLayout;
class PHINode;
class Value;
} // namespace llvm

namespace oxide::value_ranges {

/// [lo, hi], both inside (-2^62, 2^62).
struct Range {
  int64_t lo, hi;
};
inline constexpr int64_t kLimit = int64_t{1} << 62;

/// The values the integer `v` may take: constants, flags widened, selects, sums, masks,
/// remainders, shifts and products by constants, phis (loop counters by counterRange), each
/// below 2^(width - 1); nullopt where one is not bounded so.
std::optional<Range> valueRange(const llvm::Value *v);

/// The values of `index` (a sum of atoms times coefficients; no products).
std::optional<Range> linearRange(const index_facts::Linear &index);

/// The byte offsets from `base` that `pointer` may take: through address-space casts, GEPs
/// (each index's valueRange), and phis and selects of such pointers.
std::optional<Range> offsetRange(const llvm::Value *pointer, const llvm::Value *base,
                                 const llvm::DataLayout &layout);

/// [lo, hi] of a loop counter with constant start and step, read from its loop's exit test
/// alone: a phi of `start` and `next = phi + step` (step > 0) whose back edge is taken only where
/// `next != end` with start < end and end - start a multiple of step (phi in [start, end -
/// step]), or where `next <u end` (phi is start or below end).
std::optional<std::pair<uint64_t, uint64_t>> counterRange(const llvm::PHINode *phi);

} // namespace oxide::value_ranges

#endif // OXIDE_COMPILER_PASSES_VALUERANGES_H
