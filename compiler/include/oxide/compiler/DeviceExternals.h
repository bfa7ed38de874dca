//===- DeviceExternals.h - functions device code needs but cannot have -*- C++ -*-===//
#ifndef OXIDE_COMPILER_DEVICEEXTERNALS_H
#define OXIDE_COMPILER_DEVICEEXTERNALS_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace oxide {

/// Reports every function that device code calls but that has no device definition (declared
/// in another translation unit, a host library, or a C++ runtime facility such as exceptions or
/// RTTI), at the call's source line, with the chain of calls from the kernel. Run on clang's
/// device IR, before the oxide intrinsics are raised; failure is a ReportedError.
/// The messages go to `os`.
llvm::Error checkDeviceExternals(const llvm::Module &device, llvm::raw_ostream &os);

} // namespace oxide

#endif
