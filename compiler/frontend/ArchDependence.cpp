//===- ArchDependence.cpp - where a device compile sees its architecture ---===//

#include "oxide/compiler/ArchDependence.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Token.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace oxide;

namespace {

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
  Recorder(const clang::Preprocessor &pp, ArchDependence &record) : pp(pp), record(record) {}

  void MacroExpands(const clang::Token &name, const clang::MacroDefinition &, clang::SourceRange range,
                    const clang::MacroArgs *) override {
    const std::string id = name.getIdentifierInfo()->getName().str();
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
    chains.emplace_back();
    conclude(loc, value);
  }
  void Elif(clang::SourceLocation loc, clang::SourceRange, ConditionValueKind value,
            clang::SourceLocation) override {
    conclude(loc, value);
  }
  void Ifdef(clang::SourceLocation loc, const clang::Token &name, const clang::MacroDefinition &md) override {
    chains.emplace_back();
    definedness(loc, name, md);
  }
  void Ifndef(clang::SourceLocation loc, const clang::Token &name,
              const clang::MacroDefinition &md) override {
    chains.emplace_back();
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
    if (outcome.empty())
      return; // not on the architecture
    if (std::optional<std::vector<std::string>> names = definedMacros(ifLoc, loc)) {
      record.archMacros.insert(names->begin(), names->end());
      record.macroConditionals.push_back({std::move(outcome), std::move(*names)});
    } else {
      record.outcomes.push_back(std::move(outcome));
    }
  }

private:
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
};

} // namespace

std::unique_ptr<clang::PPCallbacks> ArchDependence::watch(const clang::Preprocessor &pp) {
  return std::make_unique<Recorder>(pp, *this);
}

// One line per fact, tagged: "code PLACE", "if OUTCOME", "defines OUTCOME\tNAME NAME...",
// "use NAME\tPLACE", "macro NAME".
std::string ArchDependence::serialize() const {
  std::string text = "code " + codeUse + "\n";
  for (const std::string &outcome : outcomes)
    text += "if " + outcome + "\n";
  for (const MacroConditional &c : macroConditionals)
    text += "defines " + c.outcome + "\t" + llvm::join(c.names, " ") + "\n";
  for (const auto &[name, where] : macrosInCode)
    text += "use " + name + "\t" + where + "\n";
  for (const std::string &name : archMacros)
    text += "macro " + name + "\n";
  return text;
}

std::optional<ArchDependence> ArchDependence::deserialize(llvm::StringRef text) {
  ArchDependence record;
  if (!text.consume_front("code "))
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
    } else {
      return std::nullopt;
    }
  }
  return record;
}

namespace {

/// "FILE:LINE" of an outcome ("FILE:LINE: true, FILE:LINE: false").
llvm::StringRef placeOf(llvm::StringRef outcome) { return outcome.split(", ").first.rsplit(": ").first; }

} // namespace

std::string oxide::compareArchDependence(const ArchDependence &a, const ArchDependence &b,
                                         std::set<std::string> &differing) {
  if (!a.codeUse.empty() || !b.codeUse.empty())
    return (a.codeUse.empty() ? b.codeUse : a.codeUse) + " outside a conditional";
  if (a.outcomes != b.outcomes) {
    auto [ai, bi] = std::mismatch(a.outcomes.begin(), a.outcomes.end(), b.outcomes.begin(), b.outcomes.end());
    return "the conditional at " + placeOf(ai != a.outcomes.end() ? *ai : *bi).str() + " differs";
  }
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
