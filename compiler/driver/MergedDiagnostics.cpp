//===- MergedDiagnostics.cpp - the device builds' diagnostics, once -------===//
//
// Every architecture's device build prints into its own buffer (they run in parallel). Most of
// what they print is the same for all of them: the safety verifier's errors, the frontend's
// witness checks, warnings of device-only code. Each buffer is cut into diagnostics (a
// diagnostic with its include stack, source snippet and notes), and each distinct one is printed
// once, in the order the first architecture that reports it printed it; one that not every
// architecture reports says for which it is.
//
//===----------------------------------------------------------------------===//

#include "DeviceBuild.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <string>
#include <vector>

using namespace oxide;
using namespace oxide::driver;

namespace {

/// `line` without its colour escape sequences (ESC [ digits/; m).
std::string withoutColors(llvm::StringRef line) {
  std::string plain;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && (llvm::isDigit(line[j]) || line[j] == ';'))
        ++j;
      if (j < line.size() && line[j] == 'm') {
        i = j;
        continue;
      }
    }
    plain.push_back(line[i]);
  }
  return plain;
}

enum class LineKind { Diagnostic, Note, IncludeStack, Summary, Other };

/// The severity of a diagnostic line: "file:line:col: error: ...", "oxcc: warning: ...",
/// "error: ..." (clang without a location); empty for other lines. The first severity on the line
/// counts, not one quoted in the message.
llvm::StringRef severityOf(llvm::StringRef plain) {
  if (plain.empty() || plain.front() == ' ')
    return {};
  for (size_t at = 0; at != llvm::StringRef::npos; at = plain.find(": ", at + 1)) {
    llvm::StringRef after = at == 0 ? plain : plain.drop_front(at + 2);
    for (llvm::StringRef severity : {"fatal error", "error", "warning", "remark", "note"})
      if (after.starts_with(severity) && after.drop_front(severity.size()).starts_with(": "))
        return severity;
  }
  return {};
}

/// `isError`: whether a Diagnostic line is an error (or a fatal one).
LineKind classify(llvm::StringRef plain, bool *isError = nullptr) {
  // clang's "N errors generated.", "N warnings and M errors generated when compiling for sm_90."
  static const llvm::Regex summary("^[0-9]+ (warning|error)s?( and [0-9]+ (warning|error)s?)? generated");
  if (plain.starts_with("In file included from ") ||
      (plain.starts_with("                 from ") && plain.contains(':')))
    return LineKind::IncludeStack;
  if (summary.match(plain))
    return LineKind::Summary;
  const llvm::StringRef severity = severityOf(plain);
  if (severity.empty())
    return LineKind::Other;
  if (isError)
    *isError = severity.ends_with("error");
  return severity == "note" ? LineKind::Note : LineKind::Diagnostic;
}

/// " when compiling for sm_90" (clang's summary line, a device diagnostic) names the build.
std::string keyOf(llvm::StringRef text, const GpuArch &arch) {
  std::string key = withoutColors(text);
  for (const std::string &name : {arch.smName(), arch.name()}) {
    const std::string suffix = " when compiling for " + name;
    for (size_t at; (at = key.find(suffix)) != std::string::npos;)
      key.erase(at, suffix.size());
  }
  return key;
}

/// One architecture's diagnostics: each with its notes, and the summary lines apart.
struct Split {
  std::vector<std::string> diagnostics, summaries;
  bool hasError = false; ///< an error among them (not only warnings and notes)
};

Split split(llvm::StringRef text) {
  Split result;
  std::string pendingIncludes; // an include stack, for the diagnostic or note that follows
  bool open = false;           // a diagnostic takes continuation lines
  std::string *last = nullptr; // the text the previous line went to
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    std::string withNewline = line.str() + (line.size() < text.size() ? "\n" : "");
    text = rest;
    const std::string plain = withoutColors(line);
    bool isError = false;
    const LineKind kind = classify(plain, &isError);
    // clang ends the colour of a snippet's caret line at the start of the next line: that reset
    // stays with the snippet, which may be printed apart from what follows.
    constexpr llvm::StringLiteral reset = "\x1b[0m";
    if (kind != LineKind::Note && kind != LineKind::Other && last &&
        llvm::StringRef(withNewline).starts_with(reset)) {
      *last += reset;
      withNewline.erase(0, reset.size());
    }
    switch (kind) {
    case LineKind::IncludeStack:
      pendingIncludes += withNewline;
      last = &pendingIncludes;
      continue;
    case LineKind::Summary:
      result.summaries.push_back(pendingIncludes + withNewline);
      pendingIncludes.clear();
      open = false;
      last = &result.summaries.back();
      continue;
    case LineKind::Diagnostic:
      result.hasError |= isError;
      result.diagnostics.push_back(pendingIncludes + withNewline);
      pendingIncludes.clear();
      open = true;
      last = &result.diagnostics.back();
      continue;
    case LineKind::Note:
    case LineKind::Other:
      if (!open) {
        result.diagnostics.push_back(std::string());
        open = true;
      }
      result.diagnostics.back() += pendingIncludes + withNewline;
      pendingIncludes.clear();
      last = &result.diagnostics.back();
      continue;
    }
  }
  if (!pendingIncludes.empty())
    result.diagnostics.push_back(pendingIncludes);
  return result;
}

struct Merged {
  std::string text, key;
  std::vector<size_t> builds; ///< indices of the builds that printed it
};

void add(std::vector<Merged> &merged, std::string text, const GpuArch &arch, size_t build) {
  std::string key = keyOf(text, arch);
  auto same = llvm::find_if(merged, [&](const Merged &m) { return m.key == key; });
  if (same == merged.end())
    merged.push_back({std::move(text), std::move(key), {build}});
  else if (same->builds.back() != build)
    same->builds.push_back(build);
}

/// `text` with " (when compiling for sm_80, sm_86)" at the end of its first diagnostic line,
/// unless that line names them already.
std::string annotated(const std::string &text, llvm::ArrayRef<std::string> names) {
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    const std::string plain = withoutColors(llvm::StringRef(text).slice(begin, end));
    const LineKind kind = classify(plain);
    if (kind == LineKind::IncludeStack) {
      begin = end + 1;
      continue;
    }
    if (kind != LineKind::Diagnostic ||
        llvm::all_of(names, [&](const std::string &name) { return llvm::StringRef(plain).contains(name); }))
      return text;
    return text.substr(0, end) + " (when compiling for " + llvm::join(names, ", ") + ")" + text.substr(end);
  }
  return text;
}

} // namespace

MergedDiagnostics driver::mergeDiagnostics(llvm::ArrayRef<const ArchBuild *> builds) {
  std::vector<Merged> diagnostics, summaries;
  MergedDiagnostics result;
  for (size_t i = 0; i < builds.size(); ++i) {
    Split s = split(builds[i]->diagnostics);
    result.printedError.push_back(s.hasError);
    for (std::string &text : s.diagnostics)
      add(diagnostics, std::move(text), builds[i]->arch, i);
    for (std::string &text : s.summaries)
      add(summaries, std::move(text), builds[i]->arch, i);
  }
  for (const Merged &m : diagnostics) {
    if (m.builds.size() == builds.size() || builds.size() == 1) {
      result.text += m.text;
      continue;
    }
    std::vector<std::string> names;
    for (size_t i : m.builds)
      names.push_back(builds[i]->arch.smName());
    result.text += annotated(m.text, names);
  }
  for (const Merged &m : summaries)
    result.text += m.text;
  return result;
}
