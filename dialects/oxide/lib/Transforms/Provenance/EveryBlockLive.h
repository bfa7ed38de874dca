//===- EveryBlockLive.h - every block of the module taken as reachable ----*- C++ -*-===//
//
// The sparse analyses of the safety checks (WitnessProvenance, the write proof's PointerRoots)
// run on MLIR's dataflow framework, which visits only blocks and edges some analysis has found
// reachable. Upstream's DeadCodeAnalysis finds them through constant propagation, which costs a
// lattice per value and can prune nothing here (llvm.cond_br names no successor for a constant
// condition). This analysis instead marks every block and every control-flow edge live: the
// checks cover all code, as they must, whatever a reachability proof would say.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_TRANSFORMS_EVERYBLOCKLIVE_H
#define OXIDE_TRANSFORMS_EVERYBLOCKLIVE_H

#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"

namespace oxide {

class EveryBlockLive : public mlir::DataFlowAnalysis {
public:
  using DataFlowAnalysis::DataFlowAnalysis;

  mlir::LogicalResult initialize(mlir::Operation *top) override {
    top->walk([&](mlir::Block *block) {
      live(getProgramPointBefore(block));
      for (mlir::Block *successor : block->getSuccessors())
        live(getLatticeAnchor<mlir::dataflow::CFGEdge>(block, successor));
    });
    return mlir::success();
  }

  mlir::LogicalResult visit(mlir::ProgramPoint *) override { return mlir::success(); }

private:
  template <class AnchorT> void live(AnchorT anchor) {
    auto *executable = getOrCreate<mlir::dataflow::Executable>(anchor);
    propagateIfChanged(executable, executable->setToLive());
  }
};

} // namespace oxide

#endif
