//===- SimWriteChecks.cpp - the CPU simulator's write checks --------------===//
//
// See SimWriteChecks.h. The instrumentation runs on the optimised host module: by then the
// stores of locals are gone (SROA, mem2reg) and what remains are the writes the program makes
// to memory, each with its source location (line tables are always on). Writes whose address is
// the function's own stack (an alloca), a global variable or shared memory (what
// __oxide_shared_alloc and __oxide_dynamic_shared return) are left alone; the runtime ignores
// every other write outside the launch's arguments, so what the analysis cannot tell apart costs
// a call in the checking mode only.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/SimWriteChecks.h"
#include "oxide/compiler/HostEmbedding.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/LocalArgumentBounds.h"
#include "oxide/compiler/OxideTypes.h"
#include "oxide/compiler/PrecompiledDecls.h"
#include "oxide/compiler/ReturnedPointers.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/CodeGen/ModuleBuilder.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace oxide;

namespace {

// --- parameter descriptions (AST) --------------------------------------------------------------

bool isKernel(const clang::FunctionDecl *fd) {
  for (const auto *attr : fd->specific_attrs<clang::AnnotateAttr>())
    if (attr->getAnnotation() == kKernelAnnotation)
      return true;
  return false;
}

/// The size of `type` in bytes, 0 when it has none (void, incomplete, dependent).
std::uint64_t sizeOf(clang::QualType type, clang::ASTContext &ctx) {
  if (type.isNull() || type->isDependentType() || type->isIncompleteType() || !type->isObjectType())
    return 0;
  return static_cast<std::uint64_t>(ctx.getTypeSizeInChars(type).getQuantity());
}

/// The first template argument of the oxide class template `type` specialises, if a type.
clang::QualType elementType(clang::QualType type) {
  const auto *spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      type.getCanonicalType()->getAsCXXRecordDecl());
  if (!spec || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != clang::TemplateArgument::Type)
    return {};
  return spec->getTemplateArgs()[0].getAsType();
}

/// "<kind><element size>" for a parameter of this type (the kinds of runtime/sim/write_checks.hpp).
std::string describeType(clang::QualType type, clang::ASTContext &ctx) {
  const llvm::StringRef name = oxideClassName(type);
  char kind = 'x';
  std::uint64_t size = 0;
  if (name == "Span" || name == "DisjointSpan" || name == "DisjointSpan2D" || name == "DisjointSpan3D" ||
      name == "AtomicSpan" || name == "AppendSpan") {
    const clang::QualType element = elementType(type);
    size = sizeOf(element, ctx);
    kind = name == "Span"             ? (!element.isNull() && element.isConstQualified() ? 'i' : 'm')
           : name == "DisjointSpan"   ? 'o'
           : name == "DisjointSpan2D" ? '2'
           : name == "DisjointSpan3D" ? '3'
           : name == "AppendSpan"     ? 'r'
                                      : 'a';
  } else if (name == "PermutationSpan") { // read-only 32-bit indices
    kind = 'q';
    size = sizeof(std::uint32_t);
  } else if (name == "ClaimSet") { // 32-bit words of claim bits, set only by claim_mut
    kind = 'k';
    size = sizeof(std::uint32_t);
  } else if (const auto *pointer = type.getCanonicalType()->getAs<clang::PointerType>();
             pointer && !pointer->getPointeeType()->isFunctionType()) {
    const clang::QualType pointee = pointer->getPointeeType();
    kind = pointee.isConstQualified() ? 'c' : 'p';
    size = sizeOf(pointee, ctx);
  } else if (type->isUnsignedIntegerType() && !type->isBooleanType()) {
    kind = 'u';
  }
  return std::string(1, kind) + std::to_string(size);
}

/// "a=i4,c=o4,n=u0": each parameter's name, kind and element size.
std::string describeParams(const clang::FunctionDecl &fd, clang::ASTContext &ctx) {
  std::string text;
  for (unsigned i = 0; i < fd.getNumParams(); ++i) {
    const clang::ParmVarDecl *param = fd.getParamDecl(i);
    if (i)
      text += ',';
    text += param->getName().str() + "=" + describeType(param->getType(), ctx);
  }
  return text;
}

/// The kernels the translation unit defines, template instantiations included.
class KernelCollector : public clang::RecursiveASTVisitor<KernelCollector> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(clang::Decl *decl) {
    return oxide::isPrecompiled(decl) || RecursiveASTVisitor::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl *fd) {
    if (fd->isDependentContext() || !fd->doesThisDeclarationHaveABody() || !isKernel(fd))
      return true;
    if (seen.insert(fd->getCanonicalDecl()).second)
      kernels.push_back(fd);
    return true;
  }

  std::vector<clang::FunctionDecl *> kernels;

