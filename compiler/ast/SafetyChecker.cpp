//===- SafetyChecker.cpp - AST checks of the safety model -----------------===//

#include "oxide/compiler/SafetyChecker.h"
#include "OxideHeaders.h"
#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"
#include "oxide/compiler/PrecompiledDecls.h"
#include "oxide/compiler/SimulatorDivergence.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/LambdaCapture.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using oxide::Diag;
using oxide::ast::OxideHeaders;

namespace {

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

/// Walks the type of one parameter of a contracted kernel through fields (private ones too),
/// bases, array elements, union members and lambda captures, and reports what a contracted
/// kernel must not receive: pointers of any kind and references outside Oxide's spans, mutable
/// spans, std::span, `mutable` members; inside the elements of a span, no pointers at all.
class ParameterTypeChecker {
public:
  ParameterTypeChecker(ASTContext &context, OxideHeaders &headers, const FunctionDecl *kernel,
                       const ParmVarDecl *param)
      : context(context), diags(context.getDiagnostics()), headers(headers), kernel(kernel), param(param) {}

  void check() {
    QualType type = param->getType();
    const std::string name = paramName();
    // The %select of Diag::ParameterUnsafe.
    int unsafe = -1;
    if (type->isPointerType())
      unsafe = 0;
    else if (type->isReferenceType())
      unsafe = 1;
    else if (type->isMemberPointerType())
      unsafe = 2;
    else if (oxide::isMutableSpan(type))
      unsafe = 3;
    else if (oxide::isStdSpan(type) && !oxide::firstTemplateTypeArgument(type).isConstQualified())
      unsafe = 4;
    if (unsafe >= 0) {
      oxide::report(diags, param->getLocation(), Diag::ParameterUnsafe)
          << name << kernel->getName() << unsafe;
      return;
    }
    if (oxide::isStdSpan(type)) { // std::span<const T>, bound by the runtime like Span<const T>
      walkElements(type, name, Mode::Input);
      return;
    }
    walk(type, name, Member{}, Mode::Parameter);
  }

private:
  /// Where the walk is: in the parameter's own value, or in the elements of a span it holds.
  enum class Mode { Parameter, Input, Output };

  /// The member whose type is being walked, for the message and the note.
  struct Member {
    std::string description; // "field 'data' of struct 'Inner'"
    std::string name;        // "data", for the note
    SourceLocation declared; // the note's location, or invalid
    bool captured = false;   // a lambda capture ("'x' is captured here")
  };

