//===- ArchDependence.cpp - where a device compile sees its architecture ---===//

#include "oxide/compiler/ArchDependence.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Token.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"

using namespace oxide;

namespace {

/// "FILE:LINE" of an outcome ("FILE:LINE: true, FILE:LINE: false").
llvm::StringRef placeOf(llvm::StringRef outcome) { return outcome.split(", ").first.rsplit(": ").first; }

/// A macro whose value differs between device compiles of different architectures.
bool isArchMacro(llvm::StringRef name) { return name.starts_with("__CUDA_ARCH"); }
/// Every architecture defines these; the feature macros (__CUDA_ARCH_FEAT_SM90_ALL) only some.
bool isDefinedForEveryArch(llvm::StringRef name) {
  return name == "__CUDA_ARCH__" || name == "__CUDA_ARCH_LIST__";
}
/// Builtin macros whose answer follows the target's features (sm_XX, ptxNN) for NVPTX's own
/// builtins. In system headers they ask about generic builtins (libstdc++'s
/// _GLIBCXX_HAS_BUILTIN); CUDA's and clang's CUDA headers, which could ask about NVPTX's, are
/// the precompiled prefix, and do not.
bool asksTheTarget(llvm::StringRef name) { return name == "__has_builtin" || name == "__has_target_builtin"; }

class Recorder : public clang::PPCallbacks {
public:
  Recorder(const clang::Preprocessor &pp, ArchDependence &record, bool sites)
      : pp(pp), record(record), recordSites(sites) {}

  void MacroExpands(const clang::Token &name, const clang::MacroDefinition &, clang::SourceRange range,
                    const clang::MacroArgs *) override {
    const std::string id = name.getIdentifierInfo()->getName().str();
    if (recordSites && llvm::none_of(chains, [](const std::string &c) { return !c.empty(); }))
      usedOutside.insert(id); // a macro's name never reaches the token watcher
    const bool arch = isArchMacro(id) || (asksTheTarget(id) && !inSystemHeader(range.getBegin()));
    const bool derived = !arch && record.archMacros.contains(id);
    if (!arch && !derived)
      return;
    if (pp.isParsingIfOrElifDirective())
      conditionSeesArch = true;
    else if (derived)
      record.macrosInCode.try_emplace(id, place(range.getBegin()));
    else if (record.codeUse.empty())
      record.codeUse = place(range.getBegin()) + ": " + id;
  }
  void Defined(const clang::Token &name, const clang::MacroDefinition &, clang::SourceRange) override {
    conditionSeesArch |= varies(name);
  }
  void If(clang::SourceLocation loc, clang::SourceRange, ConditionValueKind value) override {
    open();
    conclude(loc, value);
  }
  void Elif(clang::SourceLocation loc, clang::SourceRange, ConditionValueKind value,
            clang::SourceLocation) override {
    conclude(loc, value);
  }
  void Ifdef(clang::SourceLocation loc, const clang::Token &name, const clang::MacroDefinition &md) override {
    open();
    definedness(loc, name, md);
  }
  void Ifndef(clang::SourceLocation loc, const clang::Token &name,
              const clang::MacroDefinition &md) override {
    open();
    definedness(loc, name, md);
  }
  void Elifdef(clang::SourceLocation loc, const clang::Token &name,
               const clang::MacroDefinition &md) override {
    definedness(loc, name, md);
  }
  void Elifndef(clang::SourceLocation loc, const clang::Token &name,
                const clang::MacroDefinition &md) override {
    definedness(loc, name, md);
  }
  using clang::PPCallbacks::Elifdef;
  using clang::PPCallbacks::Elifndef;
  void Endif(clang::SourceLocation loc, clang::SourceLocation ifLoc) override {
    if (chains.empty())
      return;
    std::string outcome = std::move(chains.back());
    chains.pop_back();
    OpenSite open = std::move(openSites.back());
    openSites.pop_back();
    if (outcome.empty())
      return; // not on the architecture
    if (std::optional<std::vector<std::string>> names = definedMacros(ifLoc, loc)) {
      record.archMacros.insert(names->begin(), names->end());
      record.macroConditionals.push_back({std::move(outcome), std::move(*names)});
      return;
    }
    if (recordSites)
      closeSite(std::move(open), placeOf(outcome), loc);
    record.outcomes.push_back(std::move(outcome));
  }

