//===- Doctor.cpp - oxcc doctor -------------------------------------------===//
//
// One line per part of the toolchain and of the machine, OK / WARN / FAIL, each problem with
// the fix. The NVIDIA driver is probed the way the runtime loads it (dlopen libcuda.so.1,
// cuInit), without linking the runtime into oxcc.
//
//===----------------------------------------------------------------------===//

#include "ObjectCache.h"
#include "Oxcc.h"

#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace oxcc;
namespace fs = llvm::sys::fs;

namespace {

enum class Status { Ok, Warn, Fail, Info };

class Report {
public:
  void line(Status status, const llvm::Twine &what, const llvm::Twine &fix = "") {
    llvm::raw_ostream &os = llvm::outs();
    switch (status) {
    case Status::Ok:
      llvm::WithColor(os, llvm::raw_ostream::GREEN, /*Bold=*/true) << "  OK    ";
      break;
    case Status::Warn:
      llvm::WithColor(os, llvm::raw_ostream::YELLOW, /*Bold=*/true) << "  WARN  ";
      ++warnings;
      break;
    case Status::Fail:
      llvm::WithColor(os, llvm::raw_ostream::RED, /*Bold=*/true) << "  FAIL  ";
      ++failures;
      break;
    case Status::Info:
      os << "  -     ";
      break;
    }
    os << what << "\n";
    if (!fix.isTriviallyEmpty())
      os << "        fix: " << fix << "\n";
  }
  int failures = 0;
  int warnings = 0;
};

/// Runs `program args...` and returns its output (stdout and stderr); empty on failure.
std::string capture(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args) {
  llvm::SmallString<128> outPath;
  if (fs::createTemporaryFile("oxcc-doctor", "txt", outPath))
    return {};
  llvm::FileRemover remove(outPath);
  llvm::SmallVector<llvm::StringRef> argv = {program};
  argv.append(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, outPath.str(), outPath.str()};
  if (llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, /*SecondsToWait=*/20) != 0)
    return {};
  auto buffer = llvm::MemoryBuffer::getFile(outPath);
  return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
}

std::string firstLine(llvm::StringRef text) { return text.split('\n').first.trim().str(); }
/// "Cuda compilation tools, release 13.0, V13.0.88" from ptxas --version.
std::string releaseLine(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines)
    if (line.contains("release"))
      return line.trim().str();
  return firstLine(text);
}

/// "12.8.93" from the toolkit's version.json, else "13.0" from cuda.h, else "".
std::string cudaToolkitVersion(const std::string &cudaPath) {
  auto buffer = llvm::MemoryBuffer::getFile(cudaPath + "/version.json");
  if (!buffer) {
    auto header = llvm::MemoryBuffer::getFile(cudaPath + "/include/cuda.h");
    if (!header)
      return {};
    llvm::StringRef text = (*header)->getBuffer();
    size_t pos = text.find("#define CUDA_VERSION ");
    unsigned version = 0;
    if (pos == llvm::StringRef::npos || text.drop_front(pos + llvm::StringRef("#define CUDA_VERSION ").size())
                                            .ltrim()
                                            .consumeInteger(10, version))
      return {};
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  }
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return {};
  }
  if (const auto *root = json->getAsObject())
    if (const auto *cuda = root->getObject("cuda"))
      if (auto version = cuda->getString("version"))
        return version->str();
  return {};
}

// The few driver entry points the doctor needs, by their C signatures (CUresult is an int,
// CUdevice an int).
using CuInit = int (*)(unsigned);
using CuDriverGetVersion = int (*)(int *);
using CuDeviceGetCount = int (*)(int *);
using CuDeviceGet = int (*)(int *, int);
using CuDeviceGetName = int (*)(char *, int, int);
using CuDeviceGetAttribute = int (*)(int *, int, int);
using CuDeviceTotalMem = int (*)(size_t *, int);
using CuGetErrorName = int (*)(int, const char **);
constexpr int kComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;

/// The PTX ISA oxcc emits (the NVPTX back end's +ptx88) and the driver that can JIT it.
constexpr int kPtxIsaDriverVersion = 12090;
constexpr const char *kPtxIsa = "8.8";

