//===- DeviceBuild.cpp - one architecture's device code -------------------===//
//
//   device compile (clang, CUDA device) -> MLIR (oxide) -> LLVM IR -> libdevice -> O3 -> PTX
//   -> ptxas cubin, each stage kept under --save-temps and printed by --emit
//
//===----------------------------------------------------------------------===//

#include "DeviceBuild.h"

#include "oxide/compiler/Build.h"
#include "oxide/compiler/DeviceExternals.h"
#include "oxide/compiler/Frontend.h"
#include "oxide/compiler/KernelTable.h"
#include "oxide/compiler/MlirStage.h"
#include "oxide/compiler/NvptxBackend.h"
#include "oxide/compiler/ReportedError.h"
#include "oxide/compiler/UndefinedBehaviour.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Path.h"

using namespace oxide;
using namespace oxide::driver;

namespace {

/// What ptxas refused, from its log ("ptxas FILE, line N; error   : WHAT"): the first error and
/// the kernel (or device function) of the PTX whose body holds that line.
struct PtxasRefusal {
  std::string what;     ///< e.g. "Modifier '.async' requires .target sm_90 or higher"
  std::string function; ///< e.g. "kernel 'k(int)'"; empty when not found
  std::string summary() const {
    return "ptxas rejects " + (function.empty() ? std::string("the code") : function) + " there: " + what;
  }
};

PtxasRefusal explainPtxasFailure(llvm::StringRef ptx, llvm::StringRef log) {
  PtxasRefusal result;
  unsigned line = 0;
  llvm::SmallVector<llvm::StringRef> logLines;
  log.split(logLines, '\n');
  for (llvm::StringRef l : logLines) {
    auto [where, what] = l.split("error");
    if (what.empty())
      continue;
    result.what = what.ltrim(" :").trim().str();
    if (size_t at = where.find(", line "); at != llvm::StringRef::npos)
      where.drop_front(at + 7).take_while(llvm::isDigit).getAsInteger(10, line);
    break;
  }
  if (result.what.empty())
    result.what = logLines.empty() ? std::string("failed") : logLines.front().trim().str();
  // The last .entry or .func that starts before the line.
  unsigned number = 0;
  for (llvm::StringRef l : llvm::split(ptx, '\n')) {
    if (++number > line)
      break;
    l = l.trim();
    l.consume_front(".visible ");
    l.consume_front(".weak ");
    const bool entry = l.consume_front(".entry ");
    if (!entry && !l.consume_front(".func "))
      continue;
    if (l.starts_with("(")) // .func (.param ...) name(
      l = l.drop_until([](char c) { return c == ')'; }).drop_front().ltrim();
    const std::string name = l.take_until([](char c) { return c == '(' || c == ' ' || c == ';'; }).str();
    result.function = (entry ? "kernel '" : "function '") + llvm::demangle(name) + "'";
  }
  return result;
}

/// What the stages of one architecture's device build read, and where they print.
struct ArchStages {
  const TranslationUnit &tu;
  const Toolchain &tc;
  const GpuArch &arch;
  const Temps temps;
  const std::string stagePrefix; ///< of the architecture's --save-temps files: "sm_90."
  llvm::raw_ostream *stageOut;   ///< the --emit stage
  llvm::raw_ostream &diagOut, &log;
  llvm::raw_ostream *resourceOut;
};

/// The MLIR stage: the checked device module, lowered back to LLVM IR (null for `oxcc check`).
/// Sets `archSpecific` when a kernel needs the "a" target.
llvm::Expected<std::unique_ptr<llvm::Module>> lowerThroughMlir(const ArchStages &s,
                                                               std::unique_ptr<llvm::Module> device,
                                                               llvm::LLVMContext &ctx, bool &archSpecific) {
  const CompileOptions &opts = s.tu.opts;
  // --save-temps keeps the checked oxide dialect; --emit=mlir[-after=PASS] prints the module
  // after the pass the user chose.
  std::string raised;
  llvm::raw_string_ostream raisedOs(raised);
  MlirStageOptions mlirOpts;
  mlirOpts.diagnostics = &s.diagOut;
  mlirOpts.arch = s.arch.number;
  mlirOpts.archName = s.arch.name();
  mlirOpts.archChosen = opts.archsChosen();
  mlirOpts.archSpecific = &archSpecific;
  mlirOpts.macroPrefixMap = opts.macroPrefixMap;
  // `oxcc check` compiles one architecture (checkArchs) and checks the kernels' requirements
  // against every other one the user chose; it stops after the checks.
  if (opts.emit == EmitStage::Check) {
    mlirOpts.checksOnly = true;
    if (opts.archsChosen())
      for (const GpuArch &other : effectiveArchs(opts))
        if (other.number != s.arch.number)
          mlirOpts.alsoCheckArchs.push_back({other.number, other.name()});
  }
  if (s.temps.enabled())
    mlirOpts.printAfter.push_back({kDefaultMlirPrintPass, &raisedOs});
  if (opts.emit == EmitStage::MLIR)
    mlirOpts.printAfter.push_back(
        {opts.mlirPrintPass.empty() ? std::string(kDefaultMlirPrintPass) : opts.mlirPrintPass, s.stageOut});
  auto lowered = runMlirStage(std::move(device), ctx, mlirOpts);
  if (!raised.empty())
    if (auto err = s.temps.write(s.stagePrefix + "mlir", raised))
      return std::move(err);
  if (!lowered)
    return lowered.takeError();
  if (opts.emit == EmitStage::Check) // the checks only: nothing was lowered
    return lowered;
  if (auto err = s.temps.write(s.stagePrefix + "lowered.ll", **lowered))
    return std::move(err);
  return lowered;
}

/// The PTX of the linked module for `target`, optimised at `optLevel`; --emit=llvm prints the
/// optimised LLVM IR, --save-temps keeps it and the PTX.
llvm::Expected<std::string> generateArchPtx(const ArchStages &s, llvm::Module &linked,
                                            const std::string &target, unsigned optLevel) {
  const CompileOptions &opts = s.tu.opts;
  std::string optimized;
  llvm::raw_string_ostream optimizedOs(optimized);
  llvm::raw_ostream *dumpOptimized = nullptr;
  if (opts.emit == EmitStage::LLVM)
    dumpOptimized = s.temps.enabled() ? &optimizedOs : s.stageOut;
  else if (s.temps.enabled())
    dumpOptimized = &optimizedOs;
  auto ptx = generatePtx(linked, target, optLevel, dumpOptimized, &s.diagOut,
                         /*lineInfo=*/opts.lineInfo || opts.deviceDebug, opts.debugPrefixMap);
  if (!ptx)
    return ptx.takeError();
  if (s.temps.enabled()) {
    if (auto err = s.temps.write(s.stagePrefix + "opt.ll", optimized))
      return std::move(err);
    if (opts.emit == EmitStage::LLVM)
      *s.stageOut << optimized;
    if (auto err = s.temps.write(s.stagePrefix + "ptx", *ptx))
      return std::move(err);
  }
  return ptx;
}

/// The occupancy step (OccupancyStep.cpp): `cubin` and `ptxasOutput`, assembled from `ptx`,
/// become those of `ptx` with the steps that spill nothing more than without, if any.
void takeOccupancySteps(const ArchStages &s, llvm::StringRef ptx, const std::string &target,
                        unsigned optLevel, llvm::ArrayRef<llvm::StringRef> ptxasFlags, std::string &cubin,
                        std::string &ptxasOutput) {
  const std::vector<KernelResources> before = parseResourceUsage(splitPtxasOutput(ptxasOutput).info);
  std::vector<OccupancyStep> steps = findOccupancySteps(ptx, before, s.arch.number);
  llvm::raw_ostream *log = s.tu.opts.verbose ? &s.log : nullptr;
  while (!steps.empty()) {
    std::string output;
    auto stepped =
        assembleCubin(s.tc.ptxas, withOccupancySteps(ptx, steps), target, optLevel, ptxasFlags, log, &output);
    if (!stepped) {
      llvm::consumeError(stepped.takeError());
      return;
    }
    const std::vector<KernelResources> after = parseResourceUsage(splitPtxasOutput(output).info);
    // A step is kept where it gave the block it asked for and spilled nothing more.
    const size_t asked = steps.size();
    llvm::erase_if(steps, [&](const OccupancyStep &step) {
      const KernelResources *old = findKernel(before, step.kernel), *now = findKernel(after, step.kernel);
      return !old || !now || now->registers > step.targetRegisters || now->spillStores > old->spillStores ||
             now->spillLoads > old->spillLoads || now->stack > old->stack;
    });
    if (steps.size() != asked)
      continue; // again, with the steps that held only
    for (const OccupancyStep &step : steps)
      if (log)
        *log << "oxcc: occupancy: " << target << ": " << llvm::demangle(step.kernel) << ": " << step.registers
             << " registers, " << step.blocks << " block(s) per multiprocessor; assembled again for "
             << step.targetBlocks << " (.minnctapersm): " << findKernel(after, step.kernel)->registers
             << " registers, no more spills\n";
    cubin = std::move(*stepped);
    ptxasOutput = std::move(output);
    return;
  }
}

/// The cubin of `ptx` for `target`, from ptxas: its warnings are printed, its -v report goes
/// to resourceOut, and what it refuses is explained by kernel.
llvm::Expected<std::string> assembleArchCubin(const ArchStages &s, const std::string &ptx,
                                              const std::string &target, unsigned optLevel) {
  const CompileOptions &opts = s.tu.opts;
  // -G: the debug information of the PTX goes into the cubin, with nvcc -G's ptxas flags (no
  // merged blocks, a return at the end for a breakpoint); --lineinfo keeps the line tables only.
  llvm::SmallVector<llvm::StringRef, 3> ptxasFlags;
  if (opts.deviceDebug)
    ptxasFlags.append({"-g", "--dont-merge-basicblocks", "--return-at-end"});
  else if (opts.lineInfo)
    ptxasFlags.push_back("-lineinfo");
  // -Xptxas: the user's options last, so they win; --resource-usage reads ptxas -v's report.
  for (const std::string &option : opts.ptxasOptions)
    ptxasFlags.push_back(option);
  const bool ptxasVerbose =
      llvm::is_contained(opts.ptxasOptions, "-v") || llvm::is_contained(opts.ptxasOptions, "--verbose");
  // The occupancy step reads ptxas -v's report too (OccupancyStep.cpp); a register limit of the
  // user's (--maxrregcount) is theirs to choose.
  const bool occupancyStep =
      opts.occupancyStep && optLevel > 0 && !opts.deviceDebug &&
      llvm::none_of(opts.ptxasOptions, [](llvm::StringRef o) { return o.contains("maxrregcount"); });
  if ((opts.resourceUsage || occupancyStep) && !ptxasVerbose)
    ptxasFlags.push_back("-v");
  std::string ptxasOutput;
  auto cubin = assembleCubin(s.tc.ptxas, ptx, target, optLevel, ptxasFlags, opts.verbose ? &s.log : nullptr,
                             &ptxasOutput);
  if (cubin && occupancyStep)
    takeOccupancySteps(s, ptx, target, optLevel, ptxasFlags, *cubin, ptxasOutput);
  if (!cubin) {
    const std::string message = llvm::toString(cubin.takeError());
    const PtxasRefusal refusal = explainPtxasFailure(ptx, message);
    // A default architecture other than the one that carries PTX that ptxas refuses (an
    // instruction the kernels use does not exist there) is left out rather than failing the build.
    if (!opts.archsChosen() && s.arch.number != ptxDefaultArch())
      return llvm::make_error<UnsupportedArchError>(refusal.summary(), 0);
    return llvm::createStringError(
        "ptxas rejects the code" + (refusal.function.empty() ? std::string() : " of " + refusal.function) +
        " for " + target + ": " + refusal.what +
        (opts.archsChosen() ? "; if it needs a newer GPU, remove " + s.arch.name() + " from --arch"
                            : std::string()) +
        "\n" + message);
  }
  // What ptxas warns of is the user's to know: that it serialises wgmma instructions (C7510,
  // C7515) costs most of a GEMM's speed.
  const PtxasReport report = splitPtxasOutput(ptxasOutput);
  if (!report.warnings.empty())
    s.diagOut << "oxcc: warning: ptxas, compiling for " << target << ":\n" << report.warnings << "\n";
  if (s.resourceOut && ptxasVerbose)
    *s.resourceOut << report.info;
  if (s.resourceOut && opts.resourceUsage)
    *s.resourceOut << summarizeResourceUsage(report.info, s.tu.input);
  if (auto err = s.temps.write(s.stagePrefix + "cubin", *cubin))
    return std::move(err);
  if (opts.emit == EmitStage::Cubin)
    *s.stageOut << *cubin;
  return cubin;
}

} // namespace

