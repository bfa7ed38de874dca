//===- SimulatorDivergence.h - what only one of the two compiles sees -*- C++ -*-===//
//
// Every kernel is compiled twice: the device compile (clang's CUDA device mode) makes the GPU
// code that Oxide's write checks prove, and the host compile (plain C++) makes the host code that
// the CPU simulator runs, which no check sees. The two agree only where the source compiles alike
// for both targets. Two ways a contracted kernel could run on the simulator what the GPU build
// would reject:
//
//  * Source under a preprocessor conditional on the target (`#ifndef __CUDA_ARCH__`, `#if
//    !defined(__CUDA__)`, a macro defined under one): the simulator runs the host's branch,
//    unchecked. TargetDependentSource records such conditionals as the preprocessor reads them,
//    and checkSimulatorDivergence reports every one that lies in the code a contracted kernel
//    reaches in the user's files (the kernel's body, its lambdas, the functions it calls, the
//    variables and types it uses) [safety rule: simulator-divergence].
//  * A write to an oxide::constant: clang marks constant memory `constant` in the device IR, so
//    LLVM deletes a store to it (it is undefined behaviour) before the write checks run, while the
//    simulator executes it on the host copy. exposeConstantWrites keeps such stores in the module
//    until the checks have seen them (store-target).
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_SIMULATORDIVERGENCE_H
#define OXIDE_COMPILER_SIMULATORDIVERGENCE_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace clang {
class ASTContext;
class FunctionDecl;
class Preprocessor;
} // namespace clang

namespace llvm {
class GlobalVariable;
class Module;
} // namespace llvm

namespace oxide {

/// The parts of the source that the host and the device compile may compile differently, as one
/// compile's preprocessor saw them, in files that are not system headers.
class TargetDependentSource {
public:
  /// Adds callbacks to `pp` that record into this, before it reads the source.
  void watch(clang::Preprocessor &pp);

  /// A conditional (from its `#if` to its `#endif`) one of whose conditions depends on the target,
  /// or one expansion of a macro that does.
  struct Place {
    clang::FileID file;
    unsigned begin = 0, end = 0; ///< offsets in `file`, both inclusive
    clang::SourceLocation at;    ///< what to report: the directive's '#', or the macro's name
    std::string text;            ///< the directive as written, or the macro's name
    /// A conditional: which %select of Diag::SimulatorDivergentCode (0: a branch the host takes,
    /// 1: only branches the host skips, 2: the outcome depends on the target some other way).
    /// A macro: which %select of Diag::SimulatorDivergentMacro; `why` fills its %2.
    int kind = 0;
    bool isMacro = false;
    std::string why;
  };
  const std::vector<Place> &places() const { return places_; }

private:
  friend class TargetConditionalRecorder;
  std::vector<Place> places_;
};

/// Reports each of `source`'s places that lies in what one of `kernels` (contracted kernels)
/// reaches in code where `isUserCode` holds: their bodies and lambdas, the functions they call,
/// construct with, destroy or take the address of (template instantiations included, and the
/// user's functions that library code calls back), the layout of the classes they use (bases,
/// data members, virtual functions), the variables, enumerators and type aliases they name, and
/// every declaration of those; a declaration whose file was included under such a conditional
/// counts as under it.
void checkSimulatorDivergence(clang::ASTContext &context, const TargetDependentSource &source,
                              const std::vector<const clang::FunctionDecl *> &kernels,
                              llvm::function_ref<bool(clang::SourceLocation)> isUserCode);

/// The oxide::constant variables of a device module, which the device compile marks `constant`:
/// exposeConstantWrites clears that mark until restore(), so that the optimisation before the
/// write checks keeps the stores to them (undefined behaviour that it would delete) for the
/// checks to reject; restore() marks them again for the optimisation after the checks.
class ExposedConstants {
public:
  void restore();

private:
  friend ExposedConstants exposeConstantWrites(llvm::Module &module);
  std::vector<llvm::GlobalVariable *> globals;
};
ExposedConstants exposeConstantWrites(llvm::Module &module);

} // namespace oxide

#endif
