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
