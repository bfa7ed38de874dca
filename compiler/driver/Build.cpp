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
#include "oxide/compiler/TargetCodegen.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

#include <list>

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

/// The device half for one architecture: everything from the CUDA-device compile to the code
/// objects of the device image. `stageOut` receives the --emit stage; `constants` (if given)
/// the oxide::constant variables that the device code reads.
llvm::Expected<detail::DeviceImage> buildDeviceImage(const CompileOptions &opts, const Toolchain &tc,
                                                     const GpuArch &arch, llvm::raw_ostream *stageOut,
                                                     std::vector<std::string> *constants = nullptr) {
  CompileOptions deviceOpts = opts;
  deviceOpts.arch = arch.smName();
  const Temps temps(opts);
  const std::string stagePrefix = arch.smName() + ".";

  llvm::LLVMContext ctx;
  auto device = compileDevice(deviceOpts, tc, ctx);
  if (!device)
    return device.takeError();
  if (auto err = temps.write(stagePrefix + "device.ll", **device))
    return std::move(err);
  if (auto err = checkDeviceExternals(**device))
    return std::move(err);

  // --save-temps keeps the checked oxide dialect; --emit=mlir[-after=PASS] prints the module
  // after the pass the user chose.
  std::string raised;
  llvm::raw_string_ostream raisedOs(raised);
  MlirStageOptions mlirOpts;
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

  image.code.push_back({detail::CodeKind::Ptx, arch.number, *ptx});
  if (arch.ptxOnly)
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
  auto cubin = assembleCubin(tc.ptxas, *ptx, deviceOpts.arch, deviceOptLevel, ptxasFlags, opts.verbose);
  if (!cubin)
    return cubin.takeError();
  if (auto err = temps.write(stagePrefix + "cubin", *cubin))
    return std::move(err);
  if (opts.emit == EmitStage::Cubin)
    *stageOut << *cubin;
  image.code.push_back({detail::CodeKind::Cubin, arch.number, std::move(*cubin)});
  return image;
}

/// The architectures to build, with compute_XX dropped where sm_XX (which carries PTX too) is
/// also requested.
std::vector<GpuArch> effectiveArchs(const CompileOptions &opts) {
  std::vector<GpuArch> all = opts.targetArchs(), result;
  for (const GpuArch &arch : all) {
    if (arch.ptxOnly && llvm::is_contained(all, GpuArch{arch.number, false}))
      continue;
    result.push_back(arch);
  }
  return result;
}

llvm::Error validateArchs(const CompileOptions &opts) {
  if (opts.archs.empty())
    return parseArch(opts.arch).takeError();
  return llvm::Error::success();
}

/// The device image for every architecture: one device compile each, all code objects in one
/// image. The runtime picks the cubin that matches the device exactly, else the newest PTX
/// that is not newer than the device.
llvm::Expected<detail::DeviceImage> buildFatImage(const CompileOptions &opts, const Toolchain &tc,
                                                  std::vector<std::string> &constants) {
  detail::DeviceImage fat;
  bool first = true;
  bool ptxOnlyNote = false;
  for (const GpuArch &arch : effectiveArchs(opts)) {
    std::vector<std::string> archConstants;
    auto image = buildDeviceImage(opts, tc, arch, nullptr, &archConstants);
    if (!image)
      return image.takeError();
    if (first) {
      fat.kernels = std::move(image->kernels);
      constants = std::move(archConstants);
      first = false;
    } else {
      // Host code registers one kernel table, so every architecture must define the same
      // kernels (a kernel under `#if __CUDA_ARCH__ >= 800` would break that).
      llvm::StringSet<> names;
      for (const auto &k : fat.kernels)
        names.insert(k.name);
      bool same = image->kernels.size() == fat.kernels.size();
      for (const auto &k : image->kernels)
        same = same && names.contains(k.name);
      if (!same)
        return llvm::createStringError("'" + opts.input + "' defines different kernels for " + arch.name() +
                                       " than for " + effectiveArchs(opts).front().name() +
                                       "; kernels must not depend on __CUDA_ARCH__");
    }
    for (auto &code : image->code)
      fat.code.push_back(std::move(code));
    ptxOnlyNote |= !arch.ptxOnly && tc.ptxas.empty();
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
  if (auto err = validateArchs(opts))
    return std::move(err);
  CompileOptions hostOpts = opts;
  hostOpts.debug = opts.debug || opts.deviceDebug;
  const Temps temps(opts);

  // Host first: plain C++ diagnostics are reported without the device wrapper's include noise.
  llvm::LLVMContext hostCtx;
  auto host = compileHost(hostOpts, tc, hostCtx);
  if (!host)
    return host.takeError();
  // Without kernels there is no image to embed: skip the device compiles.
  if (!findHostKernels(**host).empty()) {
    std::vector<std::string> constants;
    auto image = buildFatImage(opts, tc, constants);
    if (!image)
      return image.takeError();
    if (auto err = embedDeviceImage(**host, *image, constants))
      return std::move(err);
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
  if (auto err = validateArchs(opts))
    return err;
  CompileOptions checkOpts = opts;
  checkOpts.emit = EmitStage::Check;
  llvm::LLVMContext hostCtx;
  auto host = compileHost(checkOpts, tc, hostCtx);
  if (!host)
    return host.takeError();
  for (const GpuArch &arch : effectiveArchs(checkOpts))
    if (auto err = buildDeviceImage(checkOpts, tc, arch, nullptr).takeError())
      return err;
  return llvm::Error::success();
}

llvm::Error oxide::emitDeviceStage(const CompileOptions &opts, const Toolchain &tc) {
  if (auto err = validateArchs(opts))
    return err;
  std::vector<GpuArch> archs = effectiveArchs(opts);
  if (archs.size() != 1)
    return llvm::createStringError("--emit writes the code of one architecture; give a single --arch");
  if (opts.emit == EmitStage::Cubin && archs.front().ptxOnly)
    return llvm::createStringError("--emit=cubin needs a real architecture (--arch=sm_XX), not " +
                                   archs.front().name());
  if (auto err = checkWritableOutput(opts.output))
    return err;
  auto out = openStageOutput(opts.output, opts.emit == EmitStage::Cubin);
  if (!out)
    return out.takeError();
  auto image = buildDeviceImage(opts, tc, archs.front(), &(*out)->os());
  // What was printed before a later stage failed stays (--emit=mlir-after=oxide-raise shows
  // the module that the safety checks then rejected).
  if (image || (*out)->os().tell() > 0)
    (*out)->keep();
  return image.takeError();
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
