//===- CompileOptions.cpp -------------------------------------------------===//

#include "oxide/compiler/CompileOptions.h"

#include "llvm/ADT/StringRef.h"

using namespace oxide;

llvm::Expected<unsigned> oxide::parseArch(llvm::StringRef arch) {
  // The NVPTX back end of LLVM 22 knows sm_50 and newer; Oxide needs sm_70+ (independent thread
  // scheduling is what its warp and barrier rules assume).
  static constexpr unsigned known[] = {70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121};
  unsigned value = 0;
  llvm::StringRef digits = arch;
  if (digits.consume_front("sm_") && !digits.consumeInteger(10, value) && digits.empty())
    for (unsigned k : known)
      if (k == value)
        return value;
  return llvm::createStringError("unknown GPU architecture '" + arch.str() +
                                 "'; use --arch=sm_XX with XX one of 70, 72, 75, 80, 86, 87, 89, 90, 100, "
                                 "101, 103, 120, 121");
}
