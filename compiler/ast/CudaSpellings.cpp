//===- CudaSpellings.cpp - CUDA's names refused with their Oxide equivalent ===//
//
// The host compile's half of include/oxide/detail/cuda_spellings.def (the header declares the
// refused functions as variadic overloads and the qualifiers as empty macros). Declaring the
// rest there would clash with CUDA's own headers, which a program may include (<curand_kernel.h>
// brings CUDA's runtime API, vector types and, for MTGP32, `extern const uint3 threadIdx`), so:
//
// - an expansion of a qualifier macro in the user's files is reported as it is read;
// - a built-in variable, constant or type that no header declares is declared unavailable when a
//   lookup of it fails, so that clang reports it at the use with the table's text;
// - a use in the user's code of CUDA's own declaration of a refused function, built-in variable
//   or constant is reported after parsing. CUDA's types stay usable: they are plain data, the same
//   on the host and the GPU.
//
//===----------------------------------------------------------------------===//

#include "SafetyCheckers.h"

#include "oxide/compiler/Diagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/ExternalSemaSource.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace clang;
using oxide::Diag;

namespace {

enum class SpellingKind { Qualifier, Builtin, Variable, Function, Type };

struct Spelling {
  llvm::StringLiteral name;
  SpellingKind kind;
  llvm::StringLiteral text; // what follows "<name> is CUDA's; in Oxide "
};

constexpr Spelling kSpellings[] = {
#define OXIDE_CUDA_QUALIFIER(name, text) {#name, SpellingKind::Qualifier, text},
#define OXIDE_CUDA_BUILTIN(name, text) {#name, SpellingKind::Builtin, text},
#define OXIDE_CUDA_VARIABLE(name, text) {#name, SpellingKind::Variable, text},
#define OXIDE_CUDA_FUNCTION(name, text) {#name, SpellingKind::Function, text},
#define OXIDE_CUDA_TYPE(name, text) {#name, SpellingKind::Type, text},
#define OXIDE_CUDA_SECTION(title)
#include "oxide/detail/cuda_spellings.def"
#undef OXIDE_CUDA_QUALIFIER
#undef OXIDE_CUDA_BUILTIN
#undef OXIDE_CUDA_VARIABLE
#undef OXIDE_CUDA_FUNCTION
#undef OXIDE_CUDA_TYPE
#undef OXIDE_CUDA_SECTION
};

const Spelling *findSpelling(llvm::StringRef name) {
  static const llvm::StringMap<const Spelling *> byName = [] {
    llvm::StringMap<const Spelling *> map;
    for (const Spelling &spelling : kSpellings)
      map[spelling.name] = &spelling;
    return map;
  }();
  const auto found = byName.find(name);
  return found == byName.end() ? nullptr : found->second;
}

constexpr llvm::StringLiteral kOptOut = "OXIDE_NO_CUDA_SPELLINGS";

/// Reports each expansion of a qualifier macro (`__global__`, `__shared__`...) in the user's files.
class QualifierExpansions : public PPCallbacks {
public:
  explicit QualifierExpansions(Preprocessor &pp) : pp(pp) {}

  void MacroExpands(const Token &name, const MacroDefinition &, SourceRange, const MacroArgs *) override {
    const IdentifierInfo *id = name.getIdentifierInfo();
    // Cheap first: every qualifier's name starts with two underscores.
    if (!id || !id->getName().starts_with("__"))
      return;
    const Spelling *spelling = findSpelling(id->getName());
    if (!spelling || spelling->kind != SpellingKind::Qualifier || pp.isMacroDefined(kOptOut))
      return;
    const SourceManager &sm = pp.getSourceManager();
    const SourceLocation file = sm.getExpansionLoc(name.getLocation());
    if (file.isInvalid() || !sm.getFileEntryRefForID(sm.getFileID(file)) ||
        oxide::ast::OxideHeaders::isSystemHeader(sm, file))
      return;
    oxide::report(pp.getDiagnostics(), name.getLocation(), Diag::CudaSpelling)
        << spelling->name << spelling->text;
  }

private:
  Preprocessor &pp;
};

/// Declares a refused built-in variable, constant or type, unavailable with the table's text,
/// when an ordinary lookup of its name finds nothing: the use then gets clang's own error and
/// nothing else (`threadIdx.x` is a member of oxide::detail::cuda_spelling::Builtin).
class UndeclaredSpellings : public ExternalSemaSource {
public:
  explicit UndeclaredSpellings(Sema &sema) : sema(sema) {}

