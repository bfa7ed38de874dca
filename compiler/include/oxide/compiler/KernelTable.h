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

/// Whether `g` is an oxide::constant or oxide::device_global of the device module: the user
/// globals in constant or global memory (see ConstantVariables.cpp), which the host sets.
bool isHostSetVariable(const llvm::GlobalVariable &g);

/// The mangled names of the oxide::constant and oxide::device_global variables the device module
/// defines.
std::vector<std::string> collectConstants(const llvm::Module &device);

} // namespace oxide

#endif