  void walk(QualType type, const std::string &path, const Member &member, Mode mode) {
    type = type.getCanonicalType();
    if (type->isReferenceType())
      return pointerLike("a reference", path, member, mode);
    if (type->isFunctionPointerType())
      return pointerLike("a function pointer", path, member, mode);
    if (type->isPointerType() || type->isBlockPointerType())
      return pointerLike("a raw pointer", path, member, mode);
    if (type->isMemberPointerType())
      return pointerLike("a member pointer", path, member, mode);
    if (const ArrayType *array = context.getAsArrayType(type))
      return walk(array->getElementType(), path + "[]", member, mode);
    const CXXRecordDecl *record = type->getAsCXXRecordDecl();
    if (!record || !record->getDefinition())
      return;
    record = record->getDefinition();

    if (oxide::isPointerHoldingSpan(type) && headers.contains(record->getLocation())) {
      const std::string spanName = typeName(type.getUnqualifiedType(), context);
      if (mode != Mode::Parameter)
        return pointerLike("an " + spanName + " (which holds a pointer)", path, member, mode);
      if (oxide::isMutableSpan(type))
        return spanError(HeldSpan::MutableSpan, path, member);
      if (oxide::isOxideSpan(type) || oxide::isAppendSpan(type))
        walkElements(type, path,
                     oxide::isDisjointSpan(type) || oxide::isAppendSpan(type) ? Mode::Output : Mode::Input);
      return; // AtomicSpan<T, S>: T is an atomic scalar
    }
    if (oxide::isStdSpan(type)) {
      if (mode != Mode::Parameter)
        return pointerLike("a std::span (which holds a pointer)", path, member, mode);
      if (!oxide::firstTemplateTypeArgument(type).isConstQualified())
        return spanError(HeldSpan::MutableStdSpan, path, member);
      return spanError(HeldSpan::StdSpan, path, member);
    }
    if (!visited.insert({record, static_cast<int>(mode)}).second)
      return;

    if (record->isDynamicClass())
      pointerLike("a virtual-table pointer", path,
                  Member{recordName(record, context) + " is polymorphic", record->getName().str(),
                         record->getLocation()},
                  mode);
    for (const CXXBaseSpecifier &base : record->bases())
      walk(base.getType(), path, member, mode);

    llvm::DenseMap<const FieldDecl *, const LambdaCapture *> captureOf;
    if (record->isLambda()) {
      llvm::DenseMap<const ValueDecl *, FieldDecl *> fields;
      FieldDecl *thisField = nullptr;
      record->getCaptureFields(fields, thisField);
      for (const LambdaCapture &capture : record->captures()) {
        if (capture.capturesThis() && thisField)
          captureOf[thisField] = &capture;
        else if (capture.capturesVariable())
          if (FieldDecl *field = fields.lookup(capture.getCapturedVar()))
            captureOf[field] = &capture;
      }
    }
    for (const FieldDecl *field : record->fields()) {
      Member inner;
      std::string fieldPath = path;
      if (const LambdaCapture *capture = captureOf.lookup(field)) {
        inner.name = capture->capturesThis() ? "this" : capture->getCapturedVar()->getName().str();
        inner.description = "'" + inner.name + "' captured by " +
                            (capture->getCaptureKind() == LCK_ByRef ? "reference" : "copy") + " by a lambda";
        inner.declared = capture->getLocation();
        inner.captured = true;
        fieldPath += "." + inner.name;
      } else if (field->getIdentifier()) {
        inner.name = field->getName().str();
        inner.description = "field '" + inner.name + "' of " + recordName(record, context);
        inner.declared = field->getLocation();
        fieldPath += "." + inner.name;
      } else if (field->isUnnamedBitField()) {
        continue;
      } else { // an anonymous struct or union: its members are the record's
        inner = member;
      }
      if (field->isMutable() && mode != Mode::Output)
        mutableMember(fieldPath, inner, mode);
      walk(field->getType(), fieldPath, inner, mode);
    }
  }

  /// The elements of a Span<const T> / DisjointSpan<T> / std::span<const T> at `path`.
  void walkElements(QualType span, const std::string &path, Mode mode) {
    QualType element = oxide::firstTemplateTypeArgument(span);
    if (element.isNull())
      return;
    const std::string saved = currentSpan;
    currentSpan = typeName(span.getCanonicalType(), context);
    walk(element, path + "[]", Member{}, mode); // "inside the elements of its '...'" says where
    currentSpan = saved;
  }

  /// The parameter's name, "#2" for an unnamed second parameter.
  std::string paramName() const {
    if (!param->getName().empty())
      return param->getName().str();
    return "#" + std::to_string(param->getFunctionScopeIndex() + 1);
  }
  static std::string at(const std::string &path, const Member &member) {
    return "at '" + path + "'" + (member.description.empty() ? "" : " (" + member.description + ")");
  }
  std::string inside(Mode mode) const {
    return mode == Mode::Parameter ? "" : " inside the elements of its '" + currentSpan + "'";
  }

  void pointerLike(const std::string &what, const std::string &path, const Member &member, Mode mode) {
    // The %select of Diag::ParameterHoldsPointer: what to do instead.
    const int fix = mode == Mode::Input ? 2 : mode == Mode::Output ? 3 : what == "a reference" ? 1 : 0;
    oxide::report(diags, param->getLocation(), Diag::ParameterHoldsPointer)
        << paramName() << kernel->getName() << what << at(path, member) << inside(mode) << fix;
    noteDeclaration(member);
  }

  /// A span that a parameter may not hold, by the %select of Diag::ParameterHoldsSpan.
  enum class HeldSpan { MutableSpan, MutableStdSpan, StdSpan };
  void spanError(HeldSpan span, const std::string &path, const Member &member) {
    oxide::report(diags, param->getLocation(), Diag::ParameterHoldsSpan)
        << paramName() << kernel->getName() << static_cast<int>(span) << at(path, member);
    noteDeclaration(member);
  }

  void mutableMember(const std::string &path, const Member &member, Mode mode) {
    oxide::report(diags, param->getLocation(), Diag::ParameterMutableMember)
        << paramName() << kernel->getName() << at(path, member) << inside(mode) << (mode == Mode::Input);
    noteDeclaration(member);
  }

