//===- MlirStage.cpp - device IR through the oxide dialect ----------------===//

#include "oxide/compiler/MlirStage.h"

#include "oxide/compiler/Annotations.h"
#include "oxide/compiler/ReportedError.h"
#include "llvm/IR/GlobalVariable.h"

#include "Oxide/OxideDialect.h"
#include "Oxide/OxidePasses.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/Import.h"
#include "llvm/Support/SourceMgr.h"

using namespace oxide;

namespace {

/// Raising and the safety model's checks: the oxide dialect as the user's code produced it.
void addCheckingPasses(mlir::OpPassManager &pm) {
  pm.addPass(createOxideRaise());
  pm.addPass(createOxideVerifySafety());
}

/// From the checked oxide dialect to LLVM + NVVM.
void addLoweringPasses(mlir::OpPassManager &pm) {
  pm.addPass(createOxideOptimize());
  pm.addPass(createOxideToNVVM());
}

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

} // namespace

std::vector<std::string> oxide::mlirPassNames() {
  mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
  addCheckingPasses(pm);
  addLoweringPasses(pm);
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
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Users see their source lines; the IR of an op is noise in a diagnostic.
  context.printOpOnDiagnostic(false);

  // Errors are printed with their source line (from the line tables); the importer's warnings
  // about NVPTX data-layout tokens it does not model are noise for users.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, llvm::errs());
  context.getDiagEngine().registerHandler([&](mlir::Diagnostic &diag) -> mlir::LogicalResult {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Warning)
      return mlir::success();
    return mlir::failure(); // fall through to the SourceMgr handler
  });

  std::string name = device->getModuleIdentifier();
  annotationsToFunctionAttributes(*device);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::translateLLVMIRToModule(std::move(device), &context, /*emitExpensiveWarnings=*/false);
  if (!module)
    return reportedError("importing device LLVM IR into MLIR");

  mlir::PassManager checking(&context);
  addCheckingPasses(checking);
  mlir::PassManager lowering(&context);
  addLoweringPasses(lowering);
  if (!options.printAfter.empty()) {
    checking.addInstrumentation(std::make_unique<PrintAfterPasses>(options.printAfter));
    lowering.addInstrumentation(std::make_unique<PrintAfterPasses>(options.printAfter));
  }
  if (mlir::failed(checking.run(*module)))
    return reportedError("the oxide dialect's checks");
  if (mlir::failed(lowering.run(*module)))
    return reportedError("lowering the oxide dialect");

  std::unique_ptr<llvm::Module> result = mlir::translateModuleToLLVMIR(*module, ctx, name);
  if (!result)
    return reportedError("translating MLIR back to LLVM IR");
  // oxide::constant variables (the module's external constant-memory definitions) are set by
  // the host at run time: their initializers must not be folded into the code. The MLIR import
  // does not carry clang's externally_initialized flag, so it is restored here.
  for (llvm::GlobalVariable &g : result->globals())
    if (!g.isDeclaration() && g.getAddressSpace() == 4 && g.hasExternalLinkage())
      g.setExternallyInitialized(true);
  return result;
}
