//===- AccessRule.cpp - what oxide ops state about their memory accesses --===//
//
// An oxide op takes part in the proof through OxideMemoryAccessOpInterface: each access it
// states is judged by its place (shared memory, global memory, an mbarrier, a TensorMap
// parameter, an input span, an AppendSpan counter, or refused), and a write that is then left
// to where it lands goes to TargetRule. An op that may write and states nothing is refused
// (unchecked-op): the safe default for an op nobody taught the proof.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "oxide/detail/intrinsic_abi.hpp"

using namespace mlir;
using namespace oxide::writeproof;
using Place = oxide::MemoryAccess::Place;

bool AccessRule::mayWrite(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true; // effects unknown: anything
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &effect) {
    return !isa<MemoryEffects::Read>(effect.getEffect());
  });
}

void AccessRule::check(Operation *op) {
  auto declared = dyn_cast<oxide::MemoryAccessOpInterface>(op);
  if (!declared) {
    if (mayWrite(op))
      report(op, SafetyRule::UncheckedOp, [&](InFlightDiagnostic &d) {
        d << "operation '" << op->getName() << "' may write memory and no write rule covers it; "
          << "this is a defect of Oxide's compiler (a new operation states what it reads and writes "
             "through OxideMemoryAccessOpInterface), please report it";
      });
    return;
  }
  SmallVector<oxide::MemoryAccess> accesses;
  declared.getMemoryAccesses(accesses);
  // The op's data goes to or comes from the wrong place: nothing else of it can be judged. Its
  // synchronisation objects (an mbarrier, a TensorMap) are each checked.
  bool misplaced = false;
  for (const oxide::MemoryAccess &access : accesses) {
    if (checkAccess(op, access))
      continue;
    misplaced = true;
    if (access.place != Place::Barrier && access.place != Place::TensorMap)
      return;
  }
  if (misplaced)
    return;
  for (const oxide::MemoryAccess &access : accesses)
    if (access.kind == oxide::MemoryAccess::Kind::Write &&
        llvm::is_contained({Place::Anywhere, Place::Shared, Place::Global}, access.place))
      TargetRule(state).checkWrite(op, access.operand, access.bytes, /*atomic=*/false);
}

/// Whether `access` is where its place says; reports it when not.
bool AccessRule::checkAccess(Operation *op, const oxide::MemoryAccess &access) {
  Value address = op->getOperand(access.operand);
  const bool write = access.kind == oxide::MemoryAccess::Kind::Write;
  switch (access.place) {
  case Place::Anywhere:
    return true;
  case Place::Shared:
  case Place::SharedWindow:
    if (pointsIntoShared(address))
      return true;
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "this " << access.subject << " writes memory that is not shared memory; " << access.remedy;
    });
    return false;
  case Place::Global:
    if (!mayBeLocalOrShared(address))
      return true;
    report(op, write ? SafetyRule::StoreTarget : SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this " << access.subject << " may " << (write ? "write" : "read")
        << " a local variable or shared memory, " << access.remedy;
    });
    return false;
  case Place::Barrier:
    if (pointsIntoShared(address))
      return true;
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "this " << access.subject
        << " that is not in shared memory; an mbarrier is a std::uint64_t in a shared array "
           "(oxide::shared_array or oxide::dynamic_shared)";
    });
    return false;
  case Place::TensorMap:
    return checkTensorMap(op, access);
  case Place::InputSpan: {
    const RootSet &roots = rootsOf(address);
    if (!roots.empty() && llvm::all_of(roots, [&](const Root &r) { return isInputData(r, 0); }))
      return true;
    report(op, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this " << access.subject << " reads memory that is not a Span<const T> input of kernel '"
        << kernelName(op) << "'; " << access.remedy;
    });
    return false;
  }
  case Place::AppendCounter: {
    auto counter = paramField(address);
    if (counter && counter->second == static_cast<int64_t>(oxide::detail::kAppendCounterOffset) &&
        paramKind(counter->first) == ParamKind::append)
      return true;
    report(op, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this " << access.subject << " does not add to the counter of an AppendSpan parameter of kernel '"
        << kernelName(op) << "'; " << access.remedy;
    });
    return false;
  }
  case Place::Unconfinable:
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "a " << access.subject
        << " writes global memory through a descriptor the safe tier cannot confine; " << access.remedy;
    });
    return false;
  }
  llvm_unreachable("an access place without a rule");
}

