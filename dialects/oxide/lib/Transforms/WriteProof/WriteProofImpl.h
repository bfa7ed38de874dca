//===- WriteProofImpl.h - the parts of the write proof ----------*- C++ -*-===//
//
// The write proof (Oxide/Transforms/WriteProof.h) in layers, each in its own file:
//   CheckedCode     which functions the proof covers, who calls them, the kernels' parameters;
//   PointerRoots    a points-to analysis: the places each pointer may point into (its roots);
//   PointerOffsets  constant byte offsets from a root, and the parameter fields values come from;
//   Bounds          whether an access stays inside its root, by constant offsets or bounded indices;
//   Reporter        one error per user line and rule, each ending with `[safety rule: NAME]`;
// and the rules that read them, one class per file: TargetRule (where a write lands),
// EscapeRule (element and heap pointers that leave the thread; free), CallRule (calls and
// intrinsics), AccessRule (what oxide ops declare through OxideMemoryAccessOpInterface),
// OwnershipRule (where elements come from, their shapes and sizes) and GlobalReadRule (reads
// of device globals the kernel updates).
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_TRANSFORMS_WRITEPROOF_WRITEPROOFIMPL_H
#define OXIDE_TRANSFORMS_WRITEPROOF_WRITEPROOFIMPL_H

#include "Oxide/IR/OxideOps.h"
#include "Oxide/Transforms/WriteProof.h"

#include "oxide/detail/param_kind.hpp"

#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <memory>
#include <optional>
#include <string>

namespace oxide::writeproof {

using mlir::Location;
using mlir::Operation;
using mlir::Type;
using mlir::Value;
using LLVMFuncOp = mlir::LLVM::LLVMFuncOp;
using detail::ParamKind;

/// Address spaces of NVPTX.
constexpr unsigned kGeneric = 0, kShared = 3, kConstant = 4, kLocal = 5;

/// Whether a value of `type` holds a pointer (itself, or in a struct, array or vector).
bool holdsPointers(Type type);
/// The address space of pointer `pointer` (generic for a value that is not a pointer).
unsigned addressSpace(Value pointer);
/// Why inline PTX `text` with `constraints` (LLVM's form: "=r,r,~{memory}") may read or write
/// memory, or nothing when each of its instructions only computes in registers
/// (RegisterOnlyAsm.cpp).
std::optional<std::string> whyAsmMayAccessMemory(llvm::StringRef text, llvm::StringRef constraints);
/// Whether function argument `arg` is passed by value (the callee's own copy).
bool isByval(mlir::BlockArgument arg);
/// The value of `length` when it is a constant that fits in 63 bits.
std::optional<int64_t> constantLength(Value length);

//===----------------------------------------------------------------------===//
// The code under proof
//===----------------------------------------------------------------------===//

/// One parameter of a kernel: its name and kind (from #oxide.kernel).
struct ParamInfo {
  std::string name;
  ParamKind kind = ParamKind::other;
};

/// The contracted kernels of `module`: kernels (`oxide.kernel`) with an `oxide.contract`, whose
/// validity is oxide-verify-safety's check.
llvm::SmallVector<LLVMFuncOp> contractedKernels(mlir::ModuleOp module);

/// The functions the proof covers: the contracted kernels, every function they reach, and, once
/// one of them calls through a pointer, every function whose address the module takes.
class CheckedCode {
public:
  CheckedCode(mlir::ModuleOp module, llvm::ArrayRef<LLVMFuncOp> kernels);

  /// Whether `value` is an argument of a contracted kernel.
  bool isKernelArgument(Value value) const;
  /// The name and kind of the kernel parameter `kernelArg` ("?" and other when unknown).
  std::string paramName(Value kernelArg) const;
  ParamKind paramKind(Value kernelArg) const;
  /// The demangled name of the contracted kernel whose code holds `op`, for messages.
  std::string kernelName(Operation *op) const;
  /// The functions `kernel` runs: those it reaches by direct calls, and every function whose
  /// address the module takes once one of them calls through a pointer.
  llvm::SetVector<LLVMFuncOp> functionsOf(LLVMFuncOp kernel);
  /// The store size of `type` in bytes; std::nullopt for a type that is not LLVM's.
  std::optional<int64_t> sizeOf(Type type) const;

