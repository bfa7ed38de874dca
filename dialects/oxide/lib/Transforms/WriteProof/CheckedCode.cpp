//===- CheckedCode.cpp - the functions the write proof covers -------------===//
//
// The contracted kernels, every function they reach (through direct calls, and through
// pointers to any function whose address the module takes), who calls each, and what each
// kernel parameter is (#oxide.kernel).
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"

#include "mlir/IR/Matchers.h"
#include "llvm/Demangle/Demangle.h"

using namespace mlir;
using namespace oxide::writeproof;

bool oxide::writeproof::holdsPointers(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return true;
  if (auto s = dyn_cast<LLVM::LLVMStructType>(type))
    return llvm::any_of(s.getBody(), holdsPointers);
  if (auto a = dyn_cast<LLVM::LLVMArrayType>(type))
    return holdsPointers(a.getElementType());
  if (auto v = dyn_cast<VectorType>(type))
    return holdsPointers(v.getElementType());
  return false;
}

unsigned oxide::writeproof::addressSpace(Value pointer) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(pointer.getType());
  return type ? type.getAddressSpace() : kGeneric;
}

bool oxide::writeproof::isByval(BlockArgument arg) {
  auto fn = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
  return fn && fn.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getByValAttrName());
}

std::optional<int64_t> oxide::writeproof::constantLength(Value length) {
  APInt value;
  if (matchPattern(length, m_ConstantInt(&value)) && value.getActiveBits() < 63)
    return value.getSExtValue();
  return std::nullopt;
}

namespace {

/// The parameters of `kernel`, from its #oxide.kernel.
std::vector<ParamInfo> kernelParams(LLVMFuncOp kernel) {
  std::vector<ParamInfo> params;
  if (oxide::KernelAttr attr = oxide::getKernelAttr(kernel))
    for (auto [name, kind] : llvm::zip_equal(attr.getParamNames(), attr.getParamKinds()))
      params.push_back({name.str(), kind});
  return params;
}

} // namespace

SmallVector<LLVMFuncOp> oxide::writeproof::contractedKernels(ModuleOp module) {
  SmallVector<LLVMFuncOp> kernels;
  for (LLVMFuncOp kernel : module.getOps<LLVMFuncOp>())
    if (oxide::getKernelContract(kernel))
      kernels.push_back(kernel);
  return kernels;
}

CheckedCode::CheckedCode(ModuleOp module, llvm::ArrayRef<LLVMFuncOp> contracted)
    : module(module), symbols(module), layout(module) {
  for (LLVMFuncOp kernel : contracted) {
    std::vector<ParamInfo> params = kernelParams(kernel);
    if (params.size() == kernel.getNumArguments())
      for (auto [i, arg] : llvm::enumerate(kernel.getArguments()))
        paramOf[arg] = params[i];
    kernels.insert(kernel);
    for (LLVMFuncOp fn : oxide::reachableFunctions(kernel, symbols))
      if (checked.insert(fn))
        owner[fn] = kernel;
  }
  module.walk([&](LLVM::AddressOfOp address) {
    if (auto fn = symbols.lookup<LLVMFuncOp>(address.getGlobalName()))
      addressTaken.insert(fn);
  });
  addIndirectTargets();
  // Functions that code outside the checked set also calls (uncontracted kernels, or helpers
  // they reach): their writes are checked for the contracted callers but not rewritten.
  for (LLVMFuncOp fn : module.getOps<LLVMFuncOp>()) {
    if (fn.isExternal() || checked.contains(fn))
      continue;
    for (LLVMFuncOp reached : oxide::reachableFunctions(fn, symbols))
      if (checked.contains(reached))
        sharedWithUnchecked.insert(reached);
  }
  collectCallers();
}

/// An indirect call reaches a function whose address the module takes (vtables included): when
/// checked code calls through a pointer, every such function is checked too.
void CheckedCode::addIndirectTargets() {
  bool indirect = false;
  for (size_t i = 0; i < checked.size(); ++i)
    LLVMFuncOp(checked[i]).walk([&](LLVM::CallOp call) {
      if (call.getCalleeAttr() || indirect)
        return;
      indirect = true;
      for (LLVMFuncOp target : addressTaken)
        if (!target.isExternal())
          for (LLVMFuncOp fn : oxide::reachableFunctions(target, symbols))
            if (checked.insert(fn))
              owner[fn] = owner.lookup(checked[i]);
    });
}

/// The checked call sites of each function with a body: direct calls, and calls through a
/// pointer with as many arguments as the address-taken function has.
void CheckedCode::collectCallers() {
  for (LLVMFuncOp fn : checked)
    fn.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCalleeAttr()) {
        if (auto target = symbols.lookup<LLVMFuncOp>(callee.getValue()); target && !target.isExternal())
          callers[target].push_back(call);
        return;
      }
      for (LLVMFuncOp target : addressTaken)
        if (!target.isExternal() && target.getNumArguments() == call.getArgOperands().size())
          callers[target].push_back(call);
    });
}

bool CheckedCode::isKernelArgument(Value value) const {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && arg.getOwner()->isEntryBlock() &&
         kernels.contains(dyn_cast<LLVMFuncOp>(arg.getOwner()->getParentOp()));
}

std::string CheckedCode::paramName(Value kernelArg) const {
  auto it = paramOf.find(kernelArg);
  return it == paramOf.end() ? std::string("?") : it->second.name;
}

ParamKind CheckedCode::paramKind(Value kernelArg) const {
  auto it = paramOf.find(kernelArg);
  return it == paramOf.end() ? ParamKind::other : it->second.kind;
}

std::string CheckedCode::kernelName(Operation *op) const {
  auto fn = op->getParentOfType<LLVMFuncOp>();
  LLVMFuncOp kernel = fn ? owner.lookup(fn) : nullptr;
  return kernel ? llvm::demangle(kernel.getSymName().str()) : std::string("?");
}

llvm::SetVector<LLVMFuncOp> CheckedCode::functionsOf(LLVMFuncOp kernel) {
  llvm::SetVector<LLVMFuncOp> fns;
  for (LLVMFuncOp fn : oxide::reachableFunctions(kernel, symbols))
    fns.insert(fn);
  for (size_t i = 0; i < fns.size(); ++i) {
    bool indirect = false;
    LLVMFuncOp(fns[i]).walk([&](LLVM::CallOp call) { indirect |= !call.getCalleeAttr(); });
    if (indirect)
      for (LLVMFuncOp target : addressTaken)
        if (!target.isExternal())
          for (LLVMFuncOp fn : oxide::reachableFunctions(target, symbols))
            fns.insert(fn);
  }
  return fns;
}

std::optional<int64_t> CheckedCode::sizeOf(Type type) const {
  if (!LLVM::isCompatibleType(type))
    return std::nullopt;
  return static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
}