  void noteDeclaration(const Member &member) {
    if (member.name.empty() || !headers.isUserCode(member.declared))
      return;
    oxide::report(diags, member.declared, Diag::NoteMemberDeclared) << member.name << member.captured;
  }

  ASTContext &context;
  DiagnosticsEngine &diags;
  OxideHeaders &headers;
  const FunctionDecl *kernel;
  const ParmVarDecl *param;
  std::string currentSpan;
  llvm::DenseSet<std::pair<const CXXRecordDecl *, int>> visited;
};

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
    if (decl && !isa<TranslationUnitDecl>(decl) && decl->getLocation().isValid() &&
        !headers.isUserCode(sm.getFileLoc(decl->getLocation())))
      return true;
    return RecursiveASTVisitor::TraverseDecl(decl);
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

/// Scans one contracted kernel's body for escapes from the safety model.
class KernelBodyChecker : public RecursiveASTVisitor<KernelBodyChecker> {
public:
  KernelBodyChecker(DiagnosticsEngine &diags, llvm::StringRef kernel) : diags(diags), kernel(kernel) {}

  bool VisitCXXConstCastExpr(CXXConstCastExpr *cast) {
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      castError(cast, 0);
    return true;
  }
  bool VisitCXXReinterpretCastExpr(CXXReinterpretCastExpr *cast) {
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      castError(cast, 1);
    return true;
  }
  bool VisitCStyleCastExpr(CStyleCastExpr *cast) {
    // `(void)idx` only discards a value.
    if (cast->getCastKind() == CK_ToVoid)
      return true;
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      castError(cast, 2);
    return true;
  }
  bool VisitAsmStmt(AsmStmt *stmt) {
    oxide::report(diags, stmt->getAsmLoc(), Diag::AsmInContractedKernel) << kernel;
    return true;
  }

private:
  /// `which` is the %select of Diag::CastInContractedKernel: const_cast, reinterpret_cast, C-style.
  void castError(const CastExpr *cast, int which) {
    oxide::report(diags, cast->getBeginLoc(), Diag::CastInContractedKernel) << which << kernel;
  }

  DiagnosticsEngine &diags;
  llvm::StringRef kernel;
};

class SafetyVisitor : public RecursiveASTVisitor<SafetyVisitor> {
public:
  SafetyVisitor(ASTContext &context, OxideHeaders &headers)
      : context(context), diags(context.getDiagnostics()), headers(headers) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Neither the precompiled headers (PrecompiledDecls.h) nor the functions of the system's
  /// headers, kernels excepted, are looked into: they launch nothing of Oxide's. A system header
  /// is one the include search found in a system directory: a user's header that only declares
  /// itself one (#pragma clang system_header) is still checked, so that it cannot reach
  /// oxide::detail unseen.
  bool TraverseDecl(Decl *decl) {
    if (oxide::isPrecompiled(decl))
      return true;
    if (auto *fn = dyn_cast_or_null<FunctionDecl>(decl); fn && !isKernel(fn)) {
      const SourceManager &sm = context.getSourceManager();
      if (OxideHeaders::isSystemHeader(sm, sm.getExpansionLoc(fn->getLocation())))
        return true;
    }
    return RecursiveASTVisitor::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    checkSameOnEveryDeclaration(FD, oxide::kContractAnnotation, 0);
    checkSameOnEveryDeclaration(FD, oxide::kLaunchBoundsAnnotation, 1);
    if (!FD->doesThisDeclarationHaveABody() && !FD->isThisDeclarationADefinition())
      return true;
    auto contract = annotation(FD, oxide::kContractAnnotation);
    auto bounds = annotation(FD, oxide::kLaunchBoundsAnnotation);
    if (!isKernel(FD)) {
      if (contract || bounds)
        oxide::report(diags, FD->getLocation(), Diag::ContractOnNonKernel) << FD->getName() << !contract;
      return true;
    }
    if (!contract || FD->isDependentContext())
      return true;
    checkParameters(FD);
    if (bounds)
      checkBlockWithinBounds(FD, *contract, *bounds);
    if (Stmt *body = FD->getBody())
      KernelBodyChecker(diags, FD->getName()).TraverseStmt(body);
    contractedKernels.push_back(FD);
    return true;
  }

