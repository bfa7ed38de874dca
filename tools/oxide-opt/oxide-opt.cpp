//===- oxide-opt.cpp - mlir-opt with the oxide dialect --------------------===//
//
// Runs oxide passes on textual MLIR; the lit tests of the dialect are written against it.
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/OxideDialect.h"
#include "Oxide/Pipelines/Pipelines.h"
#include "TestOps.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace {

constexpr unsigned kMaxResultNumber = 1u << 20;

bool isSsaNameChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-'; }

/// MLIR's parser makes a placeholder for every result of a forward-referenced operation up to the
/// number a use names, so a single `%x#2147483647` exhausts memory ("LLVM ERROR: out of memory")
/// before any error is reported (mlir-opt too). Refuse such a use first, with a located error.
/// Found by tests/fuzz/mutate.py; tested by tests/lit/fuzz/result-number.test.
bool resultNumbersInRange(llvm::StringRef filename) {
  if (filename == "-")
    return true; // standard input is left to MlirOptMain
  auto buffer = llvm::MemoryBuffer::getFile(filename);
  if (!buffer)
    return true; // MlirOptMain reports the error
  const llvm::StringRef text = (*buffer)->getBuffer();
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') { // a string: skip it, escapes included
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < text.size() && text[i] == '\n')
        --i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') { // a comment
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '#') {
      size_t name = i;
      while (name > lineStart && isSsaNameChar(text[name - 1]))
        --name;
      if (name == i || name == lineStart || text[name - 1] != '%')
        continue;
      size_t end = i + 1;
      while (end < text.size() && llvm::isDigit(text[end]))
        ++end;
      const llvm::StringRef digits = text.slice(i + 1, end);
      unsigned long long number = 0;
      if (digits.empty() ||
          (digits.size() <= 9 && !digits.getAsInteger(10, number) && number <= kMaxResultNumber))
        continue;
      llvm::errs() << filename << ":" << line << ":" << (name - lineStart) << ": error: result number "
                   << digits << " of '" << text.slice(name - 1, i)
                   << "' is too large: oxide-opt accepts result numbers up to " << kMaxResultNumber << "\n";
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  oxide::registerOxidePassesAndPipelines();
  mlir::DialectRegistry registry;
  registry.insert<oxide::OxideDialect, mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect, mlir::DLTIDialect>();
  oxide::registerTestOps(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(argc, argv, "Oxide optimizer driver\n", registry);
  if (!resultNumbersInRange(input))
    return 1;
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
