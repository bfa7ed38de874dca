//===- Build.cpp - one translation unit, host and device ------------------===//
//
//   file.cpp -> host compile (clang, C++)          -> host LLVM IR ------------------+
//            -> device compile (clang, CUDA device) -> MLIR (oxide) -> LLVM IR        |
//               -> libdevice -> O3 -> PTX -> ptxas cubin -> device image -> embedded -+-> object
//   (one device compile per --arch, DeviceBuild.cpp and ArchBuilds.cpp; every object carries
//   its own image; Link.cpp links the objects)
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/Build.h"
#include "DeviceBuild.h"

#include "oxide/compiler/FatBinary.h"
#include "oxide/compiler/Frontend.h"
#include "oxide/compiler/HostEmbedding.h"
#include "oxide/compiler/KernelTable.h"
#include "oxide/compiler/ReportedError.h"
#include "oxide/compiler/SimWriteChecks.h"
#include "oxide/compiler/TargetCodegen.h"
#include "oxide/compiler/VerboseLog.h"

#include "llvm/IR/DebugInfo.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cassert>
#include <optional>

using namespace oxide;
using namespace oxide::driver;
namespace fs = llvm::sys::fs;

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

} // namespace

CompileCommands oxide::compileCommands(const TranslationUnit &tu, const Toolchain &tc) {
  CompileCommands commands;
  commands.host = hostCompileArgs(tu, tc);
  for (const GpuArch &arch : effectiveArchs(tu.opts))
    commands.device.push_back(deviceCompileArgs(tu, tc, arch));
  return commands;
}

llvm::Expected<std::string> oxide::compileObject(const TranslationUnit &tu, const Toolchain &tc) {
  const CompileOptions &opts = tu.opts;
  const Temps temps(tu);

  // A file that mentions kernels starts its device compiles with its host compile; others
  // (no kernels, or only in headers) wait for the host compile to find kernels, so a file
  // without them costs no device compile.
  std::optional<EarlyDeviceBuilds> early;
  if (mentionsKernels(tu.input))
    early.emplace(tu, tc);
  llvm::LLVMContext hostCtx;
  auto host = compileHost(tu, tc, hostCtx);
  if (!host)
    return host.takeError();
  // Without kernels there is no image to embed.
  if (!findHostKernels(**host).empty()) {
    std::vector<std::string> constants;
    auto image =
        buildFatImage(tu, tc, early ? early->take() : buildArchs(tu, tc, effectiveArchs(opts)), constants);
    if (!image)
      return image.takeError();
    // The code objects go into a standard CUDA fatbinary (cuobjdump and cuda-gdb read it) when
    // the toolkit has the tool that writes one and there is a cubin or PTX to pack.
    std::string fatbin;
    if (!tc.fatbinary.empty() && !image->code.empty()) {
      auto packed =
          packFatBinary(tc.fatbinary, *image, opts.deviceDebug, opts.verbose ? &verboseLog() : nullptr);
      if (!packed)
        return packed.takeError();
      fatbin = std::move(*packed);
      if (auto err = temps.write("fatbin", fatbin))
        return std::move(err);
    }
    if (auto err = embedDeviceImage(**host, *image, constants, fatbin))
      return std::move(err);
    // The CPU simulator's checking mode checks the writes of the kernels' host code.
    instrumentSimWrites(**host);
  }
  // The line tables were for the simulator's write checks, which keep their locations as text;
  // without -g the object carries no debug information (as nvcc's), which saves a sixth of
  // the host code generation.
  if (!opts.debug)
    llvm::StripDebugInfo(**host);
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

llvm::Error oxide::checkTranslationUnit(const TranslationUnit &tu, const Toolchain &tc) {
  assert(tu.opts.emit == EmitStage::Check && "the device builds stop after the checks");
  // One architecture's device compile: the checks are the same for all but the architecture
  // requirements, which it checks against every --arch (checkArch).
  const GpuArch arch = checkArch(tu.opts);
  if (tu.opts.verbose)
    verboseLog() << "oxcc: note: checking " << tu.input << " for " << arch.smName()
                 << (tu.opts.archsChosen() ? " (the first of --arch)" : " (the newest default architecture)")
                 << "\n";
  EarlyDeviceBuilds device(tu, tc, {arch});
  llvm::LLVMContext hostCtx;
  UnsafeSurface surface;
  auto host = compileHost(tu, tc, hostCtx, tu.opts.unsafeReport ? &surface : nullptr);
  if (!host)
    return host.takeError();
  llvm::Error checked = reportArchBuilds(tu, device.take()).takeError();
  // Information, not a diagnostic: the host compile's AST is complete even when the device
  // checks fail, and the report follows the file's diagnostics.
  if (tu.opts.unsafeReport) {
    printUnsafeSurface(surface, tu.input, llvm::outs());
    llvm::outs().flush();
  }
  return checked;
}

llvm::Error oxide::emitDeviceStage(const TranslationUnit &tu, const Toolchain &tc) {
  const CompileOptions &opts = tu.opts;
  // Without --arch: the newest default architecture (the one whose PTX a default build embeds).
  std::vector<GpuArch> archs =
      opts.archsChosen() ? effectiveArchs(opts) : std::vector<GpuArch>{GpuArch{ptxDefaultArch()}};
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
  auto image = buildDeviceImage(tu, tc, archs.front(), &(*out)->os(), nullptr, llvm::errs(), llvm::errs());
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
