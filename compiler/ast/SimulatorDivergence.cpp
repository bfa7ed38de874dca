//===- SimulatorDivergence.cpp - code only one of the two compiles sees ---===//
//
// The CPU simulator runs the host compile of a kernel, which Oxide's write checks never see; they
// prove the device compile's. Wherever the preprocessor makes the two differ inside what a
// contracted kernel runs, the simulator would run unchecked code (an `#ifndef __CUDA_ARCH__`
// branch that writes an input), so that is an error [safety rule: simulator-divergence]. See
// SimulatorDivergence.h.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/SimulatorDivergence.h"
#include "oxide/compiler/Diagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>

using namespace clang;
using oxide::Diag;
using oxide::TargetDependentSource;

namespace {

/// Macros that only the device compile defines (clang's CUDA device mode and CUDA's headers:
/// __CUDA_ARCH__, __CUDA__, __NVPTX__, __CUDACC__, CUDART_VERSION, __device__...): a conditional
/// on one of them compiles for the GPU or for the host.
bool isCudaName(llvm::StringRef name) {
  for (llvm::StringRef prefix : {"__CUDA", "__NVPTX", "__PTX", "__NVCC", "__clang_cuda", "__nvvm", "CUDA"})
    if (name.starts_with(prefix))
      return true;
  return llvm::is_contained({"__device__", "__host__", "__global__", "__shared__", "__constant__",
                             "__managed__", "__forceinline__", "__noinline__", "__launch_bounds__",
                             "__grid_constant__"},
                            name);
}

/// Macros that the two compiles define differently for other reasons: the device compile
/// optimises at -O2 or more, has no 80-bit long double, no position-independent code or
/// sanitizers; and the builtin macros that ask the target (its builtins, attributes, features,
/// include paths).
bool differsOtherwise(llvm::StringRef name) {
  for (llvm::StringRef prefix : {"__LDBL_", "__code_model", "__has_", "__is_target_", "__SANITIZE_"})
    if (name.starts_with(prefix))
      return true;
  return llvm::is_contained({"__OPTIMIZE__", "__OPTIMIZE_SIZE__", "__NO_INLINE__", "__NO_MATH_ERRNO__",
                             "__FAST_MATH__", "__FINITE_MATH_ONLY__", "__SIZEOF_LONG_DOUBLE__",
                             "__BIGGEST_ALIGNMENT__", "__BITINT_MAXWIDTH__", "__PIC__", "__PIE__", "__pic__",
                             "__pie__", "__cpp_threadsafe_static_init"},
                            name);
}

/// A file the include search did not find in a system directory (a user's header that only
/// declares itself a system header is still the user's, as in SafetyChecker.cpp).
bool isUserFile(const SourceManager &sm, SourceLocation loc) {
  if (loc.isInvalid())
    return false;
  const SrcMgr::SLocEntry &entry = sm.getSLocEntry(sm.getFileID(sm.getExpansionLoc(loc)));
  return entry.isFile() && entry.getFile().getFileCharacteristic() == SrcMgr::C_User;
}

} // namespace

namespace oxide {

/// Records TargetDependentSource's places as one compile's preprocessor reads the source.
class TargetConditionalRecorder : public PPCallbacks {
public:
  TargetConditionalRecorder(TargetDependentSource &out, Preprocessor &pp)
      : out(out), pp(pp), sm(pp.getSourceManager()), device(pp.getLangOpts().CUDAIsDevice) {}

