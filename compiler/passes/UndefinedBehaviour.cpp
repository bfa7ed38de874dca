//===- UndefinedBehaviour.cpp - no guard may fall to the user's UB --------===//
//
// See UndefinedBehaviour.h. What each family of undefined behaviour becomes is listed in
// docs/safety.md ("Soundness after optimisation"); a test for each is in tests/lit/soundness.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/UndefinedBehaviour.h"
#include "oxide/compiler/OptimisedCodeError.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/AttributeMask.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using oxide::UndefinedBehaviourHint;
using oxide::UndefinedBehaviourStage;

namespace {

constexpr StringLiteral kMustProgress = "llvm.loop.mustprogress";

/// What a parameter, a return value or a call site may promise that the code does not keep.
AttributeMask valuePromises() {
  AttributeMask mask;
  for (Attribute::AttrKind kind : {Attribute::NonNull, Attribute::Dereferenceable,
                                   Attribute::DereferenceableOrNull, Attribute::Range, Attribute::NoFPClass})
    mask.addAttribute(kind);
  return mask;
}

/// What a function or a call may promise of itself; FunctionAttrs infers these again from the
/// bodies wherever they hold.
AttributeMask functionPromises(UndefinedBehaviourStage stage) {
  AttributeMask mask;
  mask.addAttribute(Attribute::NoReturn);
  mask.addAttribute(Attribute::MustProgress);
  if (stage == UndefinedBehaviourStage::UserCode)
    for (Attribute::AttrKind kind : {Attribute::WillReturn, Attribute::Memory, Attribute::Speculatable,
                                     Attribute::NoFree, Attribute::NoSync})
      mask.addAttribute(kind);
  return mask;
}

bool isTrap(const Instruction *inst) {
  const auto *call = dyn_cast_or_null<IntrinsicInst>(inst);
  return call &&
         (call->getIntrinsicID() == Intrinsic::trap || call->getIntrinsicID() == Intrinsic::ubsantrap);
}

/// The loop ID `loop` without its llvm.loop.mustprogress property, or `loop` when it has none.
MDNode *withoutMustProgress(MDNode *loop) {
  SmallVector<Metadata *> kept{nullptr};
  bool found = false;
  for (const MDOperand &op : llvm::drop_begin(loop->operands())) {
    const auto *node = dyn_cast<MDNode>(op.get());
    const auto *name = node && node->getNumOperands() ? dyn_cast<MDString>(node->getOperand(0)) : nullptr;
    if (name && name->getString() == kMustProgress) {
      found = true;
      continue;
    }
    kept.push_back(op.get());
  }
  if (!found)
    return loop;
  MDNode *result = MDNode::getDistinct(loop->getContext(), kept);
  result->replaceOperandWith(0, result);
  return result;
}

bool hasMustProgress(const MDNode *loop) {
  for (const MDOperand &op : llvm::drop_begin(loop->operands()))
    if (const auto *node = dyn_cast<MDNode>(op.get()); node && node->getNumOperands())
      if (const auto *name = dyn_cast<MDString>(node->getOperand(0));
          name && name->getString() == kMustProgress)
        return true;
  return false;
}

void stripPromises(CallBase &call, const AttributeMask &values, const AttributeMask &self) {
  call.removeFnAttrs(self);
  call.removeRetAttrs(values);
  for (unsigned i = 0; i < call.arg_size(); ++i) {
    AttributeMask mask = valuePromises();
    if (!call.isByValArgument(i))
      mask.addAttribute(Attribute::Alignment);
    call.removeParamAttrs(i, mask);
  }
}

void defineFunction(Function &function, UndefinedBehaviourStage stage) {
  if (function.isIntrinsic())
    return;
  const bool user = stage == UndefinedBehaviourStage::UserCode;
  const AttributeMask self = functionPromises(stage);
  const AttributeMask values = valuePromises();
  function.removeFnAttrs(self);
  if (user) {
    function.removeRetAttrs(values);
    AttributeMask retAlign;
    retAlign.addAttribute(Attribute::Alignment);
    function.removeRetAttrs(retAlign);
    for (Argument &arg : function.args()) {
      AttributeMask mask = valuePromises();
      if (!arg.hasByValAttr())
        mask.addAttribute(Attribute::Alignment);
      function.removeParamAttrs(arg.getArgNo(), mask);
    }
  }
  if (function.isDeclaration())
    return;

  SmallVector<Instruction *> assumptions, unreachables;
  for (Instruction &inst : instructions(function)) {
    if (auto *call = dyn_cast<CallBase>(&inst)) {
      if (auto *intrinsic = dyn_cast<IntrinsicInst>(call)) {
        if (user && intrinsic->getIntrinsicID() == Intrinsic::assume)
          assumptions.push_back(intrinsic);
        continue;
      }
      if (user)
        stripPromises(*call, values, self);
      else
        call->removeFnAttrs(self);
    } else if (isa<UnreachableInst>(inst)) {
      if (!isTrap(inst.getPrevNode()))
        unreachables.push_back(&inst);
    } else if (user && isa<LoadInst>(inst)) {
      for (unsigned kind :
           {LLVMContext::MD_nonnull, LLVMContext::MD_range, LLVMContext::MD_noundef, LLVMContext::MD_align,
            LLVMContext::MD_dereferenceable, LLVMContext::MD_dereferenceable_or_null})
        inst.setMetadata(kind, nullptr);
    } else if (auto *gep = dyn_cast<GetElementPtrInst>(&inst); gep && user) {
      // ScalarEvolution bounds a loop's trip count by the local arrays it indexes in bounds.
      if (isa<AllocaInst>(getUnderlyingObject(gep->getPointerOperand())))
        gep->setNoWrapFlags(GEPNoWrapFlags::none());
    }
    if (MDNode *loop = inst.getMetadata(LLVMContext::MD_loop))
      inst.setMetadata(LLVMContext::MD_loop, withoutMustProgress(loop));
  }
  for (Instruction *assume : assumptions)
    assume->eraseFromParent();
  for (Instruction *unreachable : unreachables) {
    IRBuilder<> builder(unreachable);
    builder.CreateIntrinsic(Intrinsic::trap, {});
  }
}

/// Functions of libdevice, linked after the MLIR stage: code of NVIDIA's, not the user's.
bool isLibdevice(const Function &function) {
  return function.getName().starts_with("__nv_") || function.getName().starts_with("__internal_");
}

/// Whether `unreachable` follows a call that cannot return, or is the default of a switch that
/// LLVM proved covers every value: neither comes from undefined behaviour.
bool reachedDefinedly(const UnreachableInst &unreachable) {
  if (const auto *call = dyn_cast_or_null<CallBase>(unreachable.getPrevNode()))
    return call->doesNotReturn();
  const BasicBlock *block = unreachable.getParent();
  if (&block->front() != &unreachable)
    return false;
  for (const BasicBlock *pred : predecessors(block)) {
    const auto *sw = dyn_cast<SwitchInst>(pred->getTerminator());
    if (!sw || sw->getDefaultDest() != block)
      return false;
    for (const auto &c : sw->cases())
      if (c.getCaseSuccessor() == block)
        return false;
  }
  return !pred_empty(block);
}

std::string demangled(const Function &function) { return llvm::demangle(function.getName().str()); }

} // namespace

