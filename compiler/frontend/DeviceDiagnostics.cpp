//===- DeviceDiagnostics.cpp - what the compiles print --------------------===//

#include "DeviceDiagnostics.h"

#include "oxide/compiler/Frontend.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Type.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnostic.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Token.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <vector>

using namespace oxide;

//===----------------------------------------------------------------------===//
// Code only the device compile sees
//===----------------------------------------------------------------------===//

namespace oxide {

/// Records the conditionals of DeviceSource as the device compile's preprocessor reads them.
class DeviceConditionals : public clang::PPCallbacks {
public:
  DeviceConditionals(DeviceSource &code, const clang::SourceManager &sm) : code(code), sm(sm) {}

  void If(clang::SourceLocation loc, clang::SourceRange condition, ConditionValueKind) override {
    open(loc);
    test(conditionText(condition));
  }
  void Ifdef(clang::SourceLocation loc, const clang::Token &name, const clang::MacroDefinition &) override {
    open(loc);
    test(macroName(name));
  }
  void Ifndef(clang::SourceLocation loc, const clang::Token &name, const clang::MacroDefinition &) override {
    open(loc);
    test(macroName(name));
  }
  void Elif(clang::SourceLocation, clang::SourceRange condition, ConditionValueKind,
            clang::SourceLocation) override {
    test(conditionText(condition));
  }
  void Elifdef(clang::SourceLocation, const clang::Token &name, const clang::MacroDefinition &) override {
    test(macroName(name));
  }
  void Elifdef(clang::SourceLocation, clang::SourceRange condition, clang::SourceLocation) override {
    test(conditionText(condition));
  }
  void Elifndef(clang::SourceLocation, const clang::Token &name, const clang::MacroDefinition &) override {
    test(macroName(name));
  }
  void Elifndef(clang::SourceLocation, clang::SourceRange condition, clang::SourceLocation) override {
    test(conditionText(condition));
  }
  void Endif(clang::SourceLocation loc, clang::SourceLocation) override {
    if (open_.empty())
      return;
    if (const size_t region = open_.back().region; region != kNone)
      code.regions[region].end = sm.getDecomposedExpansionLoc(loc).second;
    open_.pop_back();
  }

private:
  static constexpr size_t kNone = ~size_t(0);
  struct Open {
    clang::SourceLocation ifLoc;
    size_t region; ///< in code.regions, kNone while no condition of the group tests a device macro
  };

  /// Macros that the host compile (plain C++) and the device compile (CUDA device mode) do not
  /// define alike.
  static bool testsDeviceMacro(llvm::StringRef text) {
    return text.contains("__CUDA") || text.contains("__NVPTX") || text.contains("__clang_cuda");
  }
  void open(clang::SourceLocation loc) { open_.push_back({loc, kNone}); }
  void test(llvm::StringRef text) {
    if (open_.empty() || open_.back().region != kNone || !testsDeviceMacro(text))
      return;
    const auto [file, offset] = sm.getDecomposedExpansionLoc(open_.back().ifLoc);
    open_.back().region = code.regions.size();
    code.regions.push_back({file, offset, ~0u});
  }
  llvm::StringRef conditionText(clang::SourceRange range) const {
    return clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(range), sm,
                                       clang::LangOptions());
  }
  static llvm::StringRef macroName(const clang::Token &name) {
    const clang::IdentifierInfo *id = name.getIdentifierInfo();
    return id ? id->getName() : llvm::StringRef();
  }

  DeviceSource &code;
  const clang::SourceManager &sm;
  std::vector<Open> open_;
};

} // namespace oxide

std::unique_ptr<clang::PPCallbacks> DeviceSource::watch(const clang::SourceManager &sm) {
  return std::make_unique<DeviceConditionals>(*this, sm);
}

bool DeviceSource::contains(const clang::SourceManager &sm, clang::SourceLocation loc) const {
  if (loc.isInvalid())
    return false;
  const auto [file, offset] = sm.getDecomposedExpansionLoc(loc);
  return llvm::any_of(regions, [&, file = file, offset = offset](const Region &r) {
    return r.file == file && r.begin <= offset && offset <= r.end;
  });
}

