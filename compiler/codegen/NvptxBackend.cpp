//===- NvptxBackend.cpp - device LLVM IR to PTX and cubin -----------------===//

#include "oxide/compiler/NvptxBackend.h"
#include "oxide/compiler/DebugFiles.h"
#include "oxide/compiler/FailureReports.h"
#include "oxide/compiler/GuardedWrites.h"
#include "oxide/compiler/LoopLatchBranches.h"
#include "oxide/compiler/ReportedError.h"
#include "oxide/compiler/ScopedAtomics.h"
#include "oxide/compiler/TargetCodegen.h"
#include "oxide/compiler/UndefinedBehaviour.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Type.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace oxide;

namespace {

/// Folds __nvvm_reflect queries that LLVM's NVVMReflect pass has no setting for. libdevice asks
/// "__CUDA_PREC_SQRT" in __nv_sqrtf; nvcc answers 1 by default (IEEE sqrt.rn), and so do we.
void resolveReflectQueries(llvm::Module &module, llvm::ArrayRef<std::pair<llvm::StringRef, int>> answers) {
  llvm::Function *reflect = module.getFunction("__nvvm_reflect");
  if (!reflect)
    return;
  for (llvm::User *user : llvm::make_early_inc_range(reflect->users())) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(user);
    if (!call || call->arg_size() != 1)
      continue;
    auto *global = llvm::dyn_cast<llvm::GlobalVariable>(call->getArgOperand(0)->stripPointerCasts());
    if (!global || !global->hasInitializer())
      continue;
    auto *text = llvm::dyn_cast<llvm::ConstantDataSequential>(global->getInitializer());
    if (!text || !text->isCString())
      continue;
    for (auto [name, value] : answers)
      if (text->getAsCString() == name) {
        call->replaceAllUsesWith(llvm::ConstantInt::get(call->getType(), value));
        call->eraseFromParent();
        break;
      }
  }
}

} // namespace

llvm::Error oxide::linkLibdevice(llvm::Module &module, const std::string &libdevicePath, bool fastMath) {
  auto buffer = llvm::MemoryBuffer::getFile(libdevicePath);
  if (!buffer)
    return llvm::createStringError("cannot read libdevice '" + libdevicePath +
                                   "': " + buffer.getError().message());
  auto libdevice = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
  if (!libdevice)
    return libdevice.takeError();
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());

  // NVVMReflect reads this flag; 0 selects the IEEE-compliant (non-FTZ) libdevice paths.
  if (!module.getModuleFlag("nvvm-reflect-ftz"))
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", fastMath ? 1u : 0u);

  llvm::Linker linker(module);
  bool failed = linker.linkInModule(std::move(*libdevice), llvm::Linker::LinkOnlyNeeded,
                                    [](llvm::Module &m, const llvm::StringSet<> &names) {
                                      llvm::internalizeModule(m, [&](const llvm::GlobalValue &gv) {
                                        return !names.contains(gv.getName());
                                      });
                                    });
  if (failed)
    return llvm::createStringError("linking libdevice into the device module failed");
  resolveReflectQueries(module, {{"__CUDA_PREC_SQRT", fastMath ? 0 : 1}});
  return llvm::Error::success();
}

llvm::Error oxide::checkUndefinedExternals(const llvm::Module &module) {
  std::string missing;
  for (const llvm::Function &f : module) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty())
      continue;
    // The CUDA driver's device runtime provides these when it loads the module.
    if (llvm::is_contained({"vprintf", "malloc", "free", "__assertfail"}, f.getName()))
      continue;
    if (!missing.empty())
      missing += ", ";
    missing += "'" + f.getName().str() + "'";
  }
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError("device code calls functions that have no device definition: " + missing +
                                 ". Host-only functions (system libraries, functions defined in another "
                                 "translation unit) cannot be called from a kernel");
}