/// Whether `pointer` points into shared memory only: an addrspace(3) pointer, or one whose every
/// root is a shared array (of this block, or of another block of the cluster) or null.
bool AccessRule::pointsIntoShared(Value pointer) const {
  if (addressSpace(pointer) == kShared)
    return true;
  const RootSet &set = rootsOf(pointer);
  return !set.empty() && llvm::all_of(set, [](const Root &r) {
    return r.kind == RootKind::Shared || r.kind == RootKind::Null;
  });
}

/// Whether `pointer` may point into the thread's local memory or the block's shared memory,
/// which a cache-hinted access (ld.global / st.global) cannot reach.
bool AccessRule::mayBeLocalOrShared(Value pointer) const {
  const unsigned space = addressSpace(pointer);
  if (space == kShared || space == kLocal)
    return true;
  return llvm::any_of(rootsOf(pointer), [](const Root &r) {
    return r.kind == RootKind::Private || r.kind == RootKind::Shared;
  });
}

/// The TensorMap of a bulk tensor copy says which global memory it reads and how many bytes
/// land in shared memory: it must be the descriptor of a TensorMap parameter (whose only field
/// is the pointer the runtime sets to a map it encoded from a DeviceBuffer for this launch), or
/// a helper's copy of one; never bytes of an input span, nor a map the kernel made or found in
/// memory.
bool AccessRule::checkTensorMap(Operation *op, const oxide::MemoryAccess &access) {
  Value base = op->getOperand(access.operand);
  while (auto cast = base.getDefiningOp<LLVM::AddrSpaceCastOp>())
    base = cast.getArg();
  auto field = paramField(base);
  if (field && field->second == 0 && paramKind(field->first) == ParamKind::tensor_map)
    return true;
  if (field && field->second == 0 && paramKind(field->first) == ParamKind::writable_tensor_map) {
    report(op, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this " << access.subject
        << " reads through a writable TensorMap (TensorMap<T, ...> with a "
           "non-const T), which a contracted kernel does not take; make the parameter TensorMap<const T, "
           "...>, or launch the kernel with oxide::unsafe_launch";
    });
    return false;
  }
  report(op, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
    d << "this " << access.subject << " reads through a TensorMap that is not a parameter of kernel '"
      << kernelName(op)
      << "'; pass the oxide::TensorMap the host made from a DeviceBuffer (oxide::DeviceTensorMap) as a "
         "kernel argument, whose map describes memory the launch binds";
  });
  return false;
}

/// Whether `root` is the memory of a Span<const T> parameter: loaded from the kernel's own
/// parameter, or from a helper's by-value copy of a span that every caller passes a copy of
/// such a parameter for (a helper the compiler did not inline).
bool AccessRule::isInputData(const Root &root, unsigned depth) const {
  if (root.kind == RootKind::Null)
    return true;
  if (root.kind == RootKind::Param)
    return paramKind(root.source) == ParamKind::input;
  auto load = root.kind == RootKind::Unknown ? root.source.getDefiningOp<LLVM::LoadOp>() : nullptr;
  return load && isInputCopy(load.getAddr(), depth);
}

bool AccessRule::isInputCopy(Value address, unsigned depth) const {
  const RootSet &copy = rootsOf(address);
  if (depth > 16 || copy.size() != 1 || copy.front().kind != RootKind::Private)
    return false;
  auto arg = dyn_cast<BlockArgument>(copy.front().source);
  if (!arg || !isByval(arg))
    return false;
  if (state.code.isKernelArgument(arg))
    return paramKind(arg) == ParamKind::input;
  auto fn = cast<LLVMFuncOp>(arg.getOwner()->getParentOp());
  auto it = state.code.callers.find(fn);
  if (it == state.code.callers.end() || state.code.addressTaken.contains(fn))
    return false;
  return llvm::all_of(it->second, [&](LLVM::CallOp call) {
    return arg.getArgNumber() < call.getArgOperands().size() &&
           isInputCopy(call.getArgOperands()[arg.getArgNumber()], depth + 1);
  });
}
