//===- SafetyCheckerDeviceConstructs.cpp - C++ the GPU cannot run as the host does ---===//
//
// What the device compile's kernels reach: the first unsupported construct of each function,
// with the chain of calls from a kernel.
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

} // namespace

void oxide::ast::checkDeviceConstructs(ASTContext &context) { DeviceConstructChecker(context).run(); }
