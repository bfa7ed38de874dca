//===- Build.cpp - the whole single-source build --------------------------===//
//
//   file.cpp -> host compile (clang, C++)          -> host LLVM IR ------------------+
//            -> device compile (clang, CUDA device) -> MLIR (oxide) -> LLVM IR        |
//               -> libdevice -> O3 -> PTX -> ptxas cubin -> device image -> embedded -+-> object
//   (one device compile per --arch; every object carries its own image)   objects -> link
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/Build.h"
#include "oxide/compiler/DeviceExternals.h"
#include "oxide/compiler/Frontend.h"
#include "oxide/compiler/HostEmbedding.h"
#include "oxide/compiler/KernelTable.h"
#include "oxide/compiler/MlirStage.h"
#include "oxide/compiler/NvptxBackend.h"
#include "oxide/compiler/ReportedError.h"
#include "oxide/compiler/SimWriteChecks.h"
#include "oxide/compiler/TargetCodegen.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"

#include <future>
#include <list>
#include <optional>

#include <unistd.h>

using namespace oxide;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// Opens the output of an --emit stage: a file, or stdout for "-" / no -o.
llvm::Expected<std::unique_ptr<llvm::ToolOutputFile>> openStageOutput(const std::string &output,
                                                                      bool binary) {
  std::error_code ec;
  auto out = std::make_unique<llvm::ToolOutputFile>(output.empty() ? "-" : output, ec,
                                                    binary ? fs::OF_None : fs::OF_Text);
  if (ec)
    return llvm::createStringError("cannot write '" + output + "': " + ec.message());
  return out;
}

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path.str() + "': " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return llvm::createStringError("cannot write '" + path.str() + "': " + os.error().message());
  return llvm::Error::success();
}

/// The intermediate files of one translation unit (--save-temps, $OXCC_DUMP_DIR), named
/// DIR/<stem>.<stage>: e.g. vecadd.sm_90.ptx, vecadd.host.o.
class Temps {
public:
  explicit Temps(const CompileOptions &opts) {
    if (opts.tempsDir.empty())
      return;
    llvm::SmallString<256> p(opts.tempsDir);
    path::append(p, path::stem(opts.input));
    prefix = std::string(p);
  }
  bool enabled() const { return !prefix.empty(); }
  llvm::Error write(llvm::StringRef stage, llvm::StringRef bytes) const {
    if (!enabled())
      return llvm::Error::success();
    return writeFile(prefix + "." + stage.str(), bytes);
  }
  llvm::Error write(llvm::StringRef stage, const llvm::Module &module) const {
    if (!enabled())
      return llvm::Error::success();
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os, nullptr);
    return write(stage, text);
  }

private:
  std::string prefix;
};

/// The newest of the default architectures: the one that carries PTX, and never left out.
unsigned newestDefaultArch() {
  unsigned newest = 0;
  for (const GpuArch &arch : defaultGpuArchs())
    newest = std::max(newest, arch.number);
  return newest;
}

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