namespace {

/// `decl` as clang's "called by" notes name it: "~vector", "_Destroy<float *, float>".
bool isNamed(const clang::NamedDecl *decl, llvm::StringRef name, const clang::PrintingPolicy &policy) {
  if (!decl)
    return false;
  if (decl->getNameAsString() == name)
    return true;
  std::string full;
  llvm::raw_string_ostream os(full);
  decl->getNameForDiagnostic(os, policy, /*Qualified=*/false);
  return full == name;
}

/// The first place in a function body that calls `callee`, explicitly or implicitly (the
/// destructor of a local variable or of a temporary).
class CallFinder : public clang::RecursiveASTVisitor<CallFinder> {
public:
  CallFinder(const clang::ASTContext &context, llvm::StringRef callee)
      : context(context), callee(callee), policy(context.getPrintingPolicy()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitVarDecl(clang::VarDecl *var) {
    const clang::CXXRecordDecl *record = context.getBaseElementType(var->getType())->getAsCXXRecordDecl();
    if (record && record->hasDefinition() && isNamed(record->getDestructor(), callee, policy))
      return found(var->getLocation());
    return true;
  }
  bool VisitCXXBindTemporaryExpr(clang::CXXBindTemporaryExpr *expr) {
    return isNamed(expr->getTemporary()->getDestructor(), callee, policy) ? found(expr->getExprLoc()) : true;
  }
  bool VisitCallExpr(clang::CallExpr *call) {
    return isNamed(call->getDirectCallee(), callee, policy) ? found(call->getExprLoc()) : true;
  }
  bool VisitCXXConstructExpr(clang::CXXConstructExpr *expr) {
    return isNamed(expr->getConstructor(), callee, policy) ? found(expr->getLocation()) : true;
  }

  clang::SourceLocation result;

private:
  bool found(clang::SourceLocation loc) {
    result = loc;
    return false; // stops the traversal
  }

  const clang::ASTContext &context;
  llvm::StringRef callee;
  clang::PrintingPolicy policy;
};

/// The functions named `caller` in the user's code, and in each the call of `callee`.
class CallerFinder : public clang::RecursiveASTVisitor<CallerFinder> {
public:
  CallerFinder(const clang::ASTContext &context, llvm::StringRef caller, llvm::StringRef callee,
               llvm::function_ref<bool(clang::SourceLocation)> isUser)
      : context(context), caller(caller), callee(callee), isUser(isUser),
        policy(context.getPrintingPolicy()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (!FD->doesThisDeclarationHaveABody() || !isUser(FD->getLocation()) || !isNamed(FD, caller, policy))
      return true;
    CallFinder calls(context, callee);
    calls.TraverseStmt(FD->getBody());
    result = calls.result;
    return result.isInvalid();
  }