  mlir::ModuleOp module;
  mlir::SymbolTable symbols;
  mlir::DataLayout layout;
  llvm::SetVector<LLVMFuncOp> checked;            ///< every function the proof covers
  llvm::DenseSet<LLVMFuncOp> kernels;             ///< the contracted kernels
  llvm::DenseMap<LLVMFuncOp, LLVMFuncOp> owner;   ///< the kernel each function was reached from
  llvm::SetVector<LLVMFuncOp> addressTaken;       ///< functions whose address the module takes
  llvm::DenseSet<LLVMFuncOp> sharedWithUnchecked; ///< checked functions unchecked code also calls
  llvm::DenseMap<LLVMFuncOp, llvm::SmallVector<mlir::LLVM::CallOp>> callers; ///< checked call sites
  llvm::DenseMap<Value, ParamInfo> paramOf;                                  ///< the kernels' arguments

private:
  void addIndirectTargets();
  void collectCallers();
};

//===----------------------------------------------------------------------===//
// Roots: what each pointer may point into
//===----------------------------------------------------------------------===//

enum class RootKind : unsigned {
  Private,  ///< an alloca, or a function's byval copy of a parameter
  Shared,   ///< the block's shared memory
  Heap,     ///< a block from the device heap (malloc, new) of this thread
  Element,  ///< one element: an oxide.disjoint_get, oxide.owned_elem or oxide.span_elem result
  Param,    ///< memory a kernel's span parameter points to (source: that kernel argument)
  Global,   ///< a device global variable
  Constant, ///< constant memory
  Null,     ///< the null pointer
  Unknown,  ///< provenance lost: loaded, made from an integer, returned by unknown code
};

struct Root {
  RootKind kind;
  Value source; ///< the value that creates the root (for Param: the kernel's byval argument)
  friend bool operator==(const Root &, const Root &) = default;
};

using RootSet = llvm::SmallVector<Root, 2>;

/// A points-to analysis over the LLVM dialect: each pointer value gets the set of places it may
/// point into, a forward analysis on MLIR's DataFlowSolver (PointerRoots.cpp) over
/// the checked functions, through phis, selects, calls, returns and indirect calls (to any
/// address-taken function).
class PointerRoots {
public:
  explicit PointerRoots(CheckedCode &code);
  ~PointerRoots();

  /// The roots of `value`; empty for a value that holds no pointer.
  const RootSet &rootsOf(Value value) const;
  /// The kernel argument whose byval copy `address` points into (at any offset), or null.
  Value paramArgument(Value address) const;

private:
  CheckedCode &code;
  std::unique_ptr<mlir::DataFlowSolver> solver;
};

/// The kernel argument whose byval copy a pointer of roots `roots` points into, or null.
Value paramArgumentOf(const RootSet &roots, const CheckedCode &code);

//===----------------------------------------------------------------------===//
// Offsets: where a pointer points inside its root
//===----------------------------------------------------------------------===//

/// Where a value points relative to the start of a root.
struct Offset {
  enum { NotDerived, Known, Unknown } state;
  int64_t bytes = 0;
};

class PointerOffsets {
public:
  PointerOffsets(CheckedCode &code, const PointerRoots &roots) : code(code), roots(roots) {}

