//===- KernelAttributes.cpp - [[kernel]] and implicit device functions ----===//
//
// Two clang attributes, registered with clang's ParsedAttrInfoRegistry:
//  * `[[kernel]]` / `[[oxide::kernel]]` marks a kernel entry point. In the host compile it adds
//    an `annotate("oxide.kernel")` so the kernel's host address can be registered; in the device
//    compile it makes the function a CUDA `__global__`.
//  * `oxide_implicit_device` is applied to every function of the user's file by a
//    `#pragma clang attribute` in the device wrapper (see Frontend.cpp). It makes user functions
//    host+device so kernels may call any helper without annotations, and gives non-inline free
//    functions internal linkage so that unreachable host code (main...) is never emitted for
//    the device.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/KernelAttributes.h"
#include "AttributeFamilies.h"
#include "oxide/compiler/Diagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

#include <mutex>

using namespace clang;

namespace {

/// The directory of setHostOnlyHeaderDirectory. Device compiles of several architectures run
/// in parallel and each sets it (to the same directory), so it is read and written under a lock.
std::mutex hostOnlyHeaderMutex;
std::string &hostOnlyHeaderDirectory() {
  static std::string directory;
  return directory;
}

bool isInHostOnlyHeader(Sema &S, const FunctionDecl *FD) {
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(hostOnlyHeaderMutex);
    dir = hostOnlyHeaderDirectory();
  }
  if (dir.empty())
    return false;
  SourceManager &sm = S.getSourceManager();
  return sm.getFilename(sm.getSpellingLoc(FD->getLocation())).starts_with(dir);
}

/// Whether `FD` is a declaration of a kernel declared earlier in the same scope (`void k(...);`
/// after `[[kernel]] void k(...) {...}`, or the definition after a `[[kernel]]` declaration in a
/// header): a function of the same type, or for a template, a function template of the same
/// name. Clang links redeclarations only after the attributes, so it is looked up here.
bool redeclaresKernel(Sema &S, const FunctionDecl *FD) {
  if (!FD->getDeclName().isIdentifier() || !FD->getDeclContext()->getRedeclContext()->isFileContext())
    return false;
  for (const NamedDecl *earlier : FD->getDeclContext()->getRedeclContext()->lookup(FD->getDeclName())) {
    if (const auto *tmpl = dyn_cast<FunctionTemplateDecl>(earlier)) {
      if (FD->getDescribedFunctionTemplate() && oxide::hasKernelAnnotation(tmpl->getTemplatedDecl()))
        return true;
    } else if (const auto *fn = dyn_cast<FunctionDecl>(earlier)) {
      if (!FD->getDescribedFunctionTemplate() && oxide::hasKernelAnnotation(fn) &&
          S.Context.hasSameType(fn->getType(), FD->getType()))
        return true;
    }
  }
  return false;
}

/// Keeps an implicitly host+device function a device function for code generation. Under
/// -foffload-implicit-host-device-templates (Frontend.cpp: a user's function may then share a
/// signature with one of CUDA's device functions) clang emits an implicitly host+device
/// function for the device only once it has seen a device caller; Oxide's functions are device
/// code whoever calls them, and what their calls reach is then recorded as used on the device.
void markUsedByDevice(Sema &S, const FunctionDecl *FD) {
  if (S.getLangOpts().CUDAIsDevice)
    S.Context.CUDAImplicitHostDeviceFunUsedByDevice.insert(FD);
}

/// A kernel template is host+device in the device compile, and each instantiation becomes the
/// __global__ kernel (finishKernelInstantiation): clang matches an explicit instantiation
/// (`template void k<float>(...);`, written without CUDA's __global__) to a template of the
/// same CUDA target only, and implicit host+device attributes are not counted.
void makeDeviceKernel(Sema &S, FunctionDecl *FD, SourceRange range) {
  if (FD->getDescribedFunctionTemplate()) {
    FD->addAttr(CUDAHostAttr::CreateImplicit(S.Context, range));
    FD->addAttr(CUDADeviceAttr::CreateImplicit(S.Context, range));
    markUsedByDevice(S, FD);
  } else {
    FD->addAttr(CUDAGlobalAttr::CreateImplicit(S.Context, range));
  }
}

struct KernelAttrInfo : ParsedAttrInfo {
  KernelAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_CXX11, "kernel"},
                                             {ParsedAttr::AS_CXX11, "oxide::kernel"}};
    Spellings = spellings;
    OptArgs = 0;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &attr, const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::KernelNotAFunction);
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &attr) const override {
    auto *FD = cast<FunctionDecl>(D);
    if (isa<CXXMethodDecl>(FD)) {
      oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::KernelMemberFunction);
      return AttributeNotApplied;
    }
    QualType ret = FD->getReturnType();
    if (!ret->isVoidType() && !ret->isUndeducedType()) {
      oxide::report(S.getDiagnostics(),
                    FD->getReturnTypeSourceRange().isValid() ? FD->getReturnTypeSourceRange().getBegin()
                                                             : attr.getLoc(),
                    oxide::Diag::KernelReturnsValue)
          << ret.getAsString();
      return AttributeNotApplied;
    }
    if (FD->isMain()) {
      oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::KernelIsMain);
      return AttributeNotApplied;
    }
    if (FD->isVariadic()) {
      oxide::report(S.getDiagnostics(), FD->getLocation(), oxide::Diag::KernelVariadic);
      return AttributeNotApplied;
    }
    FD->addAttr(AnnotateAttr::Create(S.Context, oxide::kKernelAnnotation, nullptr, 0, attr.getRange()));
    if (S.getLangOpts().CUDAIsDevice)
      makeDeviceKernel(S, FD, attr.getRange());
    return AttributeApplied;
  }
};

