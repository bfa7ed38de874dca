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
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/Import.h"
#include "llvm/Support/SourceMgr.h"

using namespace oxide;

llvm::Expected<std::unique_ptr<llvm::Module>> oxide::runMlirStage(std::unique_ptr<llvm::Module> device,
                                                                  llvm::LLVMContext &ctx,
                                                                  llvm::raw_ostream *dumpRaised) {
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

  mlir::PassManager raise(&context);
  raise.addPass(createOxideRaise());
  raise.addPass(createOxideVerifySafety());
  if (mlir::failed(raise.run(*module)))
    return reportedError("oxide-raise");
  if (dumpRaised)
    module->print(*dumpRaised);

  mlir::PassManager lower(&context);
  lower.addPass(createOxideOptimize());
  lower.addPass(createOxideToNVVM());
  if (mlir::failed(lower.run(*module)))
    return reportedError("oxide-to-nvvm");

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
