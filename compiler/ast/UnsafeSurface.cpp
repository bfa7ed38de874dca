//===- UnsafeSurface.cpp - the uses of the unsafe tier in a file ----------===//
//
// `oxcc check --unsafe-report` lists what the compiler does not prove and a reviewer must: the
// calls of what Oxide's headers mark UNSAFE (the `unsafe_*` functions, Stream::adopt), the
// simulator's registration of plain host functions as kernels, and the kernels without a
// launch contract. Callees are matched by their qualified name, without template arguments, so
// every instantiation, alias, using-declaration and namespace alias of them is seen. Oxide's
// own headers and the system's are not read: what they do is Oxide's to prove, not the user's.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/UnsafeSurface.h"
#include "OxideHeaders.h"

#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"
#include "oxide/compiler/PrecompiledDecls.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"

#include <algorithm>

using namespace clang;
using oxide::ast::OxideHeaders;

namespace {

/// What a use is. Each is in Oxide's public API and documented as unsafe there.
enum class Api { None, UnsafeLaunch, UnsafeBorrow, AdoptStream, UnsafeRef, RegisterKernel, OtherUnsafe };

struct ApiName {
  llvm::StringLiteral name; ///< as plainQualifiedName spells it
  Api api;
};
constexpr ApiName kUnsafeApis[] = {
    {"oxide::unsafe_launch", Api::UnsafeLaunch},
    {"oxide::DeviceBuffer::unsafe_borrow", Api::UnsafeBorrow},
    {"oxide::Stream::adopt", Api::AdoptStream},
    {"oxide::device_global::unsafe_ref", Api::UnsafeRef},
    // A host function registered as a kernel: nothing proves its contract, if it has one.
    {"oxide::sim::register_kernel", Api::RegisterKernel},
};

/// `decl`'s name qualified by its namespaces and classes, without template arguments
/// ("oxide::DeviceBuffer::unsafe_borrow" for every DeviceBuffer<T>); "" for a local entity.
std::string plainQualifiedName(const NamedDecl *decl) {
  llvm::SmallVector<std::string, 4> parts = {decl->getNameAsString()};
  for (const DeclContext *dc = decl->getDeclContext(); dc && !dc->isTranslationUnit(); dc = dc->getParent()) {
    if (const auto *ns = dyn_cast<NamespaceDecl>(dc)) {
      if (!ns->isInline() && !ns->isAnonymousNamespace())
        parts.push_back(ns->getNameAsString());
    } else if (const auto *record = dyn_cast<RecordDecl>(dc)) {
      parts.push_back(record->getNameAsString());
    } else if (!isa<LinkageSpecDecl, ExportDecl>(dc)) {
      return "";
    }
  }
  std::reverse(parts.begin(), parts.end());
  return llvm::join(parts, "::");
}

Api classify(const NamedDecl *decl) {
  if (!decl)
    return Api::None;
  decl = decl->getUnderlyingDecl(); // through using-declarations
  // oxide::detail is not the user's to call at all: the safety checks reject it.
  if (!isa<FunctionDecl, FunctionTemplateDecl>(decl) || oxide::isInOxideDetail(decl))
    return Api::None;
  const std::string name = plainQualifiedName(decl);
  if (!llvm::StringRef(name).starts_with("oxide::"))
    return Api::None;
  for (const ApiName &api : kUnsafeApis)
    if (name == api.name)
      return api.api;
  // What the headers add later by the same convention: an `unsafe_` name or an `unsafe` namespace.
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(name).split(parts, "::");
  if (parts.back().starts_with("unsafe_") || llvm::is_contained(parts, "unsafe"))
    return Api::OtherUnsafe;
  return Api::None;
}

/// The name a use is listed under when it is not called (its address taken).
llvm::StringRef apiLabel(Api api) {
  switch (api) {
  case Api::UnsafeLaunch:
    return "unsafe_launch";
  case Api::UnsafeBorrow:
    return "unsafe_borrow";
  case Api::AdoptStream:
    return "Stream::adopt";
  case Api::UnsafeRef:
    return "unsafe_ref";
  case Api::RegisterKernel:
    return "sim::register_kernel";
  case Api::OtherUnsafe:
  case Api::None:
    break;
  }
  return "";
}

bool isKernel(const FunctionDecl *fn) {
  const FunctionDecl *pattern = fn->getTemplateInstantiationPattern();
  for (const FunctionDecl *decl : {fn, pattern})
    if (decl && llvm::any_of(decl->redecls(), oxide::hasKernelAnnotation))
      return true;
  return false;
}

/// A function argument as written: `k`, `&k` and `k<float>` name the function k.
const Expr *functionArgument(const Expr *arg) {
  arg = arg->IgnoreParenImpCasts();
  if (const auto *addressOf = dyn_cast<UnaryOperator>(arg); addressOf && addressOf->getOpcode() == UO_AddrOf)
    arg = addressOf->getSubExpr()->IgnoreParenImpCasts();
  return arg;
}

/// One entry before it is placed: `pattern` when it was found in a template's own body, whose
/// entries stand only where no instantiation reports one at the same place.
struct Finding {
  SourceLocation loc;
  std::string what;
  std::string function;
  bool kernel;
  bool pattern;
  size_t order; ///< found order: instantiations of one template in the order they were made
};

class SurfaceVisitor : public RecursiveASTVisitor<SurfaceVisitor> {
  using Base = RecursiveASTVisitor<SurfaceVisitor>;

public:
  SurfaceVisitor(ASTContext &context, OxideHeaders &headers)
      : context(context), sm(context.getSourceManager()), headers(headers),
        mangler(context.createMangleContext()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Only the user's declarations are read, each instantiation of the user's templates too
  /// (it shares its pattern's location); the uses' contexts are kept on the way in.
  bool TraverseDecl(Decl *decl) {
    if (!decl || oxide::isPrecompiled(decl))
      return true;
    if (!isa<TranslationUnitDecl>(decl) && decl->getLocation().isValid() &&
        !headers.isUserCode(sm.getFileLoc(decl->getLocation())))
      return true;
    const bool entersContext = isa<FunctionDecl, FieldDecl>(decl) ||
                               (isa<VarDecl>(decl) && !cast<VarDecl>(decl)->isLocalVarDeclOrParm());
    if (auto *fn = dyn_cast<FunctionDecl>(decl))
      checkContract(fn);
    if (entersContext)
      contexts.push_back(decl);
    const bool result = Base::TraverseDecl(decl);
    if (entersContext)
      contexts.pop_back();
    return result;
  }

  /// A lambda's body is the lambda's context; a generic lambda's instantiations are read too.
  bool TraverseLambdaExpr(LambdaExpr *lambda) {
    contexts.push_back(lambda->getCallOperator());
    bool result = Base::TraverseLambdaExpr(lambda);
    contexts.pop_back();
    if (const FunctionTemplateDecl *generic = lambda->getDependentCallOperator())
      for (FunctionDecl *instance : generic->specializations()) {
        contexts.push_back(instance);
        result = result && TraverseStmt(instance->getBody());
        contexts.pop_back();
      }
    return result;
  }

  bool VisitCallExpr(CallExpr *call) {
    const Expr *callee = call->getCallee()->IgnoreParenImpCasts();
    const NamedDecl *target = call->getDirectCallee();
    // In a template's own body a dependent call is still a set of candidates.
    if (const auto *overload = dyn_cast<OverloadExpr>(callee); !target && overload)
      for (const NamedDecl *candidate : overload->decls())
        if (classify(candidate) != Api::None) {
          target = candidate->getUnderlyingDecl();
          break;
        }
    const Api api = classify(target);
    if (api == Api::None)
      return true;
    called.insert(callee);
    const auto *member = dyn_cast<MemberExpr>(callee);
    add(member ? member->getMemberLoc() : call->getBeginLoc(), describeCall(api, call, target));
    return true;
  }

  /// An unsafe function named without a call: whatever calls it through the pointer is unsafe.
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (!called.contains(ref))
      notCalled(ref->getDecl(), ref->getBeginLoc());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *member) {
    if (!called.contains(member))
      notCalled(member->getMemberDecl(), member->getMemberLoc());
    return true;
  }