/// The device half for one architecture: everything from the CUDA-device compile to the code
/// objects of the device image. `stageOut` receives the --emit stage; `constants` (if given)
/// the oxide::constant variables that the device code reads. Diagnostics go to `diagOut`, the
/// -v command lines to `log`: the architectures of a build compile in parallel, each into its
/// own streams. A default architecture (no --arch) that the code cannot be built for fails with
/// an UnsupportedArchError.
llvm::Expected<detail::DeviceImage> buildDeviceImage(const CompileOptions &opts, const Toolchain &tc,
                                                     const GpuArch &arch, llvm::raw_ostream *stageOut,
                                                     std::vector<std::string> *constants,
                                                     llvm::raw_ostream &diagOut, llvm::raw_ostream &log) {
  CompileOptions deviceOpts = opts;
  deviceOpts.arch = arch.smName();
  const Temps temps(opts);
  const std::string stagePrefix = arch.smName() + ".";

  llvm::LLVMContext ctx;
  auto device = compileDevice(deviceOpts, tc, ctx, diagOut, log);
  if (!device)
    return device.takeError();
  if (auto err = temps.write(stagePrefix + "device.ll", **device))
    return std::move(err);
  if (auto err = checkDeviceExternals(**device, diagOut))
    return std::move(err);

  // --save-temps keeps the checked oxide dialect; --emit=mlir[-after=PASS] prints the module
  // after the pass the user chose.
  std::string raised;
  llvm::raw_string_ostream raisedOs(raised);
  MlirStageOptions mlirOpts;
  mlirOpts.diagnostics = &diagOut;
  mlirOpts.arch = arch.number;
  mlirOpts.archName = arch.name();
  mlirOpts.archChosen = opts.archsChosen();
  if (temps.enabled())
    mlirOpts.printAfter.push_back({kDefaultMlirPrintPass, &raisedOs});
  if (opts.emit == EmitStage::MLIR)
    mlirOpts.printAfter.push_back(
        {opts.mlirPrintPass.empty() ? std::string(kDefaultMlirPrintPass) : opts.mlirPrintPass, stageOut});
  auto lowered = runMlirStage(std::move(*device), ctx, mlirOpts);
  if (!raised.empty())
    if (auto err = temps.write(stagePrefix + "mlir", raised))
      return std::move(err);
  if (!lowered)
    return lowered.takeError();
  if (auto err = temps.write(stagePrefix + "lowered.ll", **lowered))
    return std::move(err);
  if (opts.emit == EmitStage::MLIR || opts.emit == EmitStage::Check)
    return detail::DeviceImage{};

  if (auto err = linkLibdevice(**lowered, tc.libdevice, opts.fastMath))
    return std::move(err);
  // -G: unoptimised device code, so that stepping follows the source.
  const unsigned deviceOptLevel = opts.deviceDebug ? 0 : opts.optLevel;
  std::string optimized;
  llvm::raw_string_ostream optimizedOs(optimized);
  llvm::raw_ostream *dumpOptimized = nullptr;
  if (opts.emit == EmitStage::LLVM)
    dumpOptimized = temps.enabled() ? &optimizedOs : stageOut;
  else if (temps.enabled())
    dumpOptimized = &optimizedOs;
  auto ptx = generatePtx(**lowered, deviceOpts.arch, deviceOptLevel, dumpOptimized);
  if (!ptx)
    return ptx.takeError();
  if (temps.enabled()) {
    if (auto err = temps.write(stagePrefix + "opt.ll", optimized))
      return std::move(err);
    if (opts.emit == EmitStage::LLVM)
      *stageOut << optimized;
    if (auto err = temps.write(stagePrefix + "ptx", *ptx))
      return std::move(err);
  }

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
    image.code.push_back({detail::CodeKind::Ptx, arch.number, *ptx});
  if (!arch.hasCubin())
    return image;
  if (tc.ptxas.empty()) {
    if (opts.emit == EmitStage::Cubin)
      return llvm::createStringError("--emit=cubin needs ptxas, which was not found (looked in " +
                                     tc.cudaPath + "/bin and $OXIDE_PTXAS)");
    return image; // the caller says once that the image holds PTX only
  }
  // -G: the debug information of the PTX goes into the cubin, with nvcc -G's ptxas flags (no
  // merged blocks, a return at the end for a breakpoint); --lineinfo keeps the line tables only.
  llvm::SmallVector<llvm::StringRef, 3> ptxasFlags;
  if (opts.deviceDebug)
    ptxasFlags.append({"-g", "--dont-merge-basicblocks", "--return-at-end"});
  else if (opts.lineInfo)
    ptxasFlags.push_back("-lineinfo");
  auto cubin = assembleCubin(tc.ptxas, *ptx, deviceOpts.arch, deviceOptLevel, ptxasFlags,
                             opts.verbose ? &log : nullptr);
  if (!cubin) {
    const std::string message = llvm::toString(cubin.takeError());
    const PtxasRefusal refusal = explainPtxasFailure(*ptx, message);
    // One of the older default architectures that ptxas refuses (an instruction the kernels use
    // does not exist there) is left out rather than failing the build.
    if (!opts.archsChosen() && arch.number < newestDefaultArch())
      return llvm::make_error<UnsupportedArchError>(refusal.summary(), 0);
    return llvm::createStringError(
        "ptxas rejects the code" + (refusal.function.empty() ? std::string() : " of " + refusal.function) +
        " for " + arch.smName() + ": " + refusal.what +
        (opts.archsChosen() ? "; if it needs a newer GPU, remove " + arch.name() + " from --arch"
                            : std::string()) +
        "\n" + message);
  }
  if (auto err = temps.write(stagePrefix + "cubin", *cubin))
    return std::move(err);
  if (opts.emit == EmitStage::Cubin)
    *stageOut << *cubin;
  image.code.push_back({detail::CodeKind::Cubin, arch.number, std::move(*cubin)});
  return image;
}