  /// The contracted kernels defined in the file (template instantiations included).
  std::vector<const FunctionDecl *> contractedKernels;

  bool VisitCallExpr(CallExpr *call) {
    // The host compile checks launches; the device compile sees the same calls in host code.
    if (!context.getLangOpts().CUDAIsDevice)
      checkPrepareHasContract(call);
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *call) {
    if (call->getOperator() != OO_Call)
      return true;
    const auto *method = dyn_cast_or_null<CXXMethodDecl>(call->getDirectCallee());
    if (!method || oxide::oxideClassName(method->getParent()) != "BasicPreparedLaunch")
      return true;
    checkLaunchAliasing(call, method);
    return true;
  }

private:
  /// A declaration's own launch contract (or bounds, `which` = 1) and one it inherits from an
  /// earlier declaration must be the same: otherwise one of them would silently win.
  void checkSameOnEveryDeclaration(const FunctionDecl *FD, llvm::StringRef prefix, int which) {
    const AnnotateAttr *own = nullptr, *earlier = nullptr;
    for (const auto *attr : FD->specific_attrs<AnnotateAttr>())
      if (attr->getAnnotation().starts_with(prefix))
        (attr->isInherited() ? earlier : own) = attr;
    if (!own || !earlier || own->getAnnotation() == earlier->getAnnotation() ||
        !conflictsReported.insert(FD->getCanonicalDecl()).second)
      return;
    oxide::report(diags, own->getLocation(), Diag::ConflictingContracts) << which << FD->getName();
    oxide::report(diags, earlier->getLocation(), Diag::NoteEarlierContract) << which;
  }

  void checkParameters(const FunctionDecl *FD) {
    for (const ParmVarDecl *param : FD->parameters())
      ParameterTypeChecker(context, headers, FD, param).check();
  }

  void checkBlockWithinBounds(const FunctionDecl *FD, llvm::StringRef contract, llvm::StringRef bounds) {
    // The canonical contract spells the block as "block = (x, y, z)".
    auto pos = contract.find("block = (");
    if (pos == llvm::StringRef::npos)
      return;
    llvm::StringRef rest = contract.drop_front(pos + 9);
    unsigned long long threads = 1, extent = 0, maxThreads = 0;
    for (int d = 0; d < 3; ++d) {
      rest = rest.ltrim(", ");
      if (rest.consumeInteger(10, extent))
        return;
      threads *= extent;
    }
    if (bounds.consumeInteger(10, maxThreads))
      return;
    if (threads > maxThreads)
      oxide::report(diags, FD->getLocation(), Diag::BlockExceedsBounds)
          << std::to_string(threads) << std::to_string(maxThreads) << FD->getName();
  }

  /// Whether a declaration of `FD`, or of the template it was instantiated from, satisfies `has`.
  template <class Predicate> static bool anyDeclaration(const FunctionDecl *FD, Predicate has) {
    const FunctionDecl *pattern = FD->getTemplateInstantiationPattern();
    for (const FunctionDecl *decl : {FD, pattern})
      if (decl && llvm::any_of(decl->redecls(), has))
        return true;
    return false;
  }

  /// `oxide::prepare(ctx, kernel, config)` of a kernel defined in this file without a launch
  /// contract would throw NoContract at run time: report it at the call. A kernel only declared here may have
  /// its contract in the translation unit that defines it; the runtime checks those.
  void checkPrepareHasContract(const CallExpr *call) {
    const FunctionDecl *callee = call->getDirectCallee();
    if (!callee || call->getNumArgs() < 2 || !callee->getIdentifier() || callee->getName() != "prepare" ||
        callee->getQualifiedNameAsString() != "oxide::prepare")
      return;
    const Expr *arg = call->getArg(1)->IgnoreParenImpCasts();
    if (const auto *addressOf = dyn_cast<UnaryOperator>(arg);
        addressOf && addressOf->getOpcode() == UO_AddrOf)
      arg = addressOf->getSubExpr()->IgnoreParenImpCasts();
    const auto *ref = dyn_cast<DeclRefExpr>(arg);
    const auto *kernel = ref ? dyn_cast<FunctionDecl>(ref->getDecl()) : nullptr;
    const FunctionDecl *definition = nullptr;
    if (!kernel || !kernel->isDefined(definition) || kernel->isDependentContext())
      return;
    // A function that is no [[kernel]] may be one the simulator registered with a contract
    // (oxide::sim::register_kernel); the runtime judges it.
    // A contract reported as invalid is the error to fix first.
    if (!anyDeclaration(kernel, isKernel) || anyDeclaration(kernel, [](const FunctionDecl *D) {
          return annotation(D, oxide::kContractAnnotation) ||
                 annotation(D, oxide::kRejectedContractAnnotation);
        }))
      return;
    std::string name;
    llvm::raw_string_ostream os(name);
    kernel->getNameForDiagnostic(os, context.getPrintingPolicy(), /*Qualified=*/false);
    oxide::report(diags, ref->getBeginLoc(), Diag::PrepareWithoutContract) << name << ref->getSourceRange();
    oxide::report(diags, definition->getLocation(), Diag::NoteKernelDeclared) << name;
  }

