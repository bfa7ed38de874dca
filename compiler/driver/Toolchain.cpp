//===- Toolchain.cpp ------------------------------------------------------===//

#include "oxide/compiler/Toolchain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace oxide;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

std::string joinPath(llvm::StringRef first, std::initializer_list<llvm::StringRef> rest) {
  llvm::SmallString<256> p(first);
  for (llvm::StringRef component : rest)
    path::append(p, component); // one at a time: empty trailing components would add a '/'
  return std::string(p);
}

std::string envOr(const char *name, llvm::StringRef fallback) {
  if (auto value = llvm::sys::Process::GetEnv(name); value && !value->empty())
    return *value;
  return fallback.str();
}

} // namespace

Toolchain Toolchain::locate(const char *argv0) {
  Toolchain tc;
  tc.cudaPath = envOr("OXIDE_CUDA_PATH", OXIDE_DEFAULT_CUDA_PATH);
  tc.clangResourceDir = OXIDE_CLANG_RESOURCE_DIR;
  tc.libdevice = joinPath(tc.cudaPath, {"nvvm", "libdevice", "libdevice.10.bc"});

  // $OXIDE_PTXAS overrides the toolkit's ptxas; a missing ptxas is not fatal (PTX-only image).
  tc.ptxas = envOr("OXIDE_PTXAS", joinPath(tc.cudaPath, {"bin", "ptxas"}));
  if (!fs::can_execute(tc.ptxas))
    tc.ptxas.clear();
  // The toolkit's fatbinary packs the code objects as nvcc does (cuobjdump reads them); without
  // it the code objects travel inside Oxide's own image.
  tc.fatbinary = envOr("OXIDE_FATBINARY", joinPath(tc.cudaPath, {"bin", "fatbinary"}));
  if (!fs::can_execute(tc.fatbinary))
    tc.fatbinary.clear();

  tc.builtinsLibrary = joinPath(tc.clangResourceDir, {"lib", "linux", "libclang_rt.builtins-x86_64.a"});
  if (!fs::exists(tc.builtinsLibrary))
    tc.builtinsLibrary.clear();

  tc.clangDriver = joinPath(OXIDE_LLVM_BIN_DIR, {"clang++"});
  if (!fs::can_execute(tc.clangDriver)) {
    auto found = llvm::sys::findProgramByName("clang++-22");
    tc.clangDriver = found ? *found : std::string();
  }

  tc.lld = joinPath(OXIDE_LLVM_BIN_DIR, {"ld.lld"});
  if (!fs::can_execute(tc.lld))
    tc.lld.clear();

  // Installed layout first (bin/oxcc next to include/ and lib/), then the build tree.
  tc.self = fs::getMainExecutable(argv0, reinterpret_cast<void *>(&Toolchain::discover));
  tc.prefix = std::string(path::parent_path(path::parent_path(tc.self)));
  std::string installedInclude = joinPath(tc.prefix, {"include"});
  std::string installedRuntime = joinPath(tc.prefix, {"lib", "liboxide_runtime.a"});
  if (fs::exists(joinPath(installedInclude, {"oxide", "oxide.hpp"})) && fs::exists(installedRuntime)) {
    tc.oxideIncludeDir = installedInclude;
    tc.runtimeLibrary = installedRuntime;
    tc.cubLibrary = joinPath(tc.prefix, {"lib", "liboxide_cub.a"});
    tc.installed = true;
  } else {
    tc.oxideIncludeDir = OXIDE_BUILD_INCLUDE_DIR;
    tc.runtimeLibrary = OXIDE_BUILD_RUNTIME_LIB;
    tc.cubLibrary = OXIDE_BUILD_CUB_LIB;
  }
  tc.cudaRuntimeStatic = joinPath(tc.cudaPath, {"lib64", "libcudart_static.a"});
  if (!fs::exists(tc.cubLibrary) || !fs::exists(tc.cudaRuntimeStatic)) {
    tc.cubLibrary.clear();
    tc.cudaRuntimeStatic.clear();
  }
  return tc;
}

llvm::Error Toolchain::validate() const {
  if (!fs::exists(libdevice))
    return llvm::createStringError("CUDA libdevice not found at '" + libdevice +
                                   "'; install the CUDA toolkit (12 or newer) or set OXIDE_CUDA_PATH "
                                   "to its root");
  if (clangDriver.empty())
    return llvm::createStringError("clang++ (LLVM 22) not found; it links Oxide executables. Install "
                                   "the clang-22 package");
  if (!fs::exists(joinPath(oxideIncludeDir, {"oxide", "oxide.hpp"})))
    return llvm::createStringError("the oxide headers are missing from '" + oxideIncludeDir +
                                   "'; reinstall Oxide");
  if (!fs::exists(runtimeLibrary))
    return llvm::createStringError("the oxide runtime library '" + runtimeLibrary +
                                   "' is missing; build the 'oxide_runtime' target or reinstall Oxide");
  return llvm::Error::success();
}

llvm::Expected<Toolchain> Toolchain::discover(const char *argv0) {
  Toolchain tc = locate(argv0);
  if (auto err = tc.validate())
    return std::move(err);
  return tc;
}
