//===- TargetCodegen.cpp --------------------------------------------------===//

#include "oxide/compiler/TargetCodegen.h"
#include "oxide/compiler/ColumnLoops.h"
#include "oxide/compiler/DebugKernelParameters.h"
#include "oxide/compiler/FenceOrderedAtomics.h"
#include "oxide/compiler/HoistBoundsChecks.h"
#include "oxide/compiler/KernelGeometryFacts.h"
#include "oxide/compiler/LoopBoundsChecks.h"
#include "oxide/compiler/NarrowLoopCounters.h"
#include "oxide/compiler/ProveIndexBounds.h"

#include "clang/Basic/ParsedAttrInfo.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

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
    // Inline assembly in host code is parsed when the object is written; without the parsers
    // LLVM aborts ("Inline asm not supported by this streamer").
    llvm::InitializeAllAsmParsers();
    // Clang fills its list of plugin attributes ([[kernel]], oxide_implicit_device...) on first
    // use, without a lock: two compiles filling it at once (host and device overlap) can see a
    // partial list and reject the device wrapper's pragma. Every caller runs this before its
    // compiles start.
    (void)clang::getAttributePluginInstances();
    return true;
  }();
  (void)initialized;
  // The device frontend compiles with 32-bit shared/constant/local pointers (-fcuda-short-ptr,
  // as nvcc does); the NVPTX target machine takes that layout from this option only.
  static const bool shortPointers = [] {
    auto *option = llvm::cl::getRegisteredOptions().lookup("nvptx-short-ptr");
    if (option)
      static_cast<llvm::cl::opt<bool> *>(option)->setValue(true);
    return option != nullptr;
  }();
  (void)shortPointers;
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
  // Constructors (the registration of each object's device image) in .init_array, as clang puts
  // them: LLVM's default is the legacy .ctors, which lld does not run.
  options.UseInitArray = true;
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

void oxide::runDefaultPipeline(llvm::Module &module, llvm::PassBuilder &builder,
                               llvm::OptimizationLevel level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? builder.buildO0DefaultPipeline(level)
                                    : builder.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

void oxide::optimizeModule(llvm::Module &module, llvm::TargetMachine &tm, unsigned optLevel) {
  llvm::PassBuilder pb(&tm);
  // Block-shape facts for kernels, after their helpers are inlined into them; then the bounds
  // checks of row-major indices that the contracts' sizes prove (before SLP vectorisation
  // turns the guarding comparisons into vectors); the checks of indices that step through a
  // loop once per loop, before unrolling; the remaining checks go ahead of the work around them;
  // then, the proofs done, loops over a block's row of owned elements are counted by their
  // column, and 64-bit loop counters that fit 32 bits are counted in 32.
  if (module.getTargetTriple().isNVPTX()) {
    pb.registerScalarOptimizerLateEPCallback([](llvm::FunctionPassManager &fpm, llvm::OptimizationLevel) {
      fpm.addPass(KernelGeometryFactsPass());
      fpm.addPass(ProveIndexBoundsPass());
      fpm.addPass(LoopBoundsChecksPass());
      fpm.addPass(HoistBoundsChecksPass());
      fpm.addPass(ColumnLoopsPass());
      fpm.addPass(NarrowLoopCountersPass());
    });
    // Last: the checks that survive every optimisation join (JoinBoundsChecksPass), and no
    // optimisation sees the fences instead of the orderings they stand for.
    pb.registerOptimizerLastEPCallback(
        [](llvm::ModulePassManager &mpm, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase) {
          llvm::FunctionPassManager fpm;
          fpm.addPass(JoinBoundsChecksPass());
          fpm.addPass(FenceOrderedAtomicsPass());
          mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
        });
    // -G: kernel parameters described where cuda-gdb can read them.
    if (optLevel == 0)
      pb.registerOptimizerLastEPCallback(
          [](llvm::ModulePassManager &mpm, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase) {
            mpm.addPass(llvm::createModuleToFunctionPassAdaptor(DebugKernelParametersPass()));
          });
  }
  runDefaultPipeline(module, pb, optLevel == 0 ? llvm::OptimizationLevel::O0 : toLevel(optLevel));
}

namespace {
/// Builds the code generator's pipeline for `tm` into `pm` (true on failure, as LLVM's API).
///
/// Loop strength reduction is left out of GPU code: it turns each address a loop computes into
/// an induction variable of its own, 64 bits wide, and on the GPU registers decide how many
/// threads run. Layer normalisation with a block of 1024 per row took 52 registers with it and
/// 32 without (half the occupancy, 0.55 of nvcc's speed); across the benchmark kernels it
/// never saved a register. The switch is LLVM's global `-disable-lsr`, read while the
/// pipeline is built; host and device code are generated concurrently, so the pipelines are
/// built one at a time, each with the setting of its target.
bool addCodegenPasses(llvm::legacy::PassManager &pm, llvm::raw_pwrite_stream &os, llvm::TargetMachine &tm,
                      llvm::CodeGenFileType type, bool skipVerifier) {
  static std::mutex building;
  static auto *const disableLsr =
      static_cast<llvm::cl::opt<bool> *>(llvm::cl::getRegisteredOptions().lookup("disable-lsr"));
  const std::lock_guard lock(building);
  if (disableLsr)
    disableLsr->setValue(tm.getTargetTriple().isNVPTX());
  return tm.addPassesToEmitFile(pm, os, nullptr, type, skipVerifier);
}
} // namespace

llvm::Expected<std::string> oxide::emitCode(llvm::Module &module, llvm::TargetMachine &tm,
                                            llvm::CodeGenFileType type) {
  module.setDataLayout(tm.createDataLayout());
  llvm::SmallString<0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  // Verifying the module before and after the code generator's IR passes costs 3 % of the
  // host code generation; release builds skip it, as clang's do (the MLIR export verifies
  // the device module it makes).
#ifdef NDEBUG
  constexpr bool skipVerifier = true;
#else
  constexpr bool skipVerifier = false;
#endif
  if (addCodegenPasses(pm, os, tm, type, skipVerifier))
    return llvm::createStringError("the " + module.getTargetTriple().str() +
                                   " back end cannot emit this file type");
  // The code generator reports what it cannot emit (inline assembly it cannot parse: PTX in the
  // host compile of a kernel) through the context; LLVM's default handler would exit the
  // process without a word where oxcc captures diagnostics.
  struct Collected {
    std::string errors;
  } collected;
  llvm::LLVMContext &context = module.getContext();
  auto previous = context.getDiagnosticHandlerCallBack();
  void *previousContext = context.getDiagnosticContext();
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *where) {
        if (info->getSeverity() != llvm::DS_Error)
          return;
        auto &errors = static_cast<Collected *>(where)->errors;
        llvm::raw_string_ostream text(errors);
        llvm::DiagnosticPrinterRawOStream printer(text);
        info->print(printer);
        text << "\n";
      },
      &collected);
  pm.run(module);
  context.setDiagnosticHandlerCallBack(previous, previousContext);
  if (!collected.errors.empty())
    return llvm::createStringError(
        "the " + module.getTargetTriple().getArchName().str() +
        " code generator cannot emit this code: " + llvm::StringRef(collected.errors).trim().str() +
        (module.getTargetTriple().isNVPTX()
             ? std::string()
             : "; inline assembly in a kernel, or in a function a kernel calls, is compiled for the CPU "
               "simulator too, where PTX cannot run: put it under #ifdef __CUDA_ARCH__ in a kernel without a "
               "launch contract, or use Oxide's device API"));
  return std::string(out);
}
