//===- TestPrintPointerRoots.cpp - the write proof's facts, printed --------===//
//
// `oxide-test-print-pointer-roots`: a remark at each op of the code the write proof covers whose
// result holds a pointer, with the places it may point into (PointerRoots) and its constant
// offset from each (PointerOffsets), so that the analyses can be tested alone on hand-written
// MLIR (tests/lit/dialect/pointer-roots.mlir), as upstream tests its analyses with -test-* passes.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/Transforms/Passes.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDETESTPRINTPOINTERROOTS
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;
using namespace oxide::writeproof;

namespace {

llvm::StringRef kindName(RootKind kind) {
  switch (kind) {
  case RootKind::Private:
    return "private";
  case RootKind::Shared:
    return "shared";
  case RootKind::Heap:
    return "heap";
  case RootKind::Element:
    return "element";
  case RootKind::Param:
    return "param";
  case RootKind::Global:
    return "global";
  case RootKind::Constant:
    return "constant";
  case RootKind::Null:
    return "null";
  case RootKind::Unknown:
    return "unknown";
  }
  llvm_unreachable("a root kind without a name");
}

/// Where root `root` comes from, in words: "argument 0", "@g", "oxide.disjoint_get".
std::string sourceName(const Root &root) {
  if (!root.source)
    return "";
  if (auto arg = dyn_cast<BlockArgument>(root.source))
    return "argument " + std::to_string(arg.getArgNumber());
  if (auto address = root.source.getDefiningOp<LLVM::AddressOfOp>())
    return "@" + address.getGlobalName().str();
  return root.source.getDefiningOp()->getName().getStringRef().str();
}

struct OxideTestPrintPointerRootsPass
    : oxide::impl::OxideTestPrintPointerRootsBase<OxideTestPrintPointerRootsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVMFuncOp> contracted = contractedKernels(module);
    if (contracted.empty())
      return;
    ProofState state(module, contracted);
    for (LLVMFuncOp fn : state.code.checked)
      fn.walk([&](Operation *op) {
        for (OpResult result : op->getResults()) {
          const RootSet &roots = state.roots.rootsOf(result);
          if (roots.empty())
            continue;
          InFlightDiagnostic remark = op->emitRemark() << "roots:";
          for (const Root &root : roots) {
            remark << " " << kindName(root.kind);
            if (std::string source = sourceName(root); !source.empty())
              remark << " (" << source << ")";
            if (!root.source)
              continue;
            Offset offset = state.offsets.offsetFrom(result, root.source);
            if (offset.state == Offset::Known)
              remark << " +" << offset.bytes;
          }
        }
      });
  }
};

} // namespace
