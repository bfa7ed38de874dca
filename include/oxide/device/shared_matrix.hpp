// Matrices in shared memory laid out for Hopper's asynchronous units: the copy engine (TMA,
// oxide/device/tma.hpp) writes them and the warpgroup tensor cores (oxide/device/wgmma.hpp) read
// them, both in the same swizzled layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace oxide {

/// How the 16-byte chunks of a matrix's rows are permuted so that the 8 rows a tensor-core
/// access reads fall in different shared-memory banks: the width of the pattern in bytes.
/// The byte at offset o of a swizzled matrix lives at o ^ (((o >> 7) & m) << 4), with m = 7, 3
/// and 1 for 128, 64 and 32 bytes (CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3>); `none` keeps
/// plain rows.
enum class Swizzle : std::uint32_t { none = 0, b32 = 32, b64 = 64, b128 = 128 };

namespace detail {
/// The storage offset of logical byte offset `o` of a matrix in swizzle `s` (the matrix starts
/// at a multiple of 1024 bytes, where the hardware's pattern, taken from address bits, repeats).
[[nodiscard]] constexpr std::size_t swizzled_offset(std::size_t o, Swizzle s) noexcept {
  const std::size_t mask = s == Swizzle::b128 ? 7 : s == Swizzle::b64 ? 3 : s == Swizzle::b32 ? 1 : 0;
  return o ^ (((o >> 7) & mask) << 4);
}
} // namespace detail

/// A Rows x Cols row-major matrix of T in shared memory, rows Cols * sizeof(T) bytes long; in a
/// swizzle, a row is exactly the swizzle's width (e.g. 64 bf16 for Swizzle::b128) and the rows
/// come in groups of 8 (1024 bytes for b128). Use it as a member of the block's shared struct
/// (oxide::dynamic_shared_object); index it with operator(), which applies the swizzle.
template <class T, std::size_t Rows, std::size_t Cols, Swizzle S = Swizzle::none>
struct alignas(S == Swizzle::none ? 128 : 1024) SharedMatrix {
  static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4),
                "a SharedMatrix holds 1-, 2- or 4-byte elements");
  static_assert(Rows > 0 && Cols > 0, "a SharedMatrix needs at least one element");
  static_assert(S == Swizzle::none || Cols * sizeof(T) == static_cast<std::size_t>(S),
                "a swizzled SharedMatrix's rows are exactly the swizzle's width in bytes");
  static_assert(S == Swizzle::none || Rows % 8 == 0, "a swizzled SharedMatrix has whole groups of 8 rows");

  using value_type = T;
  static constexpr std::size_t rows = Rows, cols = Cols, row_bytes = Cols * sizeof(T),
                               bytes = Rows * row_bytes;
  static constexpr Swizzle swizzle = S;

  T elements[Rows * Cols];

  /// Element (r, c), wherever the swizzle keeps it. r < Rows and c < Cols.
  [[nodiscard]] constexpr T &operator()(std::size_t r, std::size_t c) noexcept {
    return elements[detail::swizzled_offset((r * Cols + c) * sizeof(T), S) / sizeof(T)];
  }
  [[nodiscard]] constexpr const T &operator()(std::size_t r, std::size_t c) const noexcept {
    return elements[detail::swizzled_offset((r * Cols + c) * sizeof(T), S) / sizeof(T)];
  }
};

/// A Rows x Cols row-major matrix of T in shared memory, kept as Cols / W column panels of W
/// columns, W being the swizzle's width in elements (64 bf16 for Swizzle::b128): panel p is a
/// SharedMatrix<T, Rows, W, S> holding columns [p W, p W + W). It is how a matrix whose rows run
/// along the MN dimension of a product reaches the tensor cores: a row-major k x n B (or a
/// k x m A stored column by column), which wgmma reads MN-major. The copy engine fills a panel
/// per copy (tma::load with a box of Rows x W); operator() indexes it like a SharedMatrix.
template <class T, std::size_t Rows, std::size_t Cols, Swizzle S> struct SharedPanels {
  static_assert(S != Swizzle::none, "SharedPanels are swizzled (Swizzle::b32, b64 or b128)");
  static constexpr std::size_t panel_cols =
      S == Swizzle::none ? Cols : static_cast<std::size_t>(S) / sizeof(T);
  static_assert(Cols % panel_cols == 0,
                "SharedPanels' columns are whole panels: a multiple of the swizzle's width in elements");

  using value_type = T;
  using panel_type = SharedMatrix<T, Rows, panel_cols, S>;
  /// `bytes`: the elements' bytes, what loading every panel completes on an mbarrier.
  static constexpr std::size_t rows = Rows, cols = Cols, panels = Cols / panel_cols,
                               bytes = panels * panel_type::bytes;
  static constexpr Swizzle swizzle = S;

  panel_type panel[panels];

  /// Element (r, c), wherever its panel and the swizzle keep it. r < Rows and c < Cols.
  [[nodiscard]] constexpr T &operator()(std::size_t r, std::size_t c) noexcept {
    return panel[c / panel_cols](r, c % panel_cols);
  }
  [[nodiscard]] constexpr const T &operator()(std::size_t r, std::size_t c) const noexcept {
    return panel[c / panel_cols](r, c % panel_cols);
  }
};

} // namespace oxide
