//===- Diagnostics.h - the messages of the attributes and AST checks -*- C++ -*-===//
//
// Every diagnostic that compiler/ast/ reports, in one table: a name, a level and a clang format
// string (`%0`, `%1`... are the arguments streamed after report(); `%select{a|b}N` picks by an
// integer argument). A new diagnostic is one enumerator and one row here, then
// `report(diags, loc, Diag::Name) << args...` where it is found, and a lit test that checks its
// text (tests/lit/safety, tests/lit/declarations). Messages say what is wrong and what to do.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_DIAGNOSTICS_H
#define OXIDE_COMPILER_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"

#include <cstddef>

namespace oxide {

enum class Diag : unsigned {
  // [[kernel]] (KernelAttributes.cpp)
  KernelNotAFunction,
  KernelMemberFunction,
  KernelReturnsValue,
  KernelIsMain,
  KernelVariadic,
  // launch_contract and launch_bounds (ContractAttributes.cpp)
  AttributeNotOnFunction,
  ContractNotAString,
  ContractInvalid,
  ConflictingContracts,
  NoteEarlierContract,
  BoundsNotIntegers,
  BoundsMaxThreadsRange,
  BoundsMinBlocksRange,
  AttributeNeedsScope,
  // oxide::constant (ConstantVariables.cpp)
  ConstantNotAtNamespaceScope,
  GlobalNotAtNamespaceScope,
  DeviceVariableHoldsCode,
  // the safety model's AST checks (SafetyChecker.cpp)
  ContractOnNonKernel,
  ContractParameterUnmapped,
  BlockExceedsBounds,
  ParameterUnsafe,
  ParameterHoldsPointer,
  ParameterHoldsSpan,
  ParameterNestedSpan,
  ParameterMutableMember,
  NoteMemberDeclared,
  DetailDeclared,
  DetailUsed,
  CastInContractedKernel,
  AsmInContractedKernel,
  OutputAliased,
  NoteOutputArgument,
  PrepareWithoutContract,
  PrepareElementsWithoutBlock,
  PrepareElementsOfOtherRank,
  NoteKernelDeclared,
  DeviceTypeid,
  DeviceLongDouble,
  NoteCalledBy,
  // CUDA's names in the host compile (CudaSpellings.cpp)
  CudaSpelling,
  // what the CPU simulator would run unchecked (SimulatorDivergence.cpp)
  SimulatorDivergentCode,
  SimulatorDivergentMacro,
  NoteReachedFromKernel,
  NoteUsedBy,
};

struct DiagInfo {
  Diag id;
  clang::DiagnosticIDs::Level level;
  const char *format;
};

/// The table, in the order of Diag.
inline constexpr DiagInfo kDiagnostics[] = {
    {Diag::KernelNotAFunction, clang::DiagnosticIDs::Error,
     "'[[kernel]]' applies only to functions; put it on a void function at namespace scope"},
    {Diag::KernelMemberFunction, clang::DiagnosticIDs::Error,
     "a '[[kernel]]' cannot be a member function; make it a free function that takes the object as a "
     "parameter"},
    {Diag::KernelReturnsValue, clang::DiagnosticIDs::Error,
     "a '[[kernel]]' must return void (it returns '%0'); write results through a DisjointSpan parameter"},
    {Diag::KernelIsMain, clang::DiagnosticIDs::Error, "'main' cannot be a '[[kernel]]'"},
    {Diag::KernelVariadic, clang::DiagnosticIDs::Error,
     "a '[[kernel]]' cannot be variadic (a C '...' parameter): GPU kernels take a fixed list of "
     "parameters; pass the values in a span or a struct, or make it a template with a parameter pack"},

    {Diag::AttributeNotOnFunction, clang::DiagnosticIDs::Error, "'%0' applies only to [[kernel]] functions"},
    {Diag::ContractNotAString, clang::DiagnosticIDs::Error,
     "launch_contract takes one string literal, e.g. [[oxide::launch_contract(\"domain = 1\")]]"},
    {Diag::ContractInvalid, clang::DiagnosticIDs::Error, "invalid launch contract: %0"},
    {Diag::ConflictingContracts, clang::DiagnosticIDs::Error,
     "%select{the launch contract of '%1' differs from the one|the launch bounds of '%1' differ from those}0 "
     "of its earlier declaration; write the same %select{launch_contract|launch_bounds}0 on every "
     "declaration of a kernel, or on only one of them"},
    {Diag::NoteEarlierContract, clang::DiagnosticIDs::Note,
     "the earlier declaration's %select{launch contract|launch bounds}0 is here"},
    {Diag::BoundsNotIntegers, clang::DiagnosticIDs::Error,
     "launch_bounds takes one or two integer constants: (max_threads[, min_blocks_per_sm]), each a literal, "
     "a constexpr variable or a template parameter"},
    {Diag::BoundsMaxThreadsRange, clang::DiagnosticIDs::Error,
     "launch_bounds max_threads must be between 1 and 1024, not %0"},
    {Diag::BoundsMinBlocksRange, clang::DiagnosticIDs::Error,
     "launch_bounds min_blocks_per_sm must fit in 32 bits (at most 4294967295), not %0; it is the number of "
     "blocks to keep resident on one multiprocessor: a small count, such as 2"},
    {Diag::AttributeNeedsScope, clang::DiagnosticIDs::Error,
     "'%0' is Oxide's attribute; write it with its scope, as [[oxide::%0(...)]]"},

    {Diag::ConstantNotAtNamespaceScope, clang::DiagnosticIDs::Error,
     "an oxide::constant must be a variable at namespace scope (not a local, static member or thread_local "
     "variable): kernels read it from constant memory and the host sets it with oxide::set_constant"},
    {Diag::GlobalNotAtNamespaceScope, clang::DiagnosticIDs::Error,
     "an oxide::device_global must be a variable at namespace scope (not a local, static member or "
     "thread_local variable): kernels share it in global memory and the host sets it with oxide::set_global"},
    {Diag::DeviceVariableHoldsCode, clang::DiagnosticIDs::Error,
     "an oxide::%select{constant|device_global}0 cannot hold %1: the host sets its value, so a kernel "
     "calling "
     "through it could run code that Oxide never checked; store an integer that selects the function "
     "instead"},

    {Diag::ContractOnNonKernel, clang::DiagnosticIDs::Error,
     "'%0' has a launch %select{contract|bounds}1 but is not a [[kernel]]; add [[kernel]] or remove the "
     "attribute"},
    {Diag::ContractParameterUnmapped, clang::DiagnosticIDs::Error,
     "the launch contract of '%0' names parameter '%1', which its instantiation '%2' does not have as "
     "exactly one parameter, so the contract would check another argument; name in a contract only "
     "parameters declared outside parameter packs"},
    {Diag::BlockExceedsBounds, clang::DiagnosticIDs::Error,
     "the contract's exact block of %0 threads exceeds launch_bounds(%1) of kernel '%2'; raise the bound or "
     "shrink the block"},
    {Diag::ParameterUnsafe, clang::DiagnosticIDs::Error,
     "parameter '%0' of contracted kernel '%1' "
     "%select{is a raw pointer; take oxide::Span<const T> for inputs or oxide::DisjointSpan<T> for outputs"
     "|is a reference; kernel parameters are copied to the GPU, pass it by value"
     "|is a member pointer; a contracted kernel's parameters may hold pointers only inside "
     "oxide::Span<const T> and oxide::DisjointSpan<T>"
     "|is a mutable oxide::Span, which every thread may write; use oxide::DisjointSpan<T> for outputs or "
     "oxide::Span<const T> for inputs: DisjointSpan<T> when each thread writes its own elements (get_mut "
     "with "
     "its thread index), oxide::AtomicSpan<T> when threads update shared elements with atomics, Span<const "
     "T> "
     "when the kernel only reads it"
     "|is a mutable std::span, which every thread may write; use oxide::DisjointSpan<T> for outputs or "
     "oxide::Span<const T> for inputs: DisjointSpan<T> when each thread writes its own elements, "
     "oxide::AtomicSpan<T> when threads update shared elements with atomics, Span<const T> when the kernel "
     "only reads it}2"
     " (or drop the contract and launch with oxide::unsafe_launch) [safety rule: parameter-type]"},
    {Diag::ParameterHoldsPointer, clang::DiagnosticIDs::Error,
     "parameter '%0' of contracted kernel '%1' holds %2 %3%4; "
     "%select{a contracted kernel's parameters may hold pointers only inside oxide::Span<const T> and "
     "oxide::DisjointSpan<T>: pass the memory as a span parameter"
     "|kernel parameters are copied to the GPU: hold the value itself (a lambda captures by copy), or pass "
     "the memory as a span parameter"
     "|the elements of an input span may hold no pointers or references, since a kernel could write through "
     "them: store indices into another span parameter instead"
     "|the elements of an output span may hold no pointers or references, since another thread or kernel "
     "could follow them: store indices instead}5"
     " (or drop the contract and launch with oxide::unsafe_launch) [safety rule: parameter-type]"},
    {Diag::ParameterHoldsSpan, clang::DiagnosticIDs::Error,
     "parameter '%0' of contracted kernel '%1' holds %select{a mutable oxide::Span|a mutable std::span|a "
     "std::span}2 %3%select{, which every thread may write|, which every thread may write|, whose memory the "
     "runtime cannot check against the kernel's outputs}2; use oxide::DisjointSpan<T> for outputs or "
     "oxide::Span<const T> for inputs (or drop the contract and launch with oxide::unsafe_launch) [safety "
     "rule: parameter-type]"},
    {Diag::ParameterNestedSpan, clang::DiagnosticIDs::Error,
     "parameter '%0' of contracted kernel '%1' holds an %2 %3; the runtime binds, checks and keeps apart "
     "only "
     "the spans that are parameters of their own, and no host code can make one inside a struct: take each "
     "span as a kernel parameter (and build the struct inside the kernel if the code wants one) [safety "
     "rule: parameter-type]"},
    {Diag::ParameterMutableMember, clang::DiagnosticIDs::Error,
     "parameter '%0' of contracted kernel '%1' has a mutable member %2%3; %select{a contracted kernel's "
     "parameters are read-only values|a kernel could write an input through its const view}4: remove "
     "'mutable' (or drop the contract and launch with oxide::unsafe_launch) [safety rule: mutable-member]"},
    {Diag::NoteMemberDeclared, clang::DiagnosticIDs::Note, "'%0' is %select{declared|captured}1 here"},
    {Diag::DetailDeclared, clang::DiagnosticIDs::Error,
     "'%0' is declared in Oxide's internal namespace: user code may not declare anything in oxide::detail "
     "(it could reach the internals that make spans over any memory); declare it in your own namespace "
     "[safety rule: detail-api]"},
    {Diag::DetailUsed, clang::DiagnosticIDs::Error,
     "'%0' is Oxide's internal API: user code may not use oxide::detail (it can make spans over any memory); "
     "use the public types: DeviceBuffer binds to oxide::Span<const T> and oxide::DisjointSpan<T> parameters "
     "at a launch, and oxide::shared_array / oxide::dynamic_shared give shared memory [safety rule: "
     "detail-api]"},
    {Diag::CastInContractedKernel, clang::DiagnosticIDs::Error,
     "%select{const_cast|reinterpret_cast|C-style cast}0 on a span or thread-index witness in contracted "
     "kernel '%1' would bypass the safety model; remove the cast"},
    {Diag::AsmInContractedKernel, clang::DiagnosticIDs::Error,
     "inline assembly in contracted kernel '%0' cannot be checked: it may write any memory; use Oxide's "
     "device API, or drop the contract and launch with oxide::unsafe_launch [safety rule: opaque-code]"},
    {Diag::OutputAliased, clang::DiagnosticIDs::Error,
     "'%0' is passed as argument %1 and also as the DisjointSpan output argument %2; a kernel's output must "
     "not alias its other arguments: use a separate buffer"},
    {Diag::NoteOutputArgument, clang::DiagnosticIDs::Note, "output argument is here"},
    {Diag::PrepareWithoutContract, clang::DiagnosticIDs::Error,
     "kernel '%0' has no launch contract, so oxide::prepare cannot check its launches; add "
     "[[oxide::launch_contract(\"domain = ...\")]] to it, or launch it with oxide::unsafe_launch "
     "(oxide/host/unsafe_launch.hpp)"},
    {Diag::PrepareElementsWithoutBlock, clang::DiagnosticIDs::Error,
     "kernel '%0' is prepared with oxide::elements(...), which takes the block from the launch contract, but "
     "its contract fixes no block; add one to the contract (e.g. block = %1) or prepare it with a "
     "configuration that states the block, e.g. oxide::%2"},
    {Diag::PrepareElementsOfOtherRank, clang::DiagnosticIDs::Error,
     "kernel '%0' has domain = %1 in its launch contract, but is prepared with oxide::elements of %2 "
     "extent%s2; give %1 extent%s1: %3"},
    {Diag::NoteKernelDeclared, clang::DiagnosticIDs::Note, "'%0' is defined here"},
    {Diag::DeviceTypeid, clang::DiagnosticIDs::Error,
     "device code uses typeid, which needs run-time type information (RTTI is not available in device "
     "code)"},
    {Diag::DeviceLongDouble, clang::DiagnosticIDs::Error,
     "device code uses 'long double', which the GPU does not have: it would be computed as 'double' there "
     "but in 80-bit precision on the host and the CPU simulator; use 'double'"},
    {Diag::NoteCalledBy, clang::DiagnosticIDs::Note, "called by %0"},

    // The same words as the unavailable declarations of oxide/detail/cuda_spellings.hpp.
    {Diag::CudaSpelling, clang::DiagnosticIDs::Error, "'%0' is unavailable: %0 is CUDA's; in Oxide %1"},

    {Diag::SimulatorDivergentCode, clang::DiagnosticIDs::Error,
     "code under '%0' in contracted kernel '%1' %select{runs only on the CPU simulator, where Oxide's write "
     "checks do not see it|is compiled only for the GPU, so the CPU simulator runs the kernel without it: "
     "code that Oxide's write checks did not prove|may be compiled differently for the CPU simulator than "
     "for the GPU, and Oxide's write checks see only the GPU's code}2 (the simulator runs the host compile "
     "of a kernel); use Oxide's device API, which works on both (e.g. oxide::warp::shuffle_down instead of "
     "__shfl_down_sync), or drop the contract and launch with oxide::unsafe_launch [safety rule: "
     "simulator-divergence]"},
    {Diag::SimulatorDivergentMacro, clang::DiagnosticIDs::Error,
     "macro '%0' in contracted kernel '%1' %select{is defined under '%2'|expands to '%2'|is defined by only "
     "one of the compiles, or differently}3, so the CPU simulator may run other code than the GPU, code "
     "that Oxide's write checks do not see (the simulator runs the host compile of a kernel); use Oxide's "
     "device API, which works on both (e.g. oxide::warp::shuffle_down instead of __shfl_down_sync), or drop "
     "the contract and launch with oxide::unsafe_launch [safety rule: simulator-divergence]"},
    {Diag::NoteReachedFromKernel, clang::DiagnosticIDs::Note, "reached from contracted kernel '%0' here"},
    {Diag::NoteUsedBy, clang::DiagnosticIDs::Note, "used by %0"},
};

constexpr bool diagnosticsInOrder() {
  for (std::size_t i = 0; i < std::size(kDiagnostics); ++i)
    if (static_cast<std::size_t>(kDiagnostics[i].id) != i)
      return false;
  return true;
}
static_assert(diagnosticsInOrder(), "kDiagnostics rows must follow the order of Diag");
static_assert(std::size(kDiagnostics) == static_cast<std::size_t>(Diag::NoteUsedBy) + 1,
              "every Diag needs a row in kDiagnostics");

/// Starts reporting `id` at `loc`; stream its arguments into the result.
inline clang::DiagnosticBuilder report(clang::DiagnosticsEngine &diags, clang::SourceLocation loc, Diag id) {
  const DiagInfo &info = kDiagnostics[static_cast<unsigned>(id)];
  return diags.Report(loc, diags.getDiagnosticIDs()->getCustomDiagID(info.level, info.format));
}

} // namespace oxide

#endif
