//===- ContractAttributes.cpp - launch_contract and launch_bounds ---------===//
//
// `[[oxide::launch_contract("...")]]` is parsed here, where the kernel's parameters are known,
// so a malformed field or an unknown name is reported at its place inside the string. A name
// that is not a parameter is a constant of the kernel's scope (a constexpr variable, a static
// member, a template parameter), looked up where the kernel is declared. The canonical contract
// travels to the device compile's IR as annotations:
//   oxide.contract:<canonical text>          (names replaced by $index, constants by values)
//   oxide.params:<name>=<kind>,...           (see paramKind)
//   oxide.launch_bounds:<max>,<min blocks>
//
// In a kernel template whose parameter types or constants depend on template parameters, these
// are known only per instantiation. The template then carries pending annotations whose
// arguments are C++ expressions, which clang instantiates with the template:
//   oxide.contract.template:   the string literal, then each constant's expression
//   oxide.launch_bounds.template:   the bounds' expressions
// and instantiateContract turns them into the annotations above for each instantiation.
//
//===----------------------------------------------------------------------===//

#include "AttributeFamilies.h"
#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"
#include "oxide/detail/contract.hpp"
#include "oxide/detail/param_kind.hpp"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Sema/DeclSpec.h"
#include "clang/Sema/EnterExpressionEvaluationContext.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;
using oxide::detail::ContractConstant;
using oxide::detail::ContractParam;
using oxide::detail::ParamKind;

namespace {

constexpr llvm::StringLiteral kPendingContract = "oxide.contract.template:";
constexpr llvm::StringLiteral kPendingBounds = "oxide.launch_bounds.template:";

/// The attribute's single string-literal argument (a macro that expands to one included), or
/// nullptr. Clang parses the arguments because the attribute also has an unscoped spelling
/// (hasAttribute matches plugin spellings without their scope).
StringLiteral *stringArgument(const ParsedAttr &attr) {
  if (attr.getNumArgs() != 1 || !attr.isArgExpr(0))
    return nullptr;
  return dyn_cast<StringLiteral>(attr.getArgAsExpr(0)->IgnoreParenCasts());
}

bool appliesToFunction(Sema &S, const ParsedAttr &attr, const Decl *D, llvm::StringRef spelling) {
  if (isa<FunctionDecl>(D))
    return true;
  oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::AttributeNotOnFunction) << spelling;
  return false;
}

/// The unscoped spelling exists only so that clang parses the arguments; Oxide's attributes are
/// written with their scope.
bool hasScope(Sema &S, const ParsedAttr &attr, llvm::StringRef spelling) {
  if (attr.getScopeName())
    return true;
  oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::AttributeNeedsScope) << spelling;
  return false;
}

/// What a parameter is, for the compiler's contract optimisations and the runtime (written as
/// the letters of oxide/detail/param_kind.hpp). Pointers are `other` here.
ParamKind paramKind(QualType type) {
  llvm::StringRef name = oxide::oxideClassName(type);
  if (name == "Span")
    return oxide::isMutableSpan(type) ? ParamKind::mutable_span : ParamKind::input;
  if (name == "DisjointSpan")
    return ParamKind::output;
  if (name == "DisjointSpan2D")
    return ParamKind::output_2d;
  if (name == "DisjointSpan3D")
    return ParamKind::output_3d;
  if (name == "AtomicSpan")
    return ParamKind::atomic;
  if (name == "AppendSpan")
    return ParamKind::append;
  if (name == "PermutationSpan")
    return ParamKind::permutation;
  if (name == "ClaimSet")
    return ParamKind::claims;
  if (name == "TensorMap") {
    // TensorMap<T, ...> with a mutable T: TMA stores write its tensor.
    QualType element = oxide::firstTemplateTypeArgument(type);
    return !element.isNull() && !element.isConstQualified() ? ParamKind::writable_tensor_map
                                                            : ParamKind::tensor_map;
  }
  const Type *canonical = type.getCanonicalType().getTypePtr();
  if (const auto *builtin = dyn_cast<BuiltinType>(canonical);
      builtin && builtin->isInteger() && !builtin->isBooleanType() &&
      builtin->getKind() != BuiltinType::Int128 && builtin->getKind() != BuiltinType::UInt128)
    return builtin->isUnsignedInteger() ? ParamKind::unsigned_integer : ParamKind::signed_integer;
  return ParamKind::other;
}

