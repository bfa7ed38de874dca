//===- UndefinedBehaviour.h - no guard may fall to the user's UB -*- C++ -*-===//
//
// The write verifier proves the oxide dialect's form of a kernel; the guards it relies on
// (bounds, ownership, null) become compares and branches that LLVM optimises afterwards. An
// optimiser may delete a branch using any fact it derives from undefined behaviour: a user's
// assumption, `__builtin_unreachable`, a loop that must make progress, a dereference taken as
// proof of non-null, attributes that promise what the code does not keep. These functions take
// every such source away from the device module, so that whatever the optimiser proves is true
// of every execution, and check the optimised module for any that came back (docs/safety.md,
// "Soundness after optimisation").
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_UNDEFINEDBEHAVIOUR_H
#define OXIDE_COMPILER_UNDEFINEDBEHAVIOUR_H

#include "llvm/IR/PassManager.h"

#include <string>
#include <vector>

namespace llvm {
class Instruction;
class Module;
class raw_ostream;
} // namespace llvm

namespace oxide {

/// Which module the definitions apply to.
enum class UndefinedBehaviourStage {
  /// Clang's device module, before any optimisation and again before the MLIR import: every
  /// fact the user's code states (assumptions, attributes, metadata) goes, with the rest below.
  UserCode,
  /// The module the oxide dialect lowered, before the NVPTX optimisation pipeline: its
  /// assumptions are the compiler's own (contract facts, non-null span data) and stay.
  Lowered,
};

/// Makes the behaviour an optimiser could exploit defined, function by function:
///  - `unreachable` that no trap precedes traps (`__builtin_unreachable`, `std::unreachable`,
///    flowing off a value-returning function, a `[[noreturn]]` function that returns);
///  - `noreturn`, `mustprogress` and `llvm.loop.mustprogress` go (LLVM re-infers `noreturn`
///    from the bodies, where it is true): a loop may spin forever, as written;
///  - UserCode only: `llvm.assume` calls go; `nonnull`, `dereferenceable`, `range`,
///    `nofpclass`, `align` (but a byval copy's) on parameters, returns and call sites, and
///    `willreturn`, `speculatable`, memory effects, `nofree`, `nosync` on functions and calls
///    go; `!nonnull`, `!range`, `!noundef`, `!align` and `!dereferenceable` load metadata goes;
///    `inbounds` goes from addresses into local arrays (ScalarEvolution bounds a loop's trip
///    count by the local arrays it indexes).
/// A dereference stays proof of non-null: every access through an element pointer is behind
/// a null test (oxide-guard-element-accesses), so the fact is one the guard established.
/// `noundef` stays: the indices the guards test are frozen where they are defined
/// (oxide-to-nvvm), so a poison or undef index is one value for the test and the address.
/// `noalias` (restrict) stays: it lets memory operations move, and no guard is one; what a
/// guard tests is a register (a witness, a frozen index) or a field of the launch's own copy
/// of a span, which no checked write reaches.
void defineUndefinedBehaviour(llvm::Module &module, UndefinedBehaviourStage stage);

/// An undefined-behaviour fact that survived into optimised device code.
struct UndefinedBehaviourHint {
  const llvm::Instruction *at; ///< where; null for a function attribute
  std::string function;        ///< the function's demangled name
  std::string what;            ///< e.g. "an assumption (llvm.assume) that the compiler did not make"
};

/// The optimised module's audit: whatever an optimiser could still use to remove a guard
/// (a function or loop assumed to make progress that is not proven to return, a dereference
/// taken as proof of non-null, `unreachable` that neither follows a call that cannot return
/// nor is the default of a switch proven to cover every value). Empty when
/// defineUndefinedBehaviour's guarantees held through the pipeline. Assumptions are not
/// audited here: the user's are gone before the checks, and LLVM's passes add only facts they
/// proved (loop unrolling's remainder counts).
std::vector<UndefinedBehaviourHint> findUndefinedBehaviourHints(const llvm::Module &module);

/// Prints each hint as a located error (`file:line:col: error: ...`, the user's own line of the
/// inlined code when there is one) to `os`.
void printUndefinedBehaviourHints(llvm::ArrayRef<UndefinedBehaviourHint> hints, llvm::raw_ostream &os);

/// defineUndefinedBehaviour for one function, for opt (`oxide-define-ub`, user-code stage).
struct DefineUndefinedBehaviourPass : llvm::PassInfoMixin<DefineUndefinedBehaviourPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
  static bool isRequired() { return true; }
};

/// findUndefinedBehaviourHints for one function, for opt (`oxide-audit-ub`): each hint is an
/// error diagnostic of the LLVM context.
struct AuditUndefinedBehaviourPass : llvm::PassInfoMixin<AuditUndefinedBehaviourPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace oxide

#endif
