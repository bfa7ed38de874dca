//===- DeviceDiagnostics.cpp - what the device compile prints -------------===//

#include "DeviceDiagnostics.h"

#include "oxide/compiler/Frontend.h"

#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnostic.h"
#include "llvm/ADT/SmallString.h"

#include <optional>
#include <vector>

using namespace oxide;

namespace {

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
  DeviceDiagnosticPrinter(llvm::raw_ostream &os, clang::DiagnosticOptions &opts, std::string oxideIncludeDir)
      : os(os), opts(opts), oxideIncludeDir(std::move(oxideIncludeDir)) {}

  void BeginSourceFile(const clang::LangOptions &lang, const clang::Preprocessor *pp) override {
    text.emplace(os, lang, opts, pp);
  }
  void EndSourceFile() override {
    flushGroup();
    text.reset();
  }
  void finish() override { flushGroup(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
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
    if (level >= clang::DiagnosticsEngine::Error && info.hasSourceManager() && info.getLocation().isValid() &&
        info.getSourceManager().isInSystemHeader(
            info.getSourceManager().getExpansionLoc(info.getLocation()))) {
      group.emplace_back(level, info);
      return;
    }
    render(level, info);
  }

private:
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

  /// An error in a system header and its notes (the "called by" chain, deepest first): the
  /// error moves to the first place in the chain that is the user's code.
  void flushGroup() {
    if (group.empty())
      return;
    std::vector<clang::StoredDiagnostic> diags = std::move(group);
    group.clear();
    size_t user = 0;
    for (size_t i = 1; i < diags.size() && !user; ++i)
      if (isUserLocation(diags[i].getLocation()))
        user = i;
    if (!user) {
      for (const clang::StoredDiagnostic &d : diags)
        emit(d.getLevel(), d, d.getMessage());
      os.flush();
      return;
    }
    const clang::StoredDiagnostic &error = diags.front();
    // The function of the chain that the user's line calls: the note before the user's names it.
    std::string callee;
    if (llvm::StringRef m = diags[user - 1].getMessage(); m.consume_front("called by '"))
      callee = m.take_until([](char c) { return c == '\''; }).str();
    std::string message = "host-only code reached from a kernel";
    if (!callee.empty())
      message += " through '" + callee + "'";
    message += ": " + error.getMessage().str() + kHostOnlyCodeHint;
    emit(clang::DiagnosticsEngine::Error, diags[user], message);
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
  clang::LangOptions defaultLang;
  std::optional<TextWithoutWrapper> text;
  std::vector<clang::StoredDiagnostic> group;
};

} // namespace

std::unique_ptr<clang::DiagnosticConsumer>
oxide::createDeviceDiagnosticPrinter(llvm::raw_ostream &os, clang::DiagnosticOptions &opts,
                                     std::string oxideIncludeDir) {
  return std::make_unique<DeviceDiagnosticPrinter>(os, opts, std::move(oxideIncludeDir));
}