  /// The variable an argument names, looking through implicit conversions and parentheses.
  static const ValueDecl *namedBuffer(const Expr *arg) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(arg->IgnoreParenImpCasts()))
      return ref->getDecl();
    return nullptr;
  }

  void checkLaunchAliasing(const CXXOperatorCallExpr *call, const CXXMethodDecl *method) {
    const auto *spec = dyn_cast<ClassTemplateSpecializationDecl>(method->getParent());
    if (!spec || spec->getTemplateArgs().size() != 2)
      return;
    const TemplateArgument &pack = spec->getTemplateArgs()[1];
    if (pack.getKind() != TemplateArgument::Pack)
      return;
    llvm::SmallVector<QualType> params;
    for (const TemplateArgument &p : pack.pack_elements())
      params.push_back(p.getAsType());
    // Arguments: the launch object, the stream, then one per kernel parameter.
    if (call->getNumArgs() != params.size() + 2)
      return;
    for (unsigned i = 0; i < params.size(); ++i) {
      if (!oxide::isDisjointSpan(params[i]))
        continue;
      const Expr *output = call->getArg(i + 2);
      const ValueDecl *buffer = namedBuffer(output);
      if (!buffer)
        continue;
      for (unsigned j = 0; j < params.size(); ++j) {
        if (j == i || namedBuffer(call->getArg(j + 2)) != buffer)
          continue;
        oxide::report(diags, call->getArg(j + 2)->getBeginLoc(), Diag::OutputAliased)
            << buffer->getName() << (j + 1) << (i + 1);
        oxide::report(diags, output->getBeginLoc(), Diag::NoteOutputArgument);
      }
    }
  }

  ASTContext &context;
  DiagnosticsEngine &diags;
  OxideHeaders &headers;
  llvm::DenseSet<const Decl *> conflictsReported;
};

//===----------------------------------------------------------------------===//
// C++ that compiles for the GPU but cannot run there as it does on the host. Clang itself
// reports most of it in device code (exceptions, host functions and variables, thread_local),
// with the chain of calls from the kernel; these are the constructs it accepts silently or
// reports without naming them. Device compile only.
//===----------------------------------------------------------------------===//

bool isLongDouble(QualType type) {
  if (type.isNull())
    return false;
  type = type.getNonReferenceType().getCanonicalType();
  while (const auto *array = dyn_cast<ArrayType>(type.getTypePtr()))
    type = array->getElementType().getCanonicalType();
  if (const auto *complex = type->getAs<ComplexType>())
    type = complex->getElementType().getCanonicalType();
  return type->isSpecificBuiltinType(BuiltinType::LongDouble);
}

/// The callees of one function body, and the first unsupported construct in it.
class DeviceBodyScanner : public RecursiveASTVisitor<DeviceBodyScanner> {
public:
  struct Callee {
    const FunctionDecl *function;
    SourceLocation site;
  };
  struct Construct {
    SourceLocation loc;
    Diag id;
  };

  DeviceBodyScanner() = default;

  // Each lambda's call operator and each local class's member function is scanned as its own
  // function, when something calls it.
  bool shouldVisitLambdaBody() const { return false; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
  bool TraverseFunctionDecl(FunctionDecl *FD) { return FD == root ? Base::TraverseFunctionDecl(FD) : true; }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    return MD == root ? Base::TraverseCXXMethodDecl(MD) : true;
  }
  bool TraverseCXXConstructorDecl(CXXConstructorDecl *CD) {
    return CD == root ? Base::TraverseCXXConstructorDecl(CD) : true;
  }
  bool TraverseCXXDestructorDecl(CXXDestructorDecl *DD) {
    return DD == root ? Base::TraverseCXXDestructorDecl(DD) : true;
  }
  bool TraverseCXXConversionDecl(CXXConversionDecl *CD) {
    return CD == root ? Base::TraverseCXXConversionDecl(CD) : true;
  }