  /// The byte offset of `gep` from its base when every index is a constant.
  std::optional<int64_t> constantGepOffset(mlir::LLVM::GEPOp gep) const;
  /// Where `value` points relative to the start of root `origin`.
  Offset offsetFrom(Value value, Value origin) const;
  /// The kernel argument and byte offset of the parameter field `value` was loaded from, through
  /// helper-function arguments whose every caller passes the same field.
  std::optional<std::pair<Value, int64_t>> paramField(Value value, unsigned depth = 0) const;

private:
  Offset offsetFrom(Value value, Value origin, llvm::DenseSet<Value> &visiting, unsigned depth) const;
  Offset offsetFromArgument(mlir::BlockArgument arg, Value origin, llvm::DenseSet<Value> &visiting,
                            unsigned depth) const;
  Offset fieldOffsetFrom(Value aggregate, llvm::ArrayRef<int64_t> position, Value origin,
                         llvm::DenseSet<Value> &visiting, unsigned depth) const;
  bool derivedFrom(Value value, Value origin) const;

  CheckedCode &code;
  const PointerRoots &roots;
};

//===----------------------------------------------------------------------===//
// Bounds: whether an access stays inside its root
//===----------------------------------------------------------------------===//

class Bounds {
public:
  Bounds(CheckedCode &code, const PointerOffsets &offsets) : code(code), offsets(offsets) {}

  /// Whether `address` stays inside the memory of `root`, by constant offsets.
  bool provenInside(Value address, const Root &root, std::optional<int64_t> size) const;
  /// Whether `address`, a chain of GEPs from the device global of `root`, stays inside it at
  /// `op` for every value of its variable indices, by their upper bounds there.
  bool provenInsideByBounds(Operation *op, Value address, const Root &root, std::optional<int64_t> size);
  /// Whether pointer `value` may depend on what the function's callers pass it or return to it.
  static bool dependsOnCaller(Value value);

private:
  std::optional<int64_t> rootBytes(const Root &root) const;
  bool addGepRange(Operation *op, mlir::LLVM::GEPOp gep, int64_t bytes, int64_t &low, int64_t &high);
  std::optional<uint64_t> upperBound(Value value, Operation *at, unsigned depth = 0);
  void tightenByBranches(Value value, Operation *at, std::optional<uint64_t> &best);

  CheckedCode &code;
  const PointerOffsets &offsets;
  mlir::DominanceInfo dominance;
};

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// The rules of docs/safety.md that the write proof enforces; each error ends with its name.
enum class SafetyRule {
  StoreTarget,
  InputWrite,
  OwnElement,
  ElementBounds,
  AtomicOnly,
  PointerEscape,
  OpaqueCode,
  SpanOrigin,
  GlobalRead,
  DeviceHeap,
  PrintfFormat,
  UncheckedOp,
};

/// The rule's name in docs/safety.md ("store-target"), which its errors end with.
inline llvm::StringRef ruleName(SafetyRule rule) {
  switch (rule) {
  case SafetyRule::StoreTarget:
    return "store-target";
  case SafetyRule::InputWrite:
    return "input-write";
  case SafetyRule::OwnElement:
    return "own-element";
  case SafetyRule::ElementBounds:
    return "element-bounds";
  case SafetyRule::AtomicOnly:
    return "atomic-only";
  case SafetyRule::PointerEscape:
    return "pointer-escape";
  case SafetyRule::OpaqueCode:
    return "opaque-code";
  case SafetyRule::SpanOrigin:
    return "span-origin";
  case SafetyRule::GlobalRead:
    return "global-read";
  case SafetyRule::DeviceHeap:
    return "device-heap";
  case SafetyRule::PrintfFormat:
    return "printf-format";
  case SafetyRule::UncheckedOp:
    return "unchecked-op";
  }
  llvm_unreachable("a safety rule without a name");
}

/// Reports errors at the user's line: once per line and rule (an unrolled loop repeats a write
/// many times).
class Reporter {
public:
  using Message = llvm::function_ref<void(mlir::InFlightDiagnostic &)>;
  void report(Operation *op, SafetyRule rule, Message message);
  void report(Location loc, SafetyRule rule, Message message);
  bool failed() const { return anyFailed; }

private:
  llvm::DenseSet<std::pair<Location, unsigned>> reported;
  bool anyFailed = false;
};

//===----------------------------------------------------------------------===//
// What the rules share
//===----------------------------------------------------------------------===//

/// The facts the rules read, and what they find besides errors.
struct ProofState {
  ProofState(mlir::ModuleOp module, llvm::ArrayRef<LLVMFuncOp> kernels)
      : code(module, kernels), roots(code), offsets(code, roots), bounds(code, offsets) {}

