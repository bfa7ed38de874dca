//===- DiagnosticFormat.cpp - oxcc's diagnostics as clang prints its own --===//
//
// clang's TextDiagnostic, reproduced for the diagnostics clang does not print (the oxide
// dialect's safety checks): the same location, colours, gutter and caret, so that they read, and
// merge (MergedDiagnostics.cpp), like clang's.
//
//   app.cpp:5:10: error: this write ... [safety rule: element-bounds]
//       5 |     o[1] = 2.0f;
//         |          ^
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/DiagnosticFormat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <mutex>

using namespace oxide;

namespace {

std::mutex gMutex;
llvm::StringMap<std::string> gSpellings;
std::optional<bool> gColors;

/// The text of line `number` (1-based) of `file`, if it can be read.
std::optional<std::string> sourceLine(llvm::StringRef file, unsigned number) {
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!buffer)
    return std::nullopt;
  for (llvm::line_iterator it(**buffer, /*SkipBlanks=*/false); !it.is_at_eof(); ++it)
    if (static_cast<unsigned>(it.line_number()) == number)
      return it->str();
  return std::nullopt;
}

unsigned digits(unsigned n) {
  unsigned count = 1;
  while (n >= 10) {
    n /= 10;
    ++count;
  }
  return count;
}

} // namespace

void oxide::setInputSpelling(llvm::StringRef absolute, llvm::StringRef spelled) {
  std::lock_guard lock(gMutex);
  gSpellings[absolute] = spelled.str();
}

std::string oxide::displayPath(llvm::StringRef path) {
  std::lock_guard lock(gMutex);
  auto it = gSpellings.find(path);
  return it == gSpellings.end() ? path.str() : it->second;
}

std::string oxide::respellInputs(llvm::StringRef text) {
  std::string out = text.str();
  std::lock_guard lock(gMutex);
  for (const auto &entry : gSpellings) {
    if (entry.getKey() == entry.getValue())
      continue;
    const std::string from = entry.getKey().str() + ":", to = entry.getValue() + ":";
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return out;
}

void oxide::setDiagnosticColors(std::optional<bool> colors) { gColors = colors; }

bool oxide::diagnosticColors() { return gColors ? *gColors : llvm::errs().has_colors(); }

void oxide::printClangStyle(llvm::StringRef file, unsigned line, unsigned column, llvm::StringRef severity,
                            llvm::StringRef message, llvm::raw_ostream &os) {
  const bool note = severity == "note";
  // As clang's ShowColors: a stream that stands for stderr (llvm::errs() has colours enabled
  // whatever it is connected to) takes the diagnostics' choice.
  const bool colors = os.colors_enabled() && diagnosticColors();
  const bool wereEnabled = os.colors_enabled();
  os.enable_colors(colors);
  auto restore = llvm::make_scope_exit([&] { os.enable_colors(wereEnabled); });
  if (line != 0) {
    os.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
    os << displayPath(file) << ':' << line;
    if (column != 0)
      os << ':' << column;
    os << ": ";
    os.resetColor();
  }
  // clang's colours: errors red, warnings magenta, notes black, each bold.
  os.changeColor(severity == "error"     ? llvm::raw_ostream::RED
                 : severity == "warning" ? llvm::raw_ostream::MAGENTA
                                         : llvm::raw_ostream::BLACK,
                 /*Bold=*/true);
  os << severity << ": ";
  os.resetColor();
  if (!note)
    os.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  os << message;
  os.resetColor();
  os << '\n';
  if (line == 0)
    return;
  std::optional<std::string> text = sourceLine(file, line);
  if (!text)
    return;
  // The gutter: the line number right-aligned in at least four columns, then " | ".
  const unsigned width = std::max(4u, digits(line));
  os.indent(width - digits(line) + 1) << line << " | " << *text << '\n';
  if (column == 0)
    return; // a line without a column (a function's): no caret
  os.indent(width + 2) << "| ";
  // The caret under the column (1-based, in bytes), tabs kept so that it lines up; clang
  // colours the whole caret line and resets at the start of the next.
  os.changeColor(llvm::raw_ostream::GREEN, /*Bold=*/true);
  for (unsigned i = 0; i + 1 < column && i < text->size(); ++i)
    os << ((*text)[i] == '\t' ? '\t' : ' ');
  os << "^\n";
  os.resetColor();
}

namespace {

void printOne(mlir::Location loc, mlir::DiagnosticSeverity severity, const std::string &message,
              llvm::raw_ostream &os) {
  mlir::FileLineColLoc fileLoc;
  loc->walk([&](mlir::Location l) {
    if (auto f = mlir::dyn_cast<mlir::FileLineColLoc>(l)) {
      fileLoc = f;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  llvm::StringRef name = severity == mlir::DiagnosticSeverity::Error     ? "error"
                         : severity == mlir::DiagnosticSeverity::Warning ? "warning"
                         : severity == mlir::DiagnosticSeverity::Note    ? "note"
                                                                         : "remark";
  if (fileLoc)
    printClangStyle(fileLoc.getFilename().getValue(), fileLoc.getLine(), fileLoc.getColumn(), name, message,
                    os);
  else
    printClangStyle("", 0, 0, name, message, os);
}

} // namespace

void oxide::printClangStyle(mlir::Diagnostic &diag, llvm::raw_ostream &os) {
  printOne(diag.getLocation(), diag.getSeverity(), diag.str(), os);
  for (mlir::Diagnostic &note : diag.getNotes())
    printOne(note.getLocation(), note.getSeverity(), note.str(), os);
}
