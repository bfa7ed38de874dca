//===- TargetRule.cpp - where a write lands --------------------------------===//
//
// Each write is judged by every root of its address: a local variable or shared memory (in
// bounds, or confined to its address space), the thread's own element at a constant offset
// inside it, an AtomicSpan element by atomics, a heap block of constant size at constant
// offsets, an atomic update inside a device global; never an input, another thread's element,
// constant memory or memory Oxide cannot trace.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "llvm/Demangle/Demangle.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// The C++ name of the device global whose address `address` takes.
std::string globalName(Value address) {
  auto global = address.getDefiningOp<LLVM::AddressOfOp>();
  return global ? llvm::demangle(global.getGlobalName().str()) : std::string("?");
}

/// Whether the kernel's copy of a parameter of `kind` holds a span's pointer and extents, which
/// the span-origin check trusts.
bool isTrustedSpanCopy(ParamKind kind) {
  return llvm::is_contained({ParamKind::input, ParamKind::output, ParamKind::output_2d, ParamKind::output_3d,
                             ParamKind::atomic, ParamKind::append, ParamKind::permutation, ParamKind::claims},
                            kind);
}

} // namespace

std::string RuleBase::outputName(Operation *element) const {
  Value data = element->getOperand(0);
  for (const Root &root : rootsOf(data))
    if (root.kind == RootKind::Param)
      return "'" + paramName(root.source) + "'";
  return "the output";
}

std::string TargetRule::unknownReason(Value source) {
  if (isa<BlockArgument>(source))
    return "is a parameter of a function that is called through a pointer or from outside the kernel";
  Operation *def = source.getDefiningOp();
  if (isa<LLVM::LoadOp>(def))
    return "was loaded from memory (a pointer kept in memory no longer says where it points)";
  if (isa<LLVM::IntToPtrOp>(def))
    return "was made from an integer";
  if (isa<LLVM::GEPOp>(def))
    return "is an offset from a null pointer (an address made from an integer)";
  if (isa<LLVM::CallOp>(def))
    return "was returned by a function whose code Oxide cannot see";
  return "comes from an operation Oxide cannot follow ('" + def->getName().getStringRef().str() + "')";
}

void TargetRule::checkWrite(Operation *op, unsigned operand, std::optional<int64_t> size, bool atomic) {
  Value address = op->getOperand(operand);
  const unsigned space = addressSpace(address);
  if (space == kShared || space == kLocal)
    return; // the hardware keeps it in the block's shared memory or the thread's local memory
  if (space == kConstant) {
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "this write targets constant memory, which kernels cannot write";
    });
    return;
  }
  const RootSet &set = rootsOf(address);
  if (set.empty()) {
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "Oxide cannot tell where this write lands; in a contracted kernel a write must go to a local "
           "variable, shared memory, the thread's own DisjointSpan element or an AtomicSpan element";
    });
    return;
  }
  bool confinable = true;
  std::optional<RootKind> space1;
  bool needsConfinement = false;
  for (const Root &root : set) {
    switch (root.kind) {
    case RootKind::Null:
      break; // a write to null faults
    case RootKind::Private:
      // The kernel's copy of a span parameter holds the span's pointer and extents, which the
      // span-origin check trusts: rewriting them would forge an output.
      if (state.code.isKernelArgument(root.source) && isTrustedSpanCopy(paramKind(root.source))) {
        report(op, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
          d << "this write changes the kernel's copy of span parameter '" << paramName(root.source)
            << "' (its pointer or extents), which would let it name memory the runtime did not bind; "
               "copy the span into a local variable instead";
        });
        break;
      }
      [[fallthrough]];
    case RootKind::Shared:
      checkPrivateOrShared(op, address, root, size, space1, confinable, needsConfinement);
      break;
    case RootKind::Heap:
      if (!state.bounds.provenInside(address, root, size))
        report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
          d << "this write into memory from new or malloc lands at an offset Oxide cannot prove stays "
               "inside the allocation (a constant size, written at constant offsets); use a local array, "
               "or drop the contract and launch with oxide::unsafe_launch";
        });
      break;
    case RootKind::Element:
      checkElementWrite(op, address, root, size, atomic);
      break;
    case RootKind::Param:
      checkParamWrite(op, root.source);
      break;
    case RootKind::Global:
      checkGlobalWrite(op, address, root, size, atomic);
      break;
    case RootKind::Constant:
      report(op, SafetyRule::StoreTarget,
             [&](InFlightDiagnostic &d) { d << "this write targets constant or read-only memory"; });
      break;
    case RootKind::Unknown:
      report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
        d << "the address of this write " << unknownReason(root.source)
          << ", so Oxide cannot prove it lands in memory the thread may write (a local variable, "
             "shared memory, its own DisjointSpan element or an AtomicSpan element); write through "
             "the span APIs directly, or drop the contract and launch with oxide::unsafe_launch";
      });
      break;
    }
  }
  if (!needsConfinement)
    return;
  // A pointer that may also point into an element, a heap block or elsewhere cannot be made
  // a local or shared one.
  const bool onlyPrivateOrShared = llvm::all_of(set, [](const Root &r) {
    return r.kind == RootKind::Private || r.kind == RootKind::Shared || r.kind == RootKind::Null;
  });
  if (!confinable || !onlyPrivateOrShared) {
    reportUnconfinable(op, space1);
    return;
  }
  state.confinements.push_back({op, operand, *space1 == RootKind::Shared ? kShared : kLocal});
}