/// `name` as a `requires` operand: parameter `index`, of `type`.
ContractParam contractParam(std::string_view name, unsigned index, QualType type) {
  if (type->isDependentType())
    return {index, false, {}, /*dependent=*/true};
  const ParamKind kind = paramKind(type);
  ContractParam result{index, oxide::detail::is_span(kind), {}};
  result.rank = oxide::detail::span_extents(kind);
  if (!result.is_span && !oxide::detail::is_integer_scalar(kind))
    result.unusable_reason = "'" + std::string(name) + "' has type '" + type.getAsString() +
                             "'; requires relations use span sizes and integer parameters (e.g. "
                             "std::uint32_t, int, std::size_t)";
  return result;
}

/// The value of a contract constant or a launch_bounds argument: a non-negative integer.
ContractConstant evaluate(const ASTContext &context, const Expr *E, llvm::StringRef name) {
  const std::string quoted = "'" + name.str() + "'";
  if (!E->getType()->isIntegralOrEnumerationType())
    return {std::nullopt, quoted + " has type '" + E->getType().getAsString() +
                              "'; a launch contract uses integer constants"};
  std::optional<llvm::APSInt> value = E->getIntegerConstantExpr(context);
  if (!value)
    return {std::nullopt, quoted + " is not a constant expression; declare it constexpr (or make it a "
                                   "template parameter) so that the contract can use its value"};
  if (value->isSigned() && value->isNegative())
    return {std::nullopt, quoted + " is " + llvm::toString(*value, 10) +
                              "; launch contract values are never "
                              "negative"};
  if (value->getActiveBits() > 64)
    return {std::nullopt, quoted + " does not fit in 64 bits"};
  return {value->getZExtValue(), {}};
}

std::string notAConstant(llvm::StringRef name) {
  return "'" + name.str() +
         "' is neither a parameter of this kernel nor a constant in its scope; declare it as a constexpr "
         "integer (or a template parameter) before the kernel, or check its spelling";
}

/// What a name that no lookup found gives the contract parser; `text` is the contract, the name
/// at byte `offset` of it. Written as a template-id (`kBytes<T>`), it named no variable
/// template's value.
ContractConstant unknownConstant(std::string_view name, llvm::StringRef text, std::size_t offset) {
  const std::size_t end = offset + name.size();
  if (end < text.size() && text[end] == '<' &&
      oxide::detail::contract_impl::template_arguments_end(std::string_view(text), end) !=
          std::string_view::npos)
    return {std::nullopt,
            "'" + std::string(name) +
                "<...>' names no constant: it must be a variable template in scope (constexpr) whose "
                "arguments are types, integers or constants in scope",
            /*unknown=*/true};
  return {std::nullopt, notAConstant(llvm::StringRef(name)), /*unknown=*/true};
}

/// Stands for a name of a template-id candidate that named nothing where the kernel template was
/// declared (`n` and `m` of `n<m>` when `n<m>` is a comparison), among the values the
/// instantiations receive.
Expr *unknownPlaceholder(ASTContext &context, SourceLocation loc) {
  return new (context) CXXNullPtrLiteralExpr(context.NullPtrTy, loc);
}
bool isUnknownPlaceholder(const Expr *E) { return isa<CXXNullPtrLiteralExpr>(E->IgnoreParenImpCasts()); }

/// The scope of qualified name `name` (`ns::Policy::kThreads`: `ns::Policy::`) into `scope`, and
/// its last component; std::nullopt when a scope names nothing.
std::optional<llvm::StringRef> enterScope(Sema &S, llvm::StringRef name, SourceLocation loc,
                                          CXXScopeSpec &scope) {
  llvm::SmallVector<llvm::StringRef> parts;
  name.trim().split(parts, "::");
  size_t first = 0;
  if (parts.front().empty()) {
    scope.MakeGlobal(S.Context, loc);
    first = 1;
  }
  for (size_t i = first; i + 1 < parts.size(); ++i) {
    Sema::NestedNameSpecInfo info(&S.Context.Idents.get(parts[i].trim()), loc, loc);
    if (S.ActOnCXXNestedNameSpecifier(S.getCurScope(), info, /*EnteringContext=*/false, scope))
      return std::nullopt;
  }
  return parts.back().trim();
}

