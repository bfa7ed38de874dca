//===- MemoryAccess.h - what an oxide op reads and writes -------*- C++ -*-===//
//
// The facts an op states through OxideMemoryAccessOpInterface (OxideInterfaces.td): each memory
// access it makes, through which operand, and under which rule the write proof
// (Oxide/Transforms/WriteProof.h) judges it.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_IR_MEMORYACCESS_H
#define OXIDE_IR_MEMORYACCESS_H

#include <cstdint>
#include <optional>
#include <string>

namespace oxide {

struct MemoryAccess {
  enum class Kind : std::uint8_t { Read, Write };

  /// Where the access must be, and how the write proof judges it.
  enum class Place : std::uint8_t {
    /// Anywhere a plain store may go: a write is judged by where it lands (the store-target,
    /// own-element, element-bounds... rules); a read needs no rule.
    Anywhere,
    /// Shared memory only (store-target); a write is then judged by where it lands, so it stays
    /// in bounds or is confined to shared memory.
    Shared,
    /// Shared memory only (store-target); the lowering addresses it through the shared window,
    /// so it cannot land elsewhere.
    SharedWindow,
    /// Global memory only, never a local variable or shared memory (ld.global, st.global): a
    /// write is store-target's, then judged by where it lands; a read span-origin's.
    Global,
    /// An mbarrier, a 64-bit object in shared memory that the hardware updates (store-target).
    Barrier,
    /// The descriptor of one of the kernel's read-only TensorMap parameters (span-origin).
    TensorMap,
    /// The memory of one of the kernel's Span<const T> inputs, which no thread writes during the
    /// launch (span-origin).
    InputSpan,
    /// The counter of one of the kernel's AppendSpan parameters (span-origin).
    AppendCounter,
    /// Global memory through a descriptor, which no rule can bound: refused (store-target).
    Unconfinable,
  };

  Kind kind;
  unsigned operand; ///< the operand that holds the address
  Place place;
  std::optional<std::int64_t> bytes; ///< how many bytes a write stores there; unknown: std::nullopt
  /// The access in words, as the subject of an error: "asynchronous copy (cp_async)"; for a
  /// Barrier, with how it uses the barrier ("mbarrier operation (mbarrier_init) takes a barrier").
  std::string subject;
  /// What the error advises when the access is not where `place` says.
  std::string remedy;
};

} // namespace oxide

#endif // OXIDE_IR_MEMORYACCESS_H