struct ImplicitDeviceAttrInfo : ParsedAttrInfo {
  ImplicitDeviceAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_GNU, oxide::kImplicitDeviceAttr}};
    Spellings = spellings;
    IsSupportedByPragmaAttribute = 1;
  }

  void getPragmaAttributeMatchRules(llvm::SmallVectorImpl<std::pair<attr::SubjectMatchRule, bool>> &rules,
                                    const LangOptions &) const override {
    rules.push_back({attr::SubjectMatchRule_function, true});
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &) const override {
    auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !S.getLangOpts().CUDA)
      return AttributeNotApplied;
    if (S.getSourceManager().isInSystemHeader(FD->getLocation()) || isInHostOnlyHeader(S, FD))
      return AttributeNotApplied;
    // Deduction guides are never called: clang deprecates target attributes on them.
    if (FD->isMain() || isa<CXXDeductionGuideDecl>(FD) || FD->hasAttr<CUDAGlobalAttr>() ||
        FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAHostAttr>())
      return AttributeNotApplied;
    // A user's extern "C" function is an entry point for C callers (a shared library's API,
    // ctypes): host code, like main. It cannot get internal linkage in the device compile (its
    // name must stay unmangled), so as host+device code it would be emitted there and its calls
    // of host-only functions rejected. Oxide's own extern "C" declarations are the __oxide_*
    // intrinsics.
    if (FD->isExternC() && !FD->getName().starts_with("__oxide_"))
      return AttributeNotApplied;
    // A redeclaration of a kernel without [[kernel]] is the same kernel, not a host+device
    // overload of it (which CUDA rejects).
    if (S.getLangOpts().CUDAIsDevice && redeclaresKernel(S, FD)) {
      makeDeviceKernel(S, FD, FD->getSourceRange());
      return AttributeApplied;
    }
    FD->addAttr(CUDAHostAttr::CreateImplicit(S.Context));
    FD->addAttr(CUDADeviceAttr::CreateImplicit(S.Context));
    markUsedByDevice(S, FD);
    // extern "C" declarations are the __oxide_* intrinsics and C library functions: they must
    // keep their unmangled external names.
    if (!FD->isInlineSpecified() && !FD->isConstexpr() && !isa<CXXMethodDecl>(FD) && !FD->isExternC())
      FD->addAttr(InternalLinkageAttr::CreateImplicit(S.Context));
    return AttributeApplied;
  }
};

} // namespace

bool oxide::hasKernelAnnotation(const FunctionDecl *FD) {
  return llvm::any_of(FD->specific_attrs<AnnotateAttr>(),
                      [](const AnnotateAttr *a) { return a->getAnnotation() == oxide::kKernelAnnotation; });
}

void oxide::registerOxideAttributes() {
  static std::once_flag once;
  std::call_once(once, [] {
    static ParsedAttrInfoRegistry::Add<KernelAttrInfo> kernel("oxide-kernel", "[[kernel]] entry points");
    static ParsedAttrInfoRegistry::Add<ImplicitDeviceAttrInfo> implicitDevice(
        "oxide-implicit-device", "implicit host+device functions");
    oxide::ast::registerContractAttributes();
    oxide::ast::registerConstantVariables();
    // Clang fills its list of plugin attributes on first use, without a lock (compiles run in
    // parallel): fill it here, under the once, so every compile only reads it.
    (void)getAttributePluginInstances();
  });
}

void oxide::finishKernelInstantiation(ASTContext &context, FunctionDecl &FD) {
  if (!FD.getTemplateInstantiationPattern())
    return;
  // In both compiles: the host's safety checks read the contract too.
  oxide::ast::instantiateContract(context, FD);
  if (!context.getLangOpts().CUDAIsDevice || FD.hasAttr<CUDAGlobalAttr>() || !oxide::hasKernelAnnotation(&FD))
    return;
  FD.dropAttr<CUDAHostAttr>();
  FD.dropAttr<CUDADeviceAttr>();
  FD.addAttr(CUDAGlobalAttr::CreateImplicit(context, FD.getSourceRange()));
}

void oxide::setHostOnlyHeaderDirectory(std::string directory) {
  std::lock_guard<std::mutex> lock(hostOnlyHeaderMutex);
  hostOnlyHeaderDirectory() = std::move(directory);
}
