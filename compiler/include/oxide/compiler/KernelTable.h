//===- KernelTable.h - kernel entry points of a device module ---*- C++ -*-===//
#ifndef OXIDE_COMPILER_KERNELTABLE_H
#define OXIDE_COMPILER_KERNELTABLE_H

#include "oxide/detail/device_image.hpp"

#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace oxide {

/// The kernels (ptx_kernel functions) of a device module with the byte layout of their
/// parameters, which the runtime checks against the host-side argument types.
std::vector<detail::KernelInfo> collectKernels(const llvm::Module &device);

/// The mangled names of the oxide::constant variables the device module defines.
std::vector<std::string> collectConstants(const llvm::Module &device);

} // namespace oxide

#endif