/// The architectures to build: --arch's, or the defaults; several entries for one architecture
/// merge (sm_90 and compute_90 are sm_90; 90-real and compute_90 too).
std::vector<GpuArch> effectiveArchs(const CompileOptions &opts) {
  std::vector<GpuArch> result;
  for (const GpuArch &arch : opts.targetArchs()) {
    auto same = llvm::find_if(result, [&](const GpuArch &a) { return a.number == arch.number; });
    if (same == result.end()) {
      result.push_back(arch);
      continue;
    }
    const bool ptx = same->hasPtx() || arch.hasPtx(), cubin = same->hasCubin() || arch.hasCubin();
    same->code = ptx && cubin ? GpuArch::Code::PtxAndCubin
                 : ptx        ? GpuArch::Code::PtxOnly
                              : GpuArch::Code::CubinOnly;
  }
  return result;
}

/// One architecture's device build, and what it printed.
struct ArchBuild {
  GpuArch arch;
  std::optional<llvm::Expected<detail::DeviceImage>> image;
  std::vector<std::string> constants;
  std::string log, diagnostics;
};

/// The device builds of `archs`, in parallel (up to opts.threads, or one per architecture up to
/// the machine's cores), each printing into its own buffers. Nothing is printed yet.
std::vector<ArchBuild> buildArchs(const CompileOptions &opts, const Toolchain &tc,
                                  llvm::ArrayRef<GpuArch> archs) {
  std::vector<ArchBuild> builds(archs.size());
  const bool colors = llvm::errs().has_colors();
  auto build = [&](size_t i) {
    ArchBuild &b = builds[i];
    b.arch = archs[i];
    llvm::raw_string_ostream log(b.log), diagOut(b.diagnostics);
    diagOut.enable_colors(colors);
    b.image.emplace(buildDeviceImage(opts, tc, b.arch, nullptr, &b.constants, diagOut, log));
  };
  const unsigned threads = opts.threads ? std::min<unsigned>(opts.threads, archs.size()) : archs.size();
  if (threads <= 1) {
    for (size_t i = 0; i < archs.size(); ++i)
      build(i);
    return builds;
  }
  // Every compile owns its contexts (LLVM, clang, MLIR) and temporary files; the frontend's
  // shared state is read-only or locked (see setHostOnlyHeaderDirectory), and the targets are
  // registered before any compile starts (initializeTargets). Without --threads, no more
  // compiles than cores.
  initializeTargets();
  llvm::ThreadPoolStrategy strategy = llvm::heavyweight_hardware_concurrency(threads);
  strategy.Limit = opts.threads == 0;
  llvm::DefaultThreadPool pool(strategy);
  for (size_t i = 0; i < archs.size(); ++i)
    pool.async([&build, i] { build(i); });
  pool.wait();
  return builds;
}

/// Drops device builds whose results are not needed (the host compile failed, or found no
/// kernels), errors included.
void discardArchBuilds(std::vector<ArchBuild> &builds) {
  for (ArchBuild &b : builds)
    if (b.image && !*b.image)
      llvm::consumeError(b.image->takeError());
  builds.clear();
}