void checkDriver(Report &report, const std::vector<oxide::GpuArch> &defaultArchs) {
  const char *simulatorHint = "programs run their kernels on the CPU simulator (also with OXIDE_DEVICE=cpu)";
  void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    report.line(Status::Warn, "NVIDIA driver: libcuda.so.1 not found; " + llvm::Twine(simulatorHint),
                "install the NVIDIA driver (or its CUDA compat package) to run on a GPU");
    return;
  }
  auto sym = [&](const char *name) { return ::dlsym(lib, name); };
  auto cuInit = reinterpret_cast<CuInit>(sym("cuInit"));
  auto cuDriverGetVersion = reinterpret_cast<CuDriverGetVersion>(sym("cuDriverGetVersion"));
  auto cuDeviceGetCount = reinterpret_cast<CuDeviceGetCount>(sym("cuDeviceGetCount"));
  auto cuDeviceGet = reinterpret_cast<CuDeviceGet>(sym("cuDeviceGet"));
  auto cuDeviceGetName = reinterpret_cast<CuDeviceGetName>(sym("cuDeviceGetName"));
  auto cuDeviceGetAttribute = reinterpret_cast<CuDeviceGetAttribute>(sym("cuDeviceGetAttribute"));
  auto cuDeviceTotalMem = reinterpret_cast<CuDeviceTotalMem>(sym("cuDeviceTotalMem_v2"));
  auto cuGetErrorName = reinterpret_cast<CuGetErrorName>(sym("cuGetErrorName"));
  if (!cuInit || !cuDriverGetVersion || !cuDeviceGetCount || !cuDeviceGet || !cuDeviceGetName ||
      !cuDeviceGetAttribute || !cuDeviceTotalMem) {
    report.line(Status::Warn,
                "NVIDIA driver: libcuda.so.1 lacks driver API entry points; " + llvm::Twine(simulatorHint),
                "reinstall the NVIDIA driver");
    return;
  }
  auto errorName = [&](int rc) {
    const char *name = nullptr;
    if (cuGetErrorName && cuGetErrorName(rc, &name) == 0 && name)
      return std::string(name);
    return "error " + std::to_string(rc);
  };

  int version = 0;
  cuDriverGetVersion(&version);
  std::string versionText = std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
  if (int rc = cuInit(0); rc != 0) {
    // CUDA_ERROR_NO_DEVICE (100): a driver without GPUs, e.g. a container without devices.
    report.line(Status::Warn,
                "NVIDIA driver " + versionText + ": cuInit failed with " + errorName(rc) + "; " +
                    simulatorHint,
                rc == 100 ? "no GPU is visible: check nvidia-smi and, in a container, the GPU flags"
                          : "check nvidia-smi; the kernel module and libcuda.so.1 must be the same version");
    return;
  }
  if (version < kPtxIsaDriverVersion)
    report.line(Status::Warn,
                "NVIDIA driver " + versionText + " (CUDA " + versionText + "): too old to JIT PTX ISA " +
                    kPtxIsa + ", so kernels load only from a cubin for the GPU's exact architecture",
                "update the driver to CUDA 12.9 or newer, or build for each GPU's --arch=sm_XX");
  else
    report.line(Status::Ok, "NVIDIA driver " + versionText + " (libcuda.so.1, cuInit)");

  int count = 0;
  cuDeviceGetCount(&count);
  if (count == 0) {
    report.line(Status::Warn, "GPUs: none found; " + llvm::Twine(simulatorHint));
    return;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    int device = 0;
    char name[256] = {};
    int major = 0, minor = 0;
    size_t memory = 0;
    if (cuDeviceGet(&device, ordinal) != 0)
      continue;
    cuDeviceGetName(name, sizeof name, device);
    cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device);
    cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device);
    cuDeviceTotalMem(&memory, device);
    const unsigned arch = static_cast<unsigned>(major * 10 + minor);
    std::string what = "GPU " + std::to_string(ordinal) + ": " + name + ", sm_" + std::to_string(arch) +
                       ", " + std::to_string((memory + (1u << 29)) >> 30) + " GiB";
    if (arch < 70) {
      report.line(Status::Warn, what + ": Oxide needs sm_70 or newer",
                  "use another GPU (OXIDE_DEVICE=cuda:N)");
      continue;
    }
    // What the default build can run on this GPU, as the runtime chooses: a cubin of the same
    // major version not newer than the GPU (no JIT), else PTX not newer than it (driver JIT).
    bool cubin = false, ptx = false;
    std::string defaults;
    for (const oxide::GpuArch &a : defaultArchs) {
      cubin |= a.hasCubin() && a.number / 10 == arch / 10 && a.number <= arch;
      ptx |= a.hasPtx() && a.number <= arch;
      defaults += (defaults.empty() ? "" : ", ") + a.name();
    }
    if (cubin)
      report.line(Status::Ok, what);
    else if (ptx && version >= kPtxIsaDriverVersion)
      report.line(Status::Ok, what + " (the default build's PTX, compiled by the driver at start-up)");
    else
      report.line(Status::Warn, what + ": the default build (" + defaults + ") does not run on it",
                  "build with --arch=sm_" + std::to_string(arch) + " (several: --arch=sm_" +
                      std::to_string(arch) + ",sm_90)");
  }
}

} // namespace