  void If(SourceLocation loc, SourceRange, ConditionValueKind value) override {
    open(loc);
    testCondition(loc, "#if");
    branch(value == CVK_True);
  }
  void Elif(SourceLocation loc, SourceRange, ConditionValueKind value, SourceLocation) override {
    testCondition(loc, "#elif");
    branch(value == CVK_True);
  }
  void Ifdef(SourceLocation loc, const Token &name, const MacroDefinition &md) override {
    open(loc);
    testName(loc, "#ifdef", name);
    branch(bool(md));
  }
  void Ifndef(SourceLocation loc, const Token &name, const MacroDefinition &md) override {
    open(loc);
    testName(loc, "#ifndef", name);
    branch(!md);
  }
  void Elifdef(SourceLocation loc, const Token &name, const MacroDefinition &md) override {
    testName(loc, "#elifdef", name);
    branch(bool(md));
  }
  void Elifdef(SourceLocation loc, SourceRange, SourceLocation) override {
    testCondition(loc, "#elifdef");
    branch(false);
  }
  void Elifndef(SourceLocation loc, const Token &name, const MacroDefinition &md) override {
    testName(loc, "#elifndef", name);
    branch(!md);
  }
  void Elifndef(SourceLocation loc, SourceRange, SourceLocation) override {
    testCondition(loc, "#elifndef");
    branch(false);
  }
  void Else(SourceLocation, SourceLocation) override {
    if (!groups.empty())
      branch(!groups.back().taken);
  }
  void Endif(SourceLocation loc, SourceLocation) override {
    if (groups.empty())
      return;
    const Group group = std::move(groups.back());
    groups.pop_back();
    if (!group.dependent || !group.inUserFile)
      return;
    const auto [file, begin] = sm.getDecomposedExpansionLoc(group.begin);
    const auto [endFile, end] = sm.getDecomposedExpansionLoc(loc);
    TargetDependentSource::Place place;
    place.file = file;
    place.begin = begin;
    place.end = endFile == file ? end : ~0u;
    place.at = group.at;
    place.text = group.text;
    // Which branch the host compile takes is known only for a test of whether a CUDA macro is
    // defined: this compile is the host's, or the device's and the host takes what it skips.
    place.kind = !group.definedness ? 2 : (device ? group.skipped : group.taken) ? 0 : 1;
    out.places_.push_back(std::move(place));
  }

  // A macro defined or undefined under a conditional on the target differs between the compiles.
  void MacroDefined(const Token &name, const MacroDirective *) override { defines(name); }
  void MacroUndefined(const Token &name, const MacroDefinition &, const MacroDirective *) override {
    defines(name);
  }

  /// A macro that differs between the compiles, expanded in the user's code (a condition's
  /// macros are judged with the condition).
  void MacroExpands(const Token &name, const MacroDefinition &md, SourceRange range,
                    const MacroArgs *) override {
    if (pp.isParsingIfOrElifDirective() || !isUserFile(sm, range.getBegin()) || underDependentGroup())
      return;
    const IdentifierInfo *id = name.getIdentifierInfo();
    const MacroInfo *info = md.getMacroInfo();
    if (!id || !info)
      return;
    std::optional<Why> why;
    if (isCudaName(id->getName()) || differsOtherwise(id->getName()))
      why = Why{2, id->getName().str(), false};
    else if (isUserFile(sm, info->getDefinitionLoc()))
      why = dependsOnTarget(id, /*followLibraries=*/false);
    if (!why)
      return;
    const SourceLocation at = sm.getExpansionLoc(range.getBegin());
    const auto [file, offset] = sm.getDecomposedLoc(at);
    if (!out.places_.empty() && out.places_.back().isMacro && out.places_.back().file == file &&
        out.places_.back().begin == offset)
      return; // a macro expanded by another one
    TargetDependentSource::Place place;
    place.file = file;
    place.begin = place.end = offset;
    place.at = at;
    place.text = id->getName().str();
    place.isMacro = true;
    place.kind = why->kind;
    place.why = why->detail;
    out.places_.push_back(std::move(place));
  }

private:
  /// An open conditional, from its #if to its #endif.
  struct Group {
    SourceLocation begin; ///< the '#' of its #if
    bool inUserFile = false;
    bool dependent = false;  ///< a condition of it depends on the target
    bool definedness = true; ///< ...and only by testing whether CUDA macros are defined
    SourceLocation at;       ///< the first such directive's '#'
    std::string text;        ///< and its text
    bool taken = false;      ///< this compile takes one of its branches
    bool skipped = false;    ///< and skips one written out (#if, #elif or #else)
  };

  /// Why a macro depends on the target: the %select of Diag::SimulatorDivergentMacro (0: it is
  /// defined under a conditional on the target, 1: its expansion names such a macro, 2: it is
  /// one), with its detail; `cuda`: a CUDA macro decides it, by whether it is defined.
  struct Why {
    int kind;
    std::string detail;
    bool cuda;
  };