  /// The findings in the user's code, in source order: the uses, then the kernels.
  std::vector<oxide::UnsafeUse> finish() {
    llvm::DenseSet<SourceLocation> instantiated;
    for (const Finding &f : findings)
      if (!f.pattern)
        instantiated.insert(sm.getFileLoc(f.loc));
    std::vector<Finding> kept;
    for (Finding &f : findings) {
      f.loc = sm.getFileLoc(f.loc);
      if (!headers.isUserCode(f.loc) || (f.pattern && instantiated.contains(f.loc)) ||
          llvm::any_of(kept, [&](const Finding &k) {
            return k.loc == f.loc && k.what == f.what && k.function == f.function;
          }))
        continue;
      kept.push_back(std::move(f));
    }
    llvm::sort(kept, [&](const Finding &a, const Finding &b) {
      if (a.kernel != b.kernel)
        return b.kernel;
      if (a.loc != b.loc)
        return sm.isBeforeInTranslationUnit(a.loc, b.loc);
      return a.order < b.order;
    });
    std::vector<oxide::UnsafeUse> uses;
    for (const Finding &f : kept) {
      const PresumedLoc where = sm.getPresumedLoc(f.loc);
      if (where.isInvalid())
        continue;
      uses.push_back({where.getFilename(), where.getLine(), where.getColumn(), f.what, f.function});
    }
    return uses;
  }

private:
  void add(SourceLocation loc, std::string what, bool kernel = false) {
    const Decl *inner = contexts.empty() ? nullptr : contexts.back();
    findings.push_back({loc, std::move(what), kernel ? "" : contextName(), kernel,
                        inner && inner->isTemplated(), findings.size()});
  }