Expr *lookUpConstant(Sema &S, llvm::StringRef name, SourceLocation loc);

/// A template argument written in a contract: an integer, a type (a builtin's one-word name, or
/// a named type in scope) or a constant; std::nullopt when it is none of these.
std::optional<TemplateArgumentLoc> templateArgument(Sema &S, llvm::StringRef text, SourceLocation loc) {
  text = text.trim();
  std::uint64_t integer = 0;
  if (!text.getAsInteger(10, integer)) {
    ExprResult E = S.ActOnIntegerConstant(loc, static_cast<std::int64_t>(integer));
    if (E.isInvalid())
      return std::nullopt;
    return TemplateArgumentLoc(TemplateArgument(E.get(), /*IsCanonical=*/false), E.get());
  }
  const ASTContext &C = S.Context;
  const QualType builtin = llvm::StringSwitch<QualType>(text)
                               .Case("bool", C.BoolTy)
                               .Case("char", C.CharTy)
                               .Case("short", C.ShortTy)
                               .Case("int", C.IntTy)
                               .Case("unsigned", C.UnsignedIntTy)
                               .Case("long", C.LongTy)
                               .Case("float", C.FloatTy)
                               .Case("double", C.DoubleTy)
                               .Default(QualType());
  QualType type = builtin;
  if (type.isNull() && !text.contains('<')) {
    CXXScopeSpec scope;
    if (std::optional<llvm::StringRef> last = enterScope(S, text, loc, scope))
      if (ParsedType parsed = S.getTypeName(S.Context.Idents.get(*last), loc, S.getCurScope(), &scope))
        type = Sema::GetTypeFromParser(parsed);
  }
  if (!type.isNull())
    return TemplateArgumentLoc(TemplateArgument(type), S.Context.getTrivialTypeSourceInfo(type, loc));
  if (Expr *E = lookUpConstant(S, text, loc))
    return TemplateArgumentLoc(TemplateArgument(E, /*IsCanonical=*/false), E);
  return std::nullopt;
}

/// `name<arguments>` (`kSharedBytes<C>`, `ns::kBytes<float, 4>`): a variable template's value.
Expr *lookUpTemplateConstant(Sema &S, llvm::StringRef text, SourceLocation loc) {
  const size_t open = text.find('<');
  if (open == llvm::StringRef::npos || !text.ends_with(">"))
    return nullptr;
  CXXScopeSpec scope;
  std::optional<llvm::StringRef> last = enterScope(S, text.take_front(open), loc, scope);
  if (!last)
    return nullptr;
  LookupResult found(S, DeclarationName(&S.Context.Idents.get(*last)), loc, Sema::LookupOrdinaryName);
  if (!S.LookupParsedName(found, S.getCurScope(), &scope, QualType()))
    return nullptr;
  if (!found.getAsSingle<VarTemplateDecl>())
    return nullptr;
  TemplateArgumentListInfo arguments(loc, loc);
  llvm::StringRef list = text.drop_front(open + 1).drop_back();
  int depth = 0;
  size_t from = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char ch = i < list.size() ? list[i] : ',';
    depth += ch == '<' || ch == '(' ? 1 : ch == '>' || ch == ')' ? -1 : 0;
    if (ch != ',' || depth != 0)
      continue;
    std::optional<TemplateArgumentLoc> argument = templateArgument(S, list.slice(from, i), loc);
    if (!argument)
      return nullptr;
    arguments.addArgument(*argument);
    from = i + 1;
  }
  // As clang builds `kBytes<T>` in an expression: dependent where an argument is.
  ExprResult E = S.BuildTemplateIdExpr(scope, SourceLocation(), found, /*RequiresADL=*/false, &arguments);
  return E.isInvalid() ? nullptr : E.get();
}