/// The device builds of a translation unit, started before its host compile so that the two
/// run at the same time (with --threads=1, one after the other); nothing is printed until the
/// host compile has printed its own diagnostics (plain C++ errors read better without the
/// device wrapper's include noise).
class EarlyDeviceBuilds {
public:
  EarlyDeviceBuilds(const CompileOptions &opts, const Toolchain &tc) : concurrent(opts.threads != 1) {
    initializeTargets(); // before any compile, so that none registers them while another runs
    builds = std::async(concurrent ? std::launch::async : std::launch::deferred,
                        [&opts, &tc] { return buildArchs(opts, tc, effectiveArchs(opts)); });
  }
  EarlyDeviceBuilds(const EarlyDeviceBuilds &) = delete;
  EarlyDeviceBuilds &operator=(const EarlyDeviceBuilds &) = delete;
  /// Waits for builds that were not taken: a translation unit's compiles end together.
  ~EarlyDeviceBuilds() {
    if (concurrent && builds.valid()) {
      std::vector<ArchBuild> unused = builds.get();
      discardArchBuilds(unused);
    }
  }
  std::vector<ArchBuild> take() { return builds.get(); }

private:
  bool concurrent;
  std::future<std::vector<ArchBuild>> builds;
};

/// The code of one architecture that was built.
struct BuiltArch {
  GpuArch arch;
  detail::DeviceImage image;
  std::vector<std::string> constants;
};

/// Prints, in architecture order, what each of `builds` printed (the same diagnostics from
/// several architectures once), as a serial build would. A default architecture the
/// translation unit cannot be built for is left out, with a note under -v; the first other
/// failure is returned.
llvm::Expected<std::vector<BuiltArch>> reportArchBuilds(const CompileOptions &opts,
                                                        std::vector<ArchBuild> builds) {
  std::vector<BuiltArch> built;
  std::vector<std::string> printed; // diagnostics already shown, without the architecture
  std::vector<std::pair<std::string, std::vector<std::string>>> leftOut; // reason -> architectures
  unsigned minArch = 0;
  llvm::Error failure = llvm::Error::success();
  for (ArchBuild &b : builds) {
    if (failure) {
      llvm::consumeError(b.image->takeError()); // a serial build would have stopped before
      continue;
    }
    llvm::errs() << b.log;
    std::string key = b.diagnostics;
    for (size_t at; (at = key.find(" when compiling for " + b.arch.smName())) != std::string::npos;)
      key.erase(at, (" when compiling for " + b.arch.smName()).size());
    if (!key.empty() && !llvm::is_contained(printed, key)) {
      llvm::errs() << b.diagnostics;
      printed.push_back(std::move(key));
    }
    if (*b.image) {
      built.push_back({b.arch, std::move(**b.image), std::move(b.constants)});
      continue;
    }
    failure = llvm::handleErrors(b.image->takeError(), [&](const UnsupportedArchError &e) {
      auto same = llvm::find_if(leftOut, [&](const auto &entry) { return entry.first == e.reason; });
      if (same == leftOut.end())
        leftOut.push_back({e.reason, {b.arch.smName()}});
      else
        same->second.push_back(b.arch.smName());
      minArch = std::max(minArch, e.minArch);
    });
  }
  if (failure)
    return std::move(failure);
  if (opts.verbose)
    for (const auto &[reason, names] : leftOut)
      llvm::errs() << kLeavingOutNote << llvm::join(names, ", ") << " (of the default architectures) for "
                   << opts.input << ": " << reason << "\n";
  if (built.empty() && !leftOut.empty())
    return llvm::createStringError(
        "none of the default architectures can run the kernels of '" + opts.input +
        "': " + leftOut.back().first + "; choose architectures with --arch" +
        (minArch ? " (e.g. --arch=sm_" + std::to_string(minArch) + ")" : std::string()));
  return std::move(built);
}

/// The device image of `builds` (one device compile per architecture): all code objects in one
/// image. The runtime picks the cubin that matches the device (or an older one of its major
/// version), else the newest PTX that is not newer than the device.
llvm::Expected<detail::DeviceImage> buildFatImage(const CompileOptions &opts, const Toolchain &tc,
                                                  std::vector<ArchBuild> builds,
                                                  std::vector<std::string> &constants) {
  auto built = reportArchBuilds(opts, std::move(builds));
  if (!built)
    return built.takeError();
  detail::DeviceImage fat;
  bool ptxOnlyNote = false;
  for (BuiltArch &b : *built) {
    if (&b == &built->front()) {
      fat.kernels = std::move(b.image.kernels);
      constants = std::move(b.constants);
    } else {
      // Host code registers one kernel table, so every architecture must define the same
      // kernels (a kernel under `#if __CUDA_ARCH__ >= 800` would break that).
      llvm::StringSet<> names;
      for (const auto &k : fat.kernels)
        names.insert(k.name);
      bool same = b.image.kernels.size() == fat.kernels.size();
      for (const auto &k : b.image.kernels)
        same = same && names.contains(k.name);
      if (!same)
        return llvm::createStringError("'" + opts.input + "' defines different kernels for " +
                                       b.arch.smName() + " than for " + built->front().arch.smName() +
                                       "; kernels must not depend on __CUDA_ARCH__");
    }
    for (auto &code : b.image.code)
      fat.code.push_back(std::move(code));
    ptxOnlyNote |= b.arch.hasCubin() && tc.ptxas.empty();
  }
  if (ptxOnlyNote)
    llvm::errs() << "oxcc: note: ptxas not found (looked in " << tc.cudaPath
                 << "/bin and $OXIDE_PTXAS); embedding PTX only, which the driver compiles when the program "
                    "starts\n";
  return fat;
}

} // namespace

