//===- SafetyCheckerPackContracts.cpp - contracts of parameter-pack kernels ---===//
//
// A kernel template with a parameter pack: its instantiation's contract, numbered by the
// instantiation's parameters.
//
//===----------------------------------------------------------------------===//

#include "SafetyCheckers.h"

#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using oxide::Diag;

/// Numbers the contract of an instantiation of a kernel template with a function parameter pack
/// by the instantiation's parameters: the pack expands to any number of them, so the template's
/// `$2` can be the instantiation's `$3`. The pattern's oxide.contract and oxide.params, which
/// the instantiation inherits, are rewritten before code generation emits them; a parameter the
/// contract names that the instantiation does not have exactly once is an error.
void oxide::ast::renumberContract(ASTContext &context, FunctionDecl &FD) {
  const FunctionDecl *pattern = FD.getTemplateInstantiationPattern();
  if (!pattern ||
      llvm::none_of(pattern->parameters(), [](const ParmVarDecl *p) { return p->isParameterPack(); }))
    return;
  AnnotateAttr *contract = nullptr, *params = nullptr;
  for (AnnotateAttr *attr : FD.specific_attrs<AnnotateAttr>()) {
    if (attr->getAnnotation().starts_with(oxide::kContractAnnotation))
      contract = attr;
    else if (attr->getAnnotation().starts_with(oxide::kParamsAnnotation))
      params = attr;
  }
  if (!contract || !params)
    return;
  // The pattern's "name=kind" entries, one per parameter of the template.
  llvm::SmallVector<llvm::StringRef> entries;
  params->getAnnotation().drop_front(llvm::StringRef(oxide::kParamsAnnotation).size()).split(entries, ',');
  if (entries.size() != pattern->getNumParams())
    return;
  auto kindOf = [&](llvm::StringRef name) -> llvm::StringRef {
    for (unsigned i = 0; i < pattern->getNumParams(); ++i)
      if (!name.empty() && pattern->getParamDecl(i)->getName() == name)
        return entries[i].split('=').second; // a pack's elements carry the pack's name
    return "x";
  };
  std::string newParams;
  for (unsigned j = 0; j < FD.getNumParams(); ++j) {
    const llvm::StringRef name = FD.getParamDecl(j)->getName();
    newParams += (j ? "," : "") + name.str() + "=" + kindOf(name).str();
  }
  // "$i" in the canonical text is the template's parameter i.
  const llvm::StringRef text = contract->getAnnotation();
  std::string newText;
  for (size_t pos = 0; pos < text.size();) {
    if (text[pos] != '$') {
      newText += text[pos++];
      continue;
    }
    size_t end = pos + 1;
    while (end < text.size() && llvm::isDigit(text[end]))
      ++end;
    unsigned index = 0;
    if (text.substr(pos + 1, end - pos - 1).getAsInteger(10, index) || index >= pattern->getNumParams())
      return;
    const ParmVarDecl *named = pattern->getParamDecl(index);
    llvm::SmallVector<unsigned> matches;
    for (unsigned j = 0; j < FD.getNumParams(); ++j)
      if (!named->isParameterPack() && FD.getParamDecl(j)->getName() == named->getName())
        matches.push_back(j);
    if (matches.size() != 1) {
      std::string instantiation;
      llvm::raw_string_ostream os(instantiation);
      FD.getNameForDiagnostic(os, context.getPrintingPolicy(), /*Qualified=*/false);
      oxide::report(context.getDiagnostics(), contract->getLocation(), Diag::ContractParameterUnmapped)
          << FD.getName() << named->getName() << instantiation;
      return;
    }
    newText += "$" + std::to_string(matches.front());
    pos = end;
  }
  contract->setAnnotation(context, newText);
  params->setAnnotation(context, std::string(oxide::kParamsAnnotation) + newParams);
}
