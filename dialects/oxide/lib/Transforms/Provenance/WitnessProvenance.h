//===- WitnessProvenance.h - which values are the thread's witnesses ------*- C++ -*-===//
//
// oxide-verify-safety's question about an index: is it, on every path, the calling thread's
// witness (its oxide.thread_index of a rank and dimension, or its group's oxide.group_index, or a
// stride step of one)? A forward must-analysis on MLIR's DataFlowSolver answers it
// for every value at once.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_TRANSFORMS_WITNESSPROVENANCE_H
#define OXIDE_TRANSFORMS_WITNESSPROVENANCE_H

#include "Oxide/IR/OxideOps.h"

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"

#include <memory>

namespace oxide {

class WitnessProvenance {
public:
  explicit WitnessProvenance(mlir::ModuleOp module);
  ~WitnessProvenance();

  /// Whether `value` is, on every path, the calling thread's `oxide.thread_index rank dim`, or
  /// (with `strides`) a grid-stride step of it.
  bool isWitness(mlir::Value value, unsigned rank, Dim dim, bool strides = true) const;

  /// Whether `value` is, on every path, the calling thread's `oxide.group_index group`, or a
  /// group-stride step of it.
  bool isGroupWitness(mlir::Value value, Group group) const;

  /// Whether `value` is a witness (`isWitness`), or equal to one where `at` runs: `at` lies
  /// behind the edge of a branch on `value == w` (taken when it holds) or `value != w` (taken
  /// when it fails) for a witness w. The optimiser gives the compared value to the uses the
  /// comparison dominates: `if (i.get() != grid.thread_rank()) continue; out.get_mut(i)` reaches
  /// the verifier indexed by the rank.
  bool isWitnessAt(mlir::Value value, mlir::Operation *at, llvm::function_ref<bool(mlir::Value)> isWitness);

  /// Whether `value` is the same for every thread of the launch: a constant, a kernel's scalar
  /// parameter, a field of a by-value parameter the kernel only reads (a span's extents), the
  /// launch's blockDim and gridDim, arithmetic and comparisons of such values, or a select between such
  /// values on such a condition (a distance chosen by a flag). Not a phi: which value it gives may depend on
  /// the path the thread took. Not undef or poison: each thread may see its own value of an uninitialised
  /// variable.
  static bool isUniform(mlir::Value value, unsigned depth = 0);

private:
  std::uint64_t witnessBits(mlir::Value value) const;

  std::unique_ptr<mlir::DataFlowSolver> solver;
  llvm::DenseMap<mlir::Operation *, std::unique_ptr<mlir::DominanceInfo>> dominances;
};

} // namespace oxide

#endif