void oxide::defineUndefinedBehaviour(Module &module, UndefinedBehaviourStage stage) {
  for (Function &function : module)
    defineFunction(function, stage);
}

std::vector<UndefinedBehaviourHint> oxide::findUndefinedBehaviourHints(const Module &module) {
  std::vector<UndefinedBehaviourHint> hints;
  for (const Function &function : module) {
    if (function.isDeclaration() || isLibdevice(function))
      continue;
    const std::string name = demangled(function);
    // FunctionAttrs infers mustprogress with willreturn, which it proves of loop-free bodies.
    if (function.hasFnAttribute(Attribute::MustProgress) && !function.hasFnAttribute(Attribute::WillReturn))
      hints.push_back({nullptr, name, "the function is assumed to make progress (mustprogress)"});
    for (const Instruction &inst : instructions(function)) {
      if (const auto *unreachable = dyn_cast<UnreachableInst>(&inst);
          unreachable && !reachedDefinedly(*unreachable))
        hints.push_back({&inst, name, "code marked unreachable that does not trap"});
      else if (const MDNode *loop = inst.getMetadata(LLVMContext::MD_loop); loop && hasMustProgress(loop))
        hints.push_back({&inst, name, "a loop assumed to terminate (llvm.loop.mustprogress)"});
    }
  }
  return hints;
}

namespace {
/// What a hint says, without where.
std::string describe(const UndefinedBehaviourHint &hint) {
  return "the optimised device code of '" + hint.function + "' still holds " + hint.what +
         ", from which the optimiser could remove a safety guard; this is a defect of Oxide's compiler, "
         "please report it with this file [safety rule: optimised-guard]";
}
} // namespace

void oxide::printUndefinedBehaviourHints(ArrayRef<UndefinedBehaviourHint> hints, raw_ostream &os) {
  for (const UndefinedBehaviourHint &hint : hints) {
    printOptimisedCodeError(hint.at, describe(hint), os);
  }
}

PreservedAnalyses oxide::DefineUndefinedBehaviourPass::run(Function &function, FunctionAnalysisManager &) {
  defineFunction(function, UndefinedBehaviourStage::UserCode);
  return PreservedAnalyses::none();
}

PreservedAnalyses oxide::AuditUndefinedBehaviourPass::run(Function &function, FunctionAnalysisManager &) {
  // The module-wide audit, reduced to this function's findings.
  for (const UndefinedBehaviourHint &hint : findUndefinedBehaviourHints(*function.getParent())) {
    if (hint.function != demangled(function))
      continue;
    const std::string text = describe(hint);
    function.getContext().diagnose(DiagnosticInfoGeneric(text, DS_Warning));
  }
  return PreservedAnalyses::all();
}
