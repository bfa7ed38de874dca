//===- HostEmbedding.cpp --------------------------------------------------===//

#include "oxide/compiler/HostEmbedding.h"
#include "oxide/compiler/Annotations.h"
#include "oxide/compiler/KernelAttributes.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace oxide;

std::vector<llvm::Function *> oxide::findHostKernels(llvm::Module &host) {
  std::vector<llvm::Function *> kernels;
  forEachFunctionAnnotation(host, [&](llvm::Function &fn, llvm::StringRef text) {
    if (text == kKernelAnnotation && llvm::find(kernels, &fn) == kernels.end())
      kernels.push_back(&fn);
  });
  return kernels;
}

llvm::Error oxide::embedDeviceImage(llvm::Module &host, const detail::DeviceImage &image) {
  std::vector<llvm::Function *> kernels = findHostKernels(host);
  if (kernels.empty())
    return llvm::Error::success();
  for (llvm::Function *fn : kernels)
    if (!image.find_kernel(fn->getName().str()))
      return llvm::createStringError("internal error: kernel '" + fn->getName().str() +
                                     "' has no device entry point in the device image");

  llvm::LLVMContext &ctx = host.getContext();
  llvm::Type *ptrTy = llvm::PointerType::getUnqual(ctx);
  llvm::Type *sizeTy = llvm::Type::getInt64Ty(ctx);

  std::string bytes = detail::encode_image(image);
  auto *imageData = llvm::ConstantDataArray::getRaw(bytes, bytes.size(), llvm::Type::getInt8Ty(ctx));
  auto *imageVar =
      new llvm::GlobalVariable(host, imageData->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::PrivateLinkage, imageData, "__oxide_device_image");
  imageVar->setAlignment(llvm::Align(16));

  std::vector<llvm::Constant *> addresses, names;
  for (llvm::Function *fn : kernels) {
    addresses.push_back(fn);
    llvm::Constant *name = llvm::ConstantDataArray::getString(ctx, fn->getName());
    auto *nameVar = new llvm::GlobalVariable(host, name->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                             name, "__oxide_kernel_name");
    names.push_back(nameVar);
  }
  auto *tableTy = llvm::ArrayType::get(ptrTy, kernels.size());
  auto *addressTable =
      new llvm::GlobalVariable(host, tableTy, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(tableTy, addresses), "__oxide_kernel_addresses");
  auto *nameTable =
      new llvm::GlobalVariable(host, tableTy, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(tableTy, names), "__oxide_kernel_names");

  auto *registerTy =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy, sizeTy, ptrTy, ptrTy, sizeTy}, false);
  llvm::FunctionCallee registerFn = host.getOrInsertFunction("__oxide_register_image", registerTy);
  auto *ctor = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                      llvm::GlobalValue::InternalLinkage, "__oxide_register_module", host);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", ctor));
  b.CreateCall(registerFn, {imageVar, llvm::ConstantInt::get(sizeTy, bytes.size()), addressTable, nameTable,
                            llvm::ConstantInt::get(sizeTy, kernels.size())});
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(host, ctor, /*Priority=*/65535);
  return llvm::Error::success();
}
