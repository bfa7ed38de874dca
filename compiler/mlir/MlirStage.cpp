//===- MlirStage.cpp - device IR through the oxide dialect ----------------===//

#include "oxide/compiler/MlirStage.h"

#include "oxide/compiler/Annotations.h"
#include "oxide/compiler/DebugFiles.h"
#include "oxide/compiler/DiagnosticFormat.h"
#include "oxide/compiler/KernelTable.h"
#include "oxide/compiler/ReportedError.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/OxideDialect.h"
#include "Oxide/IR/UserLocation.h"
#include "Oxide/Pipelines/Pipelines.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/Import.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace oxide;

namespace {

/// Prints the module after the passes that `prints` names, as the pass manager hands it on.
class PrintAfterPasses : public mlir::PassInstrumentation {
public:
  explicit PrintAfterPasses(std::vector<MlirPrint> prints) : prints(std::move(prints)) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    for (const MlirPrint &print : prints)
      if (print.out && pass->getArgument() == print.pass)
        op->print(*print.out);
  }

private:
  std::vector<MlirPrint> prints;
};

/// The kernel's location, with the column of its name: the MLIR import gives a function the
/// line of its DISubprogram, which has no column, so the name is looked up on that line.
mlir::Location kernelLocation(mlir::LLVM::LLVMFuncOp kernel) {
  mlir::FileLineColLoc line;
  kernel.getLoc()->walk([&](mlir::Location l) {
    if (auto fileLoc = mlir::dyn_cast<mlir::FileLineColLoc>(l)) {
      line = fileLoc;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  if (!line || line.getColumn() != 0)
    return line ? mlir::Location(line) : kernel.getLoc();
  std::string name = kernel.getSymName().str();
  llvm::ItaniumPartialDemangler demangler;
  if (!demangler.partialDemangle(name.c_str()))
    if (char *base = demangler.getFunctionBaseName(nullptr, nullptr)) {
      name = base;
      std::free(base);
    }
  auto buffer = llvm::MemoryBuffer::getFile(line.getFilename().getValue());
  if (!buffer)
    return line;
  for (llvm::line_iterator it(**buffer, /*SkipBlanks=*/false); !it.is_at_eof(); ++it) {
    if (static_cast<unsigned>(it.line_number()) != line.getLine())
      continue;
    const llvm::StringRef text = *it;
    auto isIdentifier = [](char c) { return llvm::isAlnum(c) || c == '_'; };
    for (size_t at = text.find(name); at != llvm::StringRef::npos; at = text.find(name, at + 1))
      if ((at == 0 || !isIdentifier(text[at - 1])) &&
          (at + name.size() == text.size() || !isIdentifier(text[at + name.size()])))
        return mlir::FileLineColLoc::get(line.getFilename(), line.getLine(), at + 1);
    break;
  }
  return line;
}

/// The MLIR import names a location's file by the DIFile's file name alone, which clang makes
/// relative to the DIFile's directory (the main file's): the file names become whole paths, so
/// that a diagnostic names (and shows) the right file whatever the working directory (CMake and
/// Ninja compile in the build directory).
void absoluteDebugFileNames(llvm::Module &module) {
  for (llvm::DIFile *file : debugFiles(module)) {
    llvm::StringRef name = file->getFilename(), dir = file->getDirectory();
    if (name.empty() || dir.empty() || llvm::sys::path::is_absolute(name))
      continue;
    llvm::SmallString<256> full(dir);
    llvm::sys::path::append(full, name);
    llvm::sys::path::remove_dots(full, /*remove_dot_dot=*/true);
    // An input as the command line spells it (a relative path stays relative, so that the
    // file and line in a device assert's message name no directory of the machine).
    file->replaceOperandWith(0, llvm::MDString::get(module.getContext(), displayPath(full)));
  }
}

std::string describe(mlir::Location loc) {
  if (auto fileLoc = mlir::dyn_cast<mlir::FileLineColLoc>(oxide::userLocation(loc)))
    return (displayPath(fileLoc.getFilename().getValue()) + ":" + llvm::Twine(fileLoc.getLine()) + ":" +
            llvm::Twine(fileLoc.getColumn()))
        .str();
  return "an unknown location";
}

/// Every kernel must be able to run on the architecture compiled for (and on those `oxcc check`
/// checks without compiling for them). For one the user chose,
/// each kernel that cannot is an error; for a default one, the first such kernel is the reason
/// to leave the architecture out. A kernel that needs architecture-specific features (sm_90a)
/// runs on that architecture alone, for which the module is then compiled as its "a" target
/// (`*archSpecific`).
llvm::Error checkArchRequirements(mlir::ModuleOp module, const MlirStageOptions &options) {
  std::vector<std::pair<unsigned, std::string>> archs = {{options.arch, options.archName}};
  llvm::append_range(archs, options.alsoCheckArchs);
  bool failed = false;
  for (ArchRequirement &req : collectArchRequirements(module)) {
    const std::string kernelName = llvm::demangle(req.kernel.getSymName().str());
    const std::string needs = req.archSpecific
                                  ? requiredTargetName(req) + " (compute capability " +
                                        std::to_string(req.minArch / 10) + "." +
                                        std::to_string(req.minArch % 10) + " only: later GPUs do not have it)"
                                  : "sm_" + std::to_string(req.minArch) + " or newer";
    const bool atKernel = req.where == req.kernel.getLoc();
    for (const auto &[arch, archName] : archs) {
      if (req.archSpecific ? arch == req.minArch : req.minArch <= arch) {
        if (req.archSpecific && arch == options.arch && options.archSpecific)
          *options.archSpecific = true;
        continue;
      }
      if (!options.archChosen)
        return llvm::make_error<UnsupportedArchError>(
            "kernel '" + kernelName + "' " + req.feature +
                (atKernel ? std::string() : " at " + describe(req.where)) + ", which needs " + needs,
            req.minArch);
      // The --arch that works: the plain architecture (the driver compiles it as its "a" target).
      const std::string suggestion = "sm_" + std::to_string(req.minArch);
      mlir::InFlightDiagnostic diag = mlir::emitError(kernelLocation(req.kernel))
                                      << "kernel '" << kernelName << "' " << req.feature << ", which needs "
                                      << needs << ", but this build targets " << archName << "; remove "
                                      << archName << " from --arch (e.g. --arch=" << suggestion
                                      << "), or leave --arch out: the default architectures "
                                      << "leave out those a translation unit's kernels cannot run on";
      if (!atKernel)
        diag.attachNote(oxide::userLocation(req.where)) << "used here";
      failed = true;
    }
  }
  return failed ? reportedError("the architecture check") : llvm::Error::success();
}

} // namespace

std::vector<std::string> oxide::mlirPassNames() {
  mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
  buildOxidePipeline(pm);
  std::vector<std::string> names;
  for (mlir::Pass &pass : pm.getPasses())
    names.push_back(pass.getArgument().str());
  return names;
}

llvm::Expected<std::unique_ptr<llvm::Module>> oxide::runMlirStage(std::unique_ptr<llvm::Module> device,
                                                                  llvm::LLVMContext &ctx,
                                                                  const MlirStageOptions &options) {
  mlir::DialectRegistry registry;
  registry.insert<OxideDialect, mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect, mlir::DLTIDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  // Several device compiles may run at once, one context each; the passes work on whole
  // modules, so a context needs no threads of its own.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Users see their source lines; the IR of an op is noise in a diagnostic.
  context.printOpOnDiagnostic(false);

  // Errors are printed with their source line (from the line tables); the importer's warnings
  // about NVPTX data-layout tokens it does not model are noise for users.
  // They are printed as clang prints its own (DiagnosticFormat.h).
  llvm::raw_ostream &diagOut = options.diagnostics ? *options.diagnostics : llvm::errs();
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) -> mlir::LogicalResult {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Warning)
      printClangStyle(diag, diagOut);
    return mlir::success();
  });
  absoluteDebugFileNames(*device);

  std::string name = device->getModuleIdentifier();
  annotationsToFunctionAttributes(*device);
  // Inlining a function with restrict parameters leaves llvm.experimental.noalias.scope.decl
  // calls, which the MLIR import cannot take (it failed with the IR in the message); they only
  // inform alias analysis, so they go.
  if (llvm::Function *decl = llvm::Intrinsic::getDeclarationIfExists(
          device.get(), llvm::Intrinsic::experimental_noalias_scope_decl))
    for (llvm::User *user : llvm::make_early_inc_range(decl->users()))
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(user))
        call->eraseFromParent();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::translateLLVMIRToModule(std::move(device), &context, /*emitExpensiveWarnings=*/false);
  if (!module)
    return reportedError("importing device LLVM IR into MLIR");

  mlir::PassManager checking(&context);
  buildOxideCheckPipeline(checking);
  mlir::PassManager lowering(&context);
  buildOxideLowerPipeline(lowering);
  if (!options.printAfter.empty()) {
    checking.addInstrumentation(std::make_unique<PrintAfterPasses>(options.printAfter));
    lowering.addInstrumentation(std::make_unique<PrintAfterPasses>(options.printAfter));
  }
  if (mlir::failed(checking.run(*module)))
    return reportedError("the oxide dialect's checks");
  if (options.arch)
    if (auto err = checkArchRequirements(*module, options))
      return err;
  if (options.checksOnly)
    return nullptr;
  if (!options.macroPrefixMap.empty()) {
    llvm::SmallVector<mlir::Attribute> pairs;
    for (const PathPrefix &prefix : options.macroPrefixMap)
      pairs.push_back(mlir::StringAttr::get(&context, prefix.text()));
    (*module)->setAttr(OxideDialect::getMacroPrefixMapAttrName(), mlir::ArrayAttr::get(&context, pairs));
  }
  if (mlir::failed(lowering.run(*module)))
    return reportedError("lowering the oxide dialect");

  std::unique_ptr<llvm::Module> result = mlir::translateModuleToLLVMIR(*module, ctx, name);
  if (!result)
    return reportedError("translating MLIR back to LLVM IR");
  // oxide::constant and device_global variables are set by the host at run time: their
  // initializers must not be folded into the code. The MLIR import does not carry clang's
  // externally_initialized flag, so it is restored here.
  for (llvm::GlobalVariable &g : result->globals())
    if (isHostSetVariable(g))
      g.setExternallyInitialized(true);
  return result;
}
