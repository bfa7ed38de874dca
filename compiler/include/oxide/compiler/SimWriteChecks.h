//===- SimWriteChecks.h - the CPU simulator's write checks ------*- C++ -*-===//
//
// The CPU simulator runs the host compile's code of each kernel. In its checking mode
// (OXIDE_SIM_CHECK=1) it checks every write a simulated thread makes against the launch's
// arguments (runtime/sim/write_checks.hpp): a DisjointSpan element the thread did not obtain,
// an input, an AtomicSpan written by a plain store, a write past the end of a buffer. Two parts
// of the host compile make that possible:
//
//  - createSimParamRecorder, an AST consumer, records what each kernel's parameters are (kind,
//    element size, name) as the named metadata "oxide.sim.params" of the host module;
//  - instrumentSimWrites, run on the optimised host module, instruments every function a kernel
//    reaches and registers those descriptions with the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_SIMWRITECHECKS_H
#define OXIDE_COMPILER_SIMWRITECHECKS_H

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

#include <memory>

namespace clang {
class ASTConsumer;
class CodeGenAction;
} // namespace clang

namespace oxide {

/// Name of the named metadata that carries the kernels' parameter descriptions from the AST to
/// instrumentSimWrites: one !{!"<mangled kernel name>", !"<description>"} per kernel, the
/// description as runtime/sim/write_checks.hpp parses it ("a=i4,c=o4,n=u0").
inline constexpr const char kSimParamsMetadata[] = "oxide.sim.params";

/// The AST consumer of the host compile that records the parameter descriptions in the module
/// `action` generates. Place it before the code generator's consumer: it writes the metadata
/// when the translation unit ends, before code generation finishes the module.
std::unique_ptr<clang::ASTConsumer> createSimParamRecorder(clang::CodeGenAction &action);

/// Instruments the host module for the simulator's checking mode. In every function reachable
/// from a kernel through direct calls, each store, atomicrmw, cmpxchg and memset/memcpy/memmove
/// destination is preceded by
///
///   if (__oxide_sim_checking != 0) [[unlikely]]
///     __oxide_sim_check_write(address, bytes, "file:line:col");   // _atomic_write for atomics
///
/// (the flag is loaded once per function call), with the write's debug location, except writes
/// into the function's own stack frame, global variables and shared memory, which the runtime
/// does not check. A write into one of the frame's arrays at an offset that is not a constant
/// inside it is tested in every mode (__oxide_sim_local_write_outside where it leaves the array:
/// the GPU build stops such writes too, GuardedWrites.h). Adds a constructor that registers the
/// "oxide.sim.params" descriptions of the module's kernels (__oxide_sim_register_params) and removes the
/// metadata. Run it after the host optimisation pipeline, so that only the writes the program really makes
/// are checked.
void instrumentSimWrites(llvm::Module &host);

/// Removes the debug information of every function that no kernel reaches (through direct
/// calls, as instrumentSimWrites sees them). The write checks' locations are all the host
/// compile's line tables are for without -g, and carrying them through the optimisation
/// pipeline for `main` and the rest of the host code costs that pipeline a fifth of its time.
/// Runs at the start of the host pipeline; instrumentSimWrites still finds every location it
/// reports (inlining only moves a kernel's code into the kernel).
class StripHostOnlyDebugInfoPass : public llvm::PassInfoMixin<StripHostOnlyDebugInfoPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &host, llvm::ModuleAnalysisManager &);
};

} // namespace oxide

#endif
