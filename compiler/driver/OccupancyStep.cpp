//===- OccupancyStep.cpp - one more resident block for a few registers ---===//
//
// How many blocks of a kernel a multiprocessor holds at once moves in steps of its register
// count: 256 threads of 128 registers fit twice in 64K registers, of 129..136 once. A kernel
// whose registers land a few past a step runs at half (or two thirds...) the occupancy for
// registers it can often do without; ptxas, given no launch bounds, does not look. So a kernel
// with an exact block size (`.reqntid`: the launch contract fixes it) that registers alone keep
// from one more resident block, and that needs at most a tenth fewer registers for it, is
// assembled again with `.minnctapersm` of that many blocks (nvcc's __launch_bounds__ minimum,
// which ptxas turns into a register limit); DeviceBuild.cpp keeps the result only where it
// spills nothing more. The occupancy arithmetic is CUDA's own calculator (cuda_occupancy.h).
//
//===----------------------------------------------------------------------===//

#include "DeviceBuild.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cuda_occupancy.h>

using namespace oxide;
using namespace oxide::driver;

namespace {

/// At most this share of a kernel's registers is given up for one more resident block: past
/// it, the instructions and spills the tighter limit costs tend to outweigh the occupancy.
constexpr unsigned kMaxRegisterCutPercent = 10;

/// The fixed limits of a multiprocessor of compute capability `arch` (the CUDA programming
/// guide's table), as cuda_occupancy.h takes them; nullopt for one not in it.
std::optional<cudaOccDeviceProp> multiprocessor(unsigned arch) {
  struct Limits {
    unsigned arch, threads, sharedPerSM, sharedPerBlockOptin;
  };
  static constexpr Limits kLimits[] = {
      {80, 2048, 167936, 166912},  {86, 1536, 102400, 101376},  {87, 1536, 167936, 166912},
      {89, 1536, 102400, 101376},  {90, 2048, 233472, 232448},  {100, 2048, 233472, 232448},
      {103, 2048, 233472, 232448}, {120, 1536, 102400, 101376}, {121, 1536, 102400, 101376},
  };
  const auto *limits = llvm::find_if(kLimits, [&](const Limits &l) { return l.arch == arch; });
  if (limits == std::end(kLimits))
    return std::nullopt;
  cudaOccDeviceProp sm;
  sm.computeMajor = static_cast<int>(arch / 10);
  sm.computeMinor = static_cast<int>(arch % 10);
  sm.maxThreadsPerBlock = 1024;
  sm.maxThreadsPerMultiprocessor = static_cast<int>(limits->threads);
  sm.regsPerBlock = 65536;
  sm.regsPerMultiprocessor = 65536;
  sm.warpSize = 32;
  sm.sharedMemPerBlock = 49152;
  sm.sharedMemPerMultiprocessor = limits->sharedPerSM;
  sm.numSms = 1;
  sm.sharedMemPerBlockOptin = limits->sharedPerBlockOptin;
  sm.reservedSharedMemPerBlock = 1024;
  return sm;
}

/// The directives of each kernel of a PTX module: the lines between the closing parenthesis of
/// its parameters and its body's opening brace (`.reqntid 16, 16, 1`, `.minnctapersm 2`...),
/// with where the first one starts, for an insertion.
struct EntryDirectives {
  llvm::StringRef kernel;
  llvm::SmallVector<llvm::StringRef, 4> lines;
  size_t insertAt = 0; ///< offset in the PTX of the line after the parameters
};

std::vector<EntryDirectives> entryDirectives(llvm::StringRef ptx) {
  std::vector<EntryDirectives> entries;
  enum { Outside, Parameters, Directives } where = Outside;
  size_t offset = 0;
  while (offset < ptx.size()) {
    const size_t end = std::min(ptx.find('\n', offset), ptx.size());
    const llvm::StringRef line = ptx.slice(offset, end).trim();
    const size_t next = end + 1;
    if (where == Outside && line.contains(".entry ")) {
      EntryDirectives entry;
      entry.kernel = line.split(".entry ").second.split('(').first.trim();
      entries.push_back(entry);
      where = line.contains(')') ? Directives : Parameters;
      entries.back().insertAt = next;
    } else if (where == Parameters && line.starts_with(")")) {
      where = Directives;
      entries.back().insertAt = next;
    } else if (where == Directives) {
      if (line.starts_with("{"))
        where = Outside;
      else if (!line.empty())
        entries.back().lines.push_back(line);
    }
    offset = next;
  }
  return entries;
}

/// The threads of a block that `.reqntid X, Y, Z` fixes, or nullopt.
std::optional<unsigned> requiredThreads(llvm::ArrayRef<llvm::StringRef> directives) {
  for (llvm::StringRef d : directives) {
    if (!d.consume_front(".reqntid"))
      continue;
    unsigned threads = 1;
    llvm::SmallVector<llvm::StringRef, 3> dims;
    d.split(dims, ',');
    for (llvm::StringRef dim : dims) {
      unsigned n = 0;
      if (dim.trim().getAsInteger(10, n) || n == 0)
        return std::nullopt;
      threads *= n;
    }
    return threads;
  }
  return std::nullopt;
}

} // namespace