  // --- the sites of the conditionals (recordSites) ---------------------------------------------

  void MacroDefined(const clang::Token &name, const clang::MacroDirective *) override {
    forOpenArchSites([&](ArchDependence::Site &site) { addName(site, name.getIdentifierInfo()->getName()); });
  }
  void EndOfMainFile() override {
    if (!recordSites)
      return;
    for (auto &[place, site] : record.sites)
      for (const std::string &name : site.names)
        if (usedOutside.contains(name))
          makeOpaque(site, "the headers use " + name + " outside it too");
  }
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef, llvm::StringRef,
                          llvm::StringRef, const clang::Module *, bool,
                          clang::SrcMgr::CharacteristicKind) override {
    forOpenArchSites([](ArchDependence::Site &site) { makeOpaque(site, "it holds an #include"); });
  }
  /// Follows the tokens at file scope: which braces open a body (of a function, a class, an
  /// initialiser; not a namespace's or an extern "C" block's), the function whose body is open,
  /// and what the conditionals open at file scope declare; which names the headers use outside
  /// those (a name the conditionals declare may have other declarations outside, as atomicAdd
  /// has overloads outside sm_90's conditional; a use anywhere makes the site opaque).
  void token(const clang::Token &tok) {
    using namespace clang;
    const tok::TokenKind kind = tok.getKind();
    // A name outside the conditionals is used there unless it is being declared at file scope.
    if (!pendingUse.empty() && !(kind == tok::l_paren && depth == 0 && parens == 0))
      usedOutside.insert(pendingUse);
    pendingUse.clear();
    if (kind == tok::identifier && llvm::none_of(chains, [](const std::string &c) { return !c.empty(); }))
      pendingUse = tok.getIdentifierInfo()->getName().str();
    const bool previousWasName = previous == tok::identifier;
    previous = kind;
    if (kind == tok::l_brace) {
      const bool body = !scopeBrace;
      braces.push_back(body);
      if (body && depth++ == 0) {
        owner = typeDeclaration ? std::string() : declared;
        ownerLine = typeDeclaration ? 0 : declaredLine;
      }
      resetDeclaration();
      return;
    }
    if (kind == tok::r_brace) {
      if (!braces.empty()) {
        if (braces.back() && --depth == 0)
          owner.clear();
        braces.pop_back();
      }
      resetDeclaration();
      return;
    }
    if (depth != 0)
      return;
    switch (kind) {
    case tok::l_paren:
      if (parens++ == 0 && previousWasName) {
        declared = lastName;
        declaredLine = lineOf(lastNameLoc);
        forOpenArchSites([&](ArchDependence::Site &site) { addName(site, lastName); });
      }
      return;
    case tok::r_paren:
      if (parens != 0)
        --parens;
      return;
    case tok::semi:
    case tok::equal:
    case tok::l_square:
      if (parens == 0 && previousWasName)
        forOpenArchSites([&](ArchDependence::Site &site) { addName(site, lastName); });
      if (kind == tok::semi)
        resetDeclaration();
      return;
    case tok::identifier:
      if (parens == 0) {
        lastName = tok.getIdentifierInfo()->getName().str();
        lastNameLoc = tok.getLocation();
        if (nameFollows) // struct NAME, namespace NAME
          forOpenArchSites([&](ArchDependence::Site &site) { addName(site, lastName); });
      }
      nameFollows = false;
      return;
    case tok::kw_struct:
    case tok::kw_class:
    case tok::kw_union:
    case tok::kw_enum:
      typeDeclaration = nameFollows = true;
      return;
    case tok::kw_namespace:
      scopeBrace = typeDeclaration = nameFollows = true;
      return;
    case tok::kw_extern:
      externSeen = true;
      return;
    case tok::string_literal:
      if (externSeen)
        scopeBrace = true; // extern "C" {
      return;
    case tok::kw_operator:
    case tok::kw_using:
      forOpenArchSites([&](ArchDependence::Site &site) {
        makeOpaque(site, kind == tok::kw_using ? "it holds a using-declaration" : "it declares an operator");
      });
      return;
    default:
      return;
    }
  }

private:
  /// A conditional being read, and its site if it turns out to be on the architecture.
  struct OpenSite {
    ArchDependence::Site site;
    unsigned depth = 0;
  };

