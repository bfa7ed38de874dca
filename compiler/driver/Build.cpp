//===- Build.cpp - the whole single-source build --------------------------===//
//
//   file.cpp -> host compile (clang, C++)          -> host LLVM IR ------------------+
//            -> device compile (clang, CUDA device) -> MLIR (oxide) -> LLVM IR        |
//               -> libdevice -> O3 -> PTX -> ptxas cubin -> device image -> embedded -+-> object -> link
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

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace oxide;

namespace {

/// Opens the output of an --emit stage: a file, or stdout for "-" / no -o.
llvm::Expected<std::unique_ptr<llvm::ToolOutputFile>> openStageOutput(const std::string &path) {
  std::error_code ec;
  auto out = std::make_unique<llvm::ToolOutputFile>(path.empty() ? "-" : path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError("cannot write '" + path + "': " + ec.message());
  return out;
}

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path.str() + "': " + ec.message());
  os << bytes;
  return llvm::Error::success();
}

llvm::Error link(const Toolchain &tc, llvm::StringRef object, const CompileOptions &opts) {
  const std::string &output = opts.output;
  bool verbose = opts.verbose;
  std::vector<std::string> sanitizerFlags;
  for (const auto &sanitizer : opts.sanitizers)
    sanitizerFlags.push_back("-fsanitize=" + sanitizer);
  llvm::SmallVector<llvm::StringRef> args = {tc.clangDriver,    object, "-o",       output,
                                             tc.runtimeLibrary, "-ldl", "-lpthread"};
  for (const auto &flag : sanitizerFlags)
    args.push_back(flag);
  if (!tc.builtinsLibrary.empty())
    args.push_back(tc.builtinsLibrary);
  if (verbose) {
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

/// The device half: everything from the CUDA-device compile to the device image.
/// `constants` (if given) receives the oxide::constant variables that the device code reads.
llvm::Expected<detail::DeviceImage> buildDeviceImage(const CompileOptions &opts, const Toolchain &tc,
                                                     unsigned archNumber, llvm::raw_ostream *stageOut,
                                                     std::vector<std::string> *constants = nullptr) {
  llvm::LLVMContext ctx;
  auto device = compileDevice(opts, tc, ctx);
  if (!device)
    return device.takeError();
  if (auto err = checkDeviceExternals(**device))
    return std::move(err);
  auto lowered = runMlirStage(std::move(*device), ctx, opts.emit == EmitStage::MLIR ? stageOut : nullptr);
  if (!lowered)
    return lowered.takeError();
  if (opts.emit == EmitStage::MLIR || opts.emit == EmitStage::Check)
    return detail::DeviceImage{};
  if (auto err = linkLibdevice(**lowered, tc.libdevice, opts.fastMath))
    return std::move(err);
  auto ptx =
      generatePtx(**lowered, opts.arch, opts.optLevel, opts.emit == EmitStage::LLVM ? stageOut : nullptr);
  if (!ptx)
    return ptx.takeError();

  detail::DeviceImage image;
  image.kernels = collectKernels(**lowered);
  if (constants)
    *constants = collectConstants(**lowered);
  if (opts.emit == EmitStage::PTX)
    *stageOut << *ptx;
  if (opts.emit != EmitStage::Executable)
    return image;

  image.code.push_back({detail::CodeKind::Ptx, archNumber, *ptx});
  if (tc.ptxas.empty()) {
    llvm::errs() << "oxcc: note: ptxas not found (looked in " << tc.cudaPath
                 << "/bin and $OXIDE_PTXAS); embedding PTX only, which the driver compiles when the program "
                    "starts\n";
  } else {
    auto cubin = assembleCubin(tc.ptxas, *ptx, opts.arch, opts.optLevel);
    if (!cubin)
      return cubin.takeError();
    image.code.push_back({detail::CodeKind::Cubin, archNumber, std::move(*cubin)});
  }
  return image;
}

} // namespace

llvm::Error oxide::build(const CompileOptions &opts, const Toolchain &tc) {
  auto archNumber = parseArch(opts.arch);
  if (!archNumber)
    return archNumber.takeError();

  if (opts.emit == EmitStage::Check) {
    llvm::LLVMContext hostCtx;
    auto host = compileHost(opts, tc, hostCtx);
    if (!host)
      return host.takeError();
    return buildDeviceImage(opts, tc, *archNumber, nullptr).takeError();
  }

  if (opts.emit != EmitStage::Executable) {
    auto out = openStageOutput(opts.output);
    if (!out)
      return out.takeError();
    auto image = buildDeviceImage(opts, tc, *archNumber, &(*out)->os());
    if (!image)
      return image.takeError();
    (*out)->keep();
    return llvm::Error::success();
  }

  // Host first: plain C++ diagnostics are reported without the device wrapper's include noise.
  llvm::LLVMContext hostCtx;
  auto host = compileHost(opts, tc, hostCtx);
  if (!host)
    return host.takeError();
  std::vector<std::string> constants;
  auto image = buildDeviceImage(opts, tc, *archNumber, nullptr, &constants);
  if (!image)
    return image.takeError();
  if (auto err = embedDeviceImage(**host, *image, constants))
    return err;

  // Baseline x86-64, so an executable built here runs on any x86-64 machine with a GPU.
  auto tm = createTargetMachine(**host, "x86-64", "", opts.optLevel);
  if (!tm)
    return tm.takeError();
  auto object = emitCode(**host, **tm, llvm::CodeGenFileType::ObjectFile);
  if (!object)
    return object.takeError();

  llvm::SmallString<128> objectPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("oxide-host", "o", objectPath))
    return llvm::createStringError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  if (auto err = writeFile(objectPath, *object))
    return err;
  return link(tc, objectPath, opts);
}