private:
  llvm::DenseSet<const clang::Decl *> seen;
};

class SimParamRecorder : public clang::ASTConsumer {
public:
  explicit SimParamRecorder(clang::CodeGenAction &action) : action(action) {}

  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred())
      return;
    clang::CodeGenerator *codegen = action.getCodeGenerator();
    llvm::Module *module = codegen ? codegen->GetModule() : nullptr;
    if (!module)
      return;
    KernelCollector collector;
    collector.TraverseDecl(ctx.getTranslationUnitDecl());
    if (collector.kernels.empty())
      return;
    llvm::LLVMContext &llvmCtx = module->getContext();
    llvm::NamedMDNode *table = module->getOrInsertNamedMetadata(kSimParamsMetadata);
    for (clang::FunctionDecl *fd : collector.kernels) {
      const llvm::StringRef mangled = codegen->GetMangledName(clang::GlobalDecl(fd));
      table->addOperand(llvm::MDNode::get(llvmCtx, {llvm::MDString::get(llvmCtx, mangled),
                                                    llvm::MDString::get(llvmCtx, describeParams(*fd, ctx))}));
    }
  }

private:
  clang::CodeGenAction &action;
};

// --- instrumentation (IR) ------------------------------------------------------------------------

/// Runtime functions that return memory the checks never concern (shared memory).
bool returnsUncheckedMemory(const llvm::Value *object) {
  const auto *call = llvm::dyn_cast<llvm::CallBase>(object);
  const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  if (!callee)
    return false;
  const llvm::StringRef name = callee->getName();
  return name == "__oxide_shared_alloc" || name == "__oxide_dynamic_shared" ||
         name == "__oxide_cluster_map_shared";
}

/// Whether a write to `address` cannot concern the runtime's checks: the frame's own stack, a
/// global variable, shared memory.
bool uncheckedAddress(const llvm::Value *address) {
  const llvm::Value *object = llvm::getUnderlyingObject(address, /*MaxLookup=*/0);
  return llvm::isa<llvm::AllocaInst>(object) || llvm::isa<llvm::GlobalVariable>(object) ||
         returnsUncheckedMemory(object);
}

struct Write {
  llvm::Instruction *inst;
  llvm::Value *address;
  llvm::Value *bytes;  ///< an integer: the bytes, or the copies of a memset pattern...
  std::uint64_t scale; ///< ... of this many bytes each
  bool atomic;
};

/// The write `inst` makes, if it is one the checks see.
std::optional<Write> writeOf(llvm::Instruction &inst, const llvm::DataLayout &dl) {
  llvm::LLVMContext &ctx = inst.getContext();
  auto fixed = [&](llvm::Type *type) -> llvm::Value * {
    const llvm::TypeSize size = dl.getTypeStoreSize(type);
    if (size.isScalable())
      return nullptr;
    return llvm::ConstantInt::get(llvm::Type::getInt64Ty(ctx), size.getFixedValue());
  };
  llvm::Value *address = nullptr, *bytes = nullptr;
  std::uint64_t scale = 1;
  bool atomic = false;
  if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
    address = store->getPointerOperand();
    bytes = fixed(store->getValueOperand()->getType());
    atomic = store->isAtomic();
  } else if (auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst)) {
    address = rmw->getPointerOperand();
    bytes = fixed(rmw->getValOperand()->getType());
    atomic = true;
  } else if (auto *cmpxchg = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst)) {
    address = cmpxchg->getPointerOperand();
    bytes = fixed(cmpxchg->getNewValOperand()->getType());
    atomic = true;
  } else if (auto *pattern = llvm::dyn_cast<llvm::MemSetPatternInst>(&inst)) {
    // The length counts copies of the pattern.
    const llvm::TypeSize each = dl.getTypeStoreSize(pattern->getValue()->getType());
    if (each.isScalable())
      return std::nullopt;
    address = pattern->getRawDest();
    bytes = pattern->getLength();
    scale = each.getFixedValue();
  } else if (auto *mem = llvm::dyn_cast<llvm::AnyMemIntrinsic>(&inst)) {
    address = mem->getRawDest();
    bytes = mem->getLength();
  } else {
    return std::nullopt;
  }
  if (!address || !bytes || address->getType()->getPointerAddressSpace() != 0)
    return std::nullopt;
  return Write{&inst, address, bytes, scale, atomic};
}

