// The simulator's TensorMap: the 128 bytes (64-byte aligned) of device global memory that a
// kernel's TensorMap parameter points to, holding what cuTensorMapEncodeTiled is told on a GPU.
// The runtime writes it (runtime/tensor_map.cpp); the simulator's TMA copies read it
// (sim/hopper.cpp). The one definition of the format.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oxide::detail::sim {

struct alignas(64) TensorMapImage {
  static constexpr std::uint32_t kMagic = 0x4d54584f; // "OXTM"
  static constexpr std::uint32_t kMaxRank = 5;

  std::uint32_t magic = kMagic;
  std::uint32_t rank = 0;                ///< 1..kMaxRank
  std::uint32_t element_bytes = 0;       ///< 1, 2, 4 or 8
  std::uint32_t swizzle_bytes = 0;       ///< 0 (none), 32, 64 or 128
  std::uint64_t data = 0;                ///< address of element (0, ..., 0)
  std::uint64_t extents[kMaxRank]{};     ///< elements per dimension, innermost (dimension 0) first
  std::uint64_t strides[kMaxRank - 1]{}; ///< bytes from index i to i + 1 of dimensions 1..rank-1
  std::uint32_t box[kMaxRank]{};         ///< the box's extents, innermost first; 1 past the rank
  std::uint32_t reserved = 0;

  /// Bytes of one box: what a copy of it completes on its mbarrier, zeros outside the tensor
  /// included.
  [[nodiscard]] constexpr std::uint64_t box_bytes() const noexcept {
    std::uint64_t bytes = element_bytes;
    for (std::uint32_t d = 0; d < rank && d < kMaxRank; ++d)
      bytes *= box[d];
    return bytes;
  }
};
static_assert(sizeof(TensorMapImage) == 128 && alignof(TensorMapImage) == 64,
              "a TensorMap takes the 128 bytes of a CUtensorMap");

} // namespace oxide::detail::sim
