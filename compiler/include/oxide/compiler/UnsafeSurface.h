//===- UnsafeSurface.h - the uses of the unsafe tier in a file --*- C++ -*-===//
#ifndef OXIDE_COMPILER_UNSAFESURFACE_H
#define OXIDE_COMPILER_UNSAFESURFACE_H

#include "clang/AST/ASTConsumer.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace oxide {

/// One entry of `oxcc check --unsafe-report`: where it is in the user's code, what it is, and
/// the function it is in.
struct UnsafeUse {
  std::string file; ///< as clang's diagnostics name it
  unsigned line = 0;
  unsigned column = 0;
  std::string what;     ///< "unsafe_launch of kernel 'k(float*)' (no launch contract: ...)"
  std::string function; ///< "main", "run<float>", "a lambda in main"; empty for a kernel's entry
};

/// The trusted surface of one translation unit: every call of what Oxide's headers mark UNSAFE,
/// in the user's order, then every kernel without a launch contract.
struct UnsafeSurface {
  std::vector<UnsafeUse> uses;
};

/// Fills `surface` at the end of a host compile: the walk reads the user's code (the file and
/// the headers it includes that are neither Oxide's nor the system's), each instantiation of a
/// template too, and places each use at its line in the user's code.
std::unique_ptr<clang::ASTConsumer> createUnsafeSurfaceCollector(UnsafeSurface &surface);

/// Prints the report of `file`: "unsafe surface of FILE: N uses" and one line per use, or
/// "unsafe surface of FILE: none".
void printUnsafeSurface(const UnsafeSurface &surface, llvm::StringRef file, llvm::raw_ostream &os);

} // namespace oxide

#endif
