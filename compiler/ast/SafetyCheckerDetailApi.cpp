//===- SafetyCheckerDetailApi.cpp - no oxide::detail outside the headers ----===//
//
// oxide::detail is Oxide's internal API: a reference to it from the user's code is an error.
//
//===----------------------------------------------------------------------===//

#include "SafetyCheckers.h"

#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"
#include "oxide/compiler/PrecompiledDecls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace oxide::ast;
using oxide::Diag;

namespace {

/// oxide::detail is Oxide's internal API (SpanAccess makes spans over any memory): any
/// reference to it written outside Oxide's headers is an error, in host and device code alike.
class DetailApiChecker : public RecursiveASTVisitor<DetailApiChecker> {
public:
  DetailApiChecker(ASTContext &context, OxideHeaders &headers)
      : context(context), sm(context.getSourceManager()), headers(headers) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Declarations written in Oxide's or the system's headers are not looked into (the
  /// instantiations of their templates neither: what they name is spelled there).
  bool TraverseDecl(Decl *decl) {
    return isOutsideUserCode(decl, headers) || RecursiveASTVisitor::TraverseDecl(decl);
  }

  void run() {
    TraverseDecl(context.getTranslationUnitDecl());
    // One error per reference: `oxide::detail::SpanAccess::make_span` is reported once, at
    // its start, not also for `detail` and `SpanAccess`; a template's instantiations share
    // the locations of its pattern.
    std::vector<bool> drop(findings.size(), false);
    for (size_t i = 0; i < findings.size(); ++i)
      for (size_t j = 0; j < findings.size() && !drop[i]; ++j)
        if (i != j && !drop[j] && covers(findings[j].range, findings[i].range) &&
            (!covers(findings[i].range, findings[j].range) || j < i))
          drop[i] = true;
    for (size_t i = 0; i < findings.size(); ++i)
      if (!drop[i])
        oxide::report(context.getDiagnostics(), findings[i].loc, findings[i].id) << findings[i].name;
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (ref->getDecl()->getDeclName().isIdentifier())
      use(ref->getDecl(), ref->getLocation(), ref->getSourceRange());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *member) {
    if (member->getMemberDecl()->getDeclName().isIdentifier())
      use(member->getMemberDecl(), member->getMemberLoc(),
          SourceRange(member->hasQualifier() ? member->getQualifierLoc().getBeginLoc()
                                             : member->getMemberLoc(),
                      member->getEndLoc()));
    return true;
  }
  bool VisitOverloadExpr(OverloadExpr *overload) {
    for (const NamedDecl *decl : overload->decls())
      if (decl->getDeclName().isIdentifier()) {
        use(decl, overload->getNameLoc(),
            SourceRange(overload->getQualifierLoc() ? overload->getQualifierLoc().getBeginLoc()
                                                    : overload->getNameLoc(),
                        overload->getNameLoc()));
        break;
      }
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc type) {
    use(type.getDecl(), type.getNameLoc(), type.getSourceRange());
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc type) {
    use(type.getDecl(), type.getNameLoc(), type.getSourceRange());
    return true;
  }
  bool VisitUsingTypeLoc(UsingTypeLoc type) {
    use(type.getDecl(), type.getNameLoc(), type.getSourceRange());
    return true;
  }
  bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc type) {
    useTemplate(type.getTypePtr()->getTemplateName(), type.getTemplateNameLoc(), type.getSourceRange());
    return true;
  }
  bool VisitDeducedTemplateSpecializationTypeLoc(DeducedTemplateSpecializationTypeLoc type) {
    useTemplate(type.getTypePtr()->getTemplateName(), type.getTemplateNameLoc(), type.getSourceRange());
    return true;
  }
  bool TraverseTemplateArgumentLoc(const TemplateArgumentLoc &arg) {
    if (arg.getArgument().getKind() == TemplateArgument::Template)
      useTemplate(arg.getArgument().getAsTemplate(), arg.getTemplateNameLoc(), arg.getSourceRange());
    return RecursiveASTVisitor::TraverseTemplateArgumentLoc(arg);
  }
  bool VisitConceptReference(ConceptReference *ref) {
    use(ref->getNamedConcept(), ref->getConceptNameLoc(), ref->getSourceRange());
    return true;
  }
  // A namespace qualifier (`oxide::detail::`) is judged by the name it qualifies: the host
  // runtime's declarations there (the registry, the device image) may be read by tools, the
  // device side's may not, and both are visited as the names they are. Types in a qualifier
  // (`oxide::detail::SpanAccess::`) are visited as type locations.
  bool VisitUsingDecl(UsingDecl *decl) {
    for (const UsingShadowDecl *shadow : decl->shadows()) {
      use(shadow->getTargetDecl(), decl->getLocation(), decl->getSourceRange());
      break;
    }
    return true;
  }
  bool VisitUsingDirectiveDecl(UsingDirectiveDecl *decl) {
    use(decl->getNominatedNamespace(), decl->getIdentLocation(), decl->getSourceRange());
    return true;
  }
  bool VisitNamespaceAliasDecl(NamespaceAliasDecl *decl) {
    use(decl->getNamespace(), decl->getTargetNameLoc(), decl->getSourceRange());
    return true;
  }
  /// Reopening oxide::detail, or defining (specialising) one of its members out of it.
  bool VisitNamedDecl(NamedDecl *decl) {
    if (decl->isImplicit() || isa<UsingShadowDecl>(decl) || !oxide::isInOxideDetail(decl) ||
        !headers.isUserCode(decl->getLocation()))
      return true;
    // A namespace `detail` in oxide (not one nested in it), or a member of oxide::detail
    // written outside it (`template <> struct oxide::detail::X<Mine> {...}`).
    const bool reopens =
        isa<NamespaceDecl>(decl) && !oxide::isInOxideDetail(cast<Decl>(decl->getDeclContext()));
    const bool outOfLine =
        !isa<NamespaceDecl>(decl) && !oxide::isInOxideDetail(cast<Decl>(decl->getLexicalDeclContext()));
    if (reopens || outOfLine)
      add(decl->getLocation(), decl->getSourceRange(), Diag::DetailDeclared,
          decl->getQualifiedNameAsString());
    return true;
  }

private:
  struct Finding {
    SourceLocation loc;
    SourceRange range;
    Diag id;
    std::string name; // the declaration's qualified name
  };

