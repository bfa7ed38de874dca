//===- VerifySafety.cpp - witness provenance and contract domains ---------===//

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"
#include "Oxide/Transforms/Passes.h"
#include "Oxide/Transforms/VerifyWrites.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/Demangle/Demangle.h"

namespace oxide {
#define GEN_PASS_DEF_OXIDEVERIFYSAFETY
#include "Oxide/Transforms/Passes.h.inc"
} // namespace oxide

using namespace mlir;

namespace {

class ProvenanceChecker {
public:
  explicit ProvenanceChecker(ModuleOp module) {
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCalleeAttr())
        callers[callee.getAttr()].push_back(call);
    });
  }

  /// Whether `value` is, on every path, the calling thread's `oxide.thread_index rank dim`.
  /// A worklist, not a recursion: a chain of grid-stride steps or phis may be as long as the
  /// program, and the stack is not.
  bool isWitness(Value value, unsigned rank, oxide::Dim dim) {
    const unsigned key = rank * 4 + static_cast<unsigned>(dim);
    llvm::DenseSet<Value> seen;
    SmallVector<Value> work = {value};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (proven.contains({v, key}) || !seen.insert(v).second)
        continue; // a cycle adds no new source of values
      if (auto index = v.getDefiningOp<oxide::ThreadIndexOp>()) {
        if (index.getRank() != rank || index.getDim() != dim)
          return false;
        continue;
      }
      // A grid-stride step keeps a thread inside its own residue class of indices.
      if (auto next = v.getDefiningOp<oxide::GridStrideNextOp>()) {
        if (next.getRank() != rank || next.getDim() != dim)
          return false;
        work.push_back(next.getIndex());
        continue;
      }
      auto arg = dyn_cast<BlockArgument>(v);
      if (!arg)
        return false;
      Block *block = arg.getOwner();
      auto func = dyn_cast<LLVM::LLVMFuncOp>(block->getParentOp());
      if (!func)
        return false;
      if (block->isEntryBlock()) {
        // A function argument: every call must pass a witness. Kernels are called by the host.
        auto it = callers.find(func.getSymNameAttr());
        if (func->hasAttr(oxide::OxideDialect::getKernelAttrName()) || it == callers.end())
          return false;
        for (LLVM::CallOp call : it->second) {
          if (arg.getArgNumber() >= call.getArgOperands().size())
            return false;
          work.push_back(call.getArgOperands()[arg.getArgNumber()]);
        }
        continue;
      }
      // A block argument (phi): every incoming value must be a witness.
      for (Block *pred : block->getPredecessors()) {
        auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
        if (!branch)
          return false;
        for (unsigned s = 0; s < branch->getNumSuccessors(); ++s) {
          if (branch->getSuccessor(s) != block)
            continue;
          Value incoming = branch.getSuccessorOperands(s)[arg.getArgNumber()];
          if (!incoming)
            return false;
          work.push_back(incoming);
        }
      }
    }
    // Every value reached is a witness: later queries through them stop there.
    for (Value v : seen)
      proven.insert({v, key});
    return true;
  }

private:
  llvm::DenseMap<StringAttr, SmallVector<LLVM::CallOp>> callers;
  /// (value, rank * 4 + dim) already shown to be a witness.
  llvm::DenseSet<std::pair<Value, unsigned>> proven;
};

struct OxideVerifySafetyPass : oxide::impl::OxideVerifySafetyBase<OxideVerifySafetyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failed = false;

    ProvenanceChecker provenance(module);
    module.walk([&](oxide::DisjointGetOp get) {
      unsigned rank = get.getCoords().size();
      for (auto [d, coord] : llvm::enumerate(get.getCoords())) {
        if (provenance.isWitness(coord, rank, static_cast<oxide::Dim>(d)))
          continue;
        emitError(oxide::userLocation(get.getLoc()))
            << "this DisjointSpan element is indexed by a value that is not the calling thread's "
               "witness; pass the witness from oxide::thread::index_"
            << rank << "d() itself (a computed, stored or forged index would let two threads "
            << "write the same element) [safety rule: witness]";
        failed = true;
        break;
      }
    });

    SymbolTable symbols(module);
    SmallVector<LLVM::LLVMFuncOp> contracted;
    for (auto kernel : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!kernel->hasAttr(oxide::OxideDialect::getKernelAttrName()))
        continue;
      auto contract = oxide::getKernelContract(kernel);
      if (mlir::failed(contract)) {
        failed = true;
        continue;
      }
      const std::string kernelName = llvm::demangle(kernel.getSymName().str());
      const bool cooperative = *contract && (*contract)->contract.cooperative;
      const bool clustered = *contract && (*contract)->contract.has_cluster();
      for (auto fn : oxide::reachableFunctions(kernel, symbols))
        fn.walk([&](Operation *op) {
          // A grid barrier deadlocks unless every block is resident: only a cooperative
          // launch guarantees that, and the runtime launches cooperatively what the contract says.
          if (isa<oxide::GridSyncOp>(op) && !cooperative) {
            emitError(oxide::userLocation(op->getLoc()))
                << "kernel '" << kernelName << "' synchronises the whole grid, which needs a cooperative "
                << "launch; add 'cooperative = true' to its launch contract";
            failed = true;
          }
          if (isa<oxide::ClusterSyncOp, oxide::MapSharedOp>(op) && !clustered) {
            emitError(oxide::userLocation(op->getLoc()))
                << "kernel '" << kernelName << "' uses thread-block cluster operations but is not launched "
                << "in clusters; add 'cluster = (x, y, z)' to its launch contract";
            failed = true;
          }
        });
      if (!*contract)
        continue;
      contracted.push_back(kernel);
      unsigned domain = (*contract)->contract.domain;
      for (auto fn : oxide::reachableFunctions(kernel, symbols))
        fn.walk([&](oxide::ThreadIndexOp index) {
          if (index.getRank() == domain)
            return;
          emitError(oxide::userLocation(index.getLoc()))
              << "kernel '" << kernelName << "' has 'domain = " << domain
              << "' in its launch contract but uses a " << index.getRank()
              << "-D thread index; use oxide::thread::index_" << domain
              << "d() or change the contract's domain to " << index.getRank();
          failed = true;
        });
    }
    if (!failed && mlir::failed(oxide::verifyWrites(module, contracted)))
      failed = true;
    if (failed)
      signalPassFailure();
  }
};

} // namespace
