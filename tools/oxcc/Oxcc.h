//===- Oxcc.h - pieces of the oxcc command-line driver ----------*- C++ -*-===//
#ifndef OXIDE_OXCC_OXCC_H
#define OXIDE_OXCC_OXCC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

namespace oxcc {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

/// Prints "oxcc: error: MESSAGE" and the hint to run `oxcc <command> --help`; returns 2.
int usageError(const llvm::Twine &message, llvm::StringRef command = "");

/// Prints an error (nothing more when clang or MLIR already printed its diagnostics); returns 1.
int reportError(llvm::Error err);

/// `oxcc new NAME [--template cmake|basic]`.
int runNew(llvm::ArrayRef<const char *> args, const char *argv0);

/// `oxcc doctor`: checks every part of the toolchain and the machine's GPUs.
int runDoctor(llvm::ArrayRef<const char *> args, const char *argv0);

} // namespace oxcc

#endif