  /// A kernel defined without a launch contract runs only through unsafe_launch.
  void checkContract(const FunctionDecl *fn) {
    if (!fn->doesThisDeclarationHaveABody() || !isKernel(fn) || oxide::hasLaunchContract(fn))
      return;
    contexts.push_back(fn); // a pattern's entry stands only where no instantiation has one
    add(fn->getLocation(),
        "kernel '" + signature(fn) + "' has no launch contract: it can only be launched with unsafe_launch",
        /*kernel=*/true);
    contexts.pop_back();
  }

  void notCalled(const ValueDecl *decl, SourceLocation loc) {
    const Api api = classify(decl);
    if (api == Api::None)
      return;
    std::string name = apiLabel(api).str();
    if (name.empty())
      name = plainQualifiedName(decl);
    add(loc, name + " named without a call (its calls through this pointer are not listed)");
  }

  std::string describeCall(Api api, const CallExpr *call, const NamedDecl *target) {
    switch (api) {
    case Api::UnsafeLaunch:
      return "unsafe_launch of " + launchedKernel(call);
    case Api::UnsafeBorrow:
      return "unsafe_borrow of a raw device pointer (its size and lifetime are not checked)";
    case Api::AdoptStream:
      return "Stream::adopt of a CUstream of other code (its lifetime is not checked)";
    case Api::UnsafeRef:
      return "unsafe_ref of " + deviceGlobal(call) + " (its plain writes are not checked)";
    case Api::RegisterKernel: {
      const auto *fn = dyn_cast<FunctionDecl>(target);
      const bool contract = fn && fn->getNumParams() > 2;
      return "sim::register_kernel of " + namedFunction(call) +
             (contract ? " with a launch contract that nothing proves (its writes are not checked)"
                       : " without a launch contract (its writes are not checked)");
    }
    case Api::OtherUnsafe:
      return "call of " + plainQualifiedName(target) + " (Oxide's unsafe tier: what it does is not checked)";
    case Api::None:
      break;
    }
    return "";
  }

  /// unsafe_launch's second argument, the kernel, and what is not checked of its launches.
  std::string launchedKernel(const CallExpr *call) {
    if (call->getNumArgs() < 2)
      return "a kernel (its writes are not checked)";
    const Expr *arg = functionArgument(call->getArg(1));
    if (const auto *ref = dyn_cast<DeclRefExpr>(arg)) {
      if (const auto *fn = dyn_cast<FunctionDecl>(ref->getDecl())) {
        if (!isKernel(fn))
          return "function '" + signature(fn) + "' (its writes are not checked)";
        // A kernel only declared here may have its contract where it is defined: either way,
        // unsafe_launch checks none.
        const char *unchecked = oxide::hasLaunchContract(fn) ? "its launch contract is not checked"
                                : fn->isDefined() ? "no launch contract: its writes are not checked"
                                                  : "its writes are not checked";
        return "kernel '" + signature(fn) + "' (" + unchecked + ")";
      }
      if (isa<VarDecl>(ref->getDecl()))
        return "the kernel that '" + ref->getDecl()->getNameAsString() +
               "' points to (its writes are not checked)";
    }
    // A template's own body: the kernel as written (`fill<T>`).
    if (isa<OverloadExpr, DependentScopeDeclRefExpr>(arg))
      return "kernel '" + written(arg) + "' (its writes are not checked)";
    return "a kernel chosen at run time (its writes are not checked)";
  }