driver::Temps::Temps(const TranslationUnit &tu) {
  const CompileOptions &opts = tu.opts;
  if (opts.tempsDir.empty())
    return;
  llvm::SmallString<256> p(opts.tempsDir);
  llvm::sys::path::append(p, llvm::sys::path::stem(tu.input));
  prefix = std::string(p);
}

llvm::Error driver::Temps::write(llvm::StringRef stage, llvm::StringRef bytes) const {
  if (!enabled())
    return llvm::Error::success();
  return writeFileAtomically(prefix + "." + stage.str(), bytes);
}

llvm::Error driver::Temps::write(llvm::StringRef stage, const llvm::Module &module) const {
  if (!enabled())
    return llvm::Error::success();
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return write(stage, text);
}

llvm::Expected<detail::DeviceImage>
driver::buildDeviceImage(const TranslationUnit &tu, const Toolchain &tc, const GpuArch &arch,
                         llvm::raw_ostream *stageOut, std::vector<std::string> *constants,
                         llvm::raw_ostream &diagOut, llvm::raw_ostream &log, const DeviceFrontEnd &frontEnd,
                         llvm::raw_ostream *resourceOut) {
  const CompileOptions &opts = tu.opts;
  const ArchStages s{tu, tc, arch, Temps(tu), arch.smName() + ".", stageOut, diagOut, log, resourceOut};

  llvm::LLVMContext ctx;
  auto device = frontEnd ? frontEnd(ctx, diagOut, log) : compileDevice(tu, tc, arch, ctx, diagOut, log);
  if (!device)
    return device.takeError();
  if (auto err = s.temps.write(s.stagePrefix + "device.ll", **device))
    return std::move(err);
  if (auto err = checkDeviceExternals(**device, diagOut))
    return std::move(err);

  // A kernel that uses wgmma or setmaxnreg makes the module code for the "a" target (sm_90a),
  // which only that architecture runs; the check that sets this refuses every other target.
  bool archSpecific = arch.archSpecific;
  auto lowered = lowerThroughMlir(s, std::move(*device), ctx, archSpecific);
  if (!lowered)
    return lowered.takeError();
  if (opts.emit == EmitStage::Check || opts.emit == EmitStage::MLIR) // they stop at the MLIR stage
    return detail::DeviceImage{};

  // The lowering's guards meet the NVPTX pipeline with no undefined behaviour to exploit.
  defineUndefinedBehaviour(**lowered, UndefinedBehaviourStage::Lowered);
  if (auto err = linkLibdevice(**lowered, tc.libdevice, opts.fastMath))
    return std::move(err);
  // -G: unoptimised device code, so that stepping follows the source.
  const unsigned deviceOptLevel = opts.deviceDebug ? 0 : opts.optLevel;
  const std::string target = "sm_" + std::to_string(arch.number) + (archSpecific ? "a" : "");
  const auto features = archSpecific ? detail::CodeFeatures::ArchSpecific : detail::CodeFeatures::Portable;
  if (archSpecific && !arch.archSpecific && opts.verbose)
    log << "oxcc: note: compiling " << arch.name() << " as " << target << " for " << tu.input
        << ": its kernels use " << target << "'s warpgroup instructions (wgmma, setmaxnreg)\n";
  auto ptx = generateArchPtx(s, **lowered, target, deviceOptLevel);
  if (!ptx)
    return ptx.takeError();

  detail::DeviceImage image;
  image.kernels = collectKernels(**lowered);
  if (constants)
    *constants = collectConstants(**lowered);
  if (opts.emit == EmitStage::PTX)
    *stageOut << *ptx;
  if (opts.emit == EmitStage::LLVM || opts.emit == EmitStage::PTX)
    return image;

  // Without ptxas, an architecture asked for as a cubin only gets its PTX instead.
  if (arch.hasPtx() || tc.ptxas.empty())
    image.code.push_back({detail::CodeKind::Ptx, arch.number, *ptx, features});
  if (!arch.hasCubin())
    return image;
  if (tc.ptxas.empty()) {
    if (opts.emit == EmitStage::Cubin)
      return llvm::createStringError("--emit=cubin needs ptxas, which was not found (looked in " +
                                     tc.cudaPath + "/bin and $OXIDE_PTXAS)");
    return image; // the caller says once that the image holds PTX only
  }
  auto cubin = assembleArchCubin(s, *ptx, target, deviceOptLevel);
  if (!cubin)
    return cubin.takeError();
  image.code.push_back({detail::CodeKind::Cubin, arch.number, std::move(*cubin), features});
  return image;
}
