//===- DeviceDiagnostics.h - what the device compile prints -----*- C++ -*-===//
//
// Internal to compiler/frontend: the device compile's diagnostic printer. It prints what
// clang's TextDiagnosticPrinter would, except that
//  - the include stack never names the internal wrapper (FILE.oxide-device.cu);
//  - an error in a system header reached from a kernel (std::vector, iostream: clang's "reference
//    to __host__ function" with its "called by" notes) is reported at the first line of the
//    chain in the user's own code, with the library's line and the chain as notes.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_FRONTEND_DEVICEDIAGNOSTICS_H
#define OXIDE_COMPILER_FRONTEND_DEVICEDIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace oxide {

/// The device compile's diagnostic consumer; `oxideIncludeDir` (Oxide's headers) is not the
/// user's code.
std::unique_ptr<clang::DiagnosticConsumer> createDeviceDiagnosticPrinter(llvm::raw_ostream &os,
                                                                         clang::DiagnosticOptions &opts,
                                                                         std::string oxideIncludeDir);

} // namespace oxide

#endif