/// `name` (`kBlock`, `Policy::kThreads`, `::ns::kN`, `kBytes<T>`) as an expression where the
/// kernel is declared, its template parameters included; nullptr when it names no value there.
/// Clang's own errors are trapped: the contract reports its own, inside the string.
Expr *lookUpConstant(Sema &S, llvm::StringRef name, SourceLocation loc) {
  EnterExpressionEvaluationContext constant(S, Sema::ExpressionEvaluationContext::ConstantEvaluated);
  Sema::SFINAETrap trap(S);
  Expr *result = nullptr;
  if (name.contains('<')) {
    result = lookUpTemplateConstant(S, name, loc);
  } else {
    CXXScopeSpec scope;
    std::optional<llvm::StringRef> last = enterScope(S, name, loc, scope);
    if (!last)
      return nullptr;
    UnqualifiedId id;
    id.setIdentifier(&S.Context.Idents.get(*last), loc);
    ExprResult E =
        S.ActOnIdExpression(S.getCurScope(), scope, SourceLocation(), id, /*HasTrailingLParen=*/false,
                            /*IsAddressOfOperand=*/false);
    result = E.isInvalid() ? nullptr : E.get();
  }
  return trap.hasErrorOccurred() ? nullptr : result;
}

SourceLocation locationOfByte(const ASTContext &context, const StringLiteral *literal, std::size_t offset) {
  return literal->getLocationOfByte(static_cast<unsigned>(offset), context.getSourceManager(),
                                    context.getLangOpts(), context.getTargetInfo());
}

/// The constant names of a contract: its names (contract_names) that are not parameters.
std::vector<oxide::detail::ContractName> constantNames(llvm::StringRef text, const FunctionDecl &FD) {
  std::vector<oxide::detail::ContractName> names;
  for (const oxide::detail::ContractName &n : oxide::detail::contract_names(std::string_view(text)))
    if (llvm::none_of(FD.parameters(),
                      [&](const ParmVarDecl *p) { return p->getName() == llvm::StringRef(n.name); }))
      names.push_back(n);
  return names;
}

/// Parses `literal` with these resolvers; reports an error (prefixed with `where`) and returns
/// std::nullopt, or returns the contract.
std::optional<oxide::detail::Contract> parseContract(ASTContext &context, const StringLiteral *literal,
                                                     const oxide::detail::ContractNameResolver &params,
                                                     const oxide::detail::ContractConstantResolver &constants,
                                                     const std::string &where) {
  llvm::StringRef text = literal->getString();
  auto parsed = oxide::detail::parse_contract(std::string_view(text), params, constants);
  if (auto *error = std::get_if<oxide::detail::ContractError>(&parsed)) {
    oxide::report(context.getDiagnostics(), locationOfByte(context, literal, error->offset),
                  oxide::Diag::ContractInvalid)
        << where + error->message;
    return std::nullopt;
  }
  return std::get<oxide::detail::Contract>(std::move(parsed));
}

/// "k<float, 4>": an instantiation, for messages.
std::string instantiationName(const ASTContext &context, const FunctionDecl &FD) {
  std::string name;
  llvm::raw_string_ostream os(name);
  FD.getNameForDiagnostic(os, context.getPrintingPolicy(), /*Qualified=*/false);
  return name;
}

void addAnnotation(ASTContext &context, Decl &D, llvm::StringRef prefix, llvm::StringRef text,
                   SourceRange range, llvm::ArrayRef<Expr *> args = {}) {
  llvm::SmallVector<Expr *> copy(args);
  D.addAttr(AnnotateAttr::Create(context, (prefix + text).str(), copy.data(), copy.size(), range));
}

/// The oxide.params text: each parameter's name and kind letter, with the kinds of `types`.
std::string paramsText(const FunctionDecl &FD, llvm::function_ref<QualType(unsigned)> types) {
  std::string params;
  for (unsigned i = 0; i < FD.getNumParams(); ++i) {
    if (i)
      params += ',';
    params +=
        FD.getParamDecl(i)->getName().str() + "=" + oxide::detail::param_kind_letter(paramKind(types(i)));
  }
  return params;
}