/// "file:line:col", or "file:line:col (inlined at file:line:col)" for code inlined into another
/// function (the outermost caller: the kernel's or helper's line the user wrote).
std::string locationText(const llvm::DebugLoc &loc) {
  const llvm::DILocation *at = loc.get();
  if (!at || at->getLine() == 0)
    return {};
  auto text = [](const llvm::DILocation *l) {
    std::string s = l->getFilename().str() + ":" + std::to_string(l->getLine());
    if (l->getColumn())
      s += ":" + std::to_string(l->getColumn());
    return s;
  };
  std::string result = text(at);
  const llvm::DILocation *outer = at;
  while (const llvm::DILocation *next = outer->getInlinedAt())
    outer = next;
  if (outer != at && outer->getLine() != 0)
    result += " (inlined at " + text(outer) + ")";
  return result;
}

class Instrumenter {
public:
  Instrumenter(llvm::Module &module, const llvm::DenseMap<const llvm::Argument *, oxide::LocalBounds> &bounds)
      : module(module), ctx(module.getContext()), ptrTy(llvm::PointerType::getUnqual(ctx)),
        i64(llvm::Type::getInt64Ty(ctx)), argumentBounds(bounds) {
    llvm::FunctionType *checkTy =
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy, i64, ptrTy}, false);
    checkWrite = module.getOrInsertFunction("__oxide_sim_check_write", checkTy);
    checkAtomicWrite = module.getOrInsertFunction("__oxide_sim_check_atomic_write", checkTy);
    for (llvm::FunctionCallee callee : {checkWrite, checkAtomicWrite})
      if (auto *fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        fn->setDoesNotThrow();
        fn->addFnAttr(llvm::Attribute::NoCallback);
      }
    localOutside = module.getOrInsertFunction(
        "__oxide_sim_local_write_outside",
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {i64, i64, ptrTy}, false));
    if (auto *fn = llvm::dyn_cast<llvm::Function>(localOutside.getCallee()))
      fn->setDoesNotReturn();
    flag = module.getGlobalVariable("__oxide_sim_checking");
    if (!flag)
      flag = new llvm::GlobalVariable(module, llvm::Type::getInt32Ty(ctx), /*isConstant=*/false,
                                      llvm::GlobalValue::ExternalLinkage, nullptr, "__oxide_sim_checking");
    unlikely = llvm::MDBuilder(ctx).createUnlikelyBranchWeights();
  }

  void instrument(llvm::Function &fn) {
    if (fn.hasFnAttribute(llvm::Attribute::Naked))
      return;
    const llvm::DataLayout &dl = module.getDataLayout();
    std::vector<Write> writes;
    std::vector<std::pair<Write, Arrays>> local;
    for (llvm::Instruction &inst : llvm::instructions(fn)) {
      std::optional<Write> write = writeOf(inst, dl);
      if (!write)
        continue;
      if (std::optional<Arrays> arrays = arraysOf(*write, dl)) {
        // A caller's array is the whole address space where the pointer is an element's: the
        // runtime's checks of spans still apply.
        if (llvm::any_of(*arrays, [](const LocalArray &a) { return a.bounds != nullptr; }))
          writes.push_back(*write);
        if (mayLeaveItsArray(*write, *arrays, dl))
          local.emplace_back(*write, std::move(*arrays));
      } else if (!uncheckedAddress(write->address)) {
        writes.push_back(*write);
      }
    }
    for (const auto &[write, arrays] : local)
      guardLocal(write, arrays);
    if (writes.empty())
      return;
    // The flag once per call: a function runs within one launch, or outside any.
    llvm::BasicBlock &entry = fn.getEntryBlock();
    llvm::BasicBlock::iterator at = entry.getFirstInsertionPt();
    while (at != entry.end() && llvm::isa<llvm::AllocaInst>(*at))
      ++at;
    llvm::IRBuilder<> b(&entry, at);
    llvm::LoadInst *load = b.CreateAlignedLoad(b.getInt32Ty(), flag, llvm::Align(4), "oxide.sim.checking");
    load->setAtomic(llvm::AtomicOrdering::Monotonic);
    llvm::Value *checking = b.CreateICmpNE(load, b.getInt32(0));
    for (const Write &write : writes) {
      llvm::Instruction *then = llvm::SplitBlockAndInsertIfThen(checking, write.inst->getIterator(),
                                                                /*Unreachable=*/false, unlikely);
      llvm::IRBuilder<> call(then);
      llvm::Value *bytes = call.CreateZExtOrTrunc(write.bytes, i64);
      if (write.scale != 1)
        bytes = call.CreateMul(bytes, call.getInt64(write.scale));
      llvm::CallInst *check = call.CreateCall(write.atomic ? checkAtomicWrite : checkWrite,
                                              {write.address, bytes, location(write.inst->getDebugLoc())});
      check->setDebugLoc(write.inst->getDebugLoc());
    }
  }

