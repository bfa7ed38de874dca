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
                                    const std::vector<std::string> &constants, llvm::StringRef fatbin) {
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
  llvm::Constant *kernelAddresses = pointerTable(host, addresses, "__oxide_kernel_addresses");
  llvm::Constant *kernelNames = pointerTable(host, names, "__oxide_kernel_names");
  llvm::Constant *kernelCount = llvm::ConstantInt::get(sizeTy, kernels.size());
  llvm::SmallVector<llvm::Value *, 9> args;
  llvm::SmallVector<llvm::Type *, 9> params;
  llvm::StringRef registerName;
  if (!fatbin.empty()) {
    // The code objects are payloads of a CUDA fatbinary in `.nv_fatbin`, laid out as nvcc lays
    // it out (with the `__fatbinwrap`-style descriptor in `.nvFatBinSegment`), where cuobjdump,
    // nvdisasm and cuda-gdb look for device code. The linker concatenates the sections of all
    // objects; each fatbinary's size is a multiple of 8.
    auto *fatbinData = llvm::ConstantDataArray::getRaw(fatbin, fatbin.size(), llvm::Type::getInt8Ty(ctx));
    auto *fatbinVar =
        new llvm::GlobalVariable(host, fatbinData->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::PrivateLinkage, fatbinData, "__oxide_fatbin");
    fatbinVar->setSection(".nv_fatbin");
    fatbinVar->setAlignment(llvm::Align(8));
    llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
    auto *wrapperTy = llvm::StructType::get(ctx, {i32, i32, ptrTy, ptrTy});
    auto *wrapper = new llvm::GlobalVariable(
        host, wrapperTy, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantStruct::get(
            wrapperTy, {llvm::ConstantInt::get(i32, 0x466243b1), llvm::ConstantInt::get(i32, 1), fatbinVar,
                        llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(ctx))}),
        "__oxide_fatbin_wrapper");
    wrapper->setSection(".nvFatBinSegment");
    wrapper->setAlignment(llvm::Align(8));
    llvm::appendToCompilerUsed(host, {wrapper});
    registerName = "__oxide_register_fat_image";
    args = {imageVar,   llvm::ConstantInt::get(sizeTy, bytes.size()), fatbinVar, kernelAddresses, kernelNames,
            kernelCount};
    params = {ptrTy, sizeTy, ptrTy, ptrTy, ptrTy, sizeTy};
    llvm::Constant *null = llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(ctx));
    if (constantAddresses.empty())
      args.append({null, null, llvm::ConstantInt::get(sizeTy, 0)});
    else
      args.append({pointerTable(host, constantAddresses, "__oxide_constant_addresses"),
                   pointerTable(host, constantNames, "__oxide_constant_names"),
                   llvm::ConstantInt::get(sizeTy, constantAddresses.size())});
    params.append({ptrTy, ptrTy, sizeTy});
  } else {
    registerName = "__oxide_register_image";
    args = {imageVar, llvm::ConstantInt::get(sizeTy, bytes.size()), kernelAddresses, kernelNames,
            kernelCount};
    params = {ptrTy, sizeTy, ptrTy, ptrTy, sizeTy};
    if (!constantAddresses.empty()) {
      registerName = "__oxide_register_image_with_constants";
      args.append({pointerTable(host, constantAddresses, "__oxide_constant_addresses"),
                   pointerTable(host, constantNames, "__oxide_constant_names"),
                   llvm::ConstantInt::get(sizeTy, constantAddresses.size())});
      params.append({ptrTy, ptrTy, sizeTy});
    }
  }
  llvm::FunctionCallee registerFn = host.getOrInsertFunction(
      registerName, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false));
  b.CreateCall(registerFn, args);
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(host, ctor, /*Priority=*/65535);
  return llvm::Error::success();
}