/// The oldest clangd that reads Oxide's headers: clang 19 added the scoped atomic builtins and
/// their __MEMORY_SCOPE_* macros, which <oxide/oxide.hpp> uses (clangd 14, Debian 12's default,
/// reports an error there). An editor concern only: a warning, never a failure.
static constexpr unsigned kMinClangd = 19;

static void checkClangd(Report &report, const oxide::Toolchain &tc) {
  std::string clangd;
  if (auto found = llvm::sys::findProgramByName("clangd"))
    clangd = *found;
  const std::string llvmClangd = (llvm::sys::path::parent_path(tc.clangDriver) + "/clangd").str();
  const std::string fix = "install the clangd-22 package and point the editor at " + llvmClangd +
                          " (clangd " + std::to_string(kMinClangd) + " or newer reads Oxide's headers)";
  if (clangd.empty()) {
    if (fs::can_execute(llvmClangd))
      report.line(Status::Info, "clangd (editors): " + llvmClangd + " (not on PATH)");
    else
      report.line(Status::Info, "clangd (editors): not found", fix);
    return;
  }
  const std::string version = firstLine(capture(clangd, {"--version"}));
  llvm::StringRef rest = llvm::StringRef(version);
  unsigned major = 0;
  if (size_t at = rest.find("version "); at != llvm::StringRef::npos)
    (void)rest.substr(at + 8).consumeInteger(10, major);
  if (major >= kMinClangd)
    report.line(Status::Ok, "clangd (editors): " + clangd + " (" + version + ")");
  else
    report.line(Status::Warn,
                "clangd (editors): " + clangd + " (" + version + ") is older than clangd " +
                    std::to_string(kMinClangd) + " and reports errors in Oxide's headers",
                fix);
}

