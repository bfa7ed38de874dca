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

} // namespace

std::vector<GpuArch> oxide::defaultGpuArchs() {
  using Code = GpuArch::Code;
  return {{80, Code::CubinOnly}, {86, Code::CubinOnly}, {89, Code::CubinOnly}, {90, Code::PtxAndCubin}};
}

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
  if (!digits.empty() && !digits.consumeInteger(10, value) && digits.empty() && isKnown(value)) {
    result.number = value;
    return result;
  }
  return llvm::createStringError("unknown GPU architecture '" + arch.str() +
                                 "'; use --arch=sm_XX (PTX and cubin), compute_XX (PTX only) or XX-real " +
                                 "(cubin only), XX one of " + kKnownList + ", several separated by commas");
}

llvm::Error oxide::parseGpuArchList(llvm::StringRef list, std::vector<GpuArch> &out) {
  if (list.trim().empty())
    return llvm::createStringError("'--arch' needs a value such as --arch=sm_90 or --arch=sm_80,sm_90");
  llvm::SmallVector<llvm::StringRef> parts;
  list.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    auto arch = parseGpuArch(part);
    if (!arch)
      return arch.takeError();
    if (!llvm::is_contained(out, *arch))
      out.push_back(*arch);
  }
  return llvm::Error::success();
}
