//===- ReportedError.h - an error whose diagnostics were printed -*- C++ -*-===//
#ifndef OXIDE_COMPILER_REPORTEDERROR_H
#define OXIDE_COMPILER_REPORTEDERROR_H

#include "llvm/Support/Error.h"

namespace oxide {

/// Failure of a stage that has already printed its diagnostics (clang or MLIR, with source
/// locations); the driver only needs to exit non-zero.
class ReportedError : public llvm::ErrorInfo<ReportedError> {
public:
  static char ID;
  explicit ReportedError(std::string stage) : stage(std::move(stage)) {}
  void log(llvm::raw_ostream &os) const override { os << stage << " failed"; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  std::string stage;
};

inline llvm::Error reportedError(std::string stage) {
  return llvm::make_error<ReportedError>(std::move(stage));
}

/// The device code cannot be built for one of the default architectures (the user gave no
/// --arch): a kernel needs a newer GPU, or ptxas rejected the code. The driver leaves that
/// architecture out and, under -v, says why (`reason`).
class UnsupportedArchError : public llvm::ErrorInfo<UnsupportedArchError> {
public:
  static char ID;
  UnsupportedArchError(std::string reason, unsigned minArch) : reason(std::move(reason)), minArch(minArch) {}
  void log(llvm::raw_ostream &os) const override { os << reason; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  /// E.g. "kernel 'k(...)' uses distributed shared memory (...) at file.cpp:12:5, which needs sm_90
  /// or newer".
  std::string reason;
  /// The oldest architecture that can run the code (90 = sm_90); 0 when not known (ptxas).
  unsigned minArch;
};

} // namespace oxide

#endif
