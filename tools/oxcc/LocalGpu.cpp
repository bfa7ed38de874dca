//===- LocalGpu.cpp - the architecture of this machine's GPU --------------===//
//
// Asked of the CUDA driver as the runtime asks it (dlopen("libcuda.so.1"), cuInit), without
// linking the runtime into oxcc: `oxcc run` builds for it, and `--arch=native` names it.
//
//===----------------------------------------------------------------------===//

#include "Oxcc.h"

#include "oxide/compiler/CompileOptions.h"

#include <dlfcn.h>

using namespace oxcc;

llvm::Expected<unsigned> oxcc::localGpuArch(int ordinal) {
  void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return llvm::createStringError("no CUDA driver (libcuda.so.1 not found)");
  using CuInit = int (*)(unsigned);
  using CuDeviceGet = int (*)(int *, int);
  using CuDeviceGetAttribute = int (*)(int *, int, int);
  auto cuInit = reinterpret_cast<CuInit>(::dlsym(lib, "cuInit"));
  auto cuDeviceGet = reinterpret_cast<CuDeviceGet>(::dlsym(lib, "cuDeviceGet"));
  auto cuDeviceGetAttribute = reinterpret_cast<CuDeviceGetAttribute>(::dlsym(lib, "cuDeviceGetAttribute"));
  int handle = 0, major = 0, minor = 0;
  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR (75) and _MINOR (76).
  if (!cuInit || !cuDeviceGet || !cuDeviceGetAttribute || cuInit(0) != 0 ||
      cuDeviceGet(&handle, ordinal) != 0 || cuDeviceGetAttribute(&major, 75, handle) != 0 ||
      cuDeviceGetAttribute(&minor, 76, handle) != 0)
    return llvm::createStringError("no CUDA device " + std::to_string(ordinal));
  return static_cast<unsigned>(major * 10 + minor);
}

namespace {

/// --arch=native: GPU 0's architecture, or OXIDE_DEVICE=cuda:N's.
llvm::Expected<unsigned> nativeArch() {
  auto arch = localGpuArch(0);
  if (!arch)
    return llvm::createStringError("this machine has no GPU to build for (" +
                                   llvm::toString(arch.takeError()) + ")");
  return arch;
}

const bool kNativeRegistered = (oxide::setNativeArchQuery(&nativeArch), true);

} // namespace
