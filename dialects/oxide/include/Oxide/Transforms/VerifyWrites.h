//===- VerifyWrites.h - where a contracted kernel's writes land -*- C++ -*-===//
//
// The safety model's central proof: in a kernel with a launch contract, and in every function it
// reaches, each write (store, atomic, memcpy/memset/memmove destination, write through a call)
// lands in
//   (a) thread-private memory: a local variable (an alloca) or the kernel's copy of a parameter;
//   (b) the block's shared memory (the documented tier-2 exception);
//   (c) the calling thread's own DisjointSpan element, as `oxide.disjoint_get` names it for the
//       thread's witness, at a constant offset inside that element; or
//   (d) an AtomicSpan element (`oxide.span_elem` of an AtomicSpan parameter), by atomics only.
// Pointers to (c) never leave the thread: they are not stored, converted to integers or passed
// to code that is not checked. Inline assembly and calls to code outside the translation unit
// are rejected. Writes to (a) and (b) at offsets that are not constant are confined to their
// address space (the store is made through a local or shared pointer), so no arithmetic on such
// a pointer reaches global memory.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_VERIFYWRITES_H
#define OXIDE_VERIFYWRITES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace oxide {

/// Checks every write of the contracted kernels of `module` and of what they reach, reports each
/// violation at the user's line, and confines the writes that need it. Fails when any write
/// breaks a rule.
mlir::LogicalResult verifyWrites(mlir::ModuleOp module,
                                 llvm::ArrayRef<mlir::LLVM::LLVMFuncOp> contractedKernels);

} // namespace oxide

#endif // OXIDE_VERIFYWRITES_H