  clang::SourceLocation result;

private:
  const clang::ASTContext &context;
  llvm::StringRef caller, callee;
  llvm::function_ref<bool(clang::SourceLocation)> isUser;
  clang::PrintingPolicy policy;
};

} // namespace

clang::SourceLocation DeviceSource::findCall(llvm::StringRef caller, llvm::StringRef callee,
                                             llvm::function_ref<bool(clang::SourceLocation)> isUser) const {
  if (!ast || caller.empty() || callee.empty())
    return {};
  CallerFinder finder(*ast, caller, callee, isUser);
  finder.TraverseDecl(ast->getTranslationUnitDecl());
  return finder.result;
}

namespace {

//===----------------------------------------------------------------------===//
// A copied witness
//===----------------------------------------------------------------------===//

/// Whether `record` derives from the base that makes witnesses impossible to copy.
bool isPinnedWitness(const clang::CXXRecordDecl *record) {
  if (!record || !record->hasDefinition())
    return false;
  for (const clang::CXXBaseSpecifier &base : record->bases()) {
    const clang::CXXRecordDecl *b = base.getType()->getAsCXXRecordDecl();
    if (b && (b->getQualifiedNameAsString() == "oxide::thread::detail::PinnedWitness" || isPinnedWitness(b)))
      return true;
  }
  return false;
}

/// A witness type as users write it: "oxide::thread::ThreadIndex1D", "oxide::warp::WarpIndex".
std::string witnessName(const clang::CXXRecordDecl *record) {
  // GroupWitness<Group::warp> is spelt through its alias, warp::WarpIndex.
  if (const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(record);
      spec && spec->getName() == "GroupWitness" && spec->getTemplateArgs().size() == 1 &&
      spec->getTemplateArgs()[0].getKind() == clang::TemplateArgument::Integral)
    if (const auto *enumType = spec->getTemplateArgs()[0].getIntegralType()->getAs<clang::EnumType>())
      for (const clang::EnumConstantDecl *e : enumType->getDecl()->enumerators())
        if (e->getInitVal() == spec->getTemplateArgs()[0].getAsIntegral()) {
          const std::string group = e->getName().str();
          return "oxide::" + group + "::" + llvm::toUpper(group[0]) + group.substr(1) + "Index";
        }
  return record->getQualifiedNameAsString();
}

/// What replaces clang's "call to implicitly-deleted copy constructor" of a witness (with its
/// notes inside Oxide's headers), or nothing for any other diagnostic.
std::optional<std::string> witnessCopyMessage(const clang::Diagnostic &info, const clang::LangOptions &lang) {
  if (info.getID() != clang::diag::err_ovl_deleted_special_init || info.getNumArgs() < 2 ||
      info.getArgKind(1) != clang::DiagnosticsEngine::ak_qualtype)
    return std::nullopt;
  const clang::QualType type = clang::QualType::getFromOpaquePtr(reinterpret_cast<void *>(info.getRawArg(1)));
  const clang::CXXRecordDecl *record =
      type.isNull() ? nullptr : type.getCanonicalType()->getAsCXXRecordDecl();
  if (!isPinnedWitness(record))
    return std::nullopt;
  const std::string name = witnessName(record);
  constexpr llvm::StringLiteral why = "witnesses cannot be copied (a copy could be handed to another thread)";
  // `for (auto i : range)`: clang points at the variable, and a ':' follows it.
  if (info.hasSourceManager() && info.getLocation().isFileID()) {
    const clang::SourceManager &sm = info.getSourceManager();
    bool invalid = false;
    const char *at = sm.getCharacterData(info.getLocation(), &invalid);
    if (!invalid) {
      const unsigned length = clang::Lexer::MeasureTokenLength(info.getLocation(), sm, lang);
      const llvm::StringRef variable(at, length);
      const llvm::StringRef rest = llvm::StringRef(at + length).ltrim(" \t");
      if (!variable.empty() && rest.starts_with(":") && !rest.starts_with("::"))
        return ("loop variable '" + variable + "' is a copy of each step's " + name + ", but " + why +
                "; bind it by reference: 'for (const auto &" + variable + " : ...)'")
            .str();
    }
  }
  return "this copies an " + name + ", but " + why.str() +
         "; bind it by reference ('const auto &') or take it " + "as 'const " + name + " &'";
}

/// CUDA's launch syntax, `kernel<<<grid, block>>>(args)`, parses in C++ as shifts and fails at
/// the third `<` and the third `>` with "expected expression". Which of the two (or neither) the
/// error at `loc` is.
enum class ChevronError { none, open, close };
ChevronError chevronError(const clang::Diagnostic &info) {
  if (info.getID() != clang::diag::err_expected_expression || !info.hasSourceManager() ||
      !info.getLocation().isFileID())
    return ChevronError::none;
  const clang::SourceManager &sm = info.getSourceManager();
  const auto [file, offset] = sm.getDecomposedLoc(info.getLocation());
  bool invalid = false;
  const llvm::StringRef buffer = sm.getBufferData(file, &invalid);
  if (invalid || offset < 2 || offset >= buffer.size())
    return ChevronError::none;
  const llvm::StringRef three = buffer.substr(offset - 2, 3);
  return three == "<<<" ? ChevronError::open : three == ">>>" ? ChevronError::close : ChevronError::none;
}
constexpr llvm::StringLiteral kChevronMessage =
    "CUDA's launch syntax 'kernel<<<grid, block>>>(args...)' is not C++: launch through "
    "'oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{blocks, threads})(stream, args...)' "
    "(docs/cuda-to-oxide.md, \"Launch syntax\")";

/// Clang's printer, with the witness-copy hint and one sentence for CUDA's launch syntax.
class HostDiagnosticPrinter : public clang::TextDiagnosticPrinter {
public:
  using TextDiagnosticPrinter::TextDiagnosticPrinter;

