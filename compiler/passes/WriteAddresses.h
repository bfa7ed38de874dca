//===- WriteAddresses.h - a write and its address read back ---*- C++ -*-===//
//
// Private to the write audit (GuardedWrites.cpp, ProvedWrites.cpp): the kernel's parameters as the
// frontend described them, what one instruction writes, and its address
// read back as a base plus sum(scale * value) + constant bytes (GEPs, and the adds, shifts and
// multiplications by constants that InstCombine makes of their indices), all modulo 2^64.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_PASSES_WRITEADDRESSES_H
#define OXIDE_COMPILER_PASSES_WRITEADDRESSES_H

#include "oxide/compiler/IndexFacts.h"
#include "oxide/detail/param_kind.hpp"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace llvm {
class Argument;
class DataLayout;
class Function;
class Instruction;
class Value;
} // namespace llvm

namespace oxide::write_addresses {

/// One write: where, how many bytes (nullopt: not a constant) and whether it is atomic.
struct Write {
  llvm::Instruction *inst;
  llvm::Value *pointer;
  std::optional<uint64_t> bytes;
  bool atomic;
};

/// The write `inst` makes (a store, an atomic, a memory intrinsic's destination), if any.
std::optional<Write> asWrite(llvm::Instruction &inst, const llvm::DataLayout &layout);

/// A kernel parameter as the frontend described it (oxide.params, oxide.elem_sizes).
struct Parameter {
  std::string name;
  detail::ParamKind kind = detail::ParamKind::other;
  uint64_t elementSize = 0;
};

/// The parameters of contracted kernel `kernel`; nullopt where they are not described.
std::optional<llvm::SmallVector<Parameter, 8>> parameters(const llvm::Function &kernel);

/// A field of a by-value kernel parameter that a pointer was loaded from.
struct ParameterField {
  llvm::Argument *parameter;
  int64_t offset;
};

/// The by-value kernel parameter's field that `object` (a pointer) was loaded from, if any.
std::optional<ParameterField> loadedFrom(const llvm::Value *object);

/// An address as base + sum(scale * value) + constant bytes, modulo 2^64.
struct Address {
  llvm::Value *base = nullptr;
  llvm::SmallVector<std::pair<llvm::Value *, int64_t>, 4> terms;
  int64_t constant = 0;
};

/// `pointer` read back to the object it addresses, its terms scaled by multiples of `unit`
/// where the index arithmetic allows (the facts name element indices); nullopt through
/// anything but GEPs and address-space casts.
std::optional<Address> decompose(llvm::Value *pointer, int64_t unit, const llvm::DataLayout &layout);

/// The element index sum(scale / unit * value) of `address`, each value an atom (`whole`) or
/// read through its sums.
std::optional<index_facts::Linear> elementIndex(const Address &address, int64_t unit, bool whole);

} // namespace oxide::write_addresses

#endif // OXIDE_COMPILER_PASSES_WRITEADDRESSES_H