std::optional<unsigned> driver::residentBlocks(unsigned arch, unsigned threads, unsigned registers,
                                               unsigned shared) {
  const std::optional<cudaOccDeviceProp> sm = multiprocessor(arch);
  if (!sm || threads == 0 || threads > 1024)
    return std::nullopt;
  cudaOccFuncAttributes kernel;
  kernel.maxThreadsPerBlock = static_cast<int>(threads);
  kernel.numRegs = static_cast<int>(registers);
  kernel.sharedSizeBytes = shared;
  kernel.numBlockBarriers = 1;
  cudaOccDeviceState state;
  cudaOccResult result;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &*sm, &kernel, &state, static_cast<int>(threads), 0) !=
      CUDA_OCC_SUCCESS)
    return std::nullopt;
  return static_cast<unsigned>(result.activeBlocksPerMultiprocessor);
}

std::vector<OccupancyStep> driver::findOccupancySteps(llvm::StringRef ptx,
                                                      llvm::ArrayRef<KernelResources> usage, unsigned arch) {
  std::vector<OccupancyStep> steps;
  for (const EntryDirectives &entry : entryDirectives(ptx)) {
    // The user's launch bounds, and clusters (whose blocks are placed together), are left alone.
    if (llvm::any_of(entry.lines, [](llvm::StringRef d) {
          return d.starts_with(".minnctapersm") || d.starts_with(".maxnreg") ||
                 d.starts_with(".reqnctapercluster") || d.starts_with(".explicitcluster") ||
                 d.starts_with(".maxclusterrank");
        }))
      continue;
    const std::optional<unsigned> threads = requiredThreads(entry.lines);
    const KernelResources *resources = findKernel(usage, entry.kernel);
    if (!threads || !resources)
      continue;
    const unsigned registers = resources->registers;
    const std::optional<unsigned> blocks = residentBlocks(arch, *threads, registers, resources->shared);
    if (!blocks || *blocks == 0)
      continue;
    // The fewest registers that cut, in the allocation's unit of 8: the most that still allow
    // one more block, if any within the cut allowed (without registers' limit, found by asking
    // for none: shared memory, warps or blocks may allow no more).
    const unsigned floor = registers - registers * kMaxRegisterCutPercent / 100;
    for (unsigned target = registers / 8 * 8; target >= floor && target >= 8; target -= 8) {
      if (target == registers)
        continue;
      const std::optional<unsigned> more = residentBlocks(arch, *threads, target, resources->shared);
      if (more && *more > *blocks) {
        steps.push_back({entry.kernel.str(), *blocks, registers, *blocks + 1, target});
        break;
      }
    }
  }
  return steps;
}

std::string driver::withOccupancySteps(llvm::StringRef ptx, llvm::ArrayRef<OccupancyStep> steps) {
  std::string out;
  size_t copied = 0;
  for (const EntryDirectives &entry : entryDirectives(ptx)) {
    const auto *step = llvm::find_if(steps, [&](const OccupancyStep &s) { return s.kernel == entry.kernel; });
    if (step == steps.end())
      continue;
    out += ptx.slice(copied, entry.insertAt);
    out += ".minnctapersm " + std::to_string(step->targetBlocks) + "\n";
    copied = entry.insertAt;
  }
  out += ptx.substr(copied);
  return out;
}
