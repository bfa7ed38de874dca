//===- ConstantVariables.cpp - oxide::constant<T> in constant memory ------===//
//
// `oxide_device_variable` is applied to every global variable of the user's file by a
// `#pragma clang attribute` in the device wrapper (see Frontend.cpp). A namespace-scope
// `oxide::constant<T>` becomes a CUDA `__constant__` variable in the device compile, so kernels
// read it from constant memory; the host compile keeps an ordinary global of the same mangled
// name, which the runtime pairs with the device copy (oxide::set_constant). Other globals are
// left alone: a kernel that reads one is a clang error naming the variable.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/KernelAttributes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace {

bool isOxideConstant(QualType type) {
  const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  return spec && spec->getSpecializedTemplate()->getQualifiedNameAsString() == "oxide::constant";
}

struct DeviceVariableAttrInfo : ParsedAttrInfo {
  DeviceVariableAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_GNU, oxide::kDeviceVariableAttr}};
    Spellings = spellings;
    IsSupportedByPragmaAttribute = 1;
  }

  void getPragmaAttributeMatchRules(llvm::SmallVectorImpl<std::pair<attr::SubjectMatchRule, bool>> &rules,
                                    const LangOptions &) const override {
    rules.push_back({attr::SubjectMatchRule_variable_is_global, true});
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &attr) const override {
    auto *VD = dyn_cast<VarDecl>(D);
    if (!VD || !S.getLangOpts().CUDAIsDevice || !isOxideConstant(VD->getType()))
      return AttributeNotApplied;
    if (!VD->getDeclContext()->getRedeclContext()->isFileContext() || VD->getTLSKind() != VarDecl::TLS_None) {
      auto &diags = S.getDiagnostics();
      diags.Report(
          VD->getLocation(),
          diags.getCustomDiagID(DiagnosticsEngine::Error,
                                "an oxide::constant must be a variable at namespace scope (not a "
                                "local, static member or thread_local variable): kernels read it "
                                "from constant memory and the host sets it with oxide::set_constant"));
      return AttributeNotApplied;
    }
    // Not CreateImplicit: clang treats implicit __constant__ (constexpr variables) as compile-time
    // constants, which the optimiser may fold; this one is externally initialized by the host.
    VD->addAttr(CUDAConstantAttr::Create(S.Context, attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

static ParsedAttrInfoRegistry::Add<DeviceVariableAttrInfo>
    deviceVariableAttr("oxide-device-variable", "oxide::constant variables in constant memory");

void oxide::linkConstantVariables() {}
