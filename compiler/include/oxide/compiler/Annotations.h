//===- Annotations.h - reading clang's annotate attributes from IR -*- C++ -*-===//
#ifndef OXIDE_COMPILER_ANNOTATIONS_H
#define OXIDE_COMPILER_ANNOTATIONS_H

#include "llvm/ADT/FunctionExtras.h"
#include "llvm/IR/Module.h"

namespace oxide {

/// Calls `visit(function, text)` for every `annotate("text")` on a function in the module's
/// llvm.global.annotations.
void forEachFunctionAnnotation(llvm::Module &module,
                               llvm::function_ref<void(llvm::Function &, llvm::StringRef)> visit);

/// Turns the device compile's "oxide.<key>:<value>" annotations into string function
/// attributes ("oxide.contract" = "<canonical contract>", ...), which survive the trip through
/// MLIR, and drops llvm.global.annotations.
void annotationsToFunctionAttributes(llvm::Module &module);

} // namespace oxide

#endif
