//===- TestOps.cpp - operations that only oxide-opt knows, for tests -------===//
//
// `oxide.test_unchecked_write`: an operation of the oxide dialect that writes through its
// pointer operand (it declares a write effect) and does not state its accesses through
// OxideMemoryAccessOpInterface, as a new writing op that nobody taught the write proof would.
// tests/lit/dialect/verify-writes-undeclared-op.mlir shows oxide-verify-safety refusing it. Only
// oxide-opt registers it (into the oxide dialect, when the dialect loads); oxcc never sees it.
//
//===----------------------------------------------------------------------===//

#include "TestOps.h"

#include "Oxide/IR/OxideDialect.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace {

class TestUncheckedWriteOp
    : public mlir::Op<TestUncheckedWriteOp, mlir::OpTrait::ZeroRegions, mlir::OpTrait::ZeroResults,
                      mlir::OpTrait::ZeroSuccessors, mlir::OpTrait::OneOperand,
                      mlir::MemoryEffectOpInterface::Trait> {
public:
  using Op::Op;
  static llvm::StringRef getOperationName() { return "oxide.test_unchecked_write"; }
  static llvm::ArrayRef<llvm::StringRef> getAttributeNames() { return {}; }
  void
  getEffects(llvm::SmallVectorImpl<mlir::SideEffects::EffectInstance<mlir::MemoryEffects::Effect>> &effects) {
    effects.emplace_back(mlir::MemoryEffects::Write::get(), &getOperation()->getOpOperand(0),
                         mlir::SideEffects::DefaultResource::get());
  }
};

} // namespace

void oxide::registerTestOps(mlir::DialectRegistry &registry) {
  registry.addExtension(+[](mlir::MLIRContext *, oxide::OxideDialect *dialect) {
    mlir::RegisteredOperationName::insert<TestUncheckedWriteOp>(*dialect);
  });
}