  void scan(FunctionDecl *FD) {
    root = FD;
    if (isLongDouble(FD->getReturnType()))
      flagLongDouble(FD->getLocation());
    if (const auto *dtor = dyn_cast<CXXDestructorDecl>(FD))
      addDestructorsOfMembers(dtor->getParent(), FD->getLocation());
    TraverseDecl(FD);
  }

  bool VisitCallExpr(CallExpr *call) {
    add(call->getDirectCallee(), call->getBeginLoc());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *construct) {
    const CXXConstructorDecl *ctor = construct->getConstructor();
    add(ctor, construct->getBeginLoc());
    // Objects built here dispatch to their class's virtual functions.
    if (ctor && ctor->getParent()->isDynamicClass())
      addVirtualFunctions(ctor->getParent(), construct->getBeginLoc());
    return true;
  }
  bool VisitCXXNewExpr(CXXNewExpr *expr) {
    add(expr->getOperatorNew(), expr->getBeginLoc());
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *expr) {
    add(expr->getOperatorDelete(), expr->getBeginLoc());
    if (const CXXRecordDecl *record = expr->getDestroyedType()->getAsCXXRecordDecl())
      if (record->hasDefinition())
        add(record->getDestructor(), expr->getBeginLoc());
    return true;
  }
  bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *expr) {
    add(expr->getTemporary()->getDestructor(), expr->getBeginLoc());
    return true;
  }
  bool VisitVarDecl(VarDecl *var) {
    if (isLongDouble(var->getType()))
      flagLongDouble(var->getLocation());
    if (const CXXRecordDecl *record = var->getType()->getAsCXXRecordDecl())
      if (record->hasDefinition() && !isa<ParmVarDecl>(var))
        add(record->getDestructor(), var->getLocation());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *ref) { // a function whose address is taken may be called
    if (const auto *function = dyn_cast<FunctionDecl>(ref->getDecl()))
      add(function, ref->getBeginLoc());
    return true;
  }
  bool VisitCXXTypeidExpr(CXXTypeidExpr *expr) {
    if (!construct)
      construct = Construct{expr->getBeginLoc(), Diag::DeviceTypeid};
    return true;
  }
  bool VisitExpr(Expr *expr) {
    if (isLongDouble(expr->getType()))
      flagLongDouble(expr->getExprLoc());
    return true;
  }

  llvm::SmallVector<Callee> callees;
  std::optional<Construct> construct;

private:
  using Base = RecursiveASTVisitor<DeviceBodyScanner>;

  void add(const FunctionDecl *function, SourceLocation site) {
    if (function)
      callees.push_back({function, site});
  }
  void addVirtualFunctions(const CXXRecordDecl *record, SourceLocation site) {
    for (const CXXMethodDecl *method : record->methods())
      if (method->isVirtual())
        add(method, site);
    for (const CXXBaseSpecifier &base : record->bases())
      if (const CXXRecordDecl *b = base.getType()->getAsCXXRecordDecl())
        addVirtualFunctions(b, site);
  }
  void addDestructorsOfMembers(const CXXRecordDecl *record, SourceLocation site) {
    for (const FieldDecl *field : record->fields())
      if (const CXXRecordDecl *member = field->getType()->getAsCXXRecordDecl())
        if (member->hasDefinition())
          add(member->getDestructor(), site);
    for (const CXXBaseSpecifier &base : record->bases())
      if (const CXXRecordDecl *b = base.getType()->getAsCXXRecordDecl())
        if (b->hasDefinition())
          add(b->getDestructor(), site);
  }
  void flagLongDouble(SourceLocation loc) {
    if (!construct)
      construct = Construct{loc, Diag::DeviceLongDouble};
  }

  FunctionDecl *root = nullptr;
};