llvm::Error oxide::checkWritableOutput(llvm::StringRef output) {
  if (output.empty() || output == "-")
    return llvm::Error::success();
  if (fs::is_directory(output))
    return llvm::createStringError("cannot write '" + output.str() + "': it is a directory");
  llvm::SmallString<256> dir(output);
  fs::make_absolute(dir);
  path::remove_filename(dir);
  if (!fs::exists(dir))
    return llvm::createStringError("cannot write '" + output.str() + "': directory '" + dir.str() +
                                   "' does not exist");
  if (!fs::is_directory(dir))
    return llvm::createStringError("cannot write '" + output.str() + "': '" + dir.str() +
                                   "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return llvm::createStringError("cannot write '" + output.str() + "': directory '" + dir.str() +
                                   "' is not writable");
  return llvm::Error::success();
}

llvm::Expected<std::string> oxide::compileObject(const CompileOptions &opts, const Toolchain &tc) {
  CompileOptions hostOpts = opts;
  hostOpts.debug = opts.debug || opts.deviceDebug;
  const Temps temps(opts);

  // A file that mentions kernels starts its device compiles with its host compile; others
  // (no kernels, or only in headers) wait for the host compile to find kernels, so a file
  // without them costs no device compile.
  std::optional<EarlyDeviceBuilds> early;
  if (mentionsKernels(opts.input))
    early.emplace(opts, tc);
  llvm::LLVMContext hostCtx;
  auto host = compileHost(hostOpts, tc, hostCtx);
  if (!host)
    return host.takeError();
  // Without kernels there is no image to embed.
  if (!findHostKernels(**host).empty()) {
    std::vector<std::string> constants;
    auto image = buildFatImage(opts, tc, early ? early->take() : buildArchs(opts, tc, effectiveArchs(opts)),
                               constants);
    if (!image)
      return image.takeError();
    if (auto err = embedDeviceImage(**host, *image, constants))
      return std::move(err);
    // The CPU simulator's checking mode checks the writes of the kernels' host code.
    instrumentSimWrites(**host);
  }
  if (auto err = temps.write("host.ll", **host))
    return std::move(err);

  // Baseline x86-64, so an executable built here runs on any x86-64 machine with a GPU.
  auto tm = createTargetMachine(**host, "x86-64", "", opts.optLevel);
  if (!tm)
    return tm.takeError();
  auto object = emitCode(**host, **tm, llvm::CodeGenFileType::ObjectFile);
  if (!object)
    return object.takeError();
  if (auto err = temps.write("host.o", *object))
    return std::move(err);
  return object;
}

llvm::Error oxide::checkTranslationUnit(const CompileOptions &opts, const Toolchain &tc) {
  CompileOptions checkOpts = opts;
  checkOpts.emit = EmitStage::Check;
  EarlyDeviceBuilds device(checkOpts, tc);
  llvm::LLVMContext hostCtx;
  auto host = compileHost(checkOpts, tc, hostCtx);
  if (!host)
    return host.takeError();
  return reportArchBuilds(checkOpts, device.take()).takeError();
}

