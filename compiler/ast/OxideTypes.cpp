//===- OxideTypes.cpp -----------------------------------------------------===//

#include "oxide/compiler/OxideTypes.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;

llvm::StringRef oxide::oxideClassName(QualType type) {
  return oxideClassName(type.getCanonicalType()->getAsCXXRecordDecl());
}

llvm::StringRef oxide::oxideClassName(const CXXRecordDecl *record) {
  if (!record || !record->getIdentifier())
    return "";
  const auto *ns = dyn_cast<NamespaceDecl>(record->getDeclContext()->getRedeclContext());
  // oxide::X, or oxide::thread::X for the witnesses.
  while (ns && ns->getName() != "oxide")
    ns = dyn_cast<NamespaceDecl>(ns->getDeclContext()->getRedeclContext());
  if (!ns || !ns->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return "";
  return record->getName();
}

bool oxide::isOxideSpan(QualType type) {
  llvm::StringRef name = oxideClassName(type);
  return name == "Span" || name.starts_with("DisjointSpan");
}

bool oxide::isDisjointSpan(QualType type) { return oxideClassName(type).starts_with("DisjointSpan"); }

bool oxide::isMutableSpan(QualType type) {
  if (oxideClassName(type) != "Span")
    return false;
  const auto *spec = dyn_cast<ClassTemplateSpecializationDecl>(type.getCanonicalType()->getAsCXXRecordDecl());
  return spec && spec->getTemplateArgs().size() == 1 &&
         !spec->getTemplateArgs()[0].getAsType().isConstQualified();
}

bool oxide::isWitness(QualType type) { return oxideClassName(type).starts_with("ThreadIndex"); }

bool oxide::isAtomicSpan(QualType type) { return oxideClassName(type) == "AtomicSpan"; }

bool oxide::isAppendSpan(QualType type) { return oxideClassName(type) == "AppendSpan"; }

bool oxide::isPermutationSpan(QualType type) { return oxideClassName(type) == "PermutationSpan"; }

bool oxide::isClaimSet(QualType type) { return oxideClassName(type) == "ClaimSet"; }

bool oxide::isTensorMap(QualType type) { return oxideClassName(type) == "TensorMap"; }

bool oxide::isPointerHoldingSpan(QualType type) {
  return isOxideSpan(type) || isAtomicSpan(type) || isAppendSpan(type) || isPermutationSpan(type) ||
         isClaimSet(type) || isTensorMap(type);
}

bool oxide::isStdSpan(QualType type) {
  const auto *record = type.getCanonicalType()->getAsCXXRecordDecl();
  return record && record->getIdentifier() && record->getName() == "span" && record->isInStdNamespace();
}

QualType oxide::firstTemplateTypeArgument(QualType type) {
  const auto *spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(type.getCanonicalType()->getAsCXXRecordDecl());
  if (!spec || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return QualType();
  return spec->getTemplateArgs()[0].getAsType();
}

/// Whether `ns` is one of Oxide's internal namespaces: oxide::detail, or a `detail` nested in
/// another of Oxide's namespaces (oxide::thread::detail, oxide::warp::detail).
static bool isOxideDetailNamespace(const NamespaceDecl *ns) {
  if (!ns->getIdentifier() || ns->getName() != "detail")
    return false;
  for (const auto *parent = dyn_cast<NamespaceDecl>(ns->getDeclContext()->getRedeclContext()); parent;
       parent = dyn_cast<NamespaceDecl>(parent->getDeclContext()->getRedeclContext()))
    if (parent->getIdentifier() && parent->getName() == "oxide" &&
        parent->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return true;
  return false;
}

bool oxide::isInOxideDetail(const Decl *decl) {
  if (!decl)
    return false;
  if (const auto *ns = dyn_cast<NamespaceDecl>(decl); ns && isOxideDetailNamespace(ns))
    return true;
  for (const DeclContext *dc = decl->getDeclContext(); dc && !dc->isTranslationUnit(); dc = dc->getParent())
    if (const auto *ns = dyn_cast<NamespaceDecl>(dc); ns && isOxideDetailNamespace(ns))
      return true;
  return false;
}