/// The launch_bounds annotation text for these arguments, or std::nullopt after an error.
std::optional<std::string> boundsText(ASTContext &context, llvm::ArrayRef<const Expr *> args,
                                      SourceLocation attrLoc) {
  DiagnosticsEngine &diags = context.getDiagnostics();
  std::uint64_t values[2] = {0, 0};
  for (size_t i = 0; i < args.size(); ++i) {
    ContractConstant value = evaluate(context, args[i], "");
    if (!value.value) {
      oxide::report(diags, attrLoc, oxide::Diag::BoundsNotIntegers);
      return std::nullopt;
    }
    values[i] = *value.value;
  }
  if (values[0] < 1 || values[0] > 1024) {
    oxide::report(diags, args[0]->getExprLoc(), oxide::Diag::BoundsMaxThreadsRange)
        << std::to_string(values[0]);
    return std::nullopt;
  }
  if (values[1] > UINT32_MAX) {
    oxide::report(diags, args[1]->getExprLoc(), oxide::Diag::BoundsMinBlocksRange)
        << std::to_string(values[1]);
    return std::nullopt;
  }
  return std::to_string(values[0]) + "," + std::to_string(values[1]);
}

struct LaunchContractAttrInfo : ParsedAttrInfo {
  LaunchContractAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_CXX11, "oxide::launch_contract"},
                                             {ParsedAttr::AS_CXX11, "launch_contract"}};
    Spellings = spellings;
    // Optional so that a missing argument reaches handleDeclAttribute's own, clearer message.
    OptArgs = 1;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &attr, const Decl *D) const override {
    return appliesToFunction(S, attr, D, "launch_contract");
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &attr) const override {
    auto *FD = cast<FunctionDecl>(D);
    if (!hasScope(S, attr, "launch_contract"))
      return AttributeNotApplied;
    // Every error below is reported here; the kernel still counts as contracted for later checks.
    auto rejected = [&] {
      addAnnotation(S.Context, *FD, oxide::kRejectedContractAnnotation, "", attr.getRange());
      return AttributeNotApplied;
    };
    StringLiteral *literal = stringArgument(attr);
    if (!literal || !literal->isOrdinary()) {
      oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::ContractNotAString);
      return rejected();
    }
    // The constants, looked up now (where the kernel is declared); errors wait for the parse,
    // which reports them in the order of the text.
    const auto names = constantNames(literal->getString(), *FD);
    llvm::SmallVector<Expr *> exprs;
    bool dependentConstant = false;
    for (const oxide::detail::ContractName &n : names) {
      const SourceLocation at = locationOfByte(S.Context, literal, n.offset);
      Expr *E = lookUpConstant(S, llvm::StringRef(n.name), at);
      dependentConstant |= E && (E->isValueDependent() || E->isTypeDependent());
      // A name the parse may not ask for (`n` in `n<m>`, a comparison unless a template `n`
      // gives `n<m>` a value) is no error yet.
      if (!E && n.in_template_id)
        E = unknownPlaceholder(S.Context, at);
      exprs.push_back(E);
    }
    const bool dependentParam =
        llvm::any_of(FD->parameters(), [](const ParmVarDecl *p) { return p->getType()->isDependentType(); });
    auto params = [&](std::string_view name) -> std::optional<ContractParam> {
      for (unsigned i = 0; i < FD->getNumParams(); ++i)
        if (FD->getParamDecl(i)->getName() == llvm::StringRef(name))
          return contractParam(name, i, FD->getParamDecl(i)->getType());
      return std::nullopt;
    };
    auto constants = [&](std::string_view name, std::size_t offset) -> ContractConstant {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i].name == name && exprs[i] && !isUnknownPlaceholder(exprs[i]))
          return evaluate(S.Context, exprs[i], llvm::StringRef(name));
      return unknownConstant(name, literal->getString(), offset);
    };
    if (dependentConstant) {
      // Values come with each instantiation, which parses the text again; a name that is in no
      // scope is an error already.
      for (size_t i = 0; i < names.size(); ++i)
        if (!exprs[i]) {
          oxide::report(S.getDiagnostics(), locationOfByte(S.Context, literal, names[i].offset),
                        oxide::Diag::ContractInvalid)
              << notAConstant(llvm::StringRef(names[i].name));
          return rejected();
        }
    } else {
      auto contract = parseContract(S.Context, literal, params, constants, "");
      if (!contract)
        return rejected();
      if (!dependentParam) {
        addAnnotation(S.Context, *FD, oxide::kContractAnnotation,
                      oxide::detail::canonical_contract(*contract), attr.getRange());
        addAnnotation(S.Context, *FD, oxide::kParamsAnnotation,
                      paramsText(*FD, [&](unsigned i) { return FD->getParamDecl(i)->getType(); }),
                      attr.getRange());
        return AttributeApplied;
      }
    }
    if (llvm::is_contained(exprs, nullptr))
      return rejected(); // every name was reported by the parse
    exprs.insert(exprs.begin(), literal);
    addAnnotation(S.Context, *FD, kPendingContract, "", attr.getRange(), exprs);
    return AttributeApplied;
  }
};

