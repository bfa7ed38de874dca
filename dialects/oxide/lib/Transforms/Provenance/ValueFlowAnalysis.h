//===- ValueFlowAnalysis.h - forward value analyses on the DataFlowSolver -*- C++ -*-===//
//
// The safety checks' value analyses (WitnessProvenance, the write proof's PointerRoots) keep a
// state only for the values they follow, not one per value as MLIR's sparse analyses do (four
// to five times the cost on a large kernel). Each names the work items it registers: the point
// before a block (its arguments, from the edges and calls that reach them) and the point after an
// operation (its result); the solver visits them again when a state they read changes.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_TRANSFORMS_VALUEFLOWANALYSIS_H
#define OXIDE_TRANSFORMS_VALUEFLOWANALYSIS_H

#include "mlir/Analysis/DataFlowFramework.h"

namespace oxide {

class ValueFlowAnalysis : public mlir::DataFlowAnalysis {
public:
  using DataFlowAnalysis::DataFlowAnalysis;

  mlir::LogicalResult visit(mlir::ProgramPoint *point) override {
    if (point->isBlockStart())
      visitBlock(point->getBlock());
    else
      visitOperation(point->getPrevOp());
    return mlir::success();
  }

protected:
  /// Computes the states of the block's arguments.
  virtual void visitBlock(mlir::Block *block) = 0;
  /// Computes the state of the operation's result.
  virtual void visitOperation(mlir::Operation *op) = 0;
};

} // namespace oxide

#endif