private:
  using LocalArray = oxide::LocalArray;
  using Arrays = llvm::SmallVector<LocalArray, 2>;

  /// The thread's arrays a write lands in, read through selects, phis and helpers that return
  /// a pointer they were given; nullopt where it may land elsewhere.
  std::optional<Arrays> arraysOf(const Write &write, const llvm::DataLayout &dl) const {
    Arrays arrays;
    for (const llvm::Value *object : oxide::underlyingObjectsThroughCalls(write.address)) {
      if (llvm::isa<llvm::ConstantPointerNull>(object))
        continue;
      if (const auto *argument = llvm::dyn_cast<llvm::Argument>(object)) {
        if (!argumentBounds.contains(argument))
          return std::nullopt;
        arrays.push_back({nullptr, 0, &argumentBounds.find(argument)->second});
        continue;
      }
      const auto *array = llvm::dyn_cast<llvm::AllocaInst>(object);
      std::optional<llvm::TypeSize> size = array ? array->getAllocationSize(dl) : std::nullopt;
      if (!size || size->isScalable())
        return std::nullopt;
      arrays.push_back({array, size->getFixedValue(), nullptr});
    }
    return arrays.empty() ? std::nullopt : std::optional(std::move(arrays));
  }

  /// Whether `write` into `arrays` may leave its array: an offset that is not a constant inside
  /// the one alloca. The GPU build tests such writes (GuardedWrites.cpp): past the array they
  /// would reach the thread's other locals and spill slots; here, the fiber's stack.
  static bool mayLeaveItsArray(const Write &write, const Arrays &arrays, const llvm::DataLayout &dl) {
    llvm::APInt offset(64, 0);
    const llvm::Value *base = write.address->stripAndAccumulateConstantOffsets(dl, offset, true);
    const auto *bytes = llvm::dyn_cast<llvm::ConstantInt>(write.bytes);
    return arrays.size() != 1 || base != arrays[0].alloca || !bytes || offset.isNegative() ||
           offset.getZExtValue() + bytes->getZExtValue() * write.scale > arrays[0].bytes;
  }

  /// Stops the thread (__oxide_sim_local_write_outside, in every mode) where `write` would leave
  /// the array it is in, of `arrays` (the report counts the first's elements).
  void guardLocal(const Write &write, const Arrays &arrays) {
    llvm::IRBuilder<> b(write.inst);
    llvm::Value *width = b.CreateZExtOrTrunc(write.bytes, i64);
    if (write.scale != 1)
      width = b.CreateMul(width, b.getInt64(write.scale));
    const auto *fixedWidth = llvm::dyn_cast<llvm::ConstantInt>(width);
    const oxide::LocalArrayTest test =
        oxide::testInsideLocalArrays(b, write.address, width, arrays,
                                     fixedWidth ? std::optional(fixedWidth->getZExtValue()) : std::nullopt);
    llvm::Instruction *stop = llvm::SplitBlockAndInsertIfThen(test.outside, write.inst->getIterator(),
                                                              /*Unreachable=*/true, unlikely);
    llvm::IRBuilder<> call(stop);
    call.CreateCall(localOutside,
                    {call.CreateUDiv(test.offset, test.unit), call.CreateUDiv(test.count, test.unit),
                     location(write.inst->getDebugLoc())})
        ->setDebugLoc(write.inst->getDebugLoc());
  }

  /// A private C string naming `loc`, shared by the writes at one place; null without a location.
  llvm::Constant *location(const llvm::DebugLoc &loc) {
    const std::string text = locationText(loc);
    if (text.empty())
      return llvm::ConstantPointerNull::get(ptrTy);
    llvm::GlobalVariable *&var = locations[text];
    if (!var) {
      llvm::Constant *data = llvm::ConstantDataArray::getString(ctx, text);
      var = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::PrivateLinkage, data, "__oxide_sim_write_at");
      var->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      var->setAlignment(llvm::Align(1));
    }
    return var;
  }

  llvm::Module &module;
  llvm::LLVMContext &ctx;
  llvm::PointerType *ptrTy;
  llvm::IntegerType *i64;
  const llvm::DenseMap<const llvm::Argument *, oxide::LocalBounds> &argumentBounds;
  llvm::FunctionCallee checkWrite, checkAtomicWrite, localOutside;
  llvm::GlobalVariable *flag = nullptr;
  llvm::MDNode *unlikely = nullptr;
  llvm::StringMap<llvm::GlobalVariable *> locations;
};

