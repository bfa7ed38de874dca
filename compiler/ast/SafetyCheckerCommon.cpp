//===- SafetyCheckerCommon.cpp - helpers of the AST checkers ----------------===//
//
// Annotations, kernels, and the names of types and records in messages.
//
//===----------------------------------------------------------------------===//

#include "SafetyCheckers.h"

#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace oxide::ast {

/// The text after `prefix` in the first annotation of `D` that starts with it.
std::optional<llvm::StringRef> annotation(const Decl *D, llvm::StringRef prefix) {
  for (const auto *attr : D->specific_attrs<AnnotateAttr>())
    if (attr->getAnnotation().starts_with(prefix))
      return attr->getAnnotation().drop_front(prefix.size());
  return std::nullopt;
}

bool isKernel(const FunctionDecl *FD) {
  for (const auto *attr : FD->specific_attrs<AnnotateAttr>())
    if (attr->getAnnotation() == oxide::kKernelAnnotation)
      return true;
  return false;
}

/// Whether `type` is, or points/refers to, a span or a witness.
bool involvesSafeType(QualType type) {
  while (true) {
    if (oxide::isOxideSpan(type) || oxide::isWitness(type))
      return true;
    if (type->isPointerType() || type->isReferenceType())
      type = type->getPointeeType();
    else
      return false;
  }
}

/// `type` printed for a message: "oxide::Span<const Node>", "Box<float *>".
std::string typeName(QualType type, const ASTContext &context) {
  PrintingPolicy policy = context.getPrintingPolicy();
  policy.SuppressTagKeyword = true;
  return type.getAsString(policy);
}

bool isOutsideUserCode(const Decl *decl, OxideHeaders &headers) {
  return decl && !isa<TranslationUnitDecl>(decl) && decl->getLocation().isValid() &&
         !headers.isUserCode(decl->getASTContext().getSourceManager().getFileLoc(decl->getLocation()));
}

std::string recordName(const CXXRecordDecl *record, const ASTContext &context) {
  if (record->isLambda())
    return "lambda";
  if (!record->getIdentifier() && !record->getTypedefNameForAnonDecl()) {
    std::string text = ("an anonymous " + record->getKindName()).str();
    if (const auto *parent = dyn_cast<CXXRecordDecl>(record->getDeclContext()))
      text += " in " + recordName(parent, context);
    return text;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  record->getNameForDiagnostic(os, context.getPrintingPolicy(), /*Qualified=*/true);
  return (record->getKindName() + " '" + text + "'").str();
}

} // namespace oxide::ast