  CheckedCode code;
  PointerRoots roots;
  PointerOffsets offsets;
  Bounds bounds;
  Reporter reporter;
  /// Writes to local or shared memory at offsets no rule could bound, to be confined.
  std::vector<WriteProof::Confinement> confinements;
  /// For each span parameter, the element size device code names it with, and where.
  llvm::DenseMap<Value, std::pair<int64_t, Operation *>> elementSizes;
  /// For each output parameter, the ops that name its elements (one ownership shape each).
  llvm::MapVector<Value, llvm::SmallVector<Operation *>> shapes;
};

/// The base of the rules: shorthands for the facts each reads and for reporting.
class RuleBase {
public:
  explicit RuleBase(ProofState &state) : state(state) {}

protected:
  const RootSet &rootsOf(Value value) const { return state.roots.rootsOf(value); }
  std::string paramName(Value kernelArg) const { return state.code.paramName(kernelArg); }
  ParamKind paramKind(Value kernelArg) const { return state.code.paramKind(kernelArg); }
  std::string kernelName(Operation *op) const { return state.code.kernelName(op); }
  std::optional<std::pair<Value, int64_t>> paramField(Value value) const {
    return state.offsets.paramField(value);
  }
  void report(Operation *op, SafetyRule rule, Reporter::Message message) {
    state.reporter.report(op, rule, message);
  }
  void report(Location loc, SafetyRule rule, Reporter::Message message) {
    state.reporter.report(loc, rule, message);
  }
  /// The output parameter whose element `element` names, for messages.
  std::string outputName(Operation *element) const;

