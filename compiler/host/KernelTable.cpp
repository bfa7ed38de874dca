//===- KernelTable.cpp ----------------------------------------------------===//

#include "oxide/compiler/KernelTable.h"

#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GlobalVariable.h"

using namespace oxide;

std::vector<detail::KernelInfo> oxide::collectKernels(const llvm::Module &device) {
  const llvm::DataLayout &dl = device.getDataLayout();
  std::vector<detail::KernelInfo> kernels;
  for (const llvm::Function &f : device) {
    if (f.isDeclaration() || f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      continue;
    detail::KernelInfo info;
    info.name = f.getName().str();
    // The element sizes the safety verifier found the device code using (oxide-record-element-sizes).
    llvm::SmallVector<llvm::StringRef> elemSizes;
    if (f.hasFnAttribute("oxide.elem_sizes"))
      f.getFnAttribute("oxide.elem_sizes").getValueAsString().split(elemSizes, ',');
    for (const llvm::Argument &arg : f.args()) {
      // Aggregates (spans, structs) arrive byval: the parameter is the pointee, not the pointer.
      llvm::Type *type = arg.hasByValAttr() ? arg.getParamByValType() : arg.getType();
      llvm::Align align = arg.getParamAlign().value_or(dl.getABITypeAlign(type));
      std::uint32_t elemSize = 0;
      if (arg.getArgNo() < elemSizes.size())
        (void)elemSizes[arg.getArgNo()].getAsInteger(10, elemSize);
      info.params.push_back({static_cast<std::uint32_t>(dl.getTypeAllocSize(type)),
                             static_cast<std::uint32_t>(align.value()), elemSize});
    }
    // Carried from the frontend through MLIR as string function attributes (see MlirStage).
    if (f.hasFnAttribute("oxide.contract")) {
      info.contract = f.getFnAttribute("oxide.contract").getValueAsString().str();
      info.param_kinds = f.getFnAttribute("oxide.params").getValueAsString().str();
    }
    if (f.hasFnAttribute("oxide.launch_bounds")) {
      auto [maxThreads, minBlocks] = f.getFnAttribute("oxide.launch_bounds").getValueAsString().split(',');
      (void)maxThreads.getAsInteger(10, info.max_threads);
      (void)minBlocks.getAsInteger(10, info.min_blocks);
    }
    kernels.push_back(std::move(info));
  }
  return kernels;
}

bool oxide::isHostSetVariable(const llvm::GlobalVariable &g) {
  // They are the only user globals with external linkage in these address spaces (a kernel
  // that uses another host global is a clang error); the compiler's own are private, libdevice's
  // internal, vtables and template statics linkonce.
  constexpr unsigned kGlobalAddressSpace = 1, kConstantAddressSpace = 4;
  return !g.isDeclaration() && g.hasExternalLinkage() &&
         (g.getAddressSpace() == kConstantAddressSpace || g.getAddressSpace() == kGlobalAddressSpace);
}

std::vector<std::string> oxide::collectConstants(const llvm::Module &device) {
  std::vector<std::string> names;
  for (const llvm::GlobalVariable &g : device.globals())
    if (isHostSetVariable(g))
      names.push_back(g.getName().str());
  return names;
}