  /// register_kernel's first argument.
  std::string namedFunction(const CallExpr *call) {
    if (call->getNumArgs() > 0)
      if (const auto *ref = dyn_cast<DeclRefExpr>(functionArgument(call->getArg(0))))
        if (const auto *fn = dyn_cast<FunctionDecl>(ref->getDecl()))
          return "'" + signature(fn) + "'";
    return "a function";
  }

  /// The object of `g.unsafe_ref()`.
  std::string deviceGlobal(const CallExpr *call) {
    if (const auto *memberCall = dyn_cast<CXXMemberCallExpr>(call))
      if (const Expr *object = memberCall->getImplicitObjectArgument())
        if (const auto *ref = dyn_cast<DeclRefExpr>(object->IgnoreParenImpCasts()))
          return "device global '" + ref->getDecl()->getNameAsString() + "'";
    return "a device global";
  }

  /// A function as the device compile's diagnostics name it (its demangled symbol); a
  /// template's pattern, which has none, by its name and parameter types as written.
  std::string signature(const FunctionDecl *fn) {
    if (!fn->isTemplated()) {
      if (!mangler->shouldMangleDeclName(fn))
        return fn->getNameAsString();
      std::string mangled;
      llvm::raw_string_ostream os(mangled);
      mangler->mangleName(GlobalDecl(fn), os);
      return llvm::demangle(mangled);
    }
    llvm::SmallVector<std::string> params;
    for (const ParmVarDecl *param : fn->parameters())
      params.push_back(param->getType().getAsString(policy()));
    return nameOf(fn) + "(" + llvm::join(params, ", ") + ")";
  }

  std::string written(const Expr *expr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    expr->printPretty(os, nullptr, policy());
    return text;
  }

  std::string nameOf(const NamedDecl *decl) {
    std::string name;
    llvm::raw_string_ostream os(name);
    decl->getNameForDiagnostic(os, policy(), /*Qualified=*/true);
    return name;
  }

  /// The function (or the variable's initializer) the current use is in: "main",
  /// "run<float>", "a lambda in main".
  std::string contextName() {
    std::string prefix;
    for (const Decl *decl : llvm::reverse(contexts)) {
      const auto *fn = dyn_cast<FunctionDecl>(decl);
      if (fn && isLambdaCallOperator(fn)) {
        prefix += "a lambda in ";
        continue;
      }
      if (fn)
        return prefix + nameOf(fn);
      return prefix + "the initializer of '" + nameOf(cast<NamedDecl>(decl)) + "'";
    }
    return prefix + "the file";
  }

  PrintingPolicy policy() const {
    PrintingPolicy p = context.getPrintingPolicy();
    p.SuppressTagKeyword = true;
    return p;
  }

  ASTContext &context;
  SourceManager &sm;
  OxideHeaders &headers;
  std::unique_ptr<MangleContext> mangler;
  llvm::SmallVector<const Decl *, 8> contexts;
  llvm::DenseSet<const Expr *> called;
  std::vector<Finding> findings;
};

class UnsafeSurfaceCollector : public ASTConsumer {
public:
  explicit UnsafeSurfaceCollector(oxide::UnsafeSurface &surface) : surface(surface) {}

  void HandleTranslationUnit(ASTContext &context) override {
    // A compile with errors has no complete AST to list; its errors come first anyway.
    if (context.getDiagnostics().hasErrorOccurred())
      return;
    OxideHeaders headers(context);
    SurfaceVisitor visitor(context, headers);
    visitor.TraverseDecl(context.getTranslationUnitDecl());
    surface.uses = visitor.finish();
  }

private:
  oxide::UnsafeSurface &surface;
};

} // namespace

std::unique_ptr<ASTConsumer> oxide::createUnsafeSurfaceCollector(UnsafeSurface &surface) {
  return std::make_unique<UnsafeSurfaceCollector>(surface);
}

void oxide::printUnsafeSurface(const UnsafeSurface &surface, llvm::StringRef file, llvm::raw_ostream &os) {
  os << "unsafe surface of " << file << ": ";
  if (surface.uses.empty()) {
    os << "none\n";
    return;
  }
  os << surface.uses.size() << (surface.uses.size() == 1 ? " use\n" : " uses\n");
  for (const UnsafeUse &use : surface.uses) {
    os << use.file << ':' << use.line << ':' << use.column << ": " << use.what;
    if (!use.function.empty())
      os << " in " << use.function;
    os << '\n';
  }
}
