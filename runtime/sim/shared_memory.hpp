// A block's shared memory: the dynamic area sized at launch, then the static arrays, each
// allocated the first time a thread of the block reaches its declaration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace oxide::detail::sim {

class SharedMemory {
public:
  /// What a Hopper GPU (sm_90) gives a block once its limit is raised, as the runtime does for
  /// launches above 48 KiB: static plus dynamic shared memory (227 KiB).
  static constexpr std::size_t kLimitBytes = 227 * 1024;
  /// The byte the checking mode fills shared memory with: reads of it give NaN floats and -1.
  static constexpr unsigned char kPoison = 0xff;
  /// Dynamic shared memory is this aligned (the device API promises 16).
  static constexpr std::size_t kAlignment = 128;
  /// The arena: room for the limit plus the padding that alignment and ASan's red zones add
  /// between arrays; whole pages, so that tracing can protect it (see set_traced).
  static constexpr std::size_t kArenaBytes = 2 * kLimitBytes;

  SharedMemory();

  /// Starts a new block: no static arrays, `dynamic_bytes` of dynamic memory (at most
  /// kLimitBytes, checked by prepare), poisoned when `poison` is set.
  void reset(std::size_t dynamic_bytes, bool poison) noexcept;

  /// The array of `site`, allocated on first use. nullptr when it does not fit in the limit.
  [[nodiscard]] void *allocate(const void *site, std::size_t bytes, std::size_t align) noexcept;

  /// Where a pointer into this block's shared memory points: into the dynamic area (`site` null)
  /// or into the static array of `site` (`bytes` and `align` as it was allocated with), at
  /// `offset` bytes from its start.
  struct Location {
    const void *site = nullptr;
    std::size_t offset = 0;
    std::size_t bytes = 0;
    std::size_t align = 0;
  };
  /// The location of `address`, or nullopt when it points into neither the dynamic area nor an
  /// allocated array (one past the end of an array counts as in it).
  [[nodiscard]] std::optional<Location> locate(const void *address) const noexcept;

  [[nodiscard]] void *dynamic_base() noexcept { return arena_.get(); }
  /// Whether `address` is in the arena (allocated or not).
  [[nodiscard]] bool in_arena(const void *address) const noexcept {
    const auto *p = static_cast<const std::byte *>(address);
    return p >= arena_.get() && p < arena_.get() + kArenaBytes;
  }

  /// Tracing of kernel accesses (OXIDE_SIM_WARP_RACES, sim/warp_races.hpp): while protected,
  /// every access to the arena faults; the simulator's own writes (the poison of a new array)
  /// open it around themselves.
  void protect(bool on) noexcept;
  [[nodiscard]] std::size_t dynamic_bytes() const noexcept { return dynamic_bytes_; }
  /// Bytes of static shared memory the block's arrays take.
  [[nodiscard]] std::size_t static_bytes() const noexcept { return static_bytes_; }

private:
  [[nodiscard]] std::size_t dynamic_end() const noexcept {
    return (dynamic_bytes_ + kAlignment - 1) / kAlignment * kAlignment;
  }

  struct Unmap {
    void operator()(std::byte *p) const noexcept;
  };
  std::unique_ptr<std::byte[], Unmap> arena_;
  bool protected_ = false;
  std::size_t dynamic_bytes_ = 0;
  std::size_t static_bytes_ = 0;
  std::size_t used_ = 0; ///< arena bytes in use, padding included
  bool poison_ = false;
  struct Array {
    const void *site;
    void *memory;
    std::size_t bytes;
    std::size_t align;
  };
  std::vector<Array> sites_; // few per kernel: a linear search is fastest
};

/// Where `word` lies, for a report: its offset in its array, and whether that is the dynamic area
/// (the arena's offset for memory no array holds). Only reads the array table: signal-safe.
inline std::pair<std::uintptr_t, bool> place_in_shared(const SharedMemory &shared,
                                                       std::uintptr_t word) noexcept {
  if (const auto location = shared.locate(reinterpret_cast<const void *>(word)))
    return {location->offset, location->site == nullptr};
  return {word - reinterpret_cast<std::uintptr_t>(const_cast<SharedMemory &>(shared).dynamic_base()), false};
}

} // namespace oxide::detail::sim