  /// Whether macro `id` (defined or not) depends on the target. The expansions of the macros
  /// defined in system headers are followed only when `followLibraries`.
  std::optional<Why> dependsOnTarget(const IdentifierInfo *id, bool followLibraries) {
    llvm::SmallPtrSet<const IdentifierInfo *, 8> seen;
    return dependsOnTarget(id, followLibraries, seen);
  }
  std::optional<Why> dependsOnTarget(const IdentifierInfo *id, bool followLibraries,
                                     llvm::SmallPtrSetImpl<const IdentifierInfo *> &seen) {
    if (!id || !seen.insert(id).second)
      return std::nullopt;
    if (isCudaName(id->getName()))
      return Why{2, id->getName().str(), true};
    if (differsOtherwise(id->getName()))
      return Why{2, id->getName().str(), false};
    if (auto it = derived.find(id); it != derived.end())
      return Why{0, it->second, false};
    const MacroInfo *info = pp.getMacroInfo(id);
    if (!info || (!followLibraries && !isUserFile(sm, info->getDefinitionLoc())))
      return std::nullopt;
    for (const Token &token : info->tokens())
      if (const IdentifierInfo *inner = token.getIdentifierInfo())
        if (std::optional<Why> why = dependsOnTarget(inner, followLibraries, seen))
          return Why{1, why->kind == 0 ? inner->getName().str() : why->detail, false};
    return std::nullopt;
  }

  void open(SourceLocation loc) {
    Group group;
    group.begin = hashOf(loc);
    group.inUserFile = isUserFile(sm, loc);
    groups.push_back(std::move(group));
  }
  void branch(bool taken) {
    if (groups.empty())
      return;
    groups.back().taken |= taken;
    groups.back().skipped |= !taken;
  }
  bool underDependentGroup() const {
    return llvm::any_of(groups, [](const Group &g) { return g.dependent; });
  }

  void testName(SourceLocation loc, llvm::StringRef directive, const Token &name) {
    const IdentifierInfo *id = name.getIdentifierInfo();
    if (!id || groups.empty() || !groups.back().inUserFile)
      return;
    if (std::optional<Why> why = dependsOnTarget(id, /*followLibraries=*/true))
      dependent(loc, (directive + " " + id->getName()).str(), why->kind == 2 && why->cuda);
  }

  /// A condition depends on the target when a name it spells does; it decides between the
  /// host and the GPU when those are CUDA macros, each tested only by `defined`.
  void testCondition(SourceLocation loc, llvm::StringRef directive) {
    // Only the user's conditionals are reported, and only the user's macros derived from them.
    if (groups.empty() || !groups.back().inUserFile)
      return;
    const std::string text = conditionOf(loc);
    bool depends = false, definedness = true;
    llvm::StringRef previous;
    for (size_t i = 0; i < text.size();) {
      if (!llvm::isAlpha(text[i]) && text[i] != '_') {
        // Skip a number with its suffix whole (`0x1F`, `10u`).
        size_t end = i + 1;
        if (llvm::isDigit(text[i]))
          while (end < text.size() && (llvm::isAlnum(text[end]) || text[end] == '_' || text[end] == '.'))
            ++end;
        i = end;
        continue;
      }
      size_t end = i;
      while (end < text.size() && (llvm::isAlnum(text[end]) || text[end] == '_'))
        ++end;
      const llvm::StringRef word = llvm::StringRef(text).slice(i, end);
      i = end;
      if (std::optional<Why> why = dependsOnTarget(pp.getIdentifierInfo(word), /*followLibraries=*/true)) {
        depends = true;
        definedness &= why->kind == 2 && why->cuda && previous == "defined";
      }
      previous = word;
    }
    if (depends)
      dependent(loc, (directive + " " + collapse(text)).str(), definedness);
  }

  void dependent(SourceLocation loc, std::string text, bool definedness) {
    if (groups.empty())
      return;
    Group &group = groups.back();
    group.definedness &= definedness;
    if (group.dependent)
      return;
    group.dependent = true;
    group.at = hashOf(loc);
    group.text = std::move(text);
  }

  void defines(const Token &name) {
    const IdentifierInfo *id = name.getIdentifierInfo();
    if (!id || !isUserFile(sm, name.getLocation()))
      return;
    for (auto it = groups.rbegin(); it != groups.rend(); ++it)
      if (it->dependent) {
        derived.try_emplace(id, it->text);
        return;
      }
  }