  void open() {
    chains.emplace_back();
    OpenSite open;
    if (recordSites) {
      open.depth = depth;
      if (depth != 0) {
        open.site.owner = owner;
        open.site.ownerLine = ownerLine;
        if (owner.empty())
          makeOpaque(open.site, "it is not in a function's body or at file scope");
      }
    }
    openSites.push_back(std::move(open));
  }
  void closeSite(OpenSite open, llvm::StringRef place, clang::SourceLocation endifLoc) {
    ArchDependence::Site &site = open.site;
    auto [file, line] = place.rsplit(':');
    site.file = file.str();
    line.getAsInteger(10, site.line);
    site.endLine = lineOf(endifLoc);
    if (open.depth != depth)
      makeOpaque(site, "its branches do not balance their braces");
    if (open.depth != 0)
      site.names.clear(); // inside a body: the owner stands for what it holds
    auto [it, fresh] = record.sites.try_emplace(place.str(), site);
    if (!fresh && !(it->second == site))
      makeOpaque(it->second, "the headers read it twice");
  }
  template <class F> void forOpenArchSites(F &&f) {
    if (!recordSites)
      return;
    for (size_t i = 0; i < chains.size(); ++i)
      if (!chains[i].empty())
        f(openSites[i].site);
  }
  static void addName(ArchDependence::Site &site, llvm::StringRef name) {
    if (!llvm::is_contained(site.names, name))
      site.names.push_back(name.str());
  }
  static void makeOpaque(ArchDependence::Site &site, llvm::StringRef why) {
    if (site.opaque.empty())
      site.opaque = why.str();
  }
  void resetDeclaration() {
    declared.clear();
    declaredLine = 0;
    typeDeclaration = scopeBrace = nameFollows = externSeen = false;
    parens = 0;
  }
  unsigned lineOf(clang::SourceLocation loc) const {
    const clang::SourceManager &sm = pp.getSourceManager();
    const clang::PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
    return p.isInvalid() ? 0 : p.getLine();
  }

  bool inSystemHeader(clang::SourceLocation loc) const {
    const clang::SourceManager &sm = pp.getSourceManager();
    return sm.isInSystemHeader(sm.getExpansionLoc(loc));
  }
  bool varies(const clang::Token &name) const {
    const std::string id = name.getIdentifierInfo()->getName().str();
    return (isArchMacro(id) && !isDefinedForEveryArch(id)) || record.archMacros.contains(id);
  }
  std::string place(clang::SourceLocation loc) const {
    const clang::SourceManager &sm = pp.getSourceManager();
    const clang::PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
    if (p.isInvalid())
      return "<unknown>";
    return std::string(p.getFilename()) + ":" + std::to_string(p.getLine());
  }
  void add(clang::SourceLocation loc, llvm::StringRef outcome) {
    const std::string text = place(loc) + ": " + outcome.str();
    if (chains.empty()) // an #elif without its #if, which clang reports
      record.outcomes.push_back(text);
    else
      chains.back() += (chains.back().empty() ? "" : ", ") + text;
  }
  void conclude(clang::SourceLocation loc, ConditionValueKind value) {
    if (conditionSeesArch)
      add(loc, value == CVK_True ? "true" : value == CVK_False ? "false" : "skipped");
    conditionSeesArch = false;
  }
  void definedness(clang::SourceLocation loc, const clang::Token &name, const clang::MacroDefinition &md) {
    if (varies(name))
      add(loc, md ? "defined" : "undefined");
  }

