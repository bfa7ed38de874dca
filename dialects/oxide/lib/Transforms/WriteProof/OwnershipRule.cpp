//===- OwnershipRule.cpp - where elements come from, and their shapes -----===//
//
// An element op names an element of one of the kernel's own span parameters of the right
// kind, through that parameter's fields (data pointer and extents), which the runtime binds
// and checks for overlap (span-origin); threads own one output's elements by one shape
// (own-element); device code names one span parameter's elements with one size, which the
// device image records for the runtime to compare with the span's sizeof(T).
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/IR/UserLocation.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// Byte offsets of the fields of oxide's span types: the data pointer, then the extents (size, or
/// width, height[, depth]); defined by the catalog, which span.hpp checks its classes against.
constexpr int64_t kSpanDataOffset = oxide::detail::kSpanDataOffset;
constexpr int64_t kSpanExtentStride = oxide::detail::kSpanExtentStride;
static_assert(oxide::detail::kSpanExtentOffset ==
                  oxide::detail::kSpanDataOffset + oxide::detail::kSpanExtentStride,
              "the extents follow the data pointer: extent d is at data + stride * (d + 1)");

using Field = std::optional<std::pair<Value, int64_t>>;

/// Whether `data` and `size` are the data pointer and size of one parameter.
bool areSpanFields(const Field &data, const Field &size) {
  return data && data->second == kSpanDataOffset && size && size->first == data->first &&
         size->second == kSpanDataOffset + kSpanExtentStride;
}

/// What a pair's distance is, for comparing two pairs: a constant's value, a kernel
/// parameter's position, or the value itself.
std::string uniformKey(Value value) {
  while (isa_and_nonnull<LLVM::ZExtOp, LLVM::SExtOp>(value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return "distance " + std::to_string(constant.getZExtValue());
  if (auto arg = dyn_cast<BlockArgument>(value); arg && arg.getOwner()->isEntryBlock())
    return "the distance of kernel parameter " + std::to_string(arg.getArgNumber() + 1);
  return "a distance computed at " +
         std::to_string(reinterpret_cast<std::uintptr_t>(value.getAsOpaquePointer()));
}

} // namespace

bool OwnershipRule::check(Operation *op) {
  if (auto get = dyn_cast<oxide::DisjointGetOp>(op))
    checkSpanOrigin(get);
  else if (auto owned = dyn_cast<oxide::OwnedElemOp>(op))
    checkSpanOrigin(owned);
  else if (auto slot = dyn_cast<oxide::ReservedElemOp>(op))
    checkReservedSlot(slot);
  else if (auto permuted = dyn_cast<oxide::PermutedElemOp>(op))
    checkPermutedElem(permuted);
  else if (auto claimed = dyn_cast<oxide::ClaimedElemOp>(op))
    checkClaimedElem(claimed);
  else if (auto elem = dyn_cast<oxide::SpanElemOp>(op)) {
    if (auto data = paramField(elem.getData()); data && data->second == kSpanDataOffset)
      recordElementSize(elem, data->first, elem.getElemSize());
  } else
    return false;
  return true;
}

/// A DisjointSpan element comes from a DisjointSpan parameter: its data and extents are that
/// parameter's fields, so the runtime's binding and overlap checks hold for it.
template <class ElementOp> void OwnershipRule::checkSpanOrigin(ElementOp get) {
  const unsigned rank = get.getExtents().size();
  const ParamKind expected = rank == 1   ? ParamKind::output
                             : rank == 2 ? ParamKind::output_2d
                                         : ParamKind::output_3d;
  auto data = paramField(get.getData());
  bool ok = data && data->second == kSpanDataOffset && paramKind(data->first) == expected;
  for (auto [d, extent] : llvm::enumerate(get.getExtents())) {
    if (!ok)
      break;
    auto field = paramField(extent);
    ok = field && field->first == data->first &&
         field->second == kSpanDataOffset + kSpanExtentStride * static_cast<int64_t>(d + 1);
  }
  if (ok) {
    state.shapes[data->first].push_back(get.getOperation());
    recordElementSize(get, data->first, get.getElemSize());
    return;
  }
  report(get, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &diag) {
    diag << "this DisjointSpan is not a DisjointSpan parameter of kernel '" << kernelName(get) << "'";
    for (const Root &root : rootsOf(get.getData()))
      if (root.kind == RootKind::Param) {
        diag << ": its memory is parameter '" << paramName(root.source) << "'";
        break;
      }
    diag << "; outputs come only from the kernel's own DisjointSpan parameters, which the runtime binds and "
            "checks for overlap (never make spans yourself, and pass the span, not its parts)";
  });
}