  /// The condition of the directive whose name is at `loc`, as written (its range may end in a
  /// builtin macro's expansion), without comments and line continuations.
  std::string conditionOf(SourceLocation loc) const {
    bool invalid = false;
    const char *at = sm.getCharacterData(loc, &invalid);
    if (invalid)
      return "";
    const llvm::StringRef buffer = sm.getBufferData(sm.getFileID(loc), &invalid);
    if (invalid)
      return "";
    llvm::StringRef rest = buffer.substr(at - buffer.data());
    rest = rest.drop_while([](char c) { return llvm::isAlpha(c); }); // the directive's name
    std::string text;
    for (size_t i = 0; i < rest.size(); ++i) {
      const char c = rest[i];
      if (c == '\\' && i + 1 < rest.size() && (rest[i + 1] == '\n' || rest[i + 1] == '\r')) {
        ++i;
        continue;
      }
      if (c == '\n')
        break;
      if (c == '/' && i + 1 < rest.size() && rest[i + 1] == '/')
        break;
      if (c == '/' && i + 1 < rest.size() && rest[i + 1] == '*') {
        const size_t end = rest.find("*/", i + 2);
        if (end == llvm::StringRef::npos)
          break;
        i = end + 1;
        text += ' ';
        continue;
      }
      text += c;
    }
    return text;
  }

  /// The '#' that starts the directive whose name is at `loc`.
  SourceLocation hashOf(SourceLocation loc) const {
    bool invalid = false;
    const char *at = sm.getCharacterData(loc, &invalid);
    if (invalid)
      return loc;
    const llvm::StringRef buffer = sm.getBufferData(sm.getFileID(loc), &invalid);
    if (invalid)
      return loc;
    for (const char *p = at; p > buffer.data();) {
      const char c = *--p;
      if (c == '#')
        return loc.getLocWithOffset(-static_cast<int>(at - p));
      if (c != ' ' && c != '\t')
        break;
    }
    return loc;
  }

  /// A condition on one line, not too long for a message.
  static std::string collapse(llvm::StringRef text) {
    std::string line;
    for (char c : text) {
      if (c == '\\')
        continue;
      if (llvm::isSpace(c)) {
        if (!line.empty() && line.back() != ' ')
          line += ' ';
        continue;
      }
      line += c;
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    if (line.size() > 60)
      line = line.substr(0, 57) + "...";
    return line;
  }

  TargetDependentSource &out;
  Preprocessor &pp;
  SourceManager &sm;
  const bool device;
  std::vector<Group> groups;
  /// Macros defined under a conditional on the target: name -> that conditional's directive.
  llvm::DenseMap<const IdentifierInfo *, std::string> derived;
};

} // namespace oxide

void TargetDependentSource::watch(Preprocessor &pp) {
  pp.addPPCallbacks(std::make_unique<oxide::TargetConditionalRecorder>(*this, pp));
}

namespace {

class DivergenceWalk;

/// The declarations one body (or initialiser) uses: the functions it calls, constructs with or
/// takes the address of, the variables, members and enumerators it names, the types it spells or
/// computes with.
class UseScanner : public RecursiveASTVisitor<UseScanner> {
public:
  UseScanner(DivergenceWalk &walk, const Decl *from) : walk(walk), from(from) {}

  bool shouldVisitImplicitCode() const { return true; }

  bool VisitCallExpr(CallExpr *call);
  bool VisitCXXConstructExpr(CXXConstructExpr *construct);
  bool VisitCXXNewExpr(CXXNewExpr *expr);
  bool VisitCXXDeleteExpr(CXXDeleteExpr *expr);
  bool VisitDeclRefExpr(DeclRefExpr *ref);
  bool VisitMemberExpr(MemberExpr *member);
  bool VisitExpr(Expr *expr);
  bool VisitValueDecl(ValueDecl *decl);
  bool VisitTypedefTypeLoc(TypedefTypeLoc type);
  bool VisitTagTypeLoc(TagTypeLoc type);

private:
  DivergenceWalk &walk;
  const Decl *from;
};

/// Everything the contracted kernels reach, breadth first from the kernels, each with how it was
/// first reached; each place of TargetDependentSource (the user's) that lies in it is reported
/// once, for the innermost declaration that holds it.
class DivergenceWalk {
public:
  DivergenceWalk(ASTContext &context, const TargetDependentSource &source,
                 llvm::function_ref<bool(SourceLocation)> isUserCode)
      : sm(context.getSourceManager()), diags(context.getDiagnostics()), source(source),
        isUserCode(isUserCode) {}