  /// The macros that the lines between `ifLoc`'s directive and `endifLoc`'s (one file) define
  /// or undefine, if those lines hold nothing but #define, #undef and nested conditionals.
  std::optional<std::vector<std::string>> definedMacros(clang::SourceLocation ifLoc,
                                                        clang::SourceLocation endifLoc) const {
    const clang::SourceManager &sm = pp.getSourceManager();
    if (ifLoc.isInvalid() || endifLoc.isInvalid() || !ifLoc.isFileID() || !endifLoc.isFileID() ||
        sm.getFileID(ifLoc) != sm.getFileID(endifLoc))
      return std::nullopt;
    const clang::FileID file = sm.getFileID(ifLoc);
    const llvm::StringRef buffer = sm.getBufferData(file);
    const char *end = sm.getCharacterData(endifLoc);
    clang::Lexer lexer(sm.getLocForStartOfFile(file), pp.getLangOpts(), buffer.begin(),
                       sm.getCharacterData(ifLoc), buffer.end());
    std::vector<std::string> names;
    clang::Token tok;
    lexer.LexFromRawLexer(tok); // the directive's name; the rest of its line is the condition
    auto before = [&](const clang::Token &t) { return sm.getCharacterData(t.getLocation()) < end; };
    for (;;) {
      lexer.LexFromRawLexer(tok);
      if (tok.is(clang::tok::eof) || !before(tok))
        break;
      if (!tok.isAtStartOfLine())
        continue; // the rest of a directive's line
      if (tok.isNot(clang::tok::hash))
        return std::nullopt; // code
      lexer.LexFromRawLexer(tok);
      if (!before(tok))
        break; // the #endif itself
      if (tok.isNot(clang::tok::raw_identifier))
        return std::nullopt;
      const llvm::StringRef directive = tok.getRawIdentifier();
      if (directive == "define" || directive == "undef") {
        lexer.LexFromRawLexer(tok);
        if (tok.isNot(clang::tok::raw_identifier) || tok.isAtStartOfLine())
          return std::nullopt;
        names.push_back(tok.getRawIdentifier().str());
        continue;
      }
      if (!llvm::is_contained({"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"},
                              directive))
        return std::nullopt; // #include, #pragma, #error...
    }
    return names;
  }

  const clang::Preprocessor &pp;
  ArchDependence &record;
  bool conditionSeesArch = false; ///< in the condition being evaluated
  /// The conditionals open, innermost last: the outcomes of their conditions on the
  /// architecture so far ("FILE:LINE: true, FILE:LINE: false"), empty if none was.
  std::vector<std::string> chains;

  // What token() follows, for the sites.
  bool recordSites;
  std::vector<OpenSite> openSites; ///< one per entry of `chains`
  std::vector<bool> braces;        ///< the braces open: whether each opens a body
  unsigned depth = 0;              ///< the bodies open
  unsigned parens = 0;             ///< parentheses open at file scope
  clang::tok::TokenKind previous = clang::tok::unknown;
  std::string lastName; ///< the last identifier at file scope, outside parentheses
  clang::SourceLocation lastNameLoc;
  std::string declared; ///< the name of the function being declared at file scope
  unsigned declaredLine = 0;
  bool typeDeclaration = false, scopeBrace = false, nameFollows = false, externSeen = false;
  std::string owner; ///< the function whose body is open
  unsigned ownerLine = 0;
  std::string pendingUse;            ///< the last name outside the conditionals, if the next token
                                     ///< may still show it being declared
  std::set<std::string> usedOutside; ///< names the headers use outside the conditionals
};

} // namespace

std::unique_ptr<clang::PPCallbacks> ArchDependence::watch(clang::Preprocessor &pp, bool sites) {
  auto recorder = std::make_unique<Recorder>(pp, *this, sites);
  if (sites)
    pp.setTokenWatcher([r = recorder.get()](const clang::Token &tok) { r->token(tok); });
  return recorder;
}

// One line per fact, tagged: "code PLACE", "if OUTCOME", "defines OUTCOME\tNAME NAME...",
// "use NAME\tPLACE", "macro NAME", "site PLACE\tEND\tOWNERLINE\tOWNER\tOPAQUE\tNAME NAME...";
// the first line names the format, so that an older oxcc's record is computed again.
static constexpr llvm::StringLiteral kRecordFormat = "oxide-arch-record 2\n";

std::string ArchDependence::serialize() const {
  std::string text = kRecordFormat.str() + "code " + codeUse + "\n";
  for (const std::string &outcome : outcomes)
    text += "if " + outcome + "\n";
  for (const MacroConditional &c : macroConditionals)
    text += "defines " + c.outcome + "\t" + llvm::join(c.names, " ") + "\n";
  for (const auto &[name, where] : macrosInCode)
    text += "use " + name + "\t" + where + "\n";
  for (const std::string &name : archMacros)
    text += "macro " + name + "\n";
  for (const auto &[place, site] : sites)
    text += "site " + place + "\t" + std::to_string(site.endLine) + "\t" + std::to_string(site.ownerLine) +
            "\t" + site.owner + "\t" + site.opaque + "\t" + llvm::join(site.names, " ") + "\n";
  return text;
}

