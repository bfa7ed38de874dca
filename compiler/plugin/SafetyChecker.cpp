//===- SafetyChecker.cpp - AST checks of the safety model -----------------===//

#include "oxide/compiler/SafetyChecker.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Diagnostic.h"

using namespace clang;

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

class Reporter {
public:
  explicit Reporter(DiagnosticsEngine &diags) : diags(diags) {}
  void error(SourceLocation loc, const llvm::Twine &message) {
    diags.Report(loc, diags.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << message.str();
  }
  void note(SourceLocation loc, const llvm::Twine &message) {
    diags.Report(loc, diags.getCustomDiagID(DiagnosticsEngine::Note, "%0")) << message.str();
  }

private:
  DiagnosticsEngine &diags;
};

/// Scans one contracted kernel's body for escapes from the safety model.
class KernelBodyChecker : public RecursiveASTVisitor<KernelBodyChecker> {
public:
  KernelBodyChecker(Reporter &report, llvm::StringRef kernel) : report(report), kernel(kernel) {}

  bool VisitCXXConstCastExpr(CXXConstCastExpr *cast) {
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      report.error(cast->getBeginLoc(),
                   "const_cast on a span or thread-index witness in contracted kernel '" + kernel +
                       "' would bypass the safety model; remove the cast");
    return true;
  }
  bool VisitCXXReinterpretCastExpr(CXXReinterpretCastExpr *cast) {
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      report.error(cast->getBeginLoc(),
                   "reinterpret_cast on a span or thread-index witness in contracted kernel '" + kernel +
                       "' would bypass the safety model; remove the cast");
    return true;
  }
  bool VisitCStyleCastExpr(CStyleCastExpr *cast) {
    // `(void)idx` only discards a value.
    if (cast->getCastKind() == CK_ToVoid)
      return true;
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      report.error(cast->getBeginLoc(),
                   "C-style cast on a span or thread-index witness in contracted kernel '" + kernel +
                       "' would bypass the safety model; remove the cast");
    return true;
  }
  bool VisitAsmStmt(AsmStmt *stmt) {
    report.error(stmt->getAsmLoc(),
                 "inline assembly in contracted kernel '" + kernel +
                     "' cannot be checked; move it out of the kernel or drop the contract and "
                     "launch with oxide::unsafe_launch");
    return true;
  }

private:
  Reporter &report;
  llvm::StringRef kernel;
};

class SafetyVisitor : public RecursiveASTVisitor<SafetyVisitor> {
public:
  explicit SafetyVisitor(Reporter &report) : report(report) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() && !FD->isThisDeclarationADefinition())
      return true;
    auto contract = annotation(FD, oxide::kContractAnnotation);
    auto bounds = annotation(FD, oxide::kLaunchBoundsAnnotation);
    if (!isKernel(FD)) {
      if (contract || bounds)
        report.error(FD->getLocation(),
                     "'" + FD->getName() + "' has a launch " + (contract ? "contract" : "bounds") +
                         " but is not a [[kernel]]; add [[kernel]] or remove the attribute");
      return true;
    }
    if (!contract || FD->isDependentContext())
      return true;
    checkParameters(FD);
    if (bounds)
      checkBlockWithinBounds(FD, *contract, *bounds);
    if (Stmt *body = FD->getBody())
      KernelBodyChecker(report, FD->getName()).TraverseStmt(body);
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
  void checkParameters(const FunctionDecl *FD) {
    for (const ParmVarDecl *param : FD->parameters()) {
      QualType type = param->getType();
      llvm::StringRef name = param->getName();
      std::string fix;
      if (type->isPointerType())
        fix = "is a raw pointer; take oxide::Span<const T> for inputs or oxide::DisjointSpan<T> for outputs";
      else if (type->isReferenceType())
        fix = "is a reference; kernel parameters are copied to the GPU, pass it by value";
      else if (oxide::isMutableSpan(type))
        fix =
            "is a mutable oxide::Span, which every thread may write; use oxide::DisjointSpan<T> for outputs "
            "or oxide::Span<const T> for inputs";
      else if (isMutableStdSpan(type))
        fix = "is a mutable std::span, which every thread may write; use oxide::DisjointSpan<T> for outputs "
              "or oxide::Span<const T> for inputs";
      if (!fix.empty())
        report.error(param->getLocation(),
                     "parameter '" + name + "' of contracted kernel '" + FD->getName() + "' " + fix +
                         " (or drop the contract and launch with oxide::unsafe_launch)");
    }
  }