  void BeginSourceFile(const clang::LangOptions &lang, const clang::Preprocessor *pp) override {
    this->lang = &lang;
    TextDiagnosticPrinter::BeginSourceFile(lang, pp);
  }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    if (level == clang::DiagnosticsEngine::Note && droppingNotes)
      return;
    droppingNotes = false;
    switch (chevronError(info)) {
    case ChevronError::open: {
      const clang::DiagnosticStorage storage{};
      TextDiagnosticPrinter::HandleDiagnostic(
          level,
          clang::Diagnostic(info.getDiags(), info.getLocation().getLocWithOffset(-2), info.getID(), storage,
                            kChevronMessage)); // at the first `<`
      launchOpen = true;
      return;
    }
    case ChevronError::close:
      if (launchOpen) { // the `>>>` of the launch said already
        launchOpen = false;
        return;
      }
      break; // a `>>>` of some other kind: clang's own error
    case ChevronError::none:
      break;
    }
    if (auto message = witnessCopyMessage(info, lang ? *lang : defaultLang)) {
      const clang::DiagnosticStorage storage{};
      TextDiagnosticPrinter::HandleDiagnostic(
          level, clang::Diagnostic(info.getDiags(), info.getLocation(), info.getID(), storage, *message));
      droppingNotes = true; // clang's notes are about the copy constructor in Oxide's headers
      return;
    }
    TextDiagnosticPrinter::HandleDiagnostic(level, info);
  }

private:
  const clang::LangOptions *lang = nullptr;
  clang::LangOptions defaultLang;
  bool droppingNotes = false;
  bool launchOpen = false; ///< a `<<<` reported, its `>>>` not yet seen
};

/// The wrapper's include line is oxcc's, not the user's: it is left out of include stacks.
class TextWithoutWrapper : public clang::TextDiagnostic {
public:
  using TextDiagnostic::TextDiagnostic;

protected:
  void emitIncludeLocation(clang::FullSourceLoc loc, clang::PresumedLoc ploc) override {
    if (llvm::StringRef(ploc.getFilename()).ends_with(kDeviceWrapperSuffix))
      return;
    TextDiagnostic::emitIncludeLocation(loc, ploc);
  }
};

class DeviceDiagnosticPrinter : public clang::DiagnosticConsumer {
public:
  DeviceDiagnosticPrinter(llvm::raw_ostream &os, clang::DiagnosticOptions &opts, std::string oxideIncludeDir,
                          std::shared_ptr<const DeviceSource> deviceSource)
      : os(os), opts(opts), oxideIncludeDir(std::move(oxideIncludeDir)),
        deviceSource(std::move(deviceSource)) {}

