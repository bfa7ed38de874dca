//===- CompileOptions.h - what the user asked oxcc for ----------*- C++ -*-===//
#ifndef OXIDE_COMPILER_COMPILEOPTIONS_H
#define OXIDE_COMPILER_COMPILEOPTIONS_H

#include "Oxide/IR/SourcePaths.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace oxide {

/// What a build produces: an executable, an intermediate device stage (`--emit=`), or only
/// diagnostics (`oxcc check`: both frontends and the oxide dialect's checks, no code).
enum class EmitStage { Executable, LLVM, MLIR, PTX, Cubin, Check };

/// One entry of `--arch`: code for one GPU architecture. `sm_XX` embeds PTX and a cubin for it;
/// `compute_XX` embeds PTX only (the driver compiles it for the device at load time, so it also
/// runs on newer GPUs); `XX-real` (CMake's spelling) a cubin only.
struct GpuArch {
  enum class Code { PtxAndCubin, PtxOnly, CubinOnly };
  unsigned number = 90; ///< compute capability * 10 + minor, e.g. 90
  Code code = Code::PtxAndCubin;
  /// "sm_90a": the architecture's specific features too (wgmma, setmaxnreg, tcgen05); the code
  /// runs on exactly that compute capability.
  bool archSpecific = false;
  bool hasPtx() const { return code != Code::CubinOnly; }
  bool hasCubin() const { return code != Code::PtxOnly; }
  /// "sm_90" (or "sm_90a"): the architecture clang and the NVPTX back end compile for.
  std::string smName() const { return "sm_" + digits(); }
  /// How the user writes it: "sm_90", "compute_90" or "90-real".
  std::string name() const {
    switch (code) {
    case Code::PtxOnly:
      return "compute_" + digits();
    case Code::CubinOnly:
      return digits() + "-real";
    case Code::PtxAndCubin:
      break;
    }
    return smName();
  }
  /// "90" or "90a".
  std::string digits() const { return std::to_string(number) + (archSpecific ? "a" : ""); }
  friend bool operator==(const GpuArch &, const GpuArch &) = default;
};

/// The architectures built when the user names none (nvcc-style fat image): cubins for A100
/// (sm_80), the sm_86 and sm_89 GPUs (RTX 30xx/A40, RTX 40xx/L40/L4) and H100/H200 (sm_90), and
/// sm_90 PTX that the driver compiles for anything newer. A device of the same major version
/// runs the newest cubin not newer than itself (sm_87 runs sm_86's), so the listed GPUs start
/// without a JIT. A translation unit whose kernels need a newer GPU than some of these leaves
/// those out (see CompileOptions::archsChosen).
std::vector<GpuArch> defaultGpuArchs();

/// The default architecture that carries PTX (sm_90): what `oxcc check` and `--emit` compile for
/// without --arch, and the one default architecture never left out.
unsigned ptxDefaultArch();

