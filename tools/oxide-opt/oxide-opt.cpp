//===- oxide-opt.cpp - mlir-opt with the oxide dialect --------------------===//
//
// Runs oxide passes on textual MLIR; the lit tests of the dialect are written against it.
//
//===----------------------------------------------------------------------===//

#include "Oxide/IR/OxideDialect.h"
#include "Oxide/Pipelines/Pipelines.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  oxide::registerOxidePassesAndPipelines();
  mlir::DialectRegistry registry;
  registry.insert<oxide::OxideDialect, mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect, mlir::DLTIDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "Oxide optimizer driver\n", registry));
}