/// A write into a local variable or shared memory: in bounds by constant offsets, or to be
/// confined to the address space, which needs one kind of memory that a cast can name.
void TargetRule::checkPrivateOrShared(Operation *op, Value address, const Root &root,
                                      std::optional<int64_t> size, std::optional<RootKind> &space,
                                      bool &confinable, bool &needsConfinement) {
  if (space && *space != root.kind)
    confinable = false;
  space = root.kind;
  // A kernel's byval copy lives in parameter space, and another block's shared memory
  // (cluster::map_shared) in the cluster's window: neither can be named by a cast.
  if ((root.kind == RootKind::Private && !root.source.getDefiningOp<LLVM::AllocaOp>()) ||
      root.source.getDefiningOp<oxide::MapSharedOp>())
    confinable = false;
  // A helper that unchecked code also calls keeps its code as it is: a global pointer from
  // an unsafe kernel must not be cast to local or shared.
  // (Unless the address is made inside the helper, from its own allocas or shared
  // arrays: then it is the same kind of memory for every caller.)
  if (state.code.sharedWithUnchecked.contains(op->getParentOfType<LLVMFuncOp>()) &&
      Bounds::dependsOnCaller(address))
    confinable = false;
  if (!state.bounds.provenInside(address, root, size))
    needsConfinement = true;
}

void TargetRule::reportUnconfinable(Operation *op, std::optional<RootKind> space) {
  report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
    d << "this write lands at an offset Oxide cannot bound, in "
      << (space == RootKind::Shared ? "shared memory" : "a local variable")
      << " reached through a pointer it cannot confine (one that may point to more than one kind of "
         "memory, to another block's shared memory, to a parameter, or in a helper that kernels "
         "without a contract also call); index the array directly with a bounds check, or use "
         "separate pointers";
  });
}

/// Every thread shares an oxide::device_global: only atomic updates inside it are safe.
void TargetRule::checkGlobalWrite(Operation *op, Value address, const Root &root, std::optional<int64_t> size,
                                  bool atomic) {
  if (atomic && (state.bounds.provenInside(address, root, size) ||
                 state.bounds.provenInsideByBounds(op, address, root, size)))
    return;
  report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
    if (atomic)
      d << "this atomic write lands at an offset Oxide cannot prove stays inside device global '"
        << globalName(root.source)
        << "'; update a scalar global through its atomic(), an array global's element through its "
           "atomic(i) (bounds-checked) or at an index Oxide can bound (a constant, i % N, i & (N - 1), "
           "or inside a check i < N), or drop the contract and launch with oxide::unsafe_launch";
    else
      d << "this write targets device global '" << globalName(root.source)
        << "', which every thread of the launch shares, so a plain write is a data race; update "
           "it atomically (its atomic()), write results through a DisjointSpan parameter, or drop "
           "the contract and launch with oxide::unsafe_launch";
  });
}

/// The memory an oxide.span_elem names an element of must be an AtomicSpan parameter's, written
/// atomically; returns what the element is, for messages.
std::string TargetRule::checkSpanElementData(Operation *op, oxide::SpanElemOp span, bool atomic) {
  for (const Root &data : rootsOf(span.getData())) {
    if (data.kind == RootKind::Private || data.kind == RootKind::Shared || data.kind == RootKind::Null)
      continue;
    if (data.kind == RootKind::Param && paramKind(data.source) == ParamKind::atomic) {
      if (!atomic)
        report(op, SafetyRule::AtomicOnly, [&](InFlightDiagnostic &d) {
          d << "this is a plain write to an element of AtomicSpan '" << paramName(data.source)
            << "', which other threads update at the same time; use its atomic operations "
               "(fetch_add, store, exchange, compare_exchange...)";
        });
      continue;
    }
    if (data.kind == RootKind::Param) {
      checkParamWrite(op, data.source);
      continue;
    }
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "this write targets an element of memory that is not an AtomicSpan parameter";
    });
  }
  return "the element";
}

