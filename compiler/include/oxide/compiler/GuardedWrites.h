//===- GuardedWrites.h - the writes that run, each proven again -----*- C++ -*-===//
//
// Translation validation of the write guards (docs/safety.md, "Soundness after optimisation").
// The write check proves the oxide dialect's form of a kernel; LLVM's -O3 and Oxide's own
// passes then rewrite its guards. This audit runs on what is handed to NVPTX, after every
// optimisation, and looks at every write of a contracted kernel that can reach global memory:
//
//  - its target must be the data of a span parameter the kernel may write (an output; an
//    atomic span or a claim set's bits through atomics; an append span), an append span's
//    counter or a grid barrier's workspace (atomics), or memory only the thread or its block
//    reaches (its stack, shared memory, its own heap block); never an input, a constant, or
//    an address the audit cannot trace. Anything else is a build error.
//  - every byte it writes must lie inside that span, proven from the optimised code alone by
//    the prover of oxide-prove-index-bounds (IndexFacts): the branch conditions that dominate
//    the write, the compiler's assumptions (the contract's relations), the bounds of the loops
//    around it, and the proofs Oxide's own loop pass left on the writes it covered.
//
//  - a write into one of the thread's own arrays (an alloca) must stay inside that array: past
//    it, it would reach the thread's other locals and the spill slots ptxas adds to the frame,
//    among them addresses the other writes were proven for. Proven from how the offset is
//    computed (constants, masks, remainders, selects, sums of flags, loop counters read from
//    their exit test, never a wrap flag or `inbounds`) or from the facts above; else tested.
//
// A guard LLVM removed with a fact that holds (the user's own `if (i < n)`, a loop's test)
// leaves that fact dominating the write, and the write is proven again. Where the prover cannot
// follow LLVM's argument (an induction over an unrolled loop), or the guard fell to a fact that
// does not hold, the write gets its bounds test back, reading the address itself: the code
// that runs is in bounds whatever the optimiser did.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_GUARDEDWRITES_H
#define OXIDE_COMPILER_GUARDEDWRITES_H

#include "llvm/IR/PassManager.h"

#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class DominatorTree;
class Instruction;
class Value;
class Module;
class raw_ostream;
} // namespace llvm

namespace oxide {

/// A write of a contracted kernel to memory it may not write.
struct ForbiddenWrite {
  const llvm::Instruction *at; ///< the write
  std::string function;        ///< the kernel's demangled name
  std::string what;            ///< why, e.g. "it writes input 'a', which the kernel may only read"
  /// What the program asks of the audit that it cannot do, with the remedy in `what`; otherwise
  /// the audit found an error of the compiler's own earlier checks.
  bool limitation = false;
};

/// What the audit of an optimised module found and did.
struct WriteAudit {
  std::vector<ForbiddenWrite> forbidden;          ///< build errors
  std::vector<const llvm::Instruction *> guarded; ///< writes whose bounds are tested again
};

/// Audits every contracted kernel (a function with an `oxide.contract` attribute) of the
/// optimised module: each write's target must be one the kernel may write (`forbidden` lists
/// the others), and each write to a span must be proven inside it from the facts that hold
/// there; a write that is not gets its bounds test back, ahead of it, reading the address
/// itself (`guarded` lists them). The module is otherwise unchanged. `localOnly` (unoptimised
/// code, whose other guards are the lowering's own): only the writes into the threads' arrays,
/// in the kernels and the helpers they reach.
WriteAudit auditWrites(llvm::Module &module, bool localOnly = false);

/// Prints each finding as a located error (`file:line:col: error: ...`) to `os`.
void printForbiddenWrites(llvm::ArrayRef<ForbiddenWrite> findings, llvm::raw_ostream &os);

/// The metadata on a write whose bounds check one of Oxide's own passes proved and removed
/// (oxide-loop-bounds-checks: an index that steps through a loop, tested once for its last
/// value): the audit takes the bounds of such a write as proven, and still checks its target.
/// Metadata, not an assumption, so that it changes no optimisation; LLVM copies it with the
/// write (loop unrolling) and drops it where it merges writes (then the write is proven again).
inline constexpr char kProvedWriteMetadata[] = "oxide.bounds.proved";

/// Marks the writes in the blocks `from` dominates that a check `index <u bound` bounds: writes
/// at element `index` of a 1-D span of size `bound`, or at column `index` of a 2-D span of width
/// `bound` (the audit still proves the row below the height).
void markProvedWrites(llvm::Value *index, llvm::Value *bound, llvm::BasicBlock *from,
                      llvm::DominatorTree &dominators);

/// auditWrites for one function, for opt (`oxide-guard-writes`): each forbidden write is a
/// warning, each write guarded again a remark.
struct GuardWritesPass : llvm::PassInfoMixin<GuardWritesPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
