//===- Plugin.cpp - Oxide's LLVM IR passes as an opt plugin ---------------===//
//
// The entry point of OxidePasses.so, which `opt -load-pass-plugin` loads; the passes it
// registers are listed in PassRegistry.def.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/LLVMPasses.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "OxidePasses", LLVM_VERSION_STRING, oxide::registerOxideLLVMPasses};
}