struct LaunchBoundsAttrInfo : ParsedAttrInfo {
  LaunchBoundsAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_CXX11, "oxide::launch_bounds"},
                                             {ParsedAttr::AS_CXX11, "launch_bounds"}};
    Spellings = spellings;
    OptArgs = 2;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &attr, const Decl *D) const override {
    return appliesToFunction(S, attr, D, "launch_bounds");
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &attr) const override {
    if (!hasScope(S, attr, "launch_bounds"))
      return AttributeNotApplied;
    llvm::SmallVector<Expr *> args;
    for (unsigned i = 0; i < attr.getNumArgs(); ++i) {
      // Clang keeps a lone name as an identifier (`launch_bounds(N)`): look it up as a value.
      Expr *E = attr.isArgExpr(i) ? attr.getArgAsExpr(i)
                : attr.isArgIdent(i)
                    ? lookUpConstant(S, attr.getArgAsIdent(i)->getIdentifierInfo()->getName(),
                                     attr.getArgAsIdent(i)->getLoc())
                    : nullptr;
      if (E)
        args.push_back(E);
    }
    if (args.empty() || args.size() > 2 || args.size() != attr.getNumArgs()) {
      oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::BoundsNotIntegers);
      return AttributeNotApplied;
    }
    if (llvm::any_of(args, [](const Expr *E) { return E->isValueDependent() || E->isTypeDependent(); })) {
      addAnnotation(S.Context, *D, kPendingBounds, "", attr.getRange(), args);
      return AttributeApplied;
    }
    auto text =
        boundsText(S.Context, llvm::SmallVector<const Expr *>(args.begin(), args.end()), attr.getLoc());
    if (!text)
      return AttributeNotApplied;
    addAnnotation(S.Context, *D, oxide::kLaunchBoundsAnnotation, *text, attr.getRange());
    return AttributeApplied;
  }
};

/// The instantiation's parameter that parameter `index` of the pattern became (by name: a pack
/// before it shifts the positions); nullptr for a pack.
const ParmVarDecl *instantiatedParam(const FunctionDecl &FD, const FunctionDecl &pattern, unsigned index) {
  const ParmVarDecl *param = pattern.getParamDecl(index);
  if (param->isParameterPack())
    return nullptr;
  for (const ParmVarDecl *p : FD.parameters())
    if (p->getName() == param->getName())
      return p;
  return nullptr;
}

} // namespace

