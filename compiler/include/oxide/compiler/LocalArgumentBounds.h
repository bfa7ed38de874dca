//===- LocalArgumentBounds.h - a caller's local array's bounds, passed to helpers ---*- C++ -*-===//
//
// A write into a thread's local array is tested against the array where the optimised code
// does not prove it inside (GuardedWrites.cpp on the GPU, SimWriteChecks.cpp on the simulator).
// A helper that is not inlined (recursive, as std::sort's introsort loop, or `noinline`) and
// writes through a pointer argument into its caller's array does not know that array: this
// utility gives such a helper the array's bytes as two extra parameters, passed down from the
// call that made the pointer, so that the write checks can test the write there.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_LOCALARGUMENTBOUNDS_H
#define OXIDE_COMPILER_LOCALARGUMENTBOUNDS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace llvm {
class AllocaInst;
class Argument;
class CallBase;
class DataLayout;
class Function;
class Instruction;
class Module;
class Value;
} // namespace llvm

namespace oxide {

/// The suffix of a helper's clone that takes bounds (what a message names is the helper).
inline constexpr char kBoundedSuffix[] = ".oxide.bounded";

/// The bytes [lo, hi) of the local array a pointer argument points into, as generic addresses
/// (i64). A pointer that is not into a local array (an element of a span) gets [0, 2^64 - 1).
struct LocalBounds {
  llvm::Value *lo;
  llvm::Value *hi;
};

/// One of the thread's arrays a write may land in: an alloca of the function that writes, or a
/// caller's array whose bounds a bounded argument brings.
struct LocalArray {
  const llvm::AllocaInst *alloca;
  std::uint64_t bytes;
  const LocalBounds *bounds;
};

/// The size of the elements of `array` (an array of arrays: the innermost); 1 for other types.
std::uint64_t localElementUnit(const llvm::AllocaInst &array, const llvm::DataLayout &layout);

/// The test, built at the builder's insertion point, that a write of `width` bytes (i64) at
/// `pointer` lands in none of `arrays` (`0 <= address - start <= bytes - width` fails for every
/// one), and what its report says: the offset into the first array and that array's size, both
/// in its elements (`unit`: the alloca's element size; for a caller's array, `fixedWidth`, else
/// 1). The GPU's final audit (GuardedWrites.cpp) and the simulator's write checks
/// (SimWriteChecks.cpp) both stop the thread where `outside` holds.
struct LocalArrayTest {
  llvm::Value *outside;
  llvm::Value *offset;
  llvm::Value *count;
  llvm::Value *unit;
};
LocalArrayTest testInsideLocalArrays(llvm::IRBuilder<> &b, llvm::Value *pointer, llvm::Value *width,
                                     llvm::ArrayRef<LocalArray> arrays,
                                     std::optional<std::uint64_t> fixedWidth);

/// The defined functions that `kernels` reach through calls, kernels first: a direct call's
/// callee, and for a call through a pointer every function whose address is taken and that
/// `mayBeCalledThrough(call, function)` admits. The GPU's audit admits all of them (a call
/// through a cast pointer may reach a function of another type); the simulator's host module,
/// which holds the whole program, those of the call's type.
llvm::SetVector<llvm::Function *>
reachedFunctions(llvm::ArrayRef<llvm::Function *> kernels,
                 llvm::function_ref<bool(const llvm::CallBase &, const llvm::Function &)> mayBeCalledThrough);

/// What boundLocalArguments did.
struct BoundedArguments {
  /// The checked helpers as they now are (a helper that needed bounds replaced by its clone).
  llvm::SetVector<llvm::Function *> helpers;
  /// The bounds of each pointer argument through which a write (or a call passing it on) may
  /// reach a caller's local array.
  llvm::DenseMap<const llvm::Argument *, LocalBounds> bounds;
  /// Calls that pass such an argument a pointer that may be into a local array or elsewhere,
  /// and the local writes of helpers that need bounds but are also called through pointers:
  /// they stay untested there.
  std::vector<const llvm::Instruction *> untold;
};

/// For the helpers `helpers` (defined functions that `kernels` reach), the writes whose address
/// `localWrite` returns (null for a write that cannot land in a caller's local array), and the
/// pointer arguments those addresses are based on: gives each helper that needs them a clone
/// with two i64 parameters per such argument, the array's bounds, and makes every call of the
/// kernels and checked helpers call the clone with the bounds of the array it passes (an alloca
/// of the caller, or the caller's own bounded argument). Helpers that unchecked code also calls
/// keep their original for it.
BoundedArguments boundLocalArguments(llvm::Module &module, llvm::ArrayRef<llvm::Function *> kernels,
                                     llvm::ArrayRef<llvm::Function *> helpers,
                                     llvm::function_ref<const llvm::Value *(llvm::Instruction &)> localWrite);

} // namespace oxide

#endif
