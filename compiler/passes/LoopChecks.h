//===- LoopChecks.h - a loop's bounds checks, tested before it -*- C++ -*-===//
//
// What the two ways of testing a loop's bounds checks once (LoopBoundsChecks.cpp for loops with
// an exact count, ClimbingLoopChecks.cpp for loops counted by `next <u limit`) share: the
// checks as branches, the indices at a loop's entry, and the test of an index {start, +, step}
// by its last value. Exact modular arithmetic throughout: no fact comes from a no-wrap flag,
// which the user's signed arithmetic can put on the IR. Private to the passes.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_PASSES_LOOPCHECKS_H
#define OXIDE_COMPILER_PASSES_LOOPCHECKS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/IRBuilder.h"

#include <optional>
#include <utility>

namespace llvm {
class DomTreeUpdater;
class DominatorTree;
class Loop;
class LoopInfo;
class SCEV;
class ScalarEvolution;
} // namespace llvm

namespace oxide::loop_checks {

/// A branch that takes successor `inBounds` when every `index <u bound` of `tests` holds.
struct Check {
  llvm::BranchInst *branch;
  llvm::SmallVector<std::pair<llvm::Value *, llvm::Value *>, 2> tests;
  unsigned inBounds;

  llvm::BasicBlock *outOfBounds() const { return branch->getSuccessor(1 - inBounds); }
  /// Makes the branch always take its in-bounds successor; the writes at the indices it tested
  /// carry the proof to the audit of the optimised code (GuardedWrites.h).
  void fold(llvm::DomTreeUpdater &updater) const;
};

/// The check that ends `block`, if its branch tests indices against bounds.
std::optional<Check> checkEnding(llvm::BasicBlock *block);

/// Whether `value` is computed in `width` bits from the loop's values: no extension of a narrower
/// value that changes in `loop` (SCEV widens such a value through its no-wrap flags, which
/// signed arithmetic in the user's code sets without proof).
bool computedInFullWidth(llvm::Value *value, const llvm::Loop &loop, unsigned width = 64);

/// Whether `condition` being `truth` means `a <u b`, directly or as one side of a conjunction
/// (`x && y` true, `x || y` false).
bool impliesBelow(llvm::Value *condition, bool truth, const llvm::SCEV *a, const llvm::SCEV *b,
                  llvm::ScalarEvolution &scev, unsigned depth = 0);

/// Whether `loop` is entered only when `start <u bound`: a branch whose edge dominates the
/// preheader tests it. Read from the branches themselves, not from SCEV's implication engine,
/// which reasons with no-wrap flags.
bool enteredOnlyBelow(llvm::Loop &loop, const llvm::SCEV *start, const llvm::SCEV *bound,
                      llvm::ScalarEvolution &scev, llvm::DominatorTree &dominators);

/// The unsigned values `value` may take: its arithmetic's ranges (modular, without the IR's
/// no-wrap flags) met with what its known bits say (a product of two 32-bit values plus a
/// thread index is below 2^64, which known bits alone cannot tell).
llvm::ConstantRange rangeOf(llvm::Value *value, const llvm::DataLayout &layout, unsigned depth = 0);

/// The bounds check `check` as idx = {start, +, step} in `loop`, step fixed in the loop.
struct Recurrence {
  const llvm::SCEV *start;
  const llvm::SCEV *step;
};
std::optional<Recurrence> recurrenceOf(const Check &check, llvm::Loop &loop, llvm::ScalarEvolution &scev);

/// Whether the loop leaves only through its latch or through failure reports, so that a check
/// that runs in every iteration runs in the last one unless an earlier check stops the kernel.
bool leavesOnlyAtLatchOrFailure(llvm::Loop &loop);

bool availableAt(llvm::Value *value, llvm::Instruction *at, llvm::DominatorTree &dominators);

/// `value` in the first iteration of `loop`, computed before `at` (the end of its preheader): the
/// loop's instructions it depends on, cloned with each header phi replaced by its entry value
/// (and each value `cloned` already maps, by what it maps to); nullptr if one of them reads
/// memory or may not run early.
llvm::Value *atFirstIteration(llvm::Value *value, llvm::Loop &loop, llvm::Instruction *at,
                              llvm::DenseMap<llvm::Value *, llvm::Value *> &cloned, unsigned depth = 0);

/// Stops the kernel before `at` where `fails`: the report of `failure` (its call cloned), with
/// `arguments` (index, size, file, line, function), in a block of its own.
void reportBefore(llvm::Instruction *at, llvm::Value *fails, llvm::BasicBlock *failure,
                  llvm::ArrayRef<llvm::Value *> arguments, llvm::DomTreeUpdater &updater,
                  llvm::LoopInfo &loops);

/// How often a check runs, built in a loop's preheader: `runs` (null: at least once) says whether
/// it runs at all, then `times` more times, one step of the index each; or, where `endless` (null:
/// never) holds, without end.
struct Count {
  llvm::Value *runs, *times, *endless;
};
using CountBuilder = llvm::function_ref<Count(llvm::IRBuilder<> &)>;

/// Tests the check's indices in the preheader (see LoopBoundsChecks.h) and folds the check;
/// false when it cannot.
bool hoistCheck(const Check &check, const Recurrence &r, CountBuilder count, llvm::Loop &loop,
                llvm::ScalarEvolution &scev, llvm::DominatorTree &dominators, llvm::DomTreeUpdater &updater,
                llvm::LoopInfo &loops);

/// The checks of a loop counted by `next <u limit`, tested once before it
/// (ClimbingLoopChecks.cpp); whether it changed anything.
bool processClimbingLoop(llvm::Loop &loop, llvm::ScalarEvolution &scev, llvm::DominatorTree &dominators,
                         llvm::LoopInfo &loops);

} // namespace oxide::loop_checks

#endif // OXIDE_COMPILER_PASSES_LOOPCHECKS_H