llvm::Expected<std::string> oxide::generatePtx(llvm::Module &module, llvm::StringRef arch, unsigned optLevel,
                                               llvm::raw_ostream *dumpOptimized,
                                               llvm::raw_ostream *diagnostics, bool lineInfo,
                                               llvm::ArrayRef<PathPrefix> debugPrefixMap) {
  auto tm = createTargetMachine(module, arch, "+ptx88", optLevel);
  if (!tm)
    return tm.takeError();
  module.setDataLayout((*tm)->createDataLayout());
  optimizeModule(module, **tm, optLevel);
  // Every write the optimiser left is checked again: its target, and its bounds (a bound the
  // facts of the optimised code do not prove is tested again ahead of the write). At -O0 no
  // optimisation ran: the guards are the lowering's own, but for the writes into the threads'
  // arrays, which only the audit tests (-G builds too).
  const WriteAudit writes = auditWrites(module, /*localOnly=*/optLevel == 0);
  // Audited, the atomics get the scopes the back end would drop (inline assembly: last).
  scopeAtomics(module, **tm);
  if (dumpOptimized)
    module.print(*dumpOptimized, nullptr);
  if (!writes.forbidden.empty()) {
    printForbiddenWrites(writes.forbidden, diagnostics ? *diagnostics : llvm::errs());
    return reportedError("the audit of the optimised device code");
  }
  // What the optimiser was given held no undefined-behaviour fact of the user's code
  // (defineUndefinedBehaviour); none may have come back before the code is emitted.
  if (auto hints = findUndefinedBehaviourHints(module); !hints.empty()) {
    printUndefinedBehaviourHints(hints, diagnostics ? *diagnostics : llvm::errs());
    return reportedError("the audit of the optimised device code");
  }
  // The checks found and audited, their reports are written without a call (FailureReports.h).
  writeFailureReports(module);
  if (auto err = checkUndefinedExternals(module))
    return std::move(err);
  // The source lines served the checks and the diagnostics; the PTX (and so the cubin, which
  // ptxas gives line tables and the PTX text whenever the PTX has .loc) carries them only when
  // asked (--lineinfo, -G), as nvcc's does: no source paths in the executable by default.
  if (!lineInfo)
    llvm::StripDebugInfo(module);
  else
    remapDebugPaths(module, debugPrefixMap);
  // Last: loops in the form ptxas unrolls (LoopLatchBranches.h).
  if (optLevel > 0)
    orientLoopLatchBranches(module);
  return emitCode(module, **tm, llvm::CodeGenFileType::AssemblyFile);
}

llvm::Expected<std::string> oxide::assembleCubin(const std::string &ptxas, const std::string &ptx,
                                                 llvm::StringRef arch, unsigned optLevel,
                                                 llvm::ArrayRef<llvm::StringRef> extraFlags,
                                                 llvm::raw_ostream *log, std::string *warnings) {
  llvm::SmallString<128> ptxPath, cubinPath, logPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("oxide", "ptx", ptxPath))
    return llvm::createStringError("cannot create a temporary file: " + ec.message());
  if (auto ec = llvm::sys::fs::createTemporaryFile("oxide", "cubin", cubinPath))
    return llvm::createStringError("cannot create a temporary file: " + ec.message());
  if (auto ec = llvm::sys::fs::createTemporaryFile("oxide-ptxas", "log", logPath))
    return llvm::createStringError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removePtx(ptxPath), removeCubin(cubinPath), removeLog(logPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxPath, ec);
    if (ec)
      return llvm::createStringError("cannot write '" + ptxPath.str().str() + "': " + ec.message());
    os << ptx;
  }
  std::string level = "-O" + std::to_string(optLevel);
  std::string archFlag = "-arch=" + arch.str();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, archFlag, level};
  args.append(extraFlags.begin(), extraFlags.end());
  args.append({ptxPath, "-o", cubinPath});
  if (log) {
    *log << "oxcc: ptxas:";
    for (llvm::StringRef a : args)
      *log << ' ' << a;
    *log << '\n';
  }
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(), logPath.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &execError);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
      log = (*buffer)->getBuffer().str();
    return llvm::createStringError(
        "ptxas failed (" + (execError.empty() ? "exit " + std::to_string(rc) : execError) + "):\n" + log);
  }
  if (warnings)
    if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
      *warnings = (*buffer)->getBuffer().trim().str();
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath, /*IsText=*/false);
  if (!cubin)
    return llvm::createStringError("ptxas wrote no cubin: " + cubin.getError().message());
  return (*cubin)->getBuffer().str();
}