/// The functions with bodies that `kernels` reach, kernels first; a call through a pointer
/// reaches the functions of its type whose address the program takes (the host module holds the
/// whole program, most of which no kernel calls).
llvm::SetVector<llvm::Function *> reachableFunctions(llvm::ArrayRef<llvm::Function *> kernels) {
  return oxide::reachedFunctions(kernels, [](const llvm::CallBase &call, const llvm::Function &target) {
    return target.getFunctionType() == call.getFunctionType();
  });
}

/// The constructor that registers the kernels' parameter descriptions with the runtime.
void registerDescriptions(llvm::Module &host, llvm::ArrayRef<llvm::Function *> kernels) {
  llvm::NamedMDNode *table = host.getNamedMetadata(kSimParamsMetadata);
  if (!table)
    return;
  llvm::LLVMContext &ctx = host.getContext();
  llvm::PointerType *ptrTy = llvm::PointerType::getUnqual(ctx);
  std::vector<llvm::Constant *> addresses, descriptions;
  for (llvm::MDNode *entry : table->operands()) {
    if (entry->getNumOperands() != 2)
      continue;
    auto *name = llvm::dyn_cast<llvm::MDString>(entry->getOperand(0));
    auto *text = llvm::dyn_cast<llvm::MDString>(entry->getOperand(1));
    llvm::Function *fn = name ? host.getFunction(name->getString()) : nullptr;
    if (!text || !fn || !llvm::is_contained(kernels, fn))
      continue;
    llvm::Constant *data = llvm::ConstantDataArray::getString(ctx, text->getString());
    auto *var = new llvm::GlobalVariable(host, data->getType(), /*isConstant=*/true,
                                         llvm::GlobalValue::PrivateLinkage, data, "__oxide_sim_params");
    var->setAlignment(llvm::Align(1));
    addresses.push_back(fn);
    descriptions.push_back(var);
  }
  table->eraseFromParent();
  if (addresses.empty())
    return;
  auto *tableTy = llvm::ArrayType::get(ptrTy, addresses.size());
  auto *addressTable =
      new llvm::GlobalVariable(host, tableTy, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(tableTy, addresses), "__oxide_sim_param_kernels");
  auto *descriptionTable =
      new llvm::GlobalVariable(host, tableTy, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(tableTy, descriptions), "__oxide_sim_param_texts");
  llvm::Type *sizeTy = llvm::Type::getInt64Ty(ctx);
  auto *ctor =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                             llvm::GlobalValue::InternalLinkage, "__oxide_register_sim_params", host);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", ctor));
  llvm::FunctionCallee registerFn = host.getOrInsertFunction(
      "__oxide_sim_register_params",
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy, ptrTy, sizeTy}, false));
  b.CreateCall(registerFn,
               {addressTable, descriptionTable, llvm::ConstantInt::get(sizeTy, addresses.size())});
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(host, ctor, /*Priority=*/65535);
}

} // namespace

std::unique_ptr<clang::ASTConsumer> oxide::createSimParamRecorder(clang::CodeGenAction &action) {
  return std::make_unique<SimParamRecorder>(action);
}

void oxide::instrumentSimWrites(llvm::Module &host) {
  const std::vector<llvm::Function *> kernels = findHostKernels(host);
  registerDescriptions(host, kernels);
  if (kernels.empty())
    return;
  // Helpers that write through a pointer argument get the bounds of the caller's array it
  // points into (the whole address space for a span's element).
  llvm::SetVector<llvm::Function *> helpers = reachableFunctions(kernels);
  helpers.set_subtract(kernels);
  const llvm::DataLayout &dl = host.getDataLayout();
  const oxide::BoundedArguments bounded =
      oxide::boundLocalArguments(host, kernels, helpers.getArrayRef(), [&](llvm::Instruction &inst) {
        std::optional<Write> write = writeOf(inst, dl);
        return write ? write->address : nullptr;
      });
  Instrumenter instrumenter(host, bounded.bounds);
  for (llvm::Function *fn : kernels)
    instrumenter.instrument(*fn);
  for (llvm::Function *fn : bounded.helpers)
    instrumenter.instrument(*fn);
}

llvm::PreservedAnalyses oxide::StripHostOnlyDebugInfoPass::run(llvm::Module &host,
                                                               llvm::ModuleAnalysisManager &) {
  const llvm::SetVector<llvm::Function *> kept = reachableFunctions(findHostKernels(host));
  bool changed = false;
  for (llvm::Function &fn : host)
    if (!fn.isDeclaration() && !kept.contains(&fn))
      changed |= llvm::stripDebugInfo(fn);
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}