std::optional<ArchDependence> ArchDependence::deserialize(llvm::StringRef text) {
  ArchDependence record;
  if (!text.consume_front(kRecordFormat) || !text.consume_front("code "))
    return std::nullopt;
  auto [code, rest] = text.split('\n');
  record.codeUse = code.str();
  for (llvm::StringRef line : llvm::split(rest, '\n')) {
    if (line.empty())
      continue;
    auto [tag, value] = line.split(' ');
    auto [first, second] = value.split('\t');
    if (tag == "if") {
      record.outcomes.push_back(value.str());
    } else if (tag == "defines") {
      MacroConditional c{first.str(), {}};
      for (llvm::StringRef name : llvm::split(second, ' '))
        if (!name.empty())
          c.names.push_back(name.str());
      record.macroConditionals.push_back(std::move(c));
    } else if (tag == "use") {
      record.macrosInCode.emplace(first.str(), second.str());
    } else if (tag == "macro") {
      record.archMacros.insert(value.str());
    } else if (tag == "site") {
      llvm::SmallVector<llvm::StringRef, 6> fields;
      value.split(fields, '\t');
      if (fields.size() != 6)
        return std::nullopt;
      Site site;
      auto [file, line] = fields[0].rsplit(':');
      site.file = file.str();
      if (line.getAsInteger(10, site.line) || fields[1].getAsInteger(10, site.endLine) ||
          fields[2].getAsInteger(10, site.ownerLine))
        return std::nullopt;
      site.owner = fields[3].str();
      site.opaque = fields[4].str();
      for (llvm::StringRef name : llvm::split(fields[5], ' '))
        if (!name.empty())
          site.names.push_back(name.str());
      record.sites.emplace(fields[0].str(), std::move(site));
    } else {
      return std::nullopt;
    }
  }
  return record;
}

namespace {

/// The part of compareArchDependence after the outcomes: the macros.
std::string compareMacros(const ArchDependence &a, const ArchDependence &b,
                          std::set<std::string> &differing) {
  if (a.macroConditionals.size() != b.macroConditionals.size())
    return "the headers define different macros";
  for (size_t i = 0; i < a.macroConditionals.size(); ++i) {
    const auto &x = a.macroConditionals[i], &y = b.macroConditionals[i];
    if (x.names != y.names)
      return "the headers define different macros";
    if (x.outcome != y.outcome)
      differing.insert(x.names.begin(), x.names.end());
  }
  // Both recorded the same uses up to here; one of a differing macro is a difference.
  for (const auto &[name, where] : a.macrosInCode)
    if (differing.contains(name))
      return where + ": " + name + " depends on the architecture";
  return {};
}

/// A DIFile's path as the preprocessor presumed it.
std::string pathOf(const llvm::DIFile *file) {
  llvm::SmallString<256> path(file->getFilename());
  if (!llvm::sys::path::is_absolute(path) && !file->getDirectory().empty())
    path = (file->getDirectory() + "/" + file->getFilename()).str();
  return std::string(path);
}

/// The outcomes by place (a header read twice: its outcomes joined).
std::map<std::string, std::string> outcomesByPlace(const ArchDependence &record) {
  std::map<std::string, std::string> byPlace;
  for (const std::string &outcome : record.outcomes)
    byPlace[placeOf(outcome).str()] += outcome + ";";
  return byPlace;
}

} // namespace

std::string oxide::compareAcrossVersions(const ArchDependence &leader, const ArchDependence &follower,
                                         std::set<std::string> &differing,
                                         std::vector<ArchDependence::Site> &mustNotReach) {
  if (!leader.codeUse.empty() || !follower.codeUse.empty())
    return (leader.codeUse.empty() ? follower.codeUse : leader.codeUse) + " outside a conditional";
  const std::map<std::string, std::string> a = outcomesByPlace(leader), b = outcomesByPlace(follower);
  std::set<std::string> places;
  for (const auto &[place, outcome] : a)
    if (auto it = b.find(place); it == b.end() || it->second != outcome)
      places.insert(place);
  for (const auto &[place, outcome] : b)
    if (!a.contains(place))
      places.insert(place);
  std::vector<ArchDependence::Site> sites;
  for (const std::string &place : places)
    for (const ArchDependence *record : {&leader, &follower}) {
      if (!(record == &leader ? a : b).contains(place))
        continue;
      auto site = record->sites.find(place);
      if (site == record->sites.end())
        return "the conditional at " + place + " differs";
      if (!site->second.opaque.empty())
        return "the conditional at " + place + " differs and " + site->second.opaque;
      sites.push_back(site->second);
    }
  if (std::string why = compareMacros(leader, follower, differing); !why.empty())
    return why;
  mustNotReach.insert(mustNotReach.end(), sites.begin(), sites.end());
  return {};
}

