//===- Annotations.cpp ----------------------------------------------------===//

#include "oxide/compiler/Annotations.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"

using namespace oxide;

void oxide::forEachFunctionAnnotation(llvm::Module &module,
                                      llvm::function_ref<void(llvm::Function &, llvm::StringRef)> visit) {
  auto *annotations = module.getGlobalVariable("llvm.global.annotations");
  if (!annotations || !annotations->hasInitializer())
    return;
  auto *entries = llvm::dyn_cast<llvm::ConstantArray>(annotations->getInitializer());
  if (!entries)
    return;
  for (const llvm::Use &use : entries->operands()) {
    auto *entry = llvm::dyn_cast<llvm::ConstantStruct>(use.get());
    if (!entry || entry->getNumOperands() < 2)
      continue;
    auto *fn = llvm::dyn_cast<llvm::Function>(entry->getOperand(0)->stripPointerCasts());
    auto *str = llvm::dyn_cast<llvm::GlobalVariable>(entry->getOperand(1)->stripPointerCasts());
    if (!fn || !str || !str->hasInitializer())
      continue;
    auto *text = llvm::dyn_cast<llvm::ConstantDataSequential>(str->getInitializer());
    if (text && text->isCString())
      visit(*fn, text->getAsCString());
  }
}

void oxide::annotationsToFunctionAttributes(llvm::Module &module) {
  forEachFunctionAnnotation(module, [](llvm::Function &fn, llvm::StringRef text) {
    auto [key, value] = text.split(':');
    if (key.starts_with("oxide.") && !value.empty())
      fn.addFnAttr(key, value);
  });
  if (auto *annotations = module.getGlobalVariable("llvm.global.annotations"))
    annotations->eraseFromParent();
}