void oxide::ast::instantiateContract(ASTContext &context, FunctionDecl &FD) {
  const FunctionDecl *pattern = FD.getTemplateInstantiationPattern();
  if (!pattern || !FD.hasAttrs())
    return;
  const AnnotateAttr *contract = nullptr, *bounds = nullptr;
  for (const AnnotateAttr *attr : FD.specific_attrs<AnnotateAttr>()) {
    if (attr->getAnnotation() == kPendingContract)
      contract = attr;
    else if (attr->getAnnotation() == kPendingBounds)
      bounds = attr;
  }
  if (!contract && !bounds)
    return;
  const std::string where = "in the instantiation '" + instantiationName(context, FD) + "': ";
  // The annotations this instantiation gets; written in the pattern's numbering, which
  // renumberContract (SafetyChecker.cpp) maps onto an instantiation of a parameter pack.
  llvm::SmallVector<std::pair<std::string, const AnnotateAttr *>> annotations;
  const auto *literal = contract && contract->args_size() > 0
                            ? dyn_cast<StringLiteral>((*contract->args_begin())->IgnoreParenImpCasts())
                            : nullptr;
  if (literal) {
    const auto names = constantNames(literal->getString(), *pattern);
    llvm::ArrayRef<Expr *> values(contract->args_begin() + 1, contract->args_end());
    auto params = [&](std::string_view name) -> std::optional<ContractParam> {
      for (unsigned i = 0; i < pattern->getNumParams(); ++i) {
        if (pattern->getParamDecl(i)->getName() != llvm::StringRef(name))
          continue;
        const ParmVarDecl *param = instantiatedParam(FD, *pattern, i);
        // A pack: renumberContract reports that it is not one parameter.
        return param ? contractParam(name, i, param->getType()) : ContractParam{i, false, {}, true};
      }
      return std::nullopt;
    };
    auto constants = [&](std::string_view name, std::size_t offset) -> ContractConstant {
      for (size_t i = 0; i < names.size() && i < values.size(); ++i)
        if (names[i].name == name && !isUnknownPlaceholder(values[i]))
          return evaluate(context, values[i], llvm::StringRef(name));
      return unknownConstant(name, literal->getString(), offset);
    };
    if (values.size() == names.size()) {
      auto parsed = parseContract(context, literal, params, constants, where);
      if (!parsed)
        annotations.push_back({kRejectedContractAnnotation, contract});
      else {
        annotations.push_back(
            {std::string(kContractAnnotation) + detail::canonical_contract(*parsed), contract});
        annotations.push_back({std::string(kParamsAnnotation) +
                                   paramsText(*pattern,
                                              [&](unsigned i) {
                                                const ParmVarDecl *p = instantiatedParam(FD, *pattern, i);
                                                return p ? p->getType() : pattern->getParamDecl(i)->getType();
                                              }),
                               contract});
      }
    }
  }
  if (bounds && bounds->args_size() > 0) {
    llvm::SmallVector<const Expr *> args(bounds->args_begin(), bounds->args_end());
    if (auto text = boundsText(context, args, bounds->getLocation()))
      annotations.push_back({std::string(kLaunchBoundsAnnotation) + *text, bounds});
  }
  llvm::erase_if(FD.getAttrs(), [](const Attr *attr) {
    const auto *annotate = dyn_cast<AnnotateAttr>(attr);
    return annotate &&
           (annotate->getAnnotation() == kPendingContract || annotate->getAnnotation() == kPendingBounds);
  });
  for (const auto &[text, from] : annotations)
    addAnnotation(context, FD, "", text, from->getRange());
}

bool oxide::hasLaunchContract(const FunctionDecl *FD) {
  auto contracted = [](const FunctionDecl *D) {
    return llvm::any_of(D->specific_attrs<AnnotateAttr>(), [](const AnnotateAttr *a) {
      const llvm::StringRef text = a->getAnnotation();
      return text.starts_with(kContractAnnotation) || text == kRejectedContractAnnotation ||
             text == kPendingContract;
    });
  };
  const FunctionDecl *pattern = FD->getTemplateInstantiationPattern();
  for (const FunctionDecl *decl : {FD, pattern})
    if (decl && llvm::any_of(decl->redecls(), contracted))
      return true;
  return false;
}

void oxide::ast::registerContractAttributes() {
  static ParsedAttrInfoRegistry::Add<LaunchContractAttrInfo> contract("oxide-launch-contract",
                                                                      "launch contracts");
  static ParsedAttrInfoRegistry::Add<LaunchBoundsAttrInfo> bounds("oxide-launch-bounds", "launch bounds");
}