struct CompileOptions {
  std::string output;                   ///< executable (or stage dump) path; "-" for stdout
  std::vector<std::string> includeDirs; ///< -I
  std::vector<std::string> defines;     ///< -D (NAME or NAME=VALUE)
  /// -fmacro-prefix-map (and -ffile-prefix-map): the source paths the program itself holds,
  /// __FILE__ and the file of a device assert's or a bounds failure's report, are rewritten
  /// so (PathPrefix.h): no directory of the build machine need reach the executable.
  std::vector<PathPrefix> macroPrefixMap;
  /// -fdebug-prefix-map (and -ffile-prefix-map): the paths of the debug information (-g, -G,
  /// --lineinfo). Diagnostics keep the paths as the command line gives them.
  std::vector<PathPrefix> debugPrefixMap;
  /// Warning flags as the user wrote them (-Wall, -Wno-X, -Werror=X, -w, -pedantic...), for the
  /// host compile; the device compile takes them less those that make warnings errors, since it
  /// prints only the warnings of code the host compile does not see.
  std::vector<std::string> warnings;
  unsigned optLevel = 3; ///< -O0..-O3, for both host and device code
  /// Every architecture the device image carries (--arch, repeatable or a comma list), in the
  /// order given. Empty means defaultGpuArchs().
  std::vector<GpuArch> archs;
  std::string cxxStandard = "c++20";
  /// --threads: how many architectures' device compiles run at once; 0 means one per
  /// architecture, up to the machine's cores.
  unsigned threads = 0;
  EmitStage emit = EmitStage::Executable;
  /// --unsafe-report (`oxcc check`): print each file's uses of the unsafe tier to stdout.
  bool unsafeReport = false;
  /// --emit=mlir-after=PASS: the pass of the MLIR stage after which --emit=mlir prints the
  /// module (one of mlirPassNames()); empty means oxide-verify-safety.
  std::string mlirPrintPass;
  bool verbose = false;
  /// --shared (`oxcc build`): link a shared library (its kernels exported through the C ABI of
  /// oxide/c_api.h) instead of an executable.
  bool shared = false;
  /// nvcc's --use_fast_math: approximate sqrt/division, flush denormals to zero.
  bool fastMath = false;
  /// Contract a * b + c into FMA (nvcc's default, --fmad=true); --no-fmad turns it off.
  bool fmad = true;
  /// -g: full debug information for host code (device code always carries line tables).
  bool debug = false;
  /// -G: debuggable device code: full device debug information (variables too) through the
  /// MLIR stage into the PTX and the cubin, the NVPTX back end and ptxas at -O0 (oxcc also sets
  /// `debug` for the host code). The device frontend still optimises (the safety checks need
  /// SSA values).
  bool deviceDebug = false;
  /// --lineinfo: keep source line information in the cubin (ptxas -lineinfo), for profilers
  /// and compute-sanitizer reports.
  bool lineInfo = false;
  /// -Xptxas: options given to ptxas as they are, after oxcc's own (nvcc's -Xptxas, split at
  /// commas). `-v` among them prints ptxas's report of each kernel (registers, shared memory,
  /// stack, spills) for each architecture.
  std::vector<std::string> ptxasOptions;
  /// --resource-usage: one line per kernel and architecture with what ptxas -v reports.
  bool resourceUsage = false;
  /// A kernel of a fixed block size a few registers past one more resident block per
  /// multiprocessor is assembled again for it (compiler/driver/OccupancyStep.cpp);
  /// --no-occupancy-step turns it off.
  bool occupancyStep = true;
  /// -fsanitize=...: for the host compile and the link (e.g. address, undefined), which is how
  /// kernels are debugged on the CPU simulator.
  std::vector<std::string> sanitizers;
  /// When set, every intermediate file of each translation unit is written to this directory
  /// (--save-temps, $OXCC_DUMP_DIR): device LLVM IR, MLIR, PTX, cubins, host IR and object.
  std::string tempsDir;
  /// Where the precompiled headers of Oxide's headers are kept (see
  /// compiler/frontend/PrecompiledHeader.h); empty: every compile parses them.
  std::string pchDirectory;

  /// The translation units of a build (oxcc build a.cpp b.cpp), absolute paths; none for a
  /// link of objects only. Each is compiled on its own, host and device, into an object with
  /// its own device image (see TranslationUnit).
  std::vector<std::string> inputs;
  /// Extra link inputs, in order: object files, archives, -lNAME, -LDIR, -Wl,... flags.
  std::vector<std::string> linkInputs;

  /// The device architectures to build: `archs`, or defaultGpuArchs() when it is empty.
  std::vector<GpuArch> targetArchs() const;
  /// Whether the user chose the architectures (--arch). Then a kernel that cannot run on one of
  /// them is an error; the default architectures instead leave out those a translation unit's
  /// kernels cannot run on (and say so under -v).
  bool archsChosen() const { return !archs.empty(); }
};

/// One file of a build, with the options of the whole build: what its compiles, host and
/// device, and the object cache take. Each architecture's device compile takes its GpuArch.
struct TranslationUnit {
  const CompileOptions &opts;
  std::string input; ///< absolute path
};

/// Parses one --arch entry: "sm_90", "compute_90", or as CMake's CUDA_ARCHITECTURES writes it,
/// "90" (= sm_90), "90-real" (cubin only) and "90-virtual" (= compute_90); with an "a" after
/// the number (sm_90a, 100a-real), the architecture-specific variant.
llvm::Expected<GpuArch> parseGpuArch(llvm::StringRef arch);

/// The compute capability (* 10 + minor) of the GPU this machine has, for --arch=native: what
/// the runtime does to find it (libcuda.so.1, cuInit, GPU 0). Set by the driver, which can ask;
/// without it, native is an error.
using NativeArchQuery = llvm::Expected<unsigned> (*)();
void setNativeArchQuery(NativeArchQuery query);

/// Parses a comma-separated --arch value into `out`, skipping duplicates. Besides the entries of
/// parseGpuArch: `native` (the local GPU's architecture), `all` (a cubin for every architecture
/// ptxas and LLVM both know, PTX for the newest, as nvcc's -arch=all), `all-major` (the same for
/// each major version's first architecture).
llvm::Error parseGpuArchList(llvm::StringRef list, std::vector<GpuArch> &out);

} // namespace oxide

#endif
