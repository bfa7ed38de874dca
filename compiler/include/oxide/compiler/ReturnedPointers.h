//===- ReturnedPointers.h - objects read through helpers that return pointers ---*- C++ -*-===//
//
// A helper that is not inlined and returns a pointer it was given (`float *at(float *p, int i)
// { return p + i; }`) hides the object a write at its result lands in: both write checks (the
// GPU audit, GuardedWrites.cpp, and the simulator's, SimWriteChecks.cpp) read such calls back to
// the caller's object, to test the write against it.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_RETURNEDPOINTERS_H
#define OXIDE_COMPILER_RETURNEDPOINTERS_H

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace llvm {
class CallBase;
class Value;
} // namespace llvm

namespace oxide {

/// The objects of the caller (those of the arguments it maps to, read at `call`) that every
/// pointer the defined function `call` calls returns is based on; nullopt where it may return
/// anything else (its own memory, a global, a loaded pointer).
std::optional<llvm::SmallVector<const llvm::Value *, 2>> returnedObjects(const llvm::CallBase &call);

/// The objects `pointer` may be based on, through selects and phis (llvm::getUnderlyingObjects),
/// each call that returnedObjects reads back replaced by those objects, and a load from a local
/// variable that holds one pointer (an unoptimised function's parameter slot) by that pointer's,
/// through nested calls.
llvm::SmallVector<const llvm::Value *, 4> underlyingObjectsThroughCalls(const llvm::Value *pointer);

} // namespace oxide

#endif
