//===- ScopedAtomics.cpp - atomicrmw with the scope it was given ----------===//

#include "oxide/compiler/ScopedAtomics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Scalar/InferAddressSpaces.h"

#include <optional>
#include <string>

using namespace llvm;

namespace {

/// The architecture a function is compiled for, from clang's `target-cpu` ("sm_90" -> 90); 0
/// when it does not say (then only what every architecture Oxide supports, sm_70 on, has).
unsigned smVersion(const Function &function) {
  StringRef cpu = function.getFnAttribute("target-cpu").getValueAsString();
  unsigned sm = 0;
  if (!cpu.consume_front("sm_") || cpu.consumeInteger(10, sm))
    return 0;
  return sm;
}

/// PTX's name for an LLVM sync scope, when it is not PTX's default `.gpu`.
std::optional<StringRef> ptxScope(const AtomicRMWInst &rmw, unsigned sm) {
  if (rmw.getSyncScopeID() == SyncScope::System)
    return StringRef(".sys");
  std::optional<StringRef> name = rmw.getContext().getSyncScopeName(rmw.getSyncScopeID());
  if (name == "block")
    return StringRef(".cta");
  if (name == "cluster" && sm >= 90)
    return StringRef(".cluster");
  return std::nullopt; // "device" is PTX's default; other scopes are left to the back end
}

std::optional<StringRef> ptxSpace(unsigned addressSpace, unsigned sm) {
  switch (addressSpace) {
  case 0:
    return StringRef();
  case 1:
    return StringRef(".global");
  case 3:
    return StringRef(".shared");
  case 7:
    if (sm >= 90)
      return StringRef(".shared::cluster");
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// The operation and type suffix of the `atom` for `rmw`, its operand's register constraint, and
/// whether the operand is negated first (sub is an add of the negation, as NVPTX does it).
struct AtomForm {
  std::string suffix;
  char constraint;
  bool negate = false;
};

std::optional<AtomForm> atomForm(const AtomicRMWInst &rmw, unsigned sm) {
  Type *type = rmw.getValOperand()->getType();
  const bool i32 = type->isIntegerTy(32), i64 = type->isIntegerTy(64);
  const StringRef bits = i64 || type->isDoubleTy() ? "64" : "32";
  const char wide = type->isFloatTy() ? 'f' : type->isDoubleTy() ? 'd' : i64 ? 'l' : 'r';
  using Op = AtomicRMWInst::BinOp;
  const Op op = rmw.getOperation();
  if (i32 || i64) {
    switch (op) {
    case Op::Add:
      return AtomForm{(".add.u" + bits).str(), wide};
    case Op::Sub:
      return AtomForm{(".add.u" + bits).str(), wide, /*negate=*/true};
    case Op::Xchg:
      return AtomForm{(".exch.b" + bits).str(), wide};
    case Op::And:
      return AtomForm{(".and.b" + bits).str(), wide};
    case Op::Or:
      return AtomForm{(".or.b" + bits).str(), wide};
    case Op::Xor:
      return AtomForm{(".xor.b" + bits).str(), wide};
    case Op::Max:
      return AtomForm{(".max.s" + bits).str(), wide};
    case Op::Min:
      return AtomForm{(".min.s" + bits).str(), wide};
    case Op::UMax:
      return AtomForm{(".max.u" + bits).str(), wide};
    case Op::UMin:
      return AtomForm{(".min.u" + bits).str(), wide};
    case Op::UIncWrap:
      return i32 ? std::optional(AtomForm{".inc.u32", wide}) : std::nullopt;
    case Op::UDecWrap:
      return i32 ? std::optional(AtomForm{".dec.u32", wide}) : std::nullopt;
    default:
      return std::nullopt;
    }
  }
  if (type->isFloatTy() || type->isDoubleTy()) {
    if (op == Op::FAdd)
      return AtomForm{(".add.f" + bits).str(), wide};
    if (op == Op::Xchg)
      return AtomForm{(".exch.b" + bits).str(), wide};
    return std::nullopt;
  }
  // 16-bit floats go through a 16-bit register ("h"), as their bits.
  if (op == Op::FAdd && type->isHalfTy() && sm >= 70)
    return AtomForm{".add.noftz.f16", 'h'};
  if (op == Op::FAdd && type->isBFloatTy() && sm >= 90)
    return AtomForm{".add.noftz.bf16", 'h'};
  return std::nullopt;
}

/// Replaces `rmw` by `atom.relaxed<scope><space><form>`; false when PTX has no such atom here.
bool rewrite(AtomicRMWInst &rmw, unsigned sm) {
  if (rmw.getOrdering() != AtomicOrdering::Monotonic || rmw.isVolatile())
    return false; // ordered ones became relaxed ones between fences (oxide-fence-ordered-atomics)
  const std::optional<StringRef> scope = ptxScope(rmw, sm);
  const std::optional<StringRef> space = ptxSpace(rmw.getPointerAddressSpace(), sm);
  const std::optional<AtomForm> form = atomForm(rmw, sm);
  if (!scope || !space || !form)
    return false;

  IRBuilder<> builder(&rmw);
  Value *value = rmw.getValOperand();
  Type *valueType = value->getType();
  Type *registerType = form->constraint == 'h' ? builder.getInt16Ty() : valueType;
  if (form->negate)
    value = builder.CreateNeg(value);
  if (registerType != valueType)
    value = builder.CreateBitCast(value, registerType);

  const DataLayout &layout = rmw.getModule()->getDataLayout();
  const char pointer = layout.getPointerSizeInBits(rmw.getPointerAddressSpace()) == 32 ? 'r' : 'l';
  const std::string text = ("atom.relaxed" + *scope + *space + form->suffix + " $0, [$1], $2;").str();
  // An integer constant operand stays an immediate, as the back end prints it.
  const char operand = isa<ConstantInt>(value) ? 'n' : form->constraint;
  const std::string constraints =
      std::string("=") + form->constraint + "," + pointer + "," + operand + ",~{memory}";
  auto *signature =
      FunctionType::get(registerType, {rmw.getPointerOperand()->getType(), registerType}, false);
  InlineAsm *atom = InlineAsm::get(signature, text, constraints, /*hasSideEffects=*/true);
  Value *old = builder.CreateCall(atom, {rmw.getPointerOperand(), value});
  if (registerType != valueType)
    old = builder.CreateBitCast(old, valueType);
  old->takeName(&rmw);
  rmw.replaceAllUsesWith(old);
  rmw.eraseFromParent();
  return true;
}

/// Gives the kernel's parameter pointers (pointer parameters, and pointers a kernel loads from a
/// parameter passed by value: a span's data) the global state space, as the back end's
/// NVPTXLowerArgs does later: InferAddressSpaces then carries it to the atomics they address.
void markParameterPointersGlobal(Function &kernel) {
  if (kernel.getCallingConv() != CallingConv::PTX_Kernel)
    return;
  SmallVector<Value *> pointers;
  for (Argument &argument : kernel.args()) {
    if (!argument.getType()->isPointerTy() || argument.getType()->getPointerAddressSpace() != 0)
      continue;
    if (!argument.hasByValAttr()) {
      pointers.push_back(&argument);
      continue;
    }
    for (User *user : argument.users())
      if (auto *load = dyn_cast<LoadInst>(user);
          load && load->getType()->isPointerTy() && load->getType()->getPointerAddressSpace() == 0)
        pointers.push_back(load);
  }
  for (Value *pointer : pointers) {
    IRBuilder<> builder(kernel.getContext());
    if (auto *load = dyn_cast<LoadInst>(pointer))
      builder.SetInsertPoint(load->getNextNode());
    else
      builder.SetInsertPoint(kernel.getEntryBlock().getFirstInsertionPt());
    Value *global = builder.CreateAddrSpaceCast(pointer, builder.getPtrTy(1));
    Value *generic = builder.CreateAddrSpaceCast(global, pointer->getType());
    pointer->replaceUsesWithIf(generic, [&](Use &use) { return use.getUser() != global; });
  }
}

} // namespace

PreservedAnalyses oxide::ScopedAtomicsPass::run(Function &function, FunctionAnalysisManager &) {
  SmallVector<AtomicRMWInst *> atomics;
  for (Instruction &inst : instructions(function))
    if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst))
      atomics.push_back(rmw);
  const unsigned sm = smVersion(function);
  bool changed = false;
  for (AtomicRMWInst *rmw : atomics)
    changed |= rewrite(*rmw, sm);
  if (!changed)
    return PreservedAnalyses::all();
  PreservedAnalyses preserved;
  preserved.preserveSet<CFGAnalyses>();
  return preserved;
}

void oxide::scopeAtomics(Module &module, TargetMachine &target) {
  PassBuilder builder(&target);
  FunctionAnalysisManager analyses;
  builder.registerFunctionAnalyses(analyses);
  FunctionPassManager passes;
  passes.addPass(InferAddressSpacesPass());
  passes.addPass(ScopedAtomicsPass());
  for (Function &function : module) {
    const unsigned sm = smVersion(function);
    if (any_of(instructions(function), [&](const Instruction &inst) {
          auto *rmw = dyn_cast<AtomicRMWInst>(&inst);
          return rmw && ptxScope(*rmw, sm);
        })) {
      markParameterPointersGlobal(function);
      passes.run(function, analyses);
    }
  }
}