  void BeginSourceFile(const clang::LangOptions &lang, const clang::Preprocessor *pp) override {
    this->lang = &lang;
    text.emplace(os, lang, opts, pp);
  }
  void EndSourceFile() override {
    flushGroup();
    text.reset();
  }
  void finish() override { flushGroup(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    if (level == clang::DiagnosticsEngine::Note && droppingNotes)
      return;
    droppingNotes = false;
    if (auto message = witnessCopyMessage(info, lang ? *lang : defaultLang)) {
      flushGroup();
      DiagnosticConsumer::HandleDiagnostic(level, info);
      const clang::DiagnosticStorage storage{};
      render(level, clang::Diagnostic(info.getDiags(), info.getLocation(), info.getID(), storage, *message));
      droppingNotes = true;
      return;
    }
    // The host compile prints the warnings of the code both compile; this one prints those of
    // code only it sees. They are not counted ("N warnings generated") either.
    if (level == clang::DiagnosticsEngine::Warning &&
        !(deviceSource && info.hasSourceManager() &&
          deviceSource->contains(info.getSourceManager(), info.getLocation()))) {
      droppingNotes = true;
      return;
    }
    if (level == clang::DiagnosticsEngine::Note) {
      if (!group.empty()) {
        group.emplace_back(level, info);
        return;
      }
      DiagnosticConsumer::HandleDiagnostic(level, info);
      render(level, info);
      return;
    }
    flushGroup();
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level >= clang::DiagnosticsEngine::Error && info.hasSourceManager() &&
        isHostLibrary(clang::FullSourceLoc(info.getLocation(), info.getSourceManager()))) {
      group.emplace_back(level, info);
      return;
    }
    render(level, info);
  }

private:
  /// Library code that only the host can run: a system header, or Oxide's host API
  /// (oxide/host/: contexts, buffers, errors), which the device compile also parses.
  bool isHostLibrary(const clang::FullSourceLoc &loc) const {
    if (!loc.isValid())
      return false;
    const clang::SourceManager &sm = loc.getManager();
    const clang::SourceLocation at = sm.getExpansionLoc(loc);
    if (sm.isInSystemHeader(at))
      return true;
    llvm::SmallString<256> hostDir(oxideIncludeDir);
    llvm::sys::path::append(hostDir, "oxide", "host");
    return sm.getFilename(at).starts_with(hostDir);
  }

  /// Code the user wrote: not a system header, not the wrapper, not Oxide's headers.
  bool isUserLocation(const clang::FullSourceLoc &loc) const {
    if (!loc.isValid() || !loc.hasManager())
      return false;
    const clang::SourceManager &sm = loc.getManager();
    const clang::SourceLocation at = sm.getExpansionLoc(loc);
    if (sm.isInSystemHeader(at))
      return false;
    const llvm::StringRef file = sm.getFilename(at);
    return !file.empty() && !file.ends_with(kDeviceWrapperSuffix) && !file.starts_with(oxideIncludeDir);
  }

  clang::TextDiagnostic &renderer() {
    if (!text)
      text.emplace(os, defaultLang, opts, nullptr);
    return *text;
  }

  void render(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) {
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    if (level == clang::DiagnosticsEngine::Warning) {
      const llvm::StringRef option =
          info.getDiags()->getDiagnosticIDs()->getWarningOptionForDiag(info.getID());
      if (!option.empty())
        message += (" [-W" + option + "]").str();
    }
    renderer().emitDiagnostic(info.hasSourceManager()
                                  ? clang::FullSourceLoc(info.getLocation(), info.getSourceManager())
                                  : clang::FullSourceLoc(),
                              level, message, info.getRanges(), info.getFixItHints());
    os.flush();
  }

  void emit(clang::DiagnosticsEngine::Level level, const clang::StoredDiagnostic &d,
            llvm::StringRef message) {
    renderer().emitDiagnostic(d.getLocation(), level, message, d.getRanges(), d.getFixIts());
  }

  /// The function named by a "called by 'NAME'" note, or "".
  static llvm::StringRef calledBy(const clang::StoredDiagnostic &d) {
    llvm::StringRef m = d.getMessage();
    if (d.getLevel() != clang::DiagnosticsEngine::Note || !m.consume_front("called by '"))
      return "";
    return m.take_until([](char c) { return c == '\''; });
  }