  void run(const std::vector<const FunctionDecl *> &kernels) {
    for (const FunctionDecl *kernel : kernels)
      reach(kernel, Link{nullptr, {}, false, kernel});
    for (size_t next = 0; next < queue.size(); ++next)
      visit(queue[next]);
    for (size_t place : order)
      report(place, innermost[place].decl);
  }

  /// `from` uses `decl` at `site` (`call`: by calling it).
  void use(const Decl *decl, const Decl *from, SourceLocation site, bool call) {
    if (!decl)
      return;
    const Link &link = reached.find(key(from))->second;
    reach(decl, Link{from, site, call, link.kernel});
  }
  void useType(QualType type, const Decl *from, SourceLocation site, int depth = 0) {
    if (type.isNull() || depth > 4)
      return;
    type = type.getNonReferenceType();
    while (true) {
      if (const auto *pointer = type->getAs<PointerType>())
        type = pointer->getPointeeType();
      else if (const auto *member = type->getAs<MemberPointerType>())
        type = member->getPointeeType();
      else if (const ArrayType *array = type->getAsArrayTypeUnsafe())
        type = array->getElementType();
      else
        break;
    }
    if (const auto *alias = type->getAs<TypedefType>())
      use(alias->getDecl(), from, site, false);
    if (const TagDecl *tag = type->getAsTagDecl()) {
      use(tag, from, site, false);
      // The element types of the library's containers and spans are the user's too.
      if (const auto *spec = dyn_cast<ClassTemplateSpecializationDecl>(tag))
        for (const TemplateArgument &arg : spec->getTemplateArgs().asArray())
          if (arg.getKind() == TemplateArgument::Type)
            useType(arg.getAsType(), from, site, depth + 1);
    }
  }

private:
  struct Link {
    const Decl *from; ///< null for a kernel
    SourceLocation site;
    bool call;
    const FunctionDecl *kernel; ///< the contracted kernel it was reached from
  };

  static const Decl *key(const Decl *decl) {
    if (const auto *fn = dyn_cast<FunctionDecl>(decl)) {
      const FunctionDecl *definition = nullptr;
      return fn->hasBody(definition) ? definition : fn->getCanonicalDecl();
    }
    if (const auto *tag = dyn_cast<TagDecl>(decl))
      return tag->getDefinition() ? tag->getDefinition() : tag->getCanonicalDecl();
    return decl->getCanonicalDecl();
  }

  /// Library code (Oxide's headers, system headers) is walked too, for the user's code it calls
  /// back (a functor, an operator found by argument-dependent lookup), but only the user's code
  /// is judged: places are the user's, and a library's variables and types are not followed.
  void reach(const Decl *decl, Link link) {
    if (const auto *var = dyn_cast<VarDecl>(decl); var && var->isLocalVarDeclOrParm())
      return; // in the body that uses it
    if (isa<NamespaceDecl, TranslationUnitDecl>(decl))
      return;
    decl = key(decl);
    if (!isa<FunctionDecl, TagDecl>(decl) && !isUserCode(decl->getLocation()))
      return;
    if (reached.try_emplace(decl, link).second)
      queue.push_back(decl);
  }