  bool LookupUnqualified(LookupResult &result, Scope *) override {
    if (result.isForRedeclaration() || result.getLookupKind() != Sema::LookupOrdinaryName ||
        !result.getLookupName().isIdentifier())
      return false;
    IdentifierInfo *id = result.getLookupName().getAsIdentifierInfo();
    const Spelling *spelling = findSpelling(id->getName());
    if (!spelling || spelling->kind == SpellingKind::Qualifier || spelling->kind == SpellingKind::Function ||
        sema.getPreprocessor().isMacroDefined(kOptOut))
      return false;
    NamedDecl *decl = declaration(*spelling, id);
    if (!decl)
      return false;
    result.addDecl(decl);
    return true;
  }

private:
  NamedDecl *declaration(const Spelling &spelling, IdentifierInfo *id) {
    auto [entry, fresh] = declared.try_emplace(id, nullptr);
    if (!fresh)
      return entry->second;
    const QualType type = helperType(spelling.kind == SpellingKind::Builtin ? "Builtin" : "Anything");
    if (type.isNull()) // oxide/detail/cuda_spellings.hpp is not included
      return nullptr;
    ASTContext &ctx = sema.getASTContext();
    TranslationUnitDecl *unit = ctx.getTranslationUnitDecl();
    NamedDecl *decl = nullptr;
    if (spelling.kind == SpellingKind::Type) {
      decl = TypedefDecl::Create(ctx, unit, {}, {}, id, ctx.getTrivialTypeSourceInfo(type));
    } else {
      const QualType constant = type.withConst();
      decl =
          VarDecl::Create(ctx, unit, {}, {}, id, constant, ctx.getTrivialTypeSourceInfo(constant), SC_Extern);
    }
    decl->addAttr(UnavailableAttr::CreateImplicit(
        ctx, (spelling.name + " is CUDA's; in Oxide " + spelling.text).str()));
    entry->second = decl;
    return decl;
  }

  /// oxide::detail::cuda_spelling::`name`, or a null type.
  QualType helperType(llvm::StringRef name) {
    ASTContext &ctx = sema.getASTContext();
    DeclContext *scope = ctx.getTranslationUnitDecl();
    for (llvm::StringRef ns : {"oxide", "detail", "cuda_spelling"}) {
      NamespaceDecl *inner = nullptr;
      for (NamedDecl *found : scope->lookup(&ctx.Idents.get(ns)))
        if ((inner = dyn_cast<NamespaceDecl>(found)))
          break;
      if (!inner)
        return {};
      scope = inner;
    }
    for (NamedDecl *found : scope->lookup(&ctx.Idents.get(name)))
      if (const auto *record = dyn_cast<CXXRecordDecl>(found))
        return ctx.getCanonicalTagType(record);
    return {};
  }

  Sema &sema;
  llvm::DenseMap<IdentifierInfo *, NamedDecl *> declared;
};

/// Uses in the user's code of CUDA's own declarations of refused names.
class CudaDeclaredUses : public RecursiveASTVisitor<CudaDeclaredUses> {
public:
  CudaDeclaredUses(ASTContext &context, oxide::ast::OxideHeaders &headers)
      : context(context), sm(context.getSourceManager()), headers(headers) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *decl) {
    return oxide::ast::isOutsideUserCode(decl, headers) || RecursiveASTVisitor::TraverseDecl(decl);
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    const ValueDecl *decl = ref->getDecl();
    if (!decl->getDeclName().isIdentifier())
      return true;
    const Spelling *spelling = findSpelling(decl->getName());
    // Oxide's own declarations (the header's functions, the declarations made at lookup) are
    // unavailable already; a user's function of the same name is a porting shim.
    if (!spelling || spelling->kind == SpellingKind::Type || decl->getLocation().isInvalid() ||
        !oxide::ast::OxideHeaders::isSystemHeader(sm, sm.getFileLoc(decl->getLocation())))
      return true;
    const SourceLocation at = ref->getLocation();
    if (reported.insert(at).second)
      oxide::report(context.getDiagnostics(), at, Diag::CudaSpelling) << spelling->name << spelling->text;
    return true;
  }

private:
  ASTContext &context;
  const SourceManager &sm;
  oxide::ast::OxideHeaders &headers;
  llvm::DenseSet<SourceLocation> reported;
};

} // namespace

void oxide::ast::watchCudaSpellings(Sema &sema) {
  if (sema.getLangOpts().CUDA)
    return;
  sema.getPreprocessor().addPPCallbacks(std::make_unique<QualifierExpansions>(sema.getPreprocessor()));
  sema.addExternalSource(llvm::makeIntrusiveRefCnt<UndeclaredSpellings>(sema));
}

void oxide::ast::checkCudaSpellings(ASTContext &context, OxideHeaders &headers, Preprocessor &pp) {
  if (context.getLangOpts().CUDA || pp.isMacroDefined(kOptOut))
    return;
  CudaDeclaredUses(context, headers).TraverseDecl(context.getTranslationUnitDecl());
}