  void useTemplate(TemplateName name, SourceLocation loc, SourceRange range) {
    if (const TemplateDecl *decl = name.getAsTemplateDecl())
      use(decl, loc, range);
  }

  void use(const Decl *decl, SourceLocation nameLoc, SourceRange range) {
    if (!decl || nameLoc.isInvalid())
      return;
    if (const auto *shadow = dyn_cast<UsingShadowDecl>(decl))
      decl = shadow->getTargetDecl();
    // The device side's internals (SpanAccess, the shared-memory storage) can make spans over any
    // memory; the host runtime's (the registry, the device image) cannot, and tools may read them.
    // Only Oxide's own headers may use them: a user header that declares itself a system header
    // (#pragma clang system_header, -isystem) is still the user's.
    if (!oxide::isInOxideDetail(decl) || headers.contains(nameLoc) || nameLoc.isInvalid() ||
        !isDeviceInternal(decl))
      return;
    std::string name = "oxide::detail";
    if (const auto *named = dyn_cast<NamedDecl>(decl))
      name = named->getQualifiedNameAsString();
    add(nameLoc, range, Diag::DetailUsed, std::move(name));
  }

  bool isDeviceInternal(const Decl *decl) const {
    // A namespace is opened in several headers: it is the device side's when any of them is.
    if (const auto *ns = dyn_cast<NamespaceDecl>(decl))
      return llvm::any_of(ns->redecls(), [&](const NamespaceDecl *d) { return isInDeviceHeader(d); });
    return isInDeviceHeader(decl);
  }
  bool isInDeviceHeader(const Decl *decl) const {
    const SourceManager &sm = context.getSourceManager();
    const auto file = sm.getFileEntryRefForID(sm.getFileID(sm.getFileLoc(decl->getLocation())));
    return !file || file->getName().contains("oxide/device/");
  }

  void add(SourceLocation loc, SourceRange range, Diag id, std::string name) {
    if (range.isInvalid())
      range = SourceRange(loc, loc);
    findings.push_back({loc, range, id, std::move(name)});
  }

  /// Whether `outer` contains `inner` (spelled in the same file).
  bool covers(SourceRange outer, SourceRange inner) const {
    SourceLocation ob = sm.getSpellingLoc(outer.getBegin()), oe = sm.getSpellingLoc(outer.getEnd());
    SourceLocation ib = sm.getSpellingLoc(inner.getBegin()), ie = sm.getSpellingLoc(inner.getEnd());
    if (sm.getFileID(ob) != sm.getFileID(ib) || sm.getFileID(oe) != sm.getFileID(ie))
      return false;
    return !sm.isBeforeInTranslationUnit(ib, ob) && !sm.isBeforeInTranslationUnit(oe, ie);
  }

  ASTContext &context;
  SourceManager &sm;
  OxideHeaders &headers;
  std::vector<Finding> findings;
};

} // namespace

void oxide::ast::checkDetailApi(ASTContext &context, OxideHeaders &headers) {
  DetailApiChecker(context, headers).run();
}
