//===- WriteProof.h - where a contracted kernel's writes land ---*- C++ -*-===//
//
// The safety model's central proof: in a kernel with a launch contract, and in every function it
// reaches, each write (store, atomic, memcpy/memset/memmove destination, write through a call)
// lands in
//   (a) thread-private memory: a local variable (an alloca) or the kernel's copy of a parameter;
//   (b) the block's shared memory (the documented tier-2 exception);
//   (c) the calling thread's own DisjointSpan element, as `oxide.disjoint_get` names it for the
//       thread's witness, at a constant offset inside that element; or
//   (d) an AtomicSpan element (`oxide.span_elem` of an AtomicSpan parameter), by atomics only.
// Pointers to (c) never leave the thread: they are not stored, converted to integers or passed
// to code that is not checked. Inline assembly and calls to code outside the translation unit
// are rejected. Oxide ops take part through OxideMemoryAccessOpInterface (what they read and
// write, through which operand, under which rule); one that may write and does not implement it
// is rejected. Writes to (a) and (b) at offsets that are not constant need confining to their
// address space (oxide-confine-private-writes makes the store through a local or shared
// pointer), so no arithmetic on such a pointer reaches global memory.
//
// WriteProof is an MLIR analysis of a module: oxide-verify-safety computes it (and reports what
// it finds), oxide-confine-private-writes and oxide-record-element-sizes read its results. The
// layers it is made of (points-to roots, offsets, bounds, one class per rule) are in
// lib/Transforms/WriteProof/.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_TRANSFORMS_WRITEPROOF_H
#define OXIDE_TRANSFORMS_WRITEPROOF_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace oxide {

class WriteProof {
public:
  /// Proves the writes of the contracted kernels of `module` (kernels with an `oxide.contract`)
  /// and of the code they reach, reporting each violation at the user's line.
  explicit WriteProof(mlir::Operation *module);

  /// Whether any write broke a rule (each was reported).
  bool failed() const { return anyFailed; }

  /// A write to local or shared memory at an offset the proof cannot bound: operand `operand`
  /// of `op`, its address, is to be made a pointer of `addressSpace` (5 or 3).
  struct Confinement {
    mlir::Operation *op;
    unsigned operand;
    unsigned addressSpace;
  };
  llvm::ArrayRef<Confinement> confinements() const { return confine; }

  /// For each contracted kernel, per argument, the element size its code names that span
  /// parameter's elements with (0: none), which the runtime compares with the span's sizeof(T).
  struct ElementSizes {
    mlir::LLVM::LLVMFuncOp kernel;
    llvm::SmallVector<int64_t> sizes;
  };
  llvm::ArrayRef<ElementSizes> elementSizes() const { return sizes; }

private:
  bool anyFailed = false;
  std::vector<Confinement> confine;
  std::vector<ElementSizes> sizes;
};

/// Records in each contracted kernel's #oxide.kernel the element size its code uses for each
/// parameter: what
/// oxide-record-element-sizes does (RecordElementSizes.cpp).
void recordElementSizes(const WriteProof &proof);

/// Makes each write the proof could not bound through a pointer of its address space: what
/// oxide-confine-private-writes does (ConfinePrivateWrites.cpp).
void confinePrivateWrites(const WriteProof &proof);

} // namespace oxide

#endif // OXIDE_TRANSFORMS_WRITEPROOF_H