/// Walks the functions reachable from the kernels of the device compile and reports the first
/// unsupported construct of each, with the chain of calls from a kernel as clang's own CUDA
/// diagnostics print it (`note: called by 'f'` at each call site).
class DeviceConstructChecker : public RecursiveASTVisitor<DeviceConstructChecker> {
public:
  explicit DeviceConstructChecker(ASTContext &context) : context(context) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  /// Kernels are declared at namespace or class scope, never in a body: the walk that finds
  /// them reads no function body (the scanner below reads the reachable ones).
  bool TraverseStmt(Stmt *) { return true; }
  bool TraverseDecl(Decl *decl) {
    return oxide::isPrecompiled(decl) || RecursiveASTVisitor::TraverseDecl(decl);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() &&
        parent.try_emplace(FD->getCanonicalDecl(), Link{nullptr, {}}).second)
      queue.push_back(FD);
    return true;
  }

  void run() {
    TraverseDecl(context.getTranslationUnitDecl());
    for (std::size_t next = 0; next < queue.size(); ++next) {
      const FunctionDecl *function = queue[next];
      const FunctionDecl *definition = nullptr;
      if (!function->hasBody(definition) || definition->isDependentContext())
        continue;
      DeviceBodyScanner scanner;
      scanner.scan(const_cast<FunctionDecl *>(definition));
      if (scanner.construct)
        reportWithChain(*scanner.construct, function);
      for (const DeviceBodyScanner::Callee &callee : scanner.callees)
        if (parent.try_emplace(callee.function->getCanonicalDecl(), Link{function, callee.site}).second)
          queue.push_back(callee.function);
    }
  }

private:
  struct Link {
    const FunctionDecl *caller;
    SourceLocation site;
  };

  void reportWithChain(const DeviceBodyScanner::Construct &construct, const FunctionDecl *function) {
    DiagnosticsEngine &diags = context.getDiagnostics();
    oxide::report(diags, construct.loc, construct.id);
    for (const FunctionDecl *f = function;;) {
      const Link link = parent.lookup(f->getCanonicalDecl());
      if (!link.caller)
        break;
      oxide::report(diags, link.site, Diag::NoteCalledBy) << link.caller;
      f = link.caller;
    }
  }

  ASTContext &context;
  llvm::DenseMap<const FunctionDecl *, Link> parent;
  std::vector<const FunctionDecl *> queue;
};

/// Numbers the contract of an instantiation of a kernel template with a function parameter pack
/// by the instantiation's parameters: the pack expands to any number of them, so the template's
/// `$2` can be the instantiation's `$3`. The pattern's oxide.contract and oxide.params, which
/// the instantiation inherits, are rewritten before code generation emits them; a parameter the
/// contract names that the instantiation does not have exactly once is an error.
void renumberContract(ASTContext &context, FunctionDecl &FD) {
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

class SafetyConsumer : public SemaConsumer {
public:
  void Initialize(ASTContext &ctx) override { context = &ctx; }

  /// Before the parser reads the first token: the preprocessor's conditionals on the target are
  /// recorded from there on (SimulatorDivergence.h).
  void InitializeSema(Sema &sema) override { targetSource.watch(sema.getPreprocessor()); }

  /// Runs before code generation sees each declaration (the consumer comes first in
  /// Frontend.cpp's MultiplexConsumer), instantiations of templates included.
  bool HandleTopLevelDecl(DeclGroupRef group) override {
    for (Decl *D : group)
      if (auto *FD = dyn_cast<FunctionDecl>(D);
          FD && FD->isTemplateInstantiation() && prepared.insert(FD).second) {
        oxide::finishKernelInstantiation(*context, *FD);
        renumberContract(*context, *FD);
      }
    return true;
  }

  void HandleTranslationUnit(ASTContext &context) override {
    OxideHeaders headers(context);
    DetailApiChecker(context, headers).run();
    SafetyVisitor safety(context, headers);
    safety.TraverseDecl(context.getTranslationUnitDecl());
    oxide::checkSimulatorDivergence(context, targetSource, safety.contractedKernels,
                                    [&](SourceLocation loc) { return headers.isUserCode(loc); });
    if (context.getLangOpts().CUDAIsDevice)
      DeviceConstructChecker(context).run();
  }

private:
  ASTContext *context = nullptr;
  llvm::DenseSet<const FunctionDecl *> prepared;
  oxide::TargetDependentSource targetSource;
};

} // namespace

std::unique_ptr<ASTConsumer> oxide::createSafetyChecker() { return std::make_unique<SafetyConsumer>(); }
