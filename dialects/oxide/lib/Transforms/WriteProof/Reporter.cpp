//===- Reporter.cpp - the write proof's errors ----------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/IR/UserLocation.h"

using namespace mlir;
using namespace oxide::writeproof;

llvm::StringRef oxide::writeproof::ruleName(SafetyRule rule) {
  switch (rule) {
  case SafetyRule::StoreTarget:
    return "store-target";
  case SafetyRule::InputWrite:
    return "input-write";
  case SafetyRule::OwnElement:
    return "own-element";
  case SafetyRule::ElementBounds:
    return "element-bounds";
  case SafetyRule::AtomicOnly:
    return "atomic-only";
  case SafetyRule::PointerEscape:
    return "pointer-escape";
  case SafetyRule::OpaqueCode:
    return "opaque-code";
  case SafetyRule::SpanOrigin:
    return "span-origin";
  case SafetyRule::GlobalRead:
    return "global-read";
  case SafetyRule::DeviceHeap:
    return "device-heap";
  case SafetyRule::PrintfFormat:
    return "printf-format";
  case SafetyRule::UncheckedOp:
    return "unchecked-op";
  }
  llvm_unreachable("a safety rule without a name");
}

void Reporter::report(Operation *op, SafetyRule rule, Message message) {
  report(oxide::userLocation(op->getLoc()), rule, message);
}

void Reporter::report(Location loc, SafetyRule rule, Message message) {
  anyFailed = true;
  if (!reported.insert({loc, static_cast<unsigned>(rule)}).second)
    return;
  InFlightDiagnostic diag = emitError(loc);
  message(diag);
  diag << " [safety rule: " << ruleName(rule) << "]";
}