/// A slot is one a reservation of this thread returned: `start` is that reservation's result
/// (not a value kept in memory or computed from it), for the same count and the same span.
void OwnershipRule::checkReservedSlot(oxide::ReservedElemOp slot) {
  Field data = paramField(slot.getData());
  const bool ok =
      areSpanFields(data, paramField(slot.getSize())) && paramKind(data->first) == ParamKind::append;
  auto reserve = slot.getStart().getDefiningOp<oxide::ReserveOp>();
  if (ok && reserve) {
    auto counter = paramField(reserve.getCounter());
    APInt reserved, named;
    const bool sameCount = reserve.getCount() == slot.getCount() ||
                           (matchPattern(reserve.getCount(), m_ConstantInt(&reserved)) &&
                            matchPattern(slot.getCount(), m_ConstantInt(&named)) && reserved == named);
    if (counter && counter->first == data->first && sameCount) {
      recordElementSize(slot, data->first, slot.getElemSize());
      return;
    }
  }
  report(slot, SafetyRule::OwnElement, [&](InFlightDiagnostic &d) {
    if (!ok)
      d << "this slot is not in an AppendSpan parameter of kernel '" << kernelName(slot)
        << "'; append only through the kernel's own AppendSpan parameters";
    else
      d << "this slot of AppendSpan '" << paramName(data->first)
        << "' does not come straight from a reserve() of the writing thread (a reservation handed over "
           "through memory, or an offset computed from one, could give one slot to two threads); call "
           "reserve() in the thread that writes, and write through its Reservation";
  });
}

/// A scatter names element perm[i] of a DisjointSpan parameter through a PermutationSpan
/// parameter: the runtime bound both (the permutation checked on the host, in memory no kernel
/// writes), so with the witness i (VerifySafety) different threads get different elements.
void OwnershipRule::checkPermutedElem(oxide::PermutedElemOp permuted) {
  Field data = paramField(permuted.getData());
  const bool output =
      areSpanFields(data, paramField(permuted.getSize())) && paramKind(data->first) == ParamKind::output;
  Field perm = paramField(permuted.getPerm());
  const bool permutation = areSpanFields(perm, paramField(permuted.getPermSize())) &&
                           paramKind(perm->first) == ParamKind::permutation;
  if (output && permutation) {
    state.shapes[data->first].push_back(permuted.getOperation());
    recordElementSize(permuted, data->first, permuted.getElemSize());
    recordElementSize(permuted, perm->first, sizeof(std::uint32_t));
    return;
  }
  report(permuted, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
    if (!output) {
      d << "this scatter's output is not a DisjointSpan parameter of kernel '" << kernelName(permuted)
        << "'; scatter only into the kernel's own DisjointSpan parameters, which the runtime binds and "
           "checks for overlap";
      return;
    }
    d << "this scatter's permutation is not a PermutationSpan parameter of kernel '" << kernelName(permuted)
      << "'";
    for (const Root &root : rootsOf(permuted.getPerm()))
      if (root.kind == RootKind::Param) {
        d << ": its indices are parameter '" << paramName(root.source) << "'";
        break;
      }
    d << "; only a PermutationSpan parameter, bound from an oxide::Permutation the host checked, "
         "makes a scatter disjoint (never make one from other memory)";
  });
}

/// A claim names element j of a DisjointSpan parameter and sets its bit in a ClaimSet parameter:
/// the runtime bound both, the bits start the launch clear and only claims set them, so the one
/// thread that finds a bit clear is the only one given the element, whatever j is.
void OwnershipRule::checkClaimedElem(oxide::ClaimedElemOp claimed) {
  Field data = paramField(claimed.getData());
  const bool output =
      areSpanFields(data, paramField(claimed.getSize())) && paramKind(data->first) == ParamKind::output;
  Field claims = paramField(claimed.getClaims());
  const bool claimSet = areSpanFields(claims, paramField(claimed.getClaimsSize())) &&
                        paramKind(claims->first) == ParamKind::claims;
  if (output && claimSet) {
    state.shapes[data->first].push_back(claimed.getOperation());
    recordElementSize(claimed, data->first, claimed.getElemSize());
    recordElementSize(claimed, claims->first, sizeof(std::uint32_t));
    return;
  }
  report(claimed, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
    if (!output) {
      d << "this claim's output is not a DisjointSpan parameter of kernel '" << kernelName(claimed)
        << "'; claim only elements of the kernel's own DisjointSpan parameters, which the runtime binds and "
           "checks for overlap";
      return;
    }
    d << "this claim's bits are not a ClaimSet parameter of kernel '" << kernelName(claimed) << "'";
    for (const Root &root : rootsOf(claimed.getClaims()))
      if (root.kind == RootKind::Param) {
        d << ": they are parameter '" << paramName(root.source) << "'";
        break;
      }
    d << "; only a ClaimSet parameter, bound from an oxide::Claims whose bits start every launch clear, "
         "gives each element to one thread (never make one from other memory)";
  });
}