  static bool isMutableStdSpan(QualType type) {
    const auto *spec =
        dyn_cast_or_null<ClassTemplateSpecializationDecl>(type.getCanonicalType()->getAsCXXRecordDecl());
    if (!spec || spec->getName() != "span" || !spec->isInStdNamespace() || spec->getTemplateArgs().size() < 1)
      return false;
    return !spec->getTemplateArgs()[0].getAsType().isConstQualified();
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
      report.error(FD->getLocation(), "the contract's exact block of " + llvm::Twine(threads) +
                                          " threads exceeds launch_bounds(" + llvm::Twine(maxThreads) +
                                          ") of kernel '" + FD->getName() +
                                          "'; raise the bound or shrink the block");
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
        report.error(call->getArg(j + 2)->getBeginLoc(),
                     "'" + buffer->getName() + "' is passed as argument " + llvm::Twine(j + 1) +
                         " and also as the DisjointSpan output argument " + llvm::Twine(i + 1) +
                         "; a kernel's output must not alias its other arguments: use a separate buffer");
        report.note(output->getBeginLoc(), "output argument is here");
      }
    }
  }

  Reporter &report;
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
    std::string message;
  };

  explicit DeviceBodyScanner(ASTContext &context) : context(context) {}

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
      construct =
          Construct{expr->getBeginLoc(), "device code uses typeid, which needs run-time type information "
                                         "(RTTI is not available in device code)"};
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
      construct =
          Construct{loc, "device code uses 'long double', which the GPU does not have: it would be computed "
                         "as 'double' there but in 80-bit precision on the host and the CPU simulator; "
                         "use 'double'"};
  }

  ASTContext &context;
  FunctionDecl *root = nullptr;
};

/// Walks the functions reachable from the kernels of the device compile and reports the first
/// unsupported construct of each, with the chain of calls from a kernel as clang's own CUDA
/// diagnostics print it (`note: called by 'f'` at each call site).
class DeviceConstructChecker : public RecursiveASTVisitor<DeviceConstructChecker> {
public:
  DeviceConstructChecker(ASTContext &context, Reporter &report) : context(context), report(report) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
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
      DeviceBodyScanner scanner(context);
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
    report.error(construct.loc, construct.message);
    DiagnosticsEngine &diags = context.getDiagnostics();
    const unsigned calledBy = diags.getCustomDiagID(DiagnosticsEngine::Note, "called by %0");
    for (const FunctionDecl *f = function;;) {
      const Link link = parent.lookup(f->getCanonicalDecl());
      if (!link.caller)
        break;
      diags.Report(link.site, calledBy) << link.caller;
      f = link.caller;
    }
  }

  ASTContext &context;
  Reporter &report;
  llvm::DenseMap<const FunctionDecl *, Link> parent;
  std::vector<const FunctionDecl *> queue;
};

class SafetyConsumer : public ASTConsumer {
public:
  void HandleTranslationUnit(ASTContext &context) override {
    Reporter report(context.getDiagnostics());
    SafetyVisitor(report).TraverseDecl(context.getTranslationUnitDecl());
    if (context.getLangOpts().CUDAIsDevice)
      DeviceConstructChecker(context, report).run();
  }
};

} // namespace

std::unique_ptr<ASTConsumer> oxide::createSafetyChecker() { return std::make_unique<SafetyConsumer>(); }
