//===- UserLocation.h - blaming the user's line, not Oxide's headers -*- C++ -*-===//
#ifndef OXIDE_USERLOCATION_H
#define OXIDE_USERLOCATION_H

#include "mlir/IR/Location.h"

namespace oxide {

/// With inlining, an op's location is a chain of call sites from the innermost callee
/// outwards. The innermost frame outside Oxide's own device headers is the user's code that is
/// at fault (the `a[i]` rather than Span::operator[]); falls back to the innermost frame.
mlir::Location userLocation(mlir::Location loc);

} // namespace oxide

#endif
