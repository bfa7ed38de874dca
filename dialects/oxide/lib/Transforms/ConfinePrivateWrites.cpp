//===- ConfinePrivateWrites.cpp - writes kept in local or shared memory ---===//
//
// Makes the writes to local or shared memory at offsets the write proof could not bound
// through pointers of that address space, so that no offset can take them into global memory.
//
//===----------------------------------------------------------------------===//

#include "Oxide/Transforms/Passes.h"
#include "Oxide/Transforms/WriteProof.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDECONFINEPRIVATEWRITES
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

void oxide::confinePrivateWrites(const WriteProof &proof) {
  for (auto [op, operand, space] : proof.confinements()) {
    OpBuilder builder(op);
    Value address = op->getOperand(operand);
    auto type = LLVM::LLVMPointerType::get(op->getContext(), space);
    op->setOperand(operand, LLVM::AddrSpaceCastOp::create(builder, op->getLoc(), type, address));
    // An intrinsic kept by name spells its pointer types: llvm.memset.p0.i64 -> llvm.memset.p5.i64.
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      std::string name = call.getIntrin().str();
      if (size_t at = name.find(".p0"); at != std::string::npos)
        name.replace(at, 3, ".p" + std::to_string(space));
      call.setIntrin(name);
    }
  }
}

namespace {

struct OxideConfinePrivateWritesPass
    : oxide::impl::OxideConfinePrivateWritesBase<OxideConfinePrivateWritesPass> {
  void runOnOperation() override {
    const oxide::WriteProof &proof = getAnalysis<oxide::WriteProof>();
    if (proof.failed()) {
      signalPassFailure();
      return;
    }
    oxide::confinePrivateWrites(proof);
  }
};

} // namespace