  void visit(const Decl *decl) {
    llvm::SmallVector<SourceRange, 4> ranges;
    auto addDeclarations = [&](const Decl *d) {
      if (!d)
        return;
      for (const Decl *redecl : d->redecls())
        ranges.push_back(redecl->getSourceRange());
    };
    const Link link = reached.find(decl)->second;
    UseScanner scanner(*this, decl);
    if (const auto *fn = dyn_cast<FunctionDecl>(decl)) {
      addDeclarations(fn);
      addDeclarations(fn->getTemplateInstantiationPattern());
      if (fn->doesThisDeclarationHaveABody() && !fn->isDependentContext())
        scanner.TraverseDecl(const_cast<FunctionDecl *>(fn));
      // A member function's class is used where the member is.
      if (const auto *method = dyn_cast<CXXMethodDecl>(fn))
        reach(method->getParent(), link);
    } else if (const auto *var = dyn_cast<VarDecl>(decl)) {
      addDeclarations(var);
      if (const VarDecl *pattern = var->getTemplateInstantiationPattern())
        addDeclarations(pattern);
      useType(var->getType(), decl, var->getLocation());
      if (const VarDecl *definition = var->getDefinition(); definition && definition->getInit())
        scanner.TraverseStmt(const_cast<Expr *>(definition->getInit()));
      if (const DeclContext *dc = var->getDeclContext(); dc->isRecord())
        reach(cast<RecordDecl>(dc), link);
    } else if (isa<FieldDecl, IndirectFieldDecl, EnumConstantDecl>(decl)) {
      reach(cast<Decl>(decl->getDeclContext()), link);
    } else if (const auto *record = dyn_cast<CXXRecordDecl>(decl)) {
      visitRecord(record, link, ranges);
    } else if (const auto *tag = dyn_cast<TagDecl>(decl)) {
      if (isUserCode(tag->getLocation()))
        addDeclarations(tag);
    } else if (const auto *alias = dyn_cast<TypedefNameDecl>(decl)) {
      addDeclarations(alias);
      useType(alias->getUnderlyingType(), decl, alias->getLocation());
    } else {
      ranges.push_back(decl->getSourceRange());
    }
    for (SourceRange range : ranges)
      reportPlacesIn(range, decl);
  }

  /// A class is judged by what gives it its layout: its head (bases), its data members, type
  /// members and virtual functions; a member function only when it is reached. Its destructor
  /// runs wherever an object of it dies (no call in the AST says so), a virtual function wherever
  /// it is called through the base, a lambda's call operator wherever a library calls it.
  void visitRecord(const CXXRecordDecl *record, const Link &link,
                   llvm::SmallVectorImpl<SourceRange> &ranges) {
    if (!record->hasDefinition())
      return;
    if (const CXXDestructorDecl *destructor = record->getDestructor())
      reach(destructor, link);
    for (const CXXBaseSpecifier &base : record->bases())
      if (const CXXRecordDecl *b = base.getType()->getAsCXXRecordDecl())
        reach(b, link);
    if (!isUserCode(record->getLocation()))
      return;
    for (const Decl *redecl : record->redecls())
      if (redecl != record)
        ranges.push_back(redecl->getSourceRange());
    const SourceLocation brace = record->getBraceRange().getBegin();
    ranges.push_back(brace.isValid() ? SourceRange(record->getBeginLoc(), brace) : record->getSourceRange());
    for (const Decl *member : record->decls()) {
      if (isa<FieldDecl, IndirectFieldDecl, VarDecl, TypedefNameDecl>(member))
        ranges.push_back(member->getSourceRange());
      else if (const auto *method = dyn_cast<CXXMethodDecl>(member)) {
        if (method->isVirtual()) {
          ranges.push_back(method->getSourceRange());
          reach(method, link);
        } else if (record->isLambda()) {
          reach(method, link);
        }
      } else if (const auto *tmpl = dyn_cast<FunctionTemplateDecl>(member); tmpl && record->isLambda()) {
        for (const FunctionDecl *spec : tmpl->specializations())
          reach(spec, link);
      }
    }
  }

  /// Finds the places that `range` (of `decl`) holds, lies in, or whose file was included in.
  void reportPlacesIn(SourceRange range, const Decl *decl) {
    if (range.isInvalid())
      return;
    const CharSourceRange expansion = sm.getExpansionRange(range);
    const auto [file, begin] = sm.getDecomposedLoc(expansion.getBegin());
    const auto [endFile, endOffset] = sm.getDecomposedLoc(expansion.getEnd());
    const unsigned end = endFile == file ? endOffset : ~0u;
    const std::vector<TargetDependentSource::Place> &places = source.places();
    for (size_t i = 0; i < places.size(); ++i)
      if (places[i].file == file && places[i].begin <= end && begin <= places[i].end)
        found(i, decl, end - begin);
    // A declaration in a file that was included under a conditional on the target.
    for (SourceLocation include = sm.getIncludeLoc(file); include.isValid();
         include = sm.getIncludeLoc(sm.getFileID(include))) {
      const auto [includingFile, offset] = sm.getDecomposedExpansionLoc(include);
      for (size_t i = 0; i < places.size(); ++i)
        if (!places[i].isMacro && places[i].file == includingFile && places[i].begin <= offset &&
            offset <= places[i].end)
          found(i, decl, end - begin);
    }
  }

