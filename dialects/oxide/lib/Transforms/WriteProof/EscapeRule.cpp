//===- EscapeRule.cpp - pointers that must stay in their thread -----------===//
//
// A pointer to the thread's own element, and a block of the device heap, belong to one thread:
// they are not stored to memory (other than the thread's stack, for a heap block), converted to
// integers or passed to code Oxide cannot check. free() takes only the block malloc returned,
// and nothing of the block is used after it.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// The malloc call whose result `value` is, looking through casts; null when it is any other
/// address (or several blocks).
LLVM::CallOp mallocOf(Value value, unsigned depth = 0) {
  if (depth > 8)
    return {};
  if (auto call = value.getDefiningOp<LLVM::CallOp>())
    return call.getCallee() == "malloc" ? call : LLVM::CallOp();
  if (auto cast = value.getDefiningOp<LLVM::AddrSpaceCastOp>())
    return mallocOf(cast.getArg(), depth + 1);
  if (auto cast = value.getDefiningOp<LLVM::BitcastOp>())
    return mallocOf(cast.getArg(), depth + 1);
  return {};
}

bool isCallTo(Operation *op, llvm::StringRef name) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  return call && call.getCallee() == name;
}

} // namespace

void EscapeRule::checkEscape(Operation *op, Value value, llvm::StringRef how) {
  checkHeapEscape(op, value, how);
  for (const Root &root : rootsOf(value))
    if (root.kind == RootKind::Element &&
        isa<oxide::DisjointGetOp, oxide::OwnedElemOp, oxide::ReservedElemOp, oxide::PermutedElemOp,
            oxide::ClaimedElemOp>(root.source.getDefiningOp())) {
      report(op, SafetyRule::PointerEscape, [&](InFlightDiagnostic &d) {
        d << "the pointer to the thread's own element of output " << outputName(root.source.getDefiningOp())
          << " escapes: it is " << how
          << ", and another thread or later code could write through it; use the pointer only to "
             "read and write that element";
      });
      return;
    }
}

/// A heap block belongs to the thread that allocated it: its address stays in that thread's
/// registers and private memory, so no other thread can write it or free it.
void EscapeRule::checkHeapEscape(Operation *op, Value value, llvm::StringRef how) {
  const bool heap = llvm::any_of(rootsOf(value), [](const Root &r) { return r.kind == RootKind::Heap; });
  if (!heap)
    return;
  if (auto store = dyn_cast<LLVM::StoreOp>(op);
      store && !rootsOf(store.getAddr()).empty() && llvm::all_of(rootsOf(store.getAddr()), [](const Root &r) {
        return r.kind == RootKind::Private && r.source.getDefiningOp<LLVM::AllocaOp>();
      }))
    return; // into the thread's own stack
  report(op, SafetyRule::DeviceHeap, [&](InFlightDiagnostic &d) {
    d << "the address of a block from malloc or new escapes: it is " << how
      << ", and another thread could then write the block or free it while its owner uses it; keep "
         "the pointer in the thread that allocated it";
  });
}

void EscapeRule::checkFree(LLVM::CallOp call, Value pointer) {
  LLVM::CallOp block = mallocOf(pointer);
  if (!block) {
    if (llvm::all_of(rootsOf(pointer), [](const Root &r) { return r.kind == RootKind::Null; }))
      return; // free(nullptr) does nothing
    report(call, SafetyRule::DeviceHeap, [&](InFlightDiagnostic &d) {
      d << "free() takes only a pointer that malloc returned in the same function, unchanged; this one "
        << (llvm::any_of(rootsOf(pointer), [](const Root &r) { return r.kind == RootKind::Heap; })
                ? "points into a block at an offset, or comes from another function"
                : "does not point to a block of the device heap (an input, an output or a local)")
        << "; free the pointer malloc returned, where it returned it";
    });
    return;
  }
  for (Operation *use : usesAfterFree(call, block))
    report(use, SafetyRule::DeviceHeap, [&](InFlightDiagnostic &d) {
      d << "this uses a block from malloc after free() released it"
        << (isCallTo(use, "free") ? " (a second free)" : "")
        << ": the heap may already have given it to another thread; use the block before freeing it";
    });
}

/// The first use of the block `block` allocated on each path from free() `call`: any value
/// derived from the freed block counts (its roots). Once malloc runs again on a path, values it
/// dominates are the new block's; an older one (kept from before, through a phi) is still the
/// freed one. A block is freed where it was allocated, so the search is within a function.
SmallVector<Operation *> EscapeRule::usesAfterFree(LLVM::CallOp call, LLVM::CallOp block) {
  DominanceInfo dominance(call->getParentOfType<LLVMFuncOp>());
  const Value blockValue = block.getResult();
  SmallVector<std::pair<Operation *, bool>> work; // (first op, malloc ran again on the path)
  llvm::SmallPtrSet<Block *, 16> seenBlocks[2];   // by whether malloc ran again
  auto usesBlock = [&](Operation *op, bool reallocated) {
    if (op == call)
      return false;
    for (Value operand : op->getOperands()) {
      if (!holdsPointers(operand.getType()) || !llvm::any_of(rootsOf(operand), [&](const Root &r) {
            return r.kind == RootKind::Heap && r.source == blockValue;
          }))
        continue;
      if (!reallocated || !dominance.properlyDominates(blockValue, op))
        return true;
    }
    return false;
  };
  auto scanFrom = [&](Operation *first, bool reallocated) -> Operation * {
    for (Operation *op = first; op; op = op->getNextNode()) {
      if (op == block)
        reallocated = true;
      else if (usesBlock(op, reallocated))
        return op;
      if (op->hasTrait<mlir::OpTrait::IsTerminator>())
        for (Block *succ : op->getSuccessors())
          if (seenBlocks[reallocated].insert(succ).second)
            work.push_back({&succ->front(), reallocated});
    }
    return nullptr;
  };
  SmallVector<Operation *> uses;
  work.push_back({call->getNextNode(), false});
  while (!work.empty()) {
    auto [first, reallocated] = work.pop_back_val();
    if (Operation *use = first ? scanFrom(first, reallocated) : nullptr)
      uses.push_back(use);
  }
  return uses;
}
