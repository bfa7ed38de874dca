//===- DeviceBuild.h - the device half of a build ---------------*- C++ -*-===//
//
// Internal to compiler/driver: one architecture's device build, from the CUDA-device compile
// to the code objects (DeviceBuild.cpp), and all architectures of a translation unit, built in
// parallel and reported in order as one fat image (ArchBuilds.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_DRIVER_DEVICEBUILD_H
#define OXIDE_COMPILER_DRIVER_DEVICEBUILD_H

#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"
#include "oxide/detail/device_image.hpp"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

namespace oxide::driver {

/// The intermediate files of one translation unit (--save-temps, $OXCC_DUMP_DIR), named
/// DIR/<stem>.<stage>: e.g. vecadd.sm_90.ptx, vecadd.host.o.
class Temps {
public:
  explicit Temps(const TranslationUnit &tu);
  bool enabled() const { return !prefix.empty(); }
  llvm::Error write(llvm::StringRef stage, llvm::StringRef bytes) const;
  llvm::Error write(llvm::StringRef stage, const llvm::Module &module) const;

private:
  std::string prefix;
};

/// The device half for one architecture: everything from the CUDA-device compile to the code
/// objects of the device image. `stageOut` receives the --emit stage; `constants` (if given)
/// the oxide::constant variables that the device code reads. Diagnostics go to `diagOut`, the
/// -v command lines to `log`: the architectures of a build compile in parallel, each into its
/// own streams. A default architecture (no --arch) that the code cannot be built for fails with
/// an UnsupportedArchError. `frontEnd` (if given) makes the device module in place of
/// compileDevice: one front end serves several architectures (ArchBuilds.cpp).
using DeviceFrontEnd = std::function<llvm::Expected<std::unique_ptr<llvm::Module>>(
    llvm::LLVMContext &ctx, llvm::raw_ostream &diagOut, llvm::raw_ostream &log)>;
llvm::Expected<detail::DeviceImage> buildDeviceImage(const TranslationUnit &tu, const Toolchain &tc,
                                                     const GpuArch &arch, llvm::raw_ostream *stageOut,
                                                     std::vector<std::string> *constants,
                                                     llvm::raw_ostream &diagOut, llvm::raw_ostream &log,
                                                     const DeviceFrontEnd &frontEnd = nullptr,
                                                     llvm::raw_ostream *resourceOut = nullptr);

/// What ptxas printed on success: its `-v` report ("ptxas info" lines and their continuations)
/// and everything else, its warnings.
struct PtxasReport {
  std::string info, warnings;
};
PtxasReport splitPtxasOutput(llvm::StringRef output);

/// What ptxas -v's report says of one kernel (its mangled name, the architecture), in bytes
/// but for the registers.
struct KernelResources {
  std::string name, arch;
  unsigned registers = 0, shared = 0, stack = 0, spillStores = 0, spillLoads = 0;
};
/// The kernels of ptxas -v's report `info`, in its order.
std::vector<KernelResources> parseResourceUsage(llvm::StringRef info);
/// The report of `kernel` among `kernels`, or null.
const KernelResources *findKernel(llvm::ArrayRef<KernelResources> kernels, llvm::StringRef kernel);

/// --resource-usage: one line per kernel of ptxas -v's report `info` ("oxcc: resource usage:
/// FILE: sm_90: KERNEL: 16 registers, ..."), kernels demangled.
std::string summarizeResourceUsage(llvm::StringRef info, llvm::StringRef input);

/// The occupancy step (OccupancyStep.cpp): a kernel of a fixed block size (`.reqntid`) whose
/// registers leave it a few short of one more resident block per multiprocessor is assembled
/// again asking ptxas for that block (`.minnctapersm`), and kept so only if that spills nothing.
struct OccupancyStep {
  std::string kernel;           ///< mangled, as in the PTX
  unsigned blocks = 0;          ///< resident blocks per multiprocessor now...
  unsigned registers = 0;       ///< ...with this many registers a thread
  unsigned targetBlocks = 0;    ///< asked for...
  unsigned targetRegisters = 0; ///< ...which needs at most this many
};
/// The kernels of `ptx` (assembled for compute capability `arch`, reported on by `usage`) worth
/// the step: a fixed block size, no launch bounds of the user's (`.minnctapersm`, `.maxnreg`),
/// no clusters, registers the only limit on their occupancy (static shared memory, warps and
/// blocks allow one more), and at most a tenth fewer registers needed for it. None for an
/// architecture whose limits are not known here.
std::vector<OccupancyStep> findOccupancySteps(llvm::StringRef ptx, llvm::ArrayRef<KernelResources> usage,
                                              unsigned arch);
/// `ptx` with `.minnctapersm` of each step's target added to its kernel's directives.
std::string withOccupancySteps(llvm::StringRef ptx, llvm::ArrayRef<OccupancyStep> steps);
/// Resident blocks per multiprocessor of a kernel of `threads` threads a block that uses
/// `registers` registers a thread and `shared` bytes of static shared memory, on compute
/// capability `arch`; nullopt when its limits are not known here.
std::optional<unsigned> residentBlocks(unsigned arch, unsigned threads, unsigned registers, unsigned shared);

/// The architectures to build: --arch's, or the defaults; several entries for one architecture
/// merge (sm_90 and compute_90 are sm_90; 90-real and compute_90 too).
std::vector<GpuArch> effectiveArchs(const CompileOptions &opts);

/// One architecture's device build, and what it printed.
struct ArchBuild {
  GpuArch arch;
  std::optional<llvm::Expected<detail::DeviceImage>> image;
  std::vector<std::string> constants;
  std::string log, diagnostics;
  /// -Xptxas -v and --resource-usage: what ptxas reports of each kernel (printed without -v too,
  /// and replayed by a cache hit, unlike `log`).
  std::string resources;
};

/// The device builds of `archs`, in parallel (up to opts.threads, or one per architecture up to
/// the machine's cores), each printing into its own buffers. Nothing is printed yet.
std::vector<ArchBuild> buildArchs(const TranslationUnit &tu, const Toolchain &tc,
                                  llvm::ArrayRef<GpuArch> archs);

/// The device builds of a translation unit, started before its host compile so that the two
/// run at the same time (with --threads=1, one after the other); nothing is printed until the
/// host compile has printed its own diagnostics (plain C++ errors read better without the
/// device wrapper's include noise).
class EarlyDeviceBuilds {
public:
  /// Builds `archs`, by default effectiveArchs(tu.opts).
  EarlyDeviceBuilds(const TranslationUnit &tu, const Toolchain &tc);
  EarlyDeviceBuilds(const TranslationUnit &tu, const Toolchain &tc, std::vector<GpuArch> archs);
  EarlyDeviceBuilds(const EarlyDeviceBuilds &) = delete;
  EarlyDeviceBuilds &operator=(const EarlyDeviceBuilds &) = delete;
  /// Waits for builds that were not taken: a translation unit's compiles end together.
  ~EarlyDeviceBuilds();
  std::vector<ArchBuild> take() { return builds.get(); }

private:
  bool concurrent;
  std::future<std::vector<ArchBuild>> builds;
};

/// The one architecture `oxcc check` compiles: the first of --arch, else the newest default
/// (sm_90). The kernels' requirements are checked against every architecture of --arch.
GpuArch checkArch(const CompileOptions &opts);

/// The code of one architecture that was built.
struct BuiltArch {
  GpuArch arch;
  detail::DeviceImage image;
  std::vector<std::string> constants;
};

/// What several device builds printed, merged (MergedDiagnostics.cpp): each distinct
/// diagnostic (with its include stack, snippet and notes) once, in the order of the first build
/// that printed it; one that only some of the builds printed ends with the architectures that
/// did ("(when compiling for sm_80)"), unless it names them. clang's summary lines ("N errors
/// generated when compiling for sm_80.") come last, once each.
struct MergedDiagnostics {
  std::string text;
  std::vector<bool> printedError; ///< per build: whether it printed an error
};
MergedDiagnostics mergeDiagnostics(llvm::ArrayRef<const ArchBuild *> builds);

/// Prints the -v logs of `builds` in architecture order, then their merged diagnostics: each
/// diagnostic once, however many architectures report it. A default architecture the
/// translation unit cannot be built for is left out, with a note under -v; every other failure
/// is returned (a failure that printed no error is returned with its message).
llvm::Expected<std::vector<BuiltArch>> reportArchBuilds(const TranslationUnit &tu,
                                                        std::vector<ArchBuild> builds);

/// The device image of `builds` (one device compile per architecture): all code objects in one
/// image. The runtime picks the cubin that matches the device (or an older one of its major
/// version), else the newest PTX that is not newer than the device.
llvm::Expected<detail::DeviceImage> buildFatImage(const TranslationUnit &tu, const Toolchain &tc,
                                                  std::vector<ArchBuild> builds,
                                                  std::vector<std::string> &constants);

} // namespace oxide::driver

#endif
