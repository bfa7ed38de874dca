//===- HostEmbedding.h - device image into the host module ------*- C++ -*-===//
#ifndef OXIDE_COMPILER_HOSTEMBEDDING_H
#define OXIDE_COMPILER_HOSTEMBEDDING_H

#include "oxide/detail/device_image.hpp"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace oxide {

/// The kernels this translation unit defines: host functions annotated "oxide.kernel" in
/// llvm.global.annotations that have a body. Clang annotates declarations too (a kernel declared
/// in a header and defined in another translation unit); those are left out, since the unit that
/// defines a kernel embeds its device code and registers it.
std::vector<llvm::Function *> findHostKernels(llvm::Module &host);

/// Embeds the encoded device image in the host module together with a table mapping each
/// kernel's host address to its device entry name, and a global constructor that registers
/// both with the runtime (__oxide_register_image), with the host addresses of the
/// oxide::constant variables named in `constants`. `fatbin`, when not empty, is the CUDA
/// fatbinary that holds the image's code objects (packFatBinary): it goes into the `.nv_fatbin`
/// section and is registered with the image (__oxide_register_fat_image). Fails if a host
/// kernel has no device entry.
llvm::Error embedDeviceImage(llvm::Module &host, const detail::DeviceImage &image,
                             const std::vector<std::string> &constants = {}, llvm::StringRef fatbin = {});

} // namespace oxide

#endif
