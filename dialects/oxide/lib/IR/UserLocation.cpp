//===- UserLocation.cpp ---------------------------------------------------===//

#include "Oxide/IR/UserLocation.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

Location oxide::userLocation(Location loc) {
  SmallVector<FileLineColLoc> frames;
  loc->walk([&](Location l) {
    if (auto frame = dyn_cast<FileLineColLoc>(l))
      frames.push_back(frame);
    return WalkResult::advance();
  });
  // The innermost frame in the user's code: not in Oxide's device headers, and not in the C++
  // library or other system headers (std::fill's loop is the user's call of std::fill).
  auto isUsers = [](llvm::StringRef file) {
    return !file.contains("oxide/device/") && !file.starts_with("/usr/include/") &&
           !file.starts_with("/usr/lib/") && !file.starts_with("/usr/local/cuda");
  };
  for (FileLineColLoc frame : frames)
    if (isUsers(frame.getFilename().getValue()))
      return frame;
  return frames.empty() ? loc : Location(frames.front());
}
