//===- ConstantVariables.cpp - oxide::constant<T> and device_global<T> ----===//
//
// `oxide_device_variable` is applied to every global variable of the user's file by a
// `#pragma clang attribute` in the device wrapper (see Frontend.cpp). A namespace-scope
// `oxide::constant<T>` becomes a CUDA `__constant__` variable in the device compile, so kernels
// read it from constant memory, and an `oxide::device_global<T>` a `__device__` variable in
// global memory; the host compile keeps an ordinary global of the same mangled name, which the
// runtime pairs with the device copy (oxide::set_constant, set_global, get_global). Other
// globals are left alone: a kernel that reads one is a clang error naming the variable.
//
//===----------------------------------------------------------------------===//

#include "AttributeFamilies.h"
#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

#include <optional>
#include <string>

using namespace clang;

namespace {

enum class DeviceVariable { none, constant, global };

DeviceVariable deviceVariableKind(QualType type) {
  const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  if (!spec)
    return DeviceVariable::none;
  const std::string name = spec->getSpecializedTemplate()->getQualifiedNameAsString();
  return name == "oxide::constant"        ? DeviceVariable::constant
         : name == "oxide::device_global" ? DeviceVariable::global
                                          : DeviceVariable::none;
}

/// What in a value of `type` points at code (a function pointer or a member pointer; a
/// polymorphic class is not trivially copyable, which the variable's type requires), described
/// for the message; std::nullopt when nothing does.
std::optional<std::string> codePointerIn(QualType type, llvm::SmallPtrSetImpl<const CXXRecordDecl *> &seen) {
  type = type.getCanonicalType();
  if (type->isFunctionPointerType() || type->isFunctionReferenceType())
    return "a function pointer";
  if (type->isMemberPointerType())
    return "a member pointer";
  if (const auto *array = dyn_cast<ArrayType>(type.getTypePtr()))
    return codePointerIn(array->getElementType(), seen);
  const CXXRecordDecl *record = type->getAsCXXRecordDecl();
  if (!record || !record->hasDefinition() || !seen.insert(record->getDefinition()).second)
    return std::nullopt;
  record = record->getDefinition();
  for (const CXXBaseSpecifier &base : record->bases())
    if (auto found = codePointerIn(base.getType(), seen))
      return found;
  for (const FieldDecl *field : record->fields())
    if (auto found = codePointerIn(field->getType(), seen))
      return *found + " (field '" + field->getNameAsString() + "' of " + record->getNameAsString() + ")";
  return std::nullopt;
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
    const DeviceVariable kind = VD ? deviceVariableKind(VD->getType()) : DeviceVariable::none;
    if (!S.getLangOpts().CUDAIsDevice || kind == DeviceVariable::none)
      return AttributeNotApplied;
    if (!VD->getDeclContext()->getRedeclContext()->isFileContext() || VD->getTLSKind() != VarDecl::TLS_None) {
      oxide::report(S.getDiagnostics(), VD->getLocation(),
                    kind == DeviceVariable::constant ? oxide::Diag::ConstantNotAtNamespaceScope
                                                     : oxide::Diag::GlobalNotAtNamespaceScope);
      return AttributeNotApplied;
    }
    const auto *spec = cast<ClassTemplateSpecializationDecl>(VD->getType()->getAsCXXRecordDecl());
    llvm::SmallPtrSet<const CXXRecordDecl *, 8> seen;
    if (auto code = spec->getTemplateArgs().size() > 0 &&
                            spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type
                        ? codePointerIn(spec->getTemplateArgs()[0].getAsType(), seen)
                        : std::nullopt) {
      oxide::report(S.getDiagnostics(), VD->getLocation(), oxide::Diag::DeviceVariableHoldsCode)
          << (kind == DeviceVariable::global) << *code;
      return AttributeNotApplied;
    }
    // Not CreateImplicit: clang treats implicit __constant__ (constexpr variables) as compile-time
    // constants, which the optimiser may fold; this one is externally initialized by the host.
    if (kind == DeviceVariable::constant)
      VD->addAttr(CUDAConstantAttr::Create(S.Context, attr.getRange()));
    else
      VD->addAttr(CUDADeviceAttr::Create(S.Context, attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

void oxide::ast::registerConstantVariables() {
  static ParsedAttrInfoRegistry::Add<DeviceVariableAttrInfo> deviceVariable(
      "oxide-device-variable", "oxide::constant and oxide::device_global variables on the device");
}
