//===- CompileOptions.cpp -------------------------------------------------===//

#include "oxide/compiler/CompileOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

using namespace oxide;

namespace {

// The NVPTX back end of LLVM 22 knows sm_50 and newer; Oxide needs sm_70+ (independent thread
// scheduling is what its warp and barrier rules assume).
constexpr unsigned kKnownArchs[] = {70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121};

constexpr const char *kKnownList = "70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121";

bool isKnown(unsigned value) { return llvm::is_contained(kKnownArchs, value); }

// Architecture-specific variants ("sm_90a") that clang and LLVM 22's NVPTX back end know.
constexpr unsigned kArchSpecific[] = {90, 100, 101, 103, 120, 121};

// --arch=all: what CUDA 13's ptxas and LLVM 22 (PTX ISA 8.8) both build, nvcc's -arch=all;
// --arch=all-major: the first architecture of each major version among them.
constexpr unsigned kAllArchs[] = {75, 80, 86, 87, 89, 90, 100, 103, 120, 121};
constexpr unsigned kAllMajorArchs[] = {75, 80, 90, 100, 120};

NativeArchQuery gNativeArchQuery = nullptr;

} // namespace

void oxide::setNativeArchQuery(NativeArchQuery query) { gNativeArchQuery = query; }

std::vector<GpuArch> oxide::defaultGpuArchs() {
  using Code = GpuArch::Code;
  return {{80, Code::CubinOnly},   {86, Code::CubinOnly},  {89, Code::CubinOnly},
          {90, Code::PtxAndCubin}, {100, Code::CubinOnly}, {120, Code::CubinOnly}};
}

unsigned oxide::ptxDefaultArch() { return 90; }

std::vector<GpuArch> CompileOptions::targetArchs() const { return archs.empty() ? defaultGpuArchs() : archs; }

llvm::Expected<GpuArch> oxide::parseGpuArch(llvm::StringRef arch) {
  GpuArch result;
  llvm::StringRef digits = arch.trim();
  if (digits.consume_front("compute_")) {
    result.code = GpuArch::Code::PtxOnly;
  } else if (!digits.consume_front("sm_")) {
    // CMake's CUDA_ARCHITECTURES spellings: 90, 90-real, 90-virtual.
    if (digits.consume_back("-real"))
      result.code = GpuArch::Code::CubinOnly;
    else if (digits.consume_back("-virtual"))
      result.code = GpuArch::Code::PtxOnly;
  }
  unsigned value = 0;
  if (!digits.empty() && !digits.consumeInteger(10, value) && isKnown(value)) {
    result.number = value;
    result.archSpecific = digits.consume_front("a");
    if (digits.empty() && (!result.archSpecific || llvm::is_contained(kArchSpecific, value)))
      return result;
  }
  return llvm::createStringError(
      "unknown GPU architecture '" + arch.str() +
      "'; use --arch=sm_XX (PTX and cubin), compute_XX (PTX only) or XX-real (cubin only), XX one of " +
      kKnownList +
      " (sm_XXa, the architecture-specific variant, for 90, 100, 101, 103, 120, 121), native or " +
      "all, several separated by commas");
}

llvm::Error oxide::parseGpuArchList(llvm::StringRef list, std::vector<GpuArch> &out) {
  if (list.trim().empty())
    return llvm::createStringError("'--arch' needs a value such as --arch=sm_90 or --arch=sm_80,sm_90");
  llvm::SmallVector<llvm::StringRef> parts;
  list.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  auto add = [&](const GpuArch &arch) {
    if (!llvm::is_contained(out, arch))
      out.push_back(arch);
  };
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part == "all" || part == "all-major") {
      llvm::ArrayRef<unsigned> numbers =
          part == "all" ? llvm::ArrayRef(kAllArchs) : llvm::ArrayRef(kAllMajorArchs);
      for (unsigned number : numbers)
        add({number, number == numbers.back() ? GpuArch::Code::PtxAndCubin : GpuArch::Code::CubinOnly});
      continue;
    }
    if (part == "native") {
      if (!gNativeArchQuery)
        return llvm::createStringError("--arch=native is not available here");
      auto native = gNativeArchQuery();
      if (!native)
        return llvm::createStringError("--arch=native: " + llvm::toString(native.takeError()) +
                                       "; name the architecture instead (e.g. --arch=sm_90)");
      if (!isKnown(*native))
        return llvm::createStringError("--arch=native: this machine's GPU is sm_" + std::to_string(*native) +
                                       ", which oxcc cannot build for; its architectures are " + kKnownList);
      add({*native, GpuArch::Code::PtxAndCubin});
      continue;
    }
    auto arch = parseGpuArch(part);
    if (!arch)
      return arch.takeError();
    add(*arch);
  }
  return llvm::Error::success();
}
