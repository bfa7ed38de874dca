//===- IndexFacts.h - what bounds an index at a point of a function -*- C++ -*-===//
//
// The prover behind oxide-prove-index-bounds and the audit of guarded writes: from the branch
// conditions that dominate a point, the assumptions (all the compiler's own once the user's are
// gone) and the bounds of the induction variables around it, whether an index is below a size.
// Exact unsigned arithmetic; no no-wrap flag is read (see ProveIndexBounds.h).
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_INDEXFACTS_H
#define OXIDE_COMPILER_INDEXFACTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace llvm {
class DominatorTree;
class Instruction;
class IntrinsicInst;
class Value;
} // namespace llvm

namespace oxide::index_facts {

/// An integer expression as a sum of coefficient * atom, coefficient * (p * q) and a constant,
/// equal to the value modulo 2^64.
struct Linear {
  struct Term {
    llvm::Value *atom;
    int64_t coefficient;
  };
  struct Product {
    llvm::Value *p, *q;
    int64_t coefficient;
  };
  llvm::SmallVector<Term, 4> terms;
  llvm::SmallVector<Product, 1> products;
  int64_t constant = 0;

  /// this += scale * other; false if a coefficient overflows.
  bool add(const Linear &other, int64_t scale);
};

/// `v` as a Linear over 64-bit arithmetic (through add and sub; a product of two non-constant
/// values is a Product); narrower values and anything else are atoms.
std::optional<Linear> linearize(llvm::Value *v);

/// Whether two values are one number: the same value through zero extensions, the same low
/// bits of one value, or two loads of one field of a read-only by-value kernel parameter.
bool sameValue(llvm::Value *a, llvm::Value *b);

class Facts;
class IndexFacts;

/// The facts of one function, for the points a prover asks about. What every point shares (the
/// facts of the edges into loops, the bounds of their counters) is gathered once, so a point
/// costs one walk up its dominators. Valid while the function's control flow and the
/// dominator tree stay as they were.
class FunctionFacts {
public:
  FunctionFacts(llvm::DominatorTree &dominators, llvm::ArrayRef<llvm::IntrinsicInst *> assumptions);
  FunctionFacts(const FunctionFacts &) = delete;
  FunctionFacts &operator=(const FunctionFacts &) = delete;
  ~FunctionFacts();

  /// What is known at `at`: the dominating branch conditions, the assumptions and the bounds
  /// of the induction variables of the loops around it.
  [[nodiscard]] IndexFacts at(llvm::Instruction *at);

private:
  struct Cache;
  std::unique_ptr<Cache> cache;
};

/// What is known at one instruction.
class IndexFacts {
public:
  IndexFacts(IndexFacts &&) noexcept;
  IndexFacts &operator=(IndexFacts &&) noexcept;
  ~IndexFacts();

  /// index <u size, also where size == A * B is known (a mul nuw, or an equality with one)
  /// and index is a row-major position in A x B.
  [[nodiscard]] bool below(const Linear &index, llvm::Value *size) const;
  [[nodiscard]] bool below(llvm::Value *index, llvm::Value *size) const;
  /// index <u a * b, for the extents a, b of a 2-D span (their product does not wrap).
  [[nodiscard]] bool belowProduct(const Linear &index, llvm::Value *a, llvm::Value *b) const;
  /// index <u width * height * depth, for the extents of a 3-D span (x fastest).
  [[nodiscard]] bool belowProduct(const Linear &index, llvm::Value *width, llvm::Value *height,
                                  llvm::Value *depth) const;
  /// index == k * width + rest with k <u height, for a `rest` the caller knows is below
  /// width: the row of a 2-D span's element whose column a bounds check proved.
  [[nodiscard]] bool rowBelow(const Linear &index, llvm::Value *width, llvm::Value *height) const;

private:
  friend class FunctionFacts;
  explicit IndexFacts(std::unique_ptr<Facts> facts);
  std::unique_ptr<Facts> facts;
};

} // namespace oxide::index_facts

#endif
