//===- RegisterOnlyAsm.cpp - inline PTX that computes in registers only ---===//
//
// CUDA's own headers (cuRAND's MRG32k3a, its Poisson sampler, libcu++'s bit operations) compute
// with a few PTX instructions in inline assembly. Such a statement cannot write memory when each
// of its instructions only reads and writes registers, its operands are registers or immediates
// (no memory constraint, no pointer) and it does not clobber memory. What its text says is what
// runs (ptxas assembles it as written), so the instructions are read from the text and each must
// be on the list below; anything else (ld, st, atom, red, cp, call, a branch, a label) keeps the
// statement refused. Constraints and clobbers are only promises, so they are not trusted to
// allow anything, only to refuse.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace {

/// PTX instructions that read and write registers only (by their name before the first '.').
bool computesInRegisters(llvm::StringRef opcode) {
  static const llvm::StringSet<> kOpcodes = {
      // integer and floating-point arithmetic
      "add", "addc", "sub", "subc", "mul", "mul24", "mad", "madc", "mad24", "sad", "div", "rem", "abs", "neg",
      "min", "max", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp",
      // bits
      "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext", "prmt", "shf", "shl", "shr",
      "and", "or", "xor", "not", "cnot", "lop3", "dp4a", "dp2a",
      // SIMD video instructions (__vadd4 and its family)
      "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2", "vavrg2",
      "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4",
      "vset4",
      // comparisons, selection, conversion and moves between registers
      "set", "setp", "selp", "slct", "cvt", "mov",
      // waits without memory
      "nanosleep"};
  return kOpcodes.contains(opcode);
}

/// The PTX text without comments.
std::string withoutComments(llvm::StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
    } else if (text.substr(i).starts_with("/*")) {
      i = text.find("*/", i + 2);
      if (i == llvm::StringRef::npos)
        break;
      ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

} // namespace

std::optional<std::string> oxide::writeproof::whyAsmMayAccessMemory(llvm::StringRef text,
                                                                    llvm::StringRef constraints) {
  // Constraints: outputs (=r, +l...), inputs (r, l, f, d, h, c, n, i, a tied operand's number)
  // and clobbers (~{...}). A memory operand (m, or an indirect *m) is a pointer into memory.
  llvm::SmallVector<llvm::StringRef> parts;
  constraints.split(parts, ',', -1, false);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part.starts_with("~")) {
      if (part.contains("memory"))
        return std::string("it clobbers memory");
      continue;
    }
    llvm::StringRef letters = part.ltrim("=+&");
    if (letters.empty() || letters.starts_with("*") || letters.contains('m') ||
        letters.find_first_not_of("rlfdhcni0123456789") != llvm::StringRef::npos)
      return "it has an operand of constraint '" + part.str() + "', which is not a register or an immediate";
  }
  const std::string code = withoutComments(text);
  llvm::SmallVector<llvm::StringRef> statements;
  llvm::StringRef(code).split(statements, ';');
  for (llvm::StringRef statement : statements) {
    statement = statement.trim().ltrim("{}").rtrim("{}").trim();
    // Scopes of their own: "{ .reg .b32 t; ... }".
    while (statement.consume_front("{") || statement.consume_front("}"))
      statement = statement.trim();
    if (statement.empty() || statement.starts_with(".reg"))
      continue;
    if (statement.starts_with("@")) // a guard predicate: "@%p1 add..." or "@!p add..."
      statement = statement.drop_until([](char c) { return c == ' ' || c == '\t'; }).trim();
    const llvm::StringRef instruction = statement.take_until([](char c) { return c == ' ' || c == '\t'; });
    const llvm::StringRef opcode = instruction.take_until([](char c) { return c == '.'; });
    if (!computesInRegisters(opcode))
      return "its instruction '" + instruction.str() + "' is not one that only computes in registers";
  }
  return std::nullopt;
}