int oxcc::runDoctor(llvm::ArrayRef<const char *> args, const char *argv0) {
  for (llvm::StringRef arg : args) {
    if (arg == "-h" || arg == "--help") {
      llvm::outs()
          << "USAGE: oxcc doctor\n\nChecks what oxcc needs (clang/LLVM, the CUDA toolkit, libdevice, "
             "ptxas, Oxide's\nheaders and runtime) and what built programs use (the NVIDIA driver, "
             "the GPUs), with a\nfix for each problem. Exits 0 when oxcc can build programs.\n";
      return 0;
    }
    return usageError("unknown option '" + arg + "'", "doctor");
  }

  Report report;
  oxide::Toolchain tc = oxide::Toolchain::locate(argv0);
  llvm::outs() << "oxcc (Oxide) " << OXIDE_VERSION << " at " << tc.self << "\n";

  report.line(Status::Ok, "LLVM, Clang and MLIR " LLVM_VERSION_STRING " (linked into oxcc)");
  if (fs::is_directory(tc.clangResourceDir + "/include"))
    report.line(Status::Ok, "clang builtin headers: " + tc.clangResourceDir);
  else
    report.line(Status::Fail, "clang builtin headers: " + tc.clangResourceDir + "/include not found",
                "install the libclang-common-22-dev package");
  if (tc.clangDriver.empty())
    report.line(Status::Fail, "clang++ (links executables): not found", "install the clang-22 package");
  else
    report.line(Status::Ok, "clang++ (links executables): " + tc.clangDriver + " (" +
                                firstLine(capture(tc.clangDriver, {"--version"})) + ")");
  if (tc.lld.empty())
    report.line(Status::Warn, "lld (fast linking): not found; links use the system linker",
                "install the lld-22 package");
  else
    report.line(Status::Ok, "lld (fast linking): " + tc.lld);

  const bool haveToolkit = fs::is_directory(tc.cudaPath);
  std::string toolkitVersion = cudaToolkitVersion(tc.cudaPath);
  if (haveToolkit)
    report.line(Status::Ok, "CUDA toolkit: " + tc.cudaPath +
                                (toolkitVersion.empty() ? std::string() : " (" + toolkitVersion + ")"));
  else
    report.line(Status::Fail, "CUDA toolkit: " + tc.cudaPath + " does not exist",
                "install the CUDA toolkit 12 or newer, or set OXIDE_CUDA_PATH to its root");
  if (fs::exists(tc.libdevice))
    report.line(Status::Ok, "libdevice: " + tc.libdevice);
  else
    report.line(Status::Fail, "libdevice: " + tc.libdevice + " not found",
                "install the toolkit's NVVM component (cuda-nvvm), or set OXIDE_CUDA_PATH");
  if (tc.ptxas.empty())
    report.line(Status::Warn,
                "ptxas: not found in " + tc.cudaPath +
                    "/bin; executables carry PTX only, compiled by "
                    "the driver at start-up, and --emit=cubin fails",
                "install the toolkit's cuda-nvcc component, or set OXIDE_PTXAS");
  else
    report.line(Status::Ok,
                "ptxas: " + tc.ptxas + " (" + releaseLine(capture(tc.ptxas, {"--version"})) + ")");

  if (tc.fatbinary.empty())
    report.line(Status::Warn,
                "fatbinary: not found in " + tc.cudaPath +
                    "/bin; device code is not in a .nv_fatbin section, so cuobjdump, nvdisasm and cuda-gdb "
                    "do not see it (programs run the same)",
                "install the toolkit's cuda-nvcc component, or set OXIDE_FATBINARY");
  else
    report.line(Status::Ok, "fatbinary (cuobjdump, cuda-gdb see the device code): " + tc.fatbinary);

  if (fs::exists(tc.oxideIncludeDir + "/oxide/oxide.hpp"))
    report.line(Status::Ok, "Oxide headers: " + tc.oxideIncludeDir);
  else
    report.line(Status::Fail, "Oxide headers: " + tc.oxideIncludeDir + "/oxide/oxide.hpp not found",
                tc.installed ? "reinstall Oxide" : "the source tree moved: reconfigure the build");
  if (fs::exists(tc.runtimeLibrary))
    report.line(Status::Ok, "Oxide runtime: " + tc.runtimeLibrary);
  else
    report.line(Status::Fail, "Oxide runtime: " + tc.runtimeLibrary + " not found",
                tc.installed ? "reinstall Oxide" : "build the oxide_runtime target");

  checkClangd(report, tc);

  CacheConfig cache = CacheConfig::fromEnvironment(false);
  report.line(Status::Info, "object cache: " + (cache.enabled ? cache.dir : std::string("off")));

  oxide::CompileOptions defaults;
  checkDriver(report, defaults.targetArchs());
  report.line(Status::Ok, "CPU simulator: built into every program (OXIDE_DEVICE=cpu)");

  if (report.failures) {
    llvm::outs() << "\noxcc cannot build programs: fix the FAIL lines above\n";
    return kExitError;
  }
  llvm::outs() << "\noxcc can build programs" << (report.warnings ? " (see the warnings above)" : "") << "\n";
  return 0;
}
