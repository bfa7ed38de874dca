//===- TargetCodegen.cpp --------------------------------------------------===//

#include "oxide/compiler/TargetCodegen.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

using namespace oxide;

namespace {
llvm::OptimizationLevel toLevel(unsigned level) {
  switch (level) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}
} // namespace

void oxide::initializeTargets() {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)initialized;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> oxide::createTargetMachine(const llvm::Module &module,
                                                                                llvm::StringRef cpu,
                                                                                llvm::StringRef features,
                                                                                unsigned optLevel) {
  initializeTargets();

  const llvm::Triple &triple = module.getTargetTriple();
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no LLVM target for '" + triple.str() + "': " + error);
  llvm::TargetOptions options;
  auto level = optLevel == 0   ? llvm::CodeGenOptLevel::None
               : optLevel == 1 ? llvm::CodeGenOptLevel::Less
               : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                               : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    return llvm::createStringError("cannot create a target machine for '" + triple.str() + "'");
  return tm;
}

void oxide::optimizeModule(llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = optLevel == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                              : pb.buildPerModuleDefaultPipeline(toLevel(optLevel));
  mpm.run(module, mam);
}

llvm::Expected<std::string> oxide::emitCode(llvm::Module &module, llvm::TargetMachine &tm,
                                            llvm::CodeGenFileType type) {
  module.setDataLayout(tm.createDataLayout());
  llvm::SmallString<0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    return llvm::createStringError("the " + module.getTargetTriple().str() +
                                   " back end cannot emit this file type");
  pm.run(module);
  return std::string(out);
}