std::string oxide::compareArchDependence(const ArchDependence &a, const ArchDependence &b,
                                         std::set<std::string> &differing) {
  if (!a.codeUse.empty() || !b.codeUse.empty())
    return (a.codeUse.empty() ? b.codeUse : a.codeUse) + " outside a conditional";
  if (a.outcomes != b.outcomes) {
    auto [ai, bi] = std::mismatch(a.outcomes.begin(), a.outcomes.end(), b.outcomes.begin(), b.outcomes.end());
    return "the conditional at " + placeOf(ai != a.outcomes.end() ? *ai : *bi).str() + " differs";
  }
  return compareMacros(a, b, differing);
}

void ArchDependence::checkModule(const llvm::Module &module) {
  if (mustNotReach.empty())
    return;
  llvm::DenseMap<const llvm::DIFile *, std::vector<const Site *>> byFile;
  auto sitesIn = [&](const llvm::DIFile *file) -> const std::vector<const Site *> & {
    auto [it, fresh] = byFile.try_emplace(file);
    if (fresh && file) {
      const std::string path = pathOf(file);
      for (const Site &site : mustNotReach)
        if (site.file == path)
          it->second.push_back(&site);
    }
    return it->second;
  };
  auto note = [&](const Site &site, const std::string &what) {
    reached.try_emplace(site.file + ":" + std::to_string(site.line), what);
  };
  for (const llvm::Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    if (const llvm::DISubprogram *sp = fn.getSubprogram())
      for (const Site *site : sitesIn(sp->getFile()))
        if (site->ownerLine != 0 && sp->getLine() == site->ownerLine)
          note(*site, "its device code calls " + site->owner + " (" + site->file + ":" +
                          std::to_string(site->ownerLine) +
                          "), which other architectures' headers define differently");
    for (const llvm::Instruction &inst : llvm::instructions(fn))
      for (const llvm::DILocation *loc = inst.getDebugLoc().get(); loc; loc = loc->getInlinedAt())
        for (const Site *site : sitesIn(loc->getFile()))
          if (loc->getLine() >= site->line && loc->getLine() <= site->endLine)
            note(*site, "its device code holds " + site->file + ":" + std::to_string(loc->getLine()) +
                            ", which other architectures' headers replace");
  }
}

void ArchDependence::checkIdentifiers(const std::set<std::string> &spelled) {
  for (const Site &site : mustNotReach) {
    std::vector<std::string> names = site.names;
    if (!site.owner.empty())
      names.push_back(site.owner);
    for (const std::string &name : names)
      if (spelled.contains(name)) {
        reached.try_emplace(site.file + ":" + std::to_string(site.line),
                            "it names " + name +
                                ", which other architectures' headers declare differently (" + site.file +
                                ":" + std::to_string(site.line) + ")");
        break;
      }
  }
}

std::string ArchDependence::whyReached(const std::vector<Site> &sites) const {
  for (const Site &site : sites)
    if (auto it = reached.find(site.file + ":" + std::to_string(site.line)); it != reached.end())
      return it->second;
  return {};
}

std::string oxide::whyArchDependent(const ArchDependence &own, const std::set<std::string> &differing) {
  if (!own.codeUse.empty())
    return own.codeUse + " outside a conditional";
  if (!own.outcomes.empty())
    return "the conditional at " + placeOf(own.outcomes.front()).str() + " depends on the architecture";
  for (const auto &[name, where] : own.macrosInCode) {
    const bool ownConditional =
        llvm::any_of(own.macroConditionals, [&](const auto &c) { return llvm::is_contained(c.names, name); });
    if (differing.contains(name) || ownConditional)
      return where + ": " + name + " depends on the architecture";
  }
  return {};
}
