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
    if (text == kKernelAnnotation && !fn.isDeclaration() && !llvm::is_contained(kernels, &fn))
      kernels.push_back(&fn);
  });
  return kernels;
}

namespace {

/// A private constant array of pointers named `name`.
llvm::GlobalVariable *pointerTable(llvm::Module &host, llvm::ArrayRef<llvm::Constant *> entries,
                                   llvm::StringRef name) {
  auto *type = llvm::ArrayType::get(llvm::PointerType::getUnqual(host.getContext()), entries.size());
  return new llvm::GlobalVariable(host, type, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(type, entries), name);
}

/// A private C string.
llvm::Constant *cString(llvm::Module &host, llvm::StringRef text, llvm::StringRef name) {
  llvm::Constant *data = llvm::ConstantDataArray::getString(host.getContext(), text);
  return new llvm::GlobalVariable(host, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, name);
}

} // namespace

llvm::Error oxide::embedDeviceImage(llvm::Module &host, const detail::DeviceImage &image,
                                    const std::vector<std::string> &constants) {
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
    names.push_back(cString(host, fn->getName(), "__oxide_kernel_name"));
  }
  // The host copy of each constant the device code reads: the same C++ variable, so the same name.
  std::vector<llvm::Constant *> constantAddresses, constantNames;
  for (const std::string &name : constants)
    if (llvm::GlobalVariable *var = host.getNamedGlobal(name); var && !var->isDeclaration()) {
      constantAddresses.push_back(var);
      constantNames.push_back(cString(host, name, "__oxide_constant_name"));
    }

  auto *ctor = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                      llvm::GlobalValue::InternalLinkage, "__oxide_register_module", host);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", ctor));
  llvm::SmallVector<llvm::Value *, 8> args = {imageVar, llvm::ConstantInt::get(sizeTy, bytes.size()),
                                              pointerTable(host, addresses, "__oxide_kernel_addresses"),
                                              pointerTable(host, names, "__oxide_kernel_names"),
                                              llvm::ConstantInt::get(sizeTy, kernels.size())};
  llvm::SmallVector<llvm::Type *, 8> params = {ptrTy, sizeTy, ptrTy, ptrTy, sizeTy};
  llvm::StringRef registerName = "__oxide_register_image";
  if (!constantAddresses.empty()) {
    registerName = "__oxide_register_image_with_constants";
    args.append({pointerTable(host, constantAddresses, "__oxide_constant_addresses"),
                 pointerTable(host, constantNames, "__oxide_constant_names"),
                 llvm::ConstantInt::get(sizeTy, constantAddresses.size())});
    params.append({ptrTy, ptrTy, sizeTy});
  }
  llvm::FunctionCallee registerFn = host.getOrInsertFunction(
      registerName, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false));
  b.CreateCall(registerFn, args);
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(host, ctor, /*Priority=*/65535);
  return llvm::Error::success();
}