void TargetRule::checkElementWrite(Operation *op, Value address, const Root &root,
                                   std::optional<int64_t> size, bool atomic) {
  Operation *element = root.source.getDefiningOp();
  int64_t elemSize = 0;
  std::string what;
  if (auto get = dyn_cast<oxide::DisjointGetOp>(element)) {
    elemSize = get.getElemSize();
    what = "the thread's own element of output " + outputName(get);
  } else if (auto owned = dyn_cast<oxide::OwnedElemOp>(element)) {
    elemSize = owned.coveredBytes();
    what = owned.getLanes() == 1 ? "the thread's own element of output " + outputName(owned)
                                 : "the thread's own " + std::to_string(owned.getLanes()) +
                                       " adjacent elements of output " + outputName(owned);
  } else if (auto slot = dyn_cast<oxide::ReservedElemOp>(element)) {
    elemSize = slot.getElemSize();
    what = "the thread's reserved slot of AppendSpan " + outputName(slot);
  } else if (auto permuted = dyn_cast<oxide::PermutedElemOp>(element)) {
    elemSize = permuted.getElemSize();
    what = "the thread's element perm[i] of output " + outputName(permuted);
  } else if (auto claimed = dyn_cast<oxide::ClaimedElemOp>(element)) {
    elemSize = claimed.getElemSize();
    what = "the element output " + outputName(claimed) + " gave the thread's claim";
  } else {
    auto span = cast<oxide::SpanElemOp>(element);
    elemSize = span.getElemSize();
    what = checkSpanElementData(op, span, atomic);
  }
  Offset offset = state.offsets.offsetFrom(address, root.source);
  if (offset.state == Offset::Known && size && offset.bytes >= 0 && offset.bytes + *size <= elemSize)
    return;
  report(op, SafetyRule::ElementBounds, [&](InFlightDiagnostic &diag) {
    if (offset.state == Offset::Known && size)
      diag << "this write of " << *size << " bytes at byte offset " << offset.bytes << " from " << what
           << " (" << elemSize
           << " bytes) lands outside it, in another thread's element or past the end; write only "
           << "through the pointer get_mut returns (no pointer arithmetic), or use tile_mut for several "
              "elements";
    else
      diag << "this write lands at an offset from " << what << " that Oxide cannot prove stays inside it ("
           << elemSize << " bytes); write only through the pointer get_mut returns, index members of the "
           << "element with constants, or use tile_mut for several elements";
  });
}

void TargetRule::checkParamWrite(Operation *op, Value kernelArg) {
  const std::string name = paramName(kernelArg);
  switch (paramKind(kernelArg)) {
  case ParamKind::input:
    report(op, SafetyRule::InputWrite, [&](InFlightDiagnostic &d) {
      d << "this write targets input '" << name
        << "', a read-only oxide::Span<const T> that other threads read at the same time: inputs are "
           "never written; write results through a DisjointSpan parameter";
    });
    return;
  case ParamKind::output:
  case ParamKind::output_2d:
  case ParamKind::output_3d:
    report(op, SafetyRule::OwnElement, [&](InFlightDiagnostic &d) {
      d << "this write targets output '" << name
        << "' at an element that was not obtained through its get_mut(witness) or tile_mut(witness), "
           "so another thread may write the same element; write only through the pointer get_mut "
           "returns for the calling thread's witness";
    });
    return;
  case ParamKind::append:
    report(op, SafetyRule::OwnElement, [&](InFlightDiagnostic &d) {
      d << "this write targets AppendSpan '" << name
        << "' (its elements or its counter) outside a slot the writing thread reserved; write through "
           "the pointer get_mut returns for a Reservation from reserve() (or use push)";
    });
    return;
  case ParamKind::permutation:
    report(op, SafetyRule::InputWrite, [&](InFlightDiagnostic &d) {
      d << "this write targets PermutationSpan '" << name
        << "', the index map that makes a scatter disjoint: kernels only read it (a permutation "
           "rewritten during the launch could send two threads to one element); write results "
           "through a DisjointSpan parameter";
    });
    return;
  case ParamKind::claims:
    report(op, SafetyRule::InputWrite, [&](InFlightDiagnostic &d) {
      d << "this write targets ClaimSet '" << name
        << "', the bits that give each element of a scatter to one thread: only claim_mut sets them (a bit "
           "cleared or set otherwise during the launch could give one element to two threads); write results "
           "through the pointer claim_mut returns";
    });
    return;
  case ParamKind::atomic:
    report(op, SafetyRule::AtomicOnly, [&](InFlightDiagnostic &d) {
      d << "this write targets AtomicSpan '" << name
        << "' without its atomic operations; use fetch_add, store, exchange or compare_exchange";
    });
    return;
  default:
    report(op, SafetyRule::StoreTarget, [&](InFlightDiagnostic &d) {
      d << "this write targets memory that parameter '" << name
        << "' points to, which the kernel may not write";
    });
  }
}
