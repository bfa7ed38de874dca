//===- DiagnosticFormat.h - oxcc's diagnostics as clang prints its own -*- C++ -*-===//
#ifndef OXIDE_COMPILER_DIAGNOSTICFORMAT_H
#define OXIDE_COMPILER_DIAGNOSTICFORMAT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir {
class Diagnostic;
} // namespace mlir

namespace oxide {

/// The driver records how the user spelled each input on the command line (`sub/app.cpp`), so
/// that diagnostics name it so, as clang does; other files keep their path. Call before the
/// compiles start.
void setInputSpelling(llvm::StringRef absolute, llvm::StringRef spelled);
/// `path` as diagnostics show it: the spelling of an input, else `path` itself.
std::string displayPath(llvm::StringRef path);
/// `text` (diagnostics clang printed about the inputs' absolute paths, as the device compile
/// sees them) with each input's absolute path before a ':' spelled as on the command line.
std::string respellInputs(llvm::StringRef text);

/// Whether diagnostics are coloured: -fdiagnostics-color / -fno-diagnostics-color, else whether
/// stderr is a terminal.
void setDiagnosticColors(std::optional<bool> colors);
bool diagnosticColors();

/// Prints an MLIR diagnostic (the safety model's, the dialect's) with its notes exactly as clang
/// prints its own: `path:line:col: error: message` (bold, the severity coloured when `os` has
/// colours enabled), then the source line with its line number in clang's gutter and a caret
/// under the column.
void printClangStyle(mlir::Diagnostic &diag, llvm::raw_ostream &os);

/// One diagnostic in clang's format, for callers without an MLIR diagnostic. `severity` is
/// "error", "warning" or "note"; `line` 0 prints no location and no snippet, `column` 0 no
/// column and no caret.
void printClangStyle(llvm::StringRef file, unsigned line, unsigned column, llvm::StringRef severity,
                     llvm::StringRef message, llvm::raw_ostream &os);

} // namespace oxide

#endif
