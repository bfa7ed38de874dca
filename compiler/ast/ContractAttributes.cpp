//===- ContractAttributes.cpp - launch_contract and launch_bounds ---------===//
//
// `[[oxide::launch_contract("...")]]` is parsed here, where the kernel's parameters are known,
// so a malformed field or an unknown name is reported at its place inside the string. The
// canonical contract travels to the device compile's IR as annotations:
//   oxide.contract:<canonical text>          (names replaced by $index)
//   oxide.params:<name>=<kind>,...           (see paramKind)
//   oxide.launch_bounds:<max>,<min blocks>
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
#include "clang/Lex/Lexer.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace {

/// The tokens between the parentheses after an attribute's name. Clang 22's parser does not
/// parse the arguments of plugin attributes written [[scope::name(...)]] (it asks
/// hasAttribute without plugins), so they are lexed again from the source.
std::optional<llvm::SmallVector<Token>> argumentTokens(Sema &S, const ParsedAttr &attr) {
  const SourceManager &sm = S.getSourceManager();
  const LangOptions &lang = S.getLangOpts();
  // The attribute's location is its first token (`scope` in scope::name); skip to the '('.
  std::optional<Token> tok = Lexer::findNextToken(attr.getLoc(), sm, lang);
  while (tok && (tok->is(tok::coloncolon) || tok->is(tok::raw_identifier) || tok->is(tok::identifier)))
    tok = Lexer::findNextToken(tok->getLocation(), sm, lang);
  if (!tok || !tok->is(tok::l_paren))
    return std::nullopt;
  llvm::SmallVector<Token> tokens;
  unsigned depth = 1;
  while ((tok = Lexer::findNextToken(tok->getLocation(), sm, lang))) {
    if (tok->is(tok::eof))
      return std::nullopt;
    if (tok->is(tok::l_paren))
      ++depth;
    if (tok->is(tok::r_paren) && --depth == 0)
      return tokens;
    tokens.push_back(*tok);
  }
  return std::nullopt;
}

/// The attribute's single string-literal argument, or nullptr.
StringLiteral *stringArgument(Sema &S, const ParsedAttr &attr) {
  if (attr.getNumArgs() == 1 && attr.isArgExpr(0))
    return dyn_cast<StringLiteral>(attr.getArgAsExpr(0)->IgnoreParenCasts());
  auto tokens = argumentTokens(S, attr);
  if (!tokens || tokens->empty() ||
      !llvm::all_of(*tokens, [](const Token &t) { return tok::isStringLiteral(t.getKind()); }))
    return nullptr;
  ExprResult literal = S.ActOnStringLiteral(*tokens);
  return literal.isUsable() ? dyn_cast<StringLiteral>(literal.get()) : nullptr;
}

/// The attribute's integer-literal arguments, or std::nullopt when they are anything else.
std::optional<llvm::SmallVector<std::pair<std::uint64_t, SourceLocation>>>
integerArguments(Sema &S, const ParsedAttr &attr) {
  llvm::SmallVector<std::pair<std::uint64_t, SourceLocation>> values;
  if (attr.getNumArgs() > 0) {
    for (unsigned i = 0; i < attr.getNumArgs(); ++i) {
      Expr *arg = attr.isArgExpr(i) ? attr.getArgAsExpr(i) : nullptr;
      std::optional<llvm::APSInt> value = arg ? arg->getIntegerConstantExpr(S.Context) : std::nullopt;
      if (!value || value->isNegative())
        return std::nullopt;
      values.push_back({value->getZExtValue(), arg->getBeginLoc()});
    }
    return values;
  }
  auto tokens = argumentTokens(S, attr);
  if (!tokens)
    return std::nullopt;
  for (size_t i = 0; i < tokens->size(); ++i) {
    const Token &tok = (*tokens)[i];
    if (i % 2 == 1) {
      if (!tok.is(tok::comma))
        return std::nullopt;
      continue;
    }
    if (!tok.is(tok::numeric_constant))
      return std::nullopt;
    ExprResult literal = S.ActOnNumericConstant(tok);
    std::optional<llvm::APSInt> value =
        literal.isUsable() ? literal.get()->getIntegerConstantExpr(S.Context) : std::nullopt;
    if (!value)
      return std::nullopt;
    values.push_back({value->getZExtValue(), tok.getLocation()});
  }
  return values;
}

bool appliesToFunction(Sema &S, const ParsedAttr &attr, const Decl *D, llvm::StringRef spelling) {
  if (isa<FunctionDecl>(D))
    return true;
  oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::AttributeNotOnFunction) << spelling;
  return false;
}

/// What a parameter is, for the compiler's contract optimisations and the runtime (written as
/// the letters of oxide/detail/param_kind.hpp). Pointers are `other` here.
oxide::detail::ParamKind paramKind(QualType type) {
  using oxide::detail::ParamKind;
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
  if (type->isUnsignedIntegerType() && !type->isBooleanType())
    return ParamKind::unsigned_integer;
  return ParamKind::other;
}

