//===- ArchRequirements.cpp - what kernels need of the GPU ----------------===//

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;

SmallVector<LLVM::LLVMFuncOp> oxide::reachableFunctions(LLVM::LLVMFuncOp root, SymbolTable &symbols) {
  SmallVector<LLVM::LLVMFuncOp> order = {root};
  llvm::DenseSet<Operation *> seen = {root};
  for (size_t i = 0; i < order.size(); ++i)
    order[i].walk([&](LLVM::CallOp call) {
      auto callee = call.getCalleeAttr();
      if (!callee)
        return;
      auto fn = symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue());
      if (fn && !fn.isExternal() && seen.insert(fn).second)
        order.push_back(fn);
    });
  return order;
}

oxide::ArchNeed oxide::archNeed(Operation *op) {
  auto facts = dyn_cast<TargetRequirementOpInterface>(op);
  return facts ? facts.getArchNeed() : ArchNeed{};
}

bool oxide::needsClusterLaunch(Operation *op) {
  auto facts = dyn_cast<TargetRequirementOpInterface>(op);
  return op->hasTrait<OpTrait::NeedsCluster>() || (facts && facts.needsClusterLaunch());
}

SmallVector<oxide::ArchRequirement> oxide::collectArchRequirements(ModuleOp module) {
  SmallVector<ArchRequirement> result;
  SymbolTable symbols(module);
  for (auto kernel : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!kernel->hasAttr(OxideDialect::getKernelAttrName()))
      continue;
    ArchRequirement strongest{kernel, 0, false, "", kernel.getLoc()};
    auto consider = [&](unsigned minArch, std::string feature, Location where, bool archSpecific = false) {
      // An architecture-specific need names the one architecture that can run the kernel: it
      // stays the reason whatever else the kernel needs.
      if (strongest.archSpecific)
        return;
      if (archSpecific || minArch > strongest.minArch)
        strongest = {kernel, minArch, archSpecific, std::move(feature), where};
    };
    // What the code does comes first: it names the user's line.
    for (auto fn : reachableFunctions(kernel, symbols))
      fn.walk([&](Operation *op) {
        if (ArchNeed need = archNeed(op); need.minArch)
          consider(need.minArch, need.feature.str(), userLocation(op->getLoc()), need.archSpecific);
      });
    // What the launch contract asks for: the runtime launches in clusters what it says, and
    // min_compute_capability is the user's own statement.
    if (const detail::Contract *contract = getKernelContract(kernel)) {
      const detail::Contract &c = *contract;
      if (c.has_cluster())
        consider(90,
                 "is launched in thread-block clusters (its launch contract's 'cluster = (" +
                     std::to_string(c.cluster[0]) + ", " + std::to_string(c.cluster[1]) + ", " +
                     std::to_string(c.cluster[2]) + ")')",
                 kernel.getLoc());
      const unsigned minCc = c.min_cc_major * 10 + c.min_cc_minor;
      if (minCc)
        consider(minCc,
                 "requires compute capability " + std::to_string(c.min_cc_major) + "." +
                     std::to_string(c.min_cc_minor) + " (its launch contract's 'min_compute_capability')",
                 kernel.getLoc());
    }
    if (strongest.minArch)
      result.push_back(std::move(strongest));
  }
  return result;
}

std::string oxide::requiredTargetName(const ArchRequirement &requirement) {
  return "sm_" + std::to_string(requirement.minArch) + (requirement.archSpecific ? "a" : "");
}
