//===- UserLocation.cpp ---------------------------------------------------===//

#include "Oxide/UserLocation.h"

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
  for (FileLineColLoc frame : frames)
    if (!frame.getFilename().getValue().contains("oxide/device/"))
      return frame;
  return frames.empty() ? loc : Location(frames.front());
}