  ProofState &state;
};

//===----------------------------------------------------------------------===//
// The rules
//===----------------------------------------------------------------------===//

/// Where a write lands (store-target, input-write, own-element, element-bounds, atomic-only,
/// span-origin): judged by each root of its address.
class TargetRule : public RuleBase {
public:
  using RuleBase::RuleBase;
  /// Checks a write of `size` bytes (unknown: std::nullopt) through operand `operand` of `op`.
  void checkWrite(Operation *op, unsigned operand, std::optional<int64_t> size, bool atomic);

private:
  void checkPrivateOrShared(Operation *op, Value address, const Root &root, std::optional<int64_t> size,
                            std::optional<RootKind> &space, bool &confinable, bool &needsConfinement);
  void checkGlobalWrite(Operation *op, Value address, const Root &root, std::optional<int64_t> size,
                        bool atomic);
  void checkElementWrite(Operation *op, Value address, const Root &root, std::optional<int64_t> size,
                         bool atomic);
  std::string checkSpanElementData(Operation *op, SpanElemOp span, bool atomic);
  void checkParamWrite(Operation *op, Value kernelArg);
  void reportUnconfinable(Operation *op, std::optional<RootKind> space);
  static std::string unknownReason(Value source);
};

/// Pointers that must stay in the thread (pointer-escape, device-heap), and free().
class EscapeRule : public RuleBase {
public:
  using RuleBase::RuleBase;
  /// Checks that `value`, which `op` makes visible as `how`, is no own-element or heap pointer.
  void checkEscape(Operation *op, Value value, llvm::StringRef how);
  /// free(pointer): only the block this thread allocated, at its start, once, and nothing of it
  /// used afterwards.
  void checkFree(mlir::LLVM::CallOp call, Value pointer);

private:
  void checkHeapEscape(Operation *op, Value value, llvm::StringRef how);
  llvm::SmallVector<Operation *> usesAfterFree(mlir::LLVM::CallOp call, mlir::LLVM::CallOp block);
};

/// Calls and intrinsics (opaque-code, printf-format), and the writes libdevice makes.
class CallRule : public RuleBase {
public:
  using RuleBase::RuleBase;
  void checkCall(mlir::LLVM::CallOp call);
  void checkIntrinsic(mlir::LLVM::CallIntrinsicOp call);
  /// Inline assembly: accepted when it only computes in registers (RegisterOnlyAsm.cpp).
  void checkInlineAsm(mlir::LLVM::InlineAsmOp op);

private:
  void checkIndirectCall(mlir::LLVM::CallOp call);
  void checkPrintfFormat(mlir::LLVM::CallOp call, Value format);
};

/// What oxide ops declare through OxideMemoryAccessOpInterface: each access judged by its rule
/// (shared memory, global memory, an mbarrier, a TensorMap, an input span, refused), then, for a
/// write the op's rule leaves to it, by TargetRule. An op that may write and declares nothing is
/// refused (unchecked-op).
class AccessRule : public RuleBase {
public:
  using RuleBase::RuleBase;
  /// Checks `op`, an op of the oxide dialect or one of no dialect Oxide knows.
  void check(Operation *op);
  /// Whether `op` may write memory by what it declares (MemoryEffectOpInterface).
  static bool mayWrite(Operation *op);

private:
  bool checkAccess(Operation *op, const MemoryAccess &access);
  bool pointsIntoShared(Value pointer) const;
  bool mayBeLocalOrShared(Value pointer) const;
  bool isInputData(const Root &root, unsigned depth) const;
  bool isInputCopy(Value address, unsigned depth) const;
  bool checkTensorMap(Operation *op, const MemoryAccess &access);
};

/// Where elements come from and how threads own them (span-origin, own-element): each element
/// op names a span parameter of the right kind through its fields; one output has one shape;
/// one span parameter one element size.
class OwnershipRule : public RuleBase {
public:
  using RuleBase::RuleBase;
  /// Checks `op` when it names an element; false for any other op.
  bool check(Operation *op);
  /// After every op: one ownership shape per output.
  void checkTileShapes();

private:
  template <class ElementOp> void checkSpanOrigin(ElementOp get);
  void checkReservedSlot(ReservedElemOp slot);
  void checkPermutedElem(PermutedElemOp permuted);
  void checkClaimedElem(ClaimedElemOp claimed);
  void recordElementSize(Operation *op, Value param, int64_t size);
  std::string shapeOf(Operation *op) const;
};

/// Reads of device globals that the kernel updates atomically (global-read), and atomics that
/// overlap without being the same access.
class GlobalReadRule : public RuleBase {
public:
  using RuleBase::RuleBase;
  void check();

private:
  using Updates = llvm::MapVector<llvm::StringRef, Operation *>;
  void checkKernel(LLVMFuncOp kernel);
  void checkAtomicShapes(const llvm::SetVector<LLVMFuncOp> &fns, const Updates &updated,
                         const std::string &kernelName);
  void checkRead(Operation *op, const Updates &updated, const std::string &kernelName);
  void checkPointerFromInitializer(mlir::LLVM::LoadOp load, const Updates &updated,
                                   const std::string &kernelName);
  void checkKeptPointer(Operation *op, const Updates &updated, const std::string &kernelName);
  llvm::SmallVector<llvm::StringRef> globalsOf(Value address) const;
  std::optional<int64_t> offsetInGlobal(Value address, llvm::StringRef symbol) const;
  std::string atomicReadHint(llvm::StringRef symbol);
  llvm::ArrayRef<llvm::StringRef> addressesIn(llvm::StringRef symbol);

  llvm::DenseMap<llvm::StringRef, llvm::SmallVector<llvm::StringRef>> initializerAddresses;
};

} // namespace oxide::writeproof

#endif // OXIDE_TRANSFORMS_WRITEPROOF_WRITEPROOFIMPL_H