  /// A place is reported for the innermost declaration that holds it (a member function rather
  /// than its class), so that the notes show how the kernel reaches that.
  void found(size_t place, const Decl *decl, unsigned size) {
    if (innermost.size() < source.places().size())
      innermost.resize(source.places().size());
    Innermost &best = innermost[place];
    if (!best.decl)
      order.push_back(place);
    if (!best.decl || size < best.size)
      best = Innermost{decl, size};
  }

  void report(size_t index, const Decl *decl) {
    const TargetDependentSource::Place &place = source.places()[index];
    if (!isUserCode(place.at))
      return;
    const Link &link = reached.find(decl)->second;
    if (place.isMacro)
      oxide::report(diags, place.at, Diag::SimulatorDivergentMacro)
          << place.text << link.kernel->getName() << place.why << place.kind;
    else
      oxide::report(diags, place.at, Diag::SimulatorDivergentCode)
          << place.text << link.kernel->getName() << place.kind;
    // How the kernel reaches it, unless it is in the kernel's own body.
    for (const Decl *d = decl;;) {
      const Link &step = reached.find(d)->second;
      if (!step.from)
        break;
      if (!step.site.isValid() || !isUserCode(step.site)) { // a library's own call
        d = step.from;
        continue;
      }
      if (!reached.find(step.from)->second.from)
        oxide::report(diags, step.site, Diag::NoteReachedFromKernel) << link.kernel->getName();
      else if (const auto *named = dyn_cast<NamedDecl>(step.from))
        oxide::report(diags, step.site, step.call ? Diag::NoteCalledBy : Diag::NoteUsedBy) << named;
      d = step.from;
    }
  }

  SourceManager &sm;
  DiagnosticsEngine &diags;
  const TargetDependentSource &source;
  llvm::function_ref<bool(SourceLocation)> isUserCode;
  llvm::DenseMap<const Decl *, Link> reached;
  std::vector<const Decl *> queue;
  struct Innermost {
    const Decl *decl = nullptr;
    unsigned size = 0;
  };
  std::vector<Innermost> innermost; ///< by place
  std::vector<size_t> order;        ///< the places found, in the order found
};

bool UseScanner::VisitCallExpr(CallExpr *call) {
  walk.use(call->getDirectCallee(), from, call->getBeginLoc(), true);
  return true;
}
bool UseScanner::VisitCXXConstructExpr(CXXConstructExpr *construct) {
  walk.use(construct->getConstructor(), from, construct->getBeginLoc(), true);
  return true;
}
bool UseScanner::VisitCXXNewExpr(CXXNewExpr *expr) {
  walk.use(expr->getOperatorNew(), from, expr->getBeginLoc(), true);
  return true;
}
bool UseScanner::VisitCXXDeleteExpr(CXXDeleteExpr *expr) {
  walk.use(expr->getOperatorDelete(), from, expr->getBeginLoc(), true);
  return true;
}
bool UseScanner::VisitDeclRefExpr(DeclRefExpr *ref) {
  walk.use(ref->getDecl(), from, ref->getBeginLoc(), isa<FunctionDecl>(ref->getDecl()));
  return true;
}
bool UseScanner::VisitMemberExpr(MemberExpr *member) {
  walk.use(member->getMemberDecl(), from, member->getMemberLoc(), isa<FunctionDecl>(member->getMemberDecl()));
  return true;
}
bool UseScanner::VisitExpr(Expr *expr) {
  walk.useType(expr->getType(), from, expr->getExprLoc());
  return true;
}
bool UseScanner::VisitValueDecl(ValueDecl *decl) {
  walk.useType(decl->getType(), from, decl->getLocation());
  return true;
}
bool UseScanner::VisitTypedefTypeLoc(TypedefTypeLoc type) {
  walk.use(type.getDecl(), from, type.getNameLoc(), false);
  return true;
}
bool UseScanner::VisitTagTypeLoc(TagTypeLoc type) {
  walk.use(type.getDecl(), from, type.getNameLoc(), false);
  return true;
}

} // namespace

void oxide::checkSimulatorDivergence(ASTContext &context, const TargetDependentSource &source,
                                     const std::vector<const FunctionDecl *> &kernels,
                                     llvm::function_ref<bool(SourceLocation)> isUserCode) {
  if (source.places().empty() || kernels.empty())
    return;
  DivergenceWalk(context, source, isUserCode).run(kernels);
}