struct LaunchContractAttrInfo : ParsedAttrInfo {
  LaunchContractAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_CXX11, "oxide::launch_contract"}};
    Spellings = spellings;
    // Optional so that a missing argument reaches handleDeclAttribute's own, clearer message.
    OptArgs = 1;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &attr, const Decl *D) const override {
    return appliesToFunction(S, attr, D, "launch_contract");
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &attr) const override {
    auto *FD = cast<FunctionDecl>(D);
    StringLiteral *literal = stringArgument(S, attr);
    if (!literal || !literal->isOrdinary()) {
      oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::ContractNotAString);
      return AttributeNotApplied;
    }
    auto resolve = [&](std::string_view name) -> std::optional<oxide::detail::ContractParam> {
      for (unsigned i = 0; i < FD->getNumParams(); ++i) {
        const ParmVarDecl *param = FD->getParamDecl(i);
        if (param->getName() != llvm::StringRef(name.data(), name.size()))
          continue;
        const oxide::detail::ParamKind kind = paramKind(param->getType());
        oxide::detail::ContractParam result{i, oxide::detail::is_span(kind), {}};
        if (!result.is_span && kind != oxide::detail::ParamKind::unsigned_integer)
          result.unusable_reason = "'" + std::string(name) + "' has type '" + param->getType().getAsString() +
                                   "'; requires relations use span sizes and unsigned integer parameters "
                                   "(e.g. std::uint32_t, std::size_t)";
        return result;
      }
      return std::nullopt;
    };
    llvm::StringRef text = literal->getString();
    auto parsed = oxide::detail::parse_contract(std::string_view(text.data(), text.size()), resolve);
    if (auto *error = std::get_if<oxide::detail::ContractError>(&parsed)) {
      SourceLocation loc =
          literal->getLocationOfByte(static_cast<unsigned>(error->offset), S.getSourceManager(),
                                     S.getLangOpts(), S.Context.getTargetInfo());
      oxide::report(S.getDiagnostics(), loc, oxide::Diag::ContractInvalid) << error->message;
      return AttributeNotApplied;
    }
    const auto &contract = std::get<oxide::detail::Contract>(parsed);
    std::string params;
    for (unsigned i = 0; i < FD->getNumParams(); ++i) {
      const ParmVarDecl *param = FD->getParamDecl(i);
      if (i)
        params += ',';
      params += param->getName().str() + "=" + oxide::detail::param_kind_letter(paramKind(param->getType()));
    }
    FD->addAttr(AnnotateAttr::Create(
        S.Context, std::string(oxide::kContractAnnotation) + oxide::detail::canonical_contract(contract),
        nullptr, 0, attr.getRange()));
    FD->addAttr(AnnotateAttr::Create(S.Context, std::string(oxide::kParamsAnnotation) + params, nullptr, 0,
                                     attr.getRange()));
    return AttributeApplied;
  }
};

struct LaunchBoundsAttrInfo : ParsedAttrInfo {
  LaunchBoundsAttrInfo() {
    static constexpr Spelling spellings[] = {{ParsedAttr::AS_CXX11, "oxide::launch_bounds"}};
    Spellings = spellings;
    OptArgs = 2;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &attr, const Decl *D) const override {
    return appliesToFunction(S, attr, D, "launch_bounds");
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &attr) const override {
    auto args = integerArguments(S, attr);
    if (!args || args->empty() || args->size() > 2) {
      oxide::report(S.getDiagnostics(), attr.getLoc(), oxide::Diag::BoundsNotIntegers);
      return AttributeNotApplied;
    }
    std::uint64_t values[2] = {(*args)[0].first, args->size() > 1 ? (*args)[1].first : 0};
    if (values[0] < 1 || values[0] > 1024) {
      oxide::report(S.getDiagnostics(), (*args)[0].second, oxide::Diag::BoundsMaxThreadsRange)
          << std::to_string(values[0]);
      return AttributeNotApplied;
    }
    if (values[1] > UINT32_MAX) {
      oxide::report(S.getDiagnostics(), (*args)[1].second, oxide::Diag::BoundsMinBlocksRange)
          << std::to_string(values[1]);
      return AttributeNotApplied;
    }
    D->addAttr(AnnotateAttr::Create(S.Context,
                                    std::string(oxide::kLaunchBoundsAnnotation) + std::to_string(values[0]) +
                                        "," + std::to_string(values[1]),
                                    nullptr, 0, attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace

void oxide::ast::registerContractAttributes() {
  static ParsedAttrInfoRegistry::Add<LaunchContractAttrInfo> contract("oxide-launch-contract",
                                                                      "launch contracts");
  static ParsedAttrInfoRegistry::Add<LaunchBoundsAttrInfo> bounds("oxide-launch-bounds", "launch bounds");
}
