//===- Reporter.cpp - the write proof's errors ----------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/IR/UserLocation.h"

using namespace mlir;
using namespace oxide::writeproof;

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