llvm::Error oxide::emitDeviceStage(const CompileOptions &opts, const Toolchain &tc) {
  // Without --arch: the newest default architecture (the one whose PTX a default build embeds).
  std::vector<GpuArch> archs =
      opts.archsChosen() ? effectiveArchs(opts) : std::vector<GpuArch>{GpuArch{newestDefaultArch()}};
  if (archs.size() != 1)
    return llvm::createStringError("--emit writes the code of one architecture; give a single --arch");
  if (opts.emit == EmitStage::Cubin && !archs.front().hasCubin())
    return llvm::createStringError("--emit=cubin needs a real architecture (--arch=sm_XX), not " +
                                   archs.front().name());
  if (auto err = checkWritableOutput(opts.output))
    return err;
  auto out = openStageOutput(opts.output, opts.emit == EmitStage::Cubin);
  if (!out)
    return out.takeError();
  auto image = buildDeviceImage(opts, tc, archs.front(), &(*out)->os(), nullptr, llvm::errs(), llvm::errs());
  // What was printed before a later stage failed stays (--emit=mlir-after=oxide-raise shows
  // the module that the safety checks then rejected).
  if (image || (*out)->os().tell() > 0)
    (*out)->keep();
  return llvm::handleErrors(image.takeError(), [&](const UnsupportedArchError &e) -> llvm::Error {
    return llvm::createStringError("--emit without --arch writes " + archs.front().smName() + " code, but " +
                                   e.reason + "; choose the architecture with --arch" +
                                   (e.minArch ? "=sm_" + std::to_string(e.minArch) : std::string()));
  });
}

llvm::Error oxide::linkExecutable(llvm::ArrayRef<std::string> objects, const CompileOptions &opts,
                                  const Toolchain &tc) {
  const std::string &output = opts.output;
  std::vector<std::string> flags;
  for (const auto &sanitizer : opts.sanitizers)
    flags.push_back("-fsanitize=" + sanitizer);
  llvm::SmallVector<llvm::StringRef> args = {tc.clangDriver};
  for (const auto &object : objects)
    args.push_back(object);
  for (const auto &input : opts.linkInputs)
    args.push_back(input);
  args.append({"-o", output, tc.runtimeLibrary, "-ldl", "-lpthread"});
  for (const auto &flag : flags)
    args.push_back(flag);
  if (!tc.builtinsLibrary.empty())
    args.push_back(tc.builtinsLibrary);
  if (opts.verbose) {
    llvm::errs() << "oxcc: link:";
    for (auto a : args)
      llvm::errs() << ' ' << a;
    llvm::errs() << '\n';
  }
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(tc.clangDriver, args, std::nullopt, {}, 0, 0, &execError);
  if (rc != 0)
    return llvm::createStringError("linking '" + output + "' failed" +
                                   (execError.empty() ? std::string() : ": " + execError));
  return llvm::Error::success();
}

llvm::Error oxide::build(const CompileOptions &opts, const Toolchain &tc) {
  if (opts.emit == EmitStage::Check) {
    for (const std::string &input : opts.translationUnits()) {
      CompileOptions tuOpts = opts;
      tuOpts.input = input;
      if (auto err = checkTranslationUnit(tuOpts, tc))
        return err;
    }
    return llvm::Error::success();
  }
  if (opts.emit != EmitStage::Executable) {
    if (opts.translationUnits().size() != 1)
      return llvm::createStringError("--emit needs exactly one input file");
    CompileOptions tuOpts = opts;
    tuOpts.input = opts.translationUnits().front();
    return emitDeviceStage(tuOpts, tc);
  }

  if (auto err = checkWritableOutput(opts.output))
    return err;
  std::vector<std::string> objectPaths;
  std::list<llvm::FileRemover> removers; // not movable: a list never relocates them
  for (const std::string &input : opts.translationUnits()) {
    CompileOptions tuOpts = opts;
    tuOpts.input = input;
    auto object = compileObject(tuOpts, tc);
    if (!object)
      return object.takeError();
    llvm::SmallString<128> objectPath;
    if (auto ec = fs::createTemporaryFile("oxide-host", "o", objectPath))
      return llvm::createStringError("cannot create a temporary file: " + ec.message());
    removers.emplace_back(objectPath);
    if (auto err = writeFile(objectPath, *object))
      return err;
    objectPaths.push_back(std::string(objectPath));
  }
  return linkExecutable(objectPaths, opts, tc);
}
