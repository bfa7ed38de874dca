//===- CheckedCode.cpp - the functions the write proof covers -------------===//
//
// The contracted kernels, every function they reach (through direct calls, and through
// pointers to any function whose address the module takes), who calls each, and what each
// kernel parameter is (oxide.params).
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"
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

/// The kind of a span parameter whose instantiated type is `byval` ("class.oxide::X.N").
ParamKind spanClassKind(TypeAttr byval) {
  auto type = byval ? dyn_cast<LLVM::LLVMStructType>(byval.getValue()) : nullptr;
  if (!type || !type.isIdentified())
    return ParamKind::other;
  llvm::StringRef cls = type.getName().split('.').second.split('.').first;
  return llvm::StringSwitch<ParamKind>(cls)
      .Case("oxide::DisjointSpan", ParamKind::output)
      .Case("oxide::DisjointSpan2D", ParamKind::output_2d)
      .Case("oxide::DisjointSpan3D", ParamKind::output_3d)
      .Case("oxide::AtomicSpan", ParamKind::atomic)
      .Case("oxide::AppendSpan", ParamKind::append)
      .Case("oxide::PermutationSpan", ParamKind::permutation)
      .Case("oxide::ClaimSet", ParamKind::claims)
      .Case("oxide::TensorMap", ParamKind::tensor_map)
      .Case("oxide::Span", ParamKind::input)
      .Default(ParamKind::other);
}

/// The parameters of `kernel`, from its oxide.params.
std::vector<ParamInfo> kernelParams(LLVMFuncOp kernel) {
  std::vector<ParamInfo> params;
  auto attr = kernel->getAttrOfType<StringAttr>(oxide::kParamsAttr);
  if (!attr)
    return params;
  llvm::SmallVector<llvm::StringRef> entries;
  attr.getValue().split(entries, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    auto [name, letter] = entry.rsplit('=');
    std::optional<ParamKind> kind = letter.empty() ? std::nullopt : oxide::detail::param_kind(letter.front());
    params.push_back({name.str(), kind.value_or(ParamKind::other)});
  }
  // The frontend writes a template's parameter kinds before instantiation, when a dependent
  // span type is still 'x'; the instantiated parameter's type names its class.
  for (auto [i, param] : llvm::enumerate(params))
    if (param.kind == ParamKind::other && i < kernel.getNumArguments())
      param.kind = spanClassKind(kernel.getArgAttrOfType<TypeAttr>(i, LLVM::LLVMDialect::getByValAttrName()));
  return params;
}

} // namespace

SmallVector<LLVMFuncOp> oxide::writeproof::contractedKernels(ModuleOp module) {
  SmallVector<LLVMFuncOp> kernels;
  for (LLVMFuncOp kernel : module.getOps<LLVMFuncOp>())
    if (kernel->hasAttr(OxideDialect::getKernelAttrName()) && kernel->hasAttr(kContractAttr))
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