  /// An error in a system header and its notes (the "called by" chain, deepest first): the
  /// error moves to the first place in the chain that is the user's code. Where clang places
  /// every call of the chain in the library (the implicit destructor call of a local
  /// std::vector is located at ~vector), the call is looked up in the user's function that
  /// ends the chain; an error with no chain at all (clang gives the chain once per library
  /// function) goes where the previous one went.
  void flushGroup() {
    if (group.empty())
      return;
    std::vector<clang::StoredDiagnostic> diags = std::move(group);
    group.clear();
    const clang::StoredDiagnostic &error = diags.front();
    size_t user = 0;
    for (size_t i = 1; i < diags.size() && !user; ++i)
      if (isUserLocation(diags[i].getLocation()))
        user = i;
    // The function of the chain that the user's line calls: the note before the user's names it.
    std::string callee;
    clang::FullSourceLoc at;
    if (user) {
      callee = calledBy(diags[user - 1]).str();
      at = diags[user].getLocation();
    } else if (size_t last = diags.size(); deviceSource && error.getLocation().hasManager()) {
      while (last > 1 && calledBy(diags[last - 1]).empty())
        --last;
      if (last > 2) { // diags[last - 1] names the user's function, diags[last - 2] what it calls
        const clang::SourceLocation call = deviceSource->findCall(
            calledBy(diags[last - 1]), calledBy(diags[last - 2]), [&](clang::SourceLocation loc) {
              return isUserLocation(clang::FullSourceLoc(loc, error.getLocation().getManager()));
            });
        if (call.isValid()) {
          callee = calledBy(diags[last - 2]).str();
          at = clang::FullSourceLoc(call, error.getLocation().getManager());
        }
      } else if (last == 1 && previousUserLocation.isValid()) {
        at = previousUserLocation;
        callee = previousCallee;
      }
    }
    if (!at.isValid()) {
      for (const clang::StoredDiagnostic &d : diags)
        emit(d.getLevel(), d, d.getMessage());
      os.flush();
      return;
    }
    previousUserLocation = at;
    previousCallee = callee;
    std::string message = "host-only code reached from a kernel";
    if (!callee.empty())
      message += " through '" + callee + "'";
    message += ": " + error.getMessage().str() + kHostOnlyCodeHint;
    renderer().emitDiagnostic(at, clang::DiagnosticsEngine::Error, message, {}, {});
    emit(clang::DiagnosticsEngine::Note, error, ("in the library: " + error.getMessage()).str());
    for (size_t i = 1; i < diags.size(); ++i)
      if (i != user)
        emit(diags[i].getLevel(), diags[i], diags[i].getMessage());
    os.flush();
  }

  static constexpr const char *kHostOnlyCodeHint =
      "; std::vector, iostream, exceptions and other host library code cannot run on the GPU: use "
      "Oxide's device types (spans, shared memory, fixed-size arrays) in code that kernels call";

  llvm::raw_ostream &os;
  clang::DiagnosticOptions &opts;
  std::string oxideIncludeDir;
  std::shared_ptr<const DeviceSource> deviceSource;
  const clang::LangOptions *lang = nullptr;
  bool droppingNotes = false; ///< the notes of a diagnostic left out or replaced
  clang::LangOptions defaultLang;
  std::optional<TextWithoutWrapper> text;
  std::vector<clang::StoredDiagnostic> group;
  clang::FullSourceLoc previousUserLocation; ///< where the last host-only code error went
  std::string previousCallee;
};

} // namespace

std::unique_ptr<clang::DiagnosticConsumer>
oxide::createDeviceDiagnosticPrinter(llvm::raw_ostream &os, clang::DiagnosticOptions &opts,
                                     std::string oxideIncludeDir,
                                     std::shared_ptr<const DeviceSource> deviceSource) {
  return std::make_unique<DeviceDiagnosticPrinter>(os, opts, std::move(oxideIncludeDir),
                                                   std::move(deviceSource));
}

std::unique_ptr<clang::DiagnosticConsumer>
oxide::createHostDiagnosticPrinter(llvm::raw_ostream &os, clang::DiagnosticOptions &opts) {
  return std::make_unique<HostDiagnosticPrinter>(os, opts);
}
