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

} // namespace oxide

#endif