/// The element size device code names a span parameter's elements with: one per parameter,
/// which the runtime compares with the span's sizeof(T) at prepare (a span reinterpreted as
/// another element type would index past its end).
void OwnershipRule::recordElementSize(Operation *op, Value param, int64_t size) {
  auto [it, inserted] = state.elementSizes.try_emplace(param, size, op);
  if (inserted || it->second.first == size)
    return;
  report(op, SafetyRule::SpanOrigin, [&](InFlightDiagnostic &d) {
    d << "the elements of parameter '" << paramName(param) << "' are named here as " << size
      << "-byte elements but elsewhere as " << it->second.first
      << "-byte elements: the span is reinterpreted as another element type; use the span's own type";
    d.attachNote(oxide::userLocation(it->second.second->getLoc())) << "the other element size is used here";
  });
}

/// How the threads of `op` (an oxide.disjoint_get, oxide.owned_elem, oxide.permuted_elem or
/// oxide.claimed_elem) own
/// the output's elements, in words: two element ops give each thread the same set only if these
/// are equal.
std::string OwnershipRule::shapeOf(Operation *op) const {
  if (auto permuted = dyn_cast<oxide::PermutedElemOp>(op)) {
    auto perm = paramField(permuted.getPerm());
    return "elements permuted by parameter '" + (perm ? paramName(perm->first) : std::string("?")) +
           "' (scatter_mut)";
  }
  if (auto claimed = dyn_cast<oxide::ClaimedElemOp>(op)) {
    auto claims = paramField(claimed.getClaims());
    return "elements claimed through parameter '" + (claims ? paramName(claims->first) : std::string("?")) +
           "' (claim_mut)";
  }
  if (auto get = dyn_cast<oxide::DisjointGetOp>(op)) {
    if (get.getTile() == 1 && get.getTileRows() == 1)
      return "single elements (get_mut)";
    return "tiles of " + std::to_string(get.getTileRows()) + " x " + std::to_string(get.getTile()) +
           " elements (tile_mut)";
  }
  auto owned = cast<oxide::OwnedElemOp>(op);
  std::string text = oxide::stringifyOwnership(owned.getShape()).str() + " sets";
  if (owned.getCount() != 1)
    text += " of " + std::to_string(owned.getCount());
  if (owned.getUniform())
    text += " at " + uniformKey(owned.getUniform());
  if (auto tile = owned.warpgroupTile())
    text += " of " + std::to_string(64 * tile->consumers) + " x " + std::to_string(tile->n) +
            " (warpgroups " + std::to_string(tile->first) + ".." +
            std::to_string(tile->first + tile->consumers - 1) + ", groups of " + std::to_string(tile->group) +
            " tile rows)";
  return text;
}

/// Threads own an output's elements by one shape: single elements, tiles of one size, or one
/// ownership set. Two shapes on one output would give one element to two threads (element 1 of
/// thread 1, and element 1 of thread 0's tile of 2; a warp's row and a thread's element).
void OwnershipRule::checkTileShapes() {
  for (auto &[param, ops] : state.shapes) {
    Operation *first = ops.front();
    const std::string firstShape = shapeOf(first);
    for (Operation *op : ops) {
      const std::string shape = shapeOf(op);
      if (shape == firstShape)
        continue;
      report(op, SafetyRule::OwnElement, [&](InFlightDiagnostic &d) {
        d << "output '" << paramName(param) << "' is written here as " << shape << " but elsewhere as "
          << firstShape << ": the threads' elements would overlap; use one shape for each output";
        d.attachNote(oxide::userLocation(first->getLoc())) << "the other shape is used here";
      });
      break;
    }
  }
}
