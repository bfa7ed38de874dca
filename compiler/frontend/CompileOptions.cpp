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

std::vector<GpuArch> CompileOptions::targetArchs() const {
  if (!archs.empty())
    return archs;
  GpuArch single;
  if (auto number = parseArch(arch))
    single.number = *number;
  else
    llvm::consumeError(number.takeError()); // build() reports a bad `arch` itself
  return {single};
}

std::vector<std::string> CompileOptions::translationUnits() const {
  if (!inputs.empty() || input.empty())
    return inputs;
  return {input};
}

llvm::Expected<unsigned> oxide::parseArch(llvm::StringRef arch) {
  unsigned value = 0;
  llvm::StringRef digits = arch;
  if (digits.consume_front("sm_") && !digits.consumeInteger(10, value) && digits.empty() && isKnown(value))
    return value;
  return llvm::createStringError("unknown GPU architecture '" + arch.str() +
                                 "'; use --arch=sm_XX with XX one of " + kKnownList);
}

llvm::Expected<GpuArch> oxide::parseGpuArch(llvm::StringRef arch) {
  GpuArch result;
  llvm::StringRef digits = arch.trim();
  if (digits.consume_front("compute_"))
    result.ptxOnly = true;
  else
    digits.consume_front("sm_");
  unsigned value = 0;
  if (!digits.empty() && !digits.consumeInteger(10, value) && digits.empty() && isKnown(value)) {
    result.number = value;
    return result;
  }
  return llvm::createStringError("unknown GPU architecture '" + arch.str() +
                                 "'; use --arch=sm_XX (PTX and cubin) or compute_XX " +
                                 "(PTX only), XX one of " + kKnownList + ", several separated by commas");
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
