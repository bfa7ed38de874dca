//===- WriteProof.cpp - every write of a contracted kernel, proven --------===//
//
// Builds the facts (CheckedCode, PointerRoots, PointerOffsets, Bounds), then walks every checked
// function once and hands each op to the rule that covers it: LLVM's memory operations to
// TargetRule and EscapeRule, calls and intrinsics to CallRule, element ops to OwnershipRule,
// the other oxide ops to what they state through OxideMemoryAccessOpInterface (AccessRule),
// and ops of other dialects to their declared write effects. Then the whole-kernel rules: one
// shape per output, and reads of the globals a kernel updates.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// Checks the writes an op of a dialect Oxide does not know declares (MemoryEffectOpInterface).
void checkDeclaredWrites(ProofState &state, Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const MemoryEffects::EffectInstance &effect : list) {
    if (!isa<MemoryEffects::Write>(effect.getEffect()))
      continue;
    Value target = effect.getValue();
    if (!target || !isa<LLVM::LLVMPointerType>(target.getType()))
      continue;
    for (OpOperand &operand : op->getOpOperands())
      if (operand.get() == target) {
        TargetRule(state).checkWrite(op, operand.getOperandNumber(), std::nullopt, false);
        break;
      }
  }
}

/// Hands `op` to the rule that covers it.
void check(ProofState &state, Operation *op) {
  TargetRule target(state);
  EscapeRule escape(state);
  llvm::TypeSwitch<Operation *, void>(op)
      .Case<LLVM::StoreOp>([&](LLVM::StoreOp store) {
        escape.checkEscape(op, store.getValue(), "stored to memory");
        target.checkWrite(op, 1, state.code.sizeOf(store.getValue().getType()),
                          store.getOrdering() != LLVM::AtomicOrdering::not_atomic);
      })
      .Case<LLVM::AtomicRMWOp>([&](LLVM::AtomicRMWOp rmw) {
        escape.checkEscape(op, rmw.getVal(), "stored to memory");
        target.checkWrite(op, 0, state.code.sizeOf(rmw.getVal().getType()), true);
      })
      .Case<LLVM::AtomicCmpXchgOp>([&](LLVM::AtomicCmpXchgOp cas) {
        escape.checkEscape(op, cas.getVal(), "stored to memory");
        target.checkWrite(op, 0, state.code.sizeOf(cas.getVal().getType()), true);
      })
      .Case<LLVM::MemcpyOp, LLVM::MemmoveOp, LLVM::MemsetOp>(
          [&](auto mem) { target.checkWrite(op, 0, constantLength(mem.getLen()), false); })
      .Case<LLVM::MemcpyInlineOp, LLVM::MemsetInlineOp>(
          [&](auto mem) { target.checkWrite(op, 0, mem.getLen().getSExtValue(), false); })
      .Case<LLVM::PtrToIntOp>(
          [&](LLVM::PtrToIntOp cast) { escape.checkEscape(op, cast.getArg(), "converted to an integer"); })
      .Case<LLVM::CallOp>([&](LLVM::CallOp call) { CallRule(state).checkCall(call); })
      .Case<LLVM::InlineAsmOp>([&](LLVM::InlineAsmOp asmOp) { CallRule(state).checkInlineAsm(asmOp); })
      .Case<LLVM::CallIntrinsicOp>([&](LLVM::CallIntrinsicOp call) { CallRule(state).checkIntrinsic(call); })
      .Default([&](Operation *) {
        if (OwnershipRule(state).check(op))
          return;
        // An operation of the oxide dialect, or one no dialect registered: by what it states.
        if ((op->getDialect() && isa<oxide::OxideDialect>(op->getDialect())) || !op->isRegistered()) {
          AccessRule(state).check(op);
          return;
        }
        checkDeclaredWrites(state, op);
      });
}

} // namespace

oxide::WriteProof::WriteProof(Operation *op) {
  auto module = cast<ModuleOp>(op);
  SmallVector<LLVMFuncOp> contracted = contractedKernels(module);
  if (contracted.empty())
    return;
  ProofState state(module, contracted);
  for (LLVMFuncOp fn : state.code.checked)
    fn.walk([&](Operation *op) { check(state, op); });
  OwnershipRule(state).checkTileShapes();
  GlobalReadRule(state).check();
  anyFailed = state.reporter.failed();
  if (anyFailed)
    return;
  confine = std::move(state.confinements);
  for (LLVMFuncOp kernel : contracted) {
    ElementSizes &record = sizes.emplace_back(ElementSizes{kernel, {}});
    for (BlockArgument arg : kernel.getArguments()) {
      auto it = state.elementSizes.find(arg);
      record.sizes.push_back(it == state.elementSizes.end() ? 0 : it->second.first);
    }
  }
}
