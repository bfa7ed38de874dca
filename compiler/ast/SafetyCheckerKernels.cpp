//===- SafetyCheckerKernels.cpp - kernels and launch sites ------------------===//
//
// Launch contracts and bounds only on kernels and the same on every declaration, an exact
// block within the launch bounds, safe parameters and bodies for contracted kernels; at launch
// sites, a prepared launch's kernel has a contract, and an output is not also another argument.
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
      checkKernelBody(diags, FD->getName(), body);
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
      checkKernelParameter(context, headers, FD, param);
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
    if (!anyDeclaration(kernel, isKernel))
      return;
    std::string name;
    llvm::raw_string_ostream os(name);
    kernel->getNameForDiagnostic(os, context.getPrintingPolicy(), /*Qualified=*/false);
    if (anyDeclaration(kernel,
                       [](const FunctionDecl *D) { return annotation(D, oxide::kContractAnnotation); })) {
      checkPrepareElements(call, kernel, name, definition);
      return;
    }
    // A contract reported as invalid is the error to fix first.
    if (anyDeclaration(
            kernel, [](const FunctionDecl *D) { return annotation(D, oxide::kRejectedContractAnnotation); }))
      return;
    oxide::report(diags, ref->getBeginLoc(), Diag::PrepareWithoutContract) << name << ref->getSourceRange();
    oxide::report(diags, definition->getLocation(), Diag::NoteKernelDeclared) << name;
  }

  /// `oxide::prepare(ctx, kernel, oxide::elements(...))` takes the block from the contract: one
  /// that fixes no block, or has another domain than the number of extents, would throw
  /// BlockMismatch or DomainMismatch at run time: report it at the call.
  void checkPrepareElements(const CallExpr *call, const FunctionDecl *kernel, const std::string &name,
                            const FunctionDecl *definition) {
    if (call->getNumArgs() < 3)
      return;
    const Expr *domainArg = call->getArg(2);
    const auto *record = domainArg->getType().getNonReferenceType()->getAsCXXRecordDecl();
    const auto *spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(record);
    if (!spec || oxide::oxideClassName(spec) != "Elements" || spec->getTemplateArgs().size() != 1 ||
        spec->getTemplateArgs()[0].getKind() != TemplateArgument::Integral)
      return;
    const unsigned rank = spec->getTemplateArgs()[0].getAsIntegral().getZExtValue();
    std::optional<llvm::StringRef> contract = annotation(kernel, oxide::kContractAnnotation);
    if (!contract)
      if (const FunctionDecl *pattern = kernel->getTemplateInstantiationPattern())
        contract = annotation(pattern, oxide::kContractAnnotation);
    // The canonical contract starts "domain = N" and spells a block "block = (x, y, z)".
    llvm::StringRef text = contract ? *contract : llvm::StringRef();
    unsigned domain = 0;
    if (!text.consume_front("domain = ") || text.consumeInteger(10, domain) || domain < 1 || domain > 3)
      return;
    static constexpr const char *kDomains[] = {"", "oxide::elements(n)", "oxide::elements(width, height)",
                                               "oxide::elements(width, height, depth)"};
    const SourceRange range = domainArg->getSourceRange();
    if (domain != rank) {
      oxide::report(diags, domainArg->getBeginLoc(), Diag::PrepareElementsOfOtherRank)
          << name << domain << rank << kDomains[domain] << range;
    } else if (!text.contains("block = (")) {
      static constexpr const char *kBlocks[] = {"", "256", "(16, 16)", "(8, 8, 4)"};
      static constexpr const char *kConfigs[] = {
          "", "LaunchConfig1D::for_elements(n, 256)",
          "LaunchConfig2D::for_elements(width, height, {16, 16, 1})",
          "LaunchConfig3D::for_elements(width, height, depth, {8, 8, 4})"};
      oxide::report(diags, domainArg->getBeginLoc(), Diag::PrepareElementsWithoutBlock)
          << name << kBlocks[domain] << kConfigs[domain] << range;
    } else {
      return;
    }
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

} // namespace

std::vector<const FunctionDecl *> oxide::ast::checkKernelsAndLaunches(ASTContext &context,
                                                                      OxideHeaders &headers) {
  SafetyVisitor safety(context, headers);
  safety.TraverseDecl(context.getTranslationUnitDecl());
  return std::move(safety.contractedKernels);
}
