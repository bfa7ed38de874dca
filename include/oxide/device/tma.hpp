// TMA (sm_90): the copy engine's bulk tensor copies from global into shared memory (tma::load)
// and back (tma::store, in kernels launched with oxide::unsafe_launch), described by a TensorMap
// that the host made (oxide::DeviceTensorMap, oxide/host/tensor_map.hpp).
//
// The element type, the box and the swizzle are part of the TensorMap's type, on the host and in
// the kernel, so that a launch accepts only a map made for the parameter, a copy lands only in a
// SharedMatrix of the box's shape and swizzle, and the bytes it completes are a constant:
//
//   using AMap = oxide::TensorMap<const oxide::bfloat16, oxide::Box<128, 64>, oxide::Swizzle::b128>;
//   [[kernel, ...]] void gemm(AMap a, ...) {
//     auto &s = oxide::dynamic_shared_object<Shared>();  // holds SharedMatrix<bf16, 128, 64, b128> a_tile
//     if (producer) {
//       s.full.arrive_expect_tx(AMap::box_bytes);
//       oxide::tma::load(s.a_tile, a, {row, k}, s.full);    // coordinates outermost first
//     }
//     s.full.wait(phase);                                   // consumers
//   }
//   // host: auto a = oxide::DeviceTensorMap<const bf16, Box<128, 64>, Swizzle::b128>::create(
//   //           stream, std::move(buffer), {m, k});
//
// Elements of a box outside the tensor land as zeros (and count in the bytes a copy completes).
//
// A store writes a SharedMatrix back into a box of a TensorMap of a mutable T, skipping the
// elements outside the tensor, except that the copy engine writes a row's innermost extent in
// whole 16-byte chunks (the padding up to the next 16-byte boundary past a row's end is written
// too; DeviceTensorMap refuses a writable map whose buffer ends inside that chunk):
//
//   using CMap = oxide::TensorMap<float, oxide::Box<64, 32>>;  // mutable float: stores allowed
//   oxide::fence_async_shared();   // every writer of s.c_tile, then
//   oxide::sync_threads();
//   if (oxide::thread_idx().x == 0) {
//     oxide::tma::store(c, {row, col}, s.c_tile);
//     oxide::tma::store_commit();
//     oxide::tma::store_wait<0>();   // s.c_tile may be reused after this
//   }
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/mbarrier.hpp"
#include "oxide/device/shared_matrix.hpp"

namespace oxide {

/// The shape of the box a TensorMap copies, outermost extent first, as a C array's dimensions:
/// Box<Rows, Cols> is a Rows x Cols tile of a row-major matrix. Rank 1 to 5, each extent 1..256.
template <std::uint32_t... Extents> struct Box {
  static_assert(sizeof...(Extents) >= 1 && sizeof...(Extents) <= 5, "an oxide::Box has rank 1 to 5");
  static_assert(((Extents >= 1 && Extents <= 256) && ...),
                "each extent of an oxide::Box is 1..256 (TMA's limit)");
  static constexpr std::uint32_t rank = sizeof...(Extents);
  /// Outermost first.
  static constexpr std::array<std::uint32_t, rank> extents{Extents...};
  static constexpr std::size_t elements = (std::size_t{Extents} * ...);
  /// The innermost extent (a row of the box) and the number of rows (all the others).
  static constexpr std::size_t cols = extents[rank - 1];
  static constexpr std::size_t rows = elements / cols;
};

namespace detail {
template <class T> inline constexpr bool is_box_v = false;
template <std::uint32_t... E> inline constexpr bool is_box_v<Box<E...>> = true;
template <class M> inline constexpr bool is_shared_matrix_v = false;
template <class T, std::size_t R, std::size_t C, Swizzle S>
inline constexpr bool is_shared_matrix_v<SharedMatrix<T, R, C, S>> = true;
struct TensorMapAccess;
} // namespace detail

/// A kernel parameter: the tensor map of a DeviceTensorMap<T, B, S> of the same type, through
/// which TMA copies read the tensor (tma::load, either T). With a mutable T, TMA stores
/// (tma::store) also write it: a kernel with a launch contract refuses them (the safe tier cannot
/// confine a write through a descriptor), so such a map is for kernels launched with
/// oxide::unsafe_launch.
template <class T, class B, Swizzle S = Swizzle::none> class TensorMap {
  static_assert(std::is_trivially_copyable_v<T> &&
                    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
                "a TensorMap's elements take 1, 2, 4 or 8 bytes");
  static_assert(detail::is_box_v<B>, "the second argument of oxide::TensorMap is an oxide::Box<...>");
  static_assert(B::cols * sizeof(T) % 16 == 0,
                "a TMA box's rows (its innermost extent) are a multiple of 16 bytes");
  static_assert(S == Swizzle::none || B::cols * sizeof(T) <= static_cast<std::size_t>(S),
                "a swizzled TMA box's rows are at most the swizzle's width in bytes");
  static_assert(B::elements * sizeof(T) < (std::size_t{1} << 20),
                "a TMA box's bytes must fit an mbarrier's transaction count (below 2^20)");

public:
  using element_type = T;
  using box_type = B;
  static constexpr Swizzle swizzle = S;
  static constexpr std::uint32_t rank = B::rank;
  /// Bytes one copy lands in shared memory and completes on its mbarrier (zeros outside the
  /// tensor included): what the producer announces with Mbarrier::arrive_expect_tx.
  static constexpr std::uint32_t box_bytes = static_cast<std::uint32_t>(B::elements * sizeof(T));
  /// The SharedMatrix a copy lands in: the box's rows (all but the innermost extent) by its columns.
  using matrix_type = SharedMatrix<std::remove_const_t<T>, B::rows, B::cols, S>;

  /// An empty map: launches bind a DeviceTensorMap instead; copies through it are undefined.
  constexpr TensorMap() noexcept = default;

private:
  friend struct detail::TensorMapAccess;
  explicit constexpr TensorMap(const void *map) noexcept : map_(map) {}
  const void *map_ = nullptr; ///< the 128-byte descriptor in device global memory
};

namespace detail {
template <class T> inline constexpr bool is_tensor_map_v = false;
template <class T, class B, Swizzle S> inline constexpr bool is_tensor_map_v<TensorMap<T, B, S>> = true;

/// The runtime makes TensorMap parameters; the copies read their descriptor.
struct TensorMapAccess {
  template <class Map> [[nodiscard]] static constexpr Map make(const void *map) noexcept { return Map(map); }
  template <class Map> [[nodiscard]] static constexpr const void *descriptor(const Map &map) noexcept {
    return map.map_;
  }
};

/// The mbarrier word of `bar` (an Mbarrier holds only it).
[[nodiscard]] inline std::uint64_t *mbarrier_word(Mbarrier &bar) noexcept {
  static_assert(sizeof(Mbarrier) == sizeof(std::uint64_t) && std::is_standard_layout_v<Mbarrier>);
  return reinterpret_cast<std::uint64_t *>(&bar);
}

template <class Matrix, class Map> constexpr void check_destination() noexcept {
  static_assert(is_shared_matrix_v<Matrix>, "tma::load copies into an oxide::SharedMatrix");
  static_assert(std::is_same_v<typename Matrix::value_type, std::remove_const_t<typename Map::element_type>>,
                "tma::load: the SharedMatrix's element type is not the TensorMap's");
  static_assert(Matrix::swizzle == Map::swizzle,
                "tma::load: the SharedMatrix's swizzle is not the TensorMap's");
  static_assert(Matrix::rows == Map::box_type::rows && Matrix::cols == Map::box_type::cols,
                "tma::load: the SharedMatrix does not have the box's shape (rows: the product of the box's "
                "outer extents, columns: its innermost extent); use TensorMap<...>::matrix_type");
}

template <class Matrix, class Map> constexpr void check_source() noexcept {
  static_assert(!std::is_const_v<typename Map::element_type>,
                "tma::store writes the tensor: its map is a TensorMap<T, ...> of a mutable T (the kernel "
                "parameter of a DeviceTensorMap<T, ...> made from a DeviceBuffer<T>)");
  static_assert(is_shared_matrix_v<Matrix>, "tma::store copies from an oxide::SharedMatrix");
  static_assert(std::is_same_v<typename Matrix::value_type, typename Map::element_type>,
                "tma::store: the SharedMatrix's element type is not the TensorMap's");
  static_assert(Matrix::swizzle == Map::swizzle,
                "tma::store: the SharedMatrix's swizzle is not the TensorMap's");
  static_assert(Matrix::rows == Map::box_type::rows && Matrix::cols == Map::box_type::cols,
                "tma::store: the SharedMatrix does not have the box's shape (rows: the product of the box's "
                "outer extents, columns: its innermost extent); use TensorMap<...>::matrix_type");
}

/// The copy's coordinates innermost first, as the intrinsics take them.
template <std::size_t Rank>
[[nodiscard]] constexpr std::array<std::int32_t, 5>
innermost_first(const std::array<std::int32_t, Rank> &c) noexcept {
  std::array<std::int32_t, 5> out{};
  for (std::size_t i = 0; i < Rank; ++i)
    out[i] = c[Rank - 1 - i];
  return out;
}
} // namespace detail

namespace tma {

/// Starts the copy of the box of `map` whose first element is at `coords` (outermost first, as the
/// Box's extents: {row, column} of a matrix; negative or past the end lands zeros) into `dst`, a
/// SharedMatrix of the box's shape, element type and swizzle in the block's shared memory. The
/// copy completes Map::box_bytes transaction bytes on `bar` (announce them with
/// arrive_expect_tx); wait on `bar` before reading `dst`. One thread issues it.
template <class Matrix, class T, class B, Swizzle S>
void load(Matrix &dst, const TensorMap<T, B, S> &map, const std::array<std::int32_t, B::rank> &coords,
          Mbarrier &bar) noexcept {
  detail::check_destination<Matrix, TensorMap<T, B, S>>();
  const auto c = detail::innermost_first(coords);
  __oxide_tma_load(&dst, detail::TensorMapAccess::descriptor(map), detail::mbarrier_word(bar), B::rank, c[0],
                   c[1], c[2], c[3], c[4]);
}

/// The same copy, landing at `dst`'s place in every block of the cluster whose bit is set in
/// `blocks` (bit r: the block of rank r) and completing Map::box_bytes on each one's barrier at
/// `bar`'s place.
template <class Matrix, class T, class B, Swizzle S>
void load_multicast(Matrix &dst, const TensorMap<T, B, S> &map,
                    const std::array<std::int32_t, B::rank> &coords, Mbarrier &bar,
                    std::uint16_t blocks) noexcept {
  detail::check_destination<Matrix, TensorMap<T, B, S>>();
  const auto c = detail::innermost_first(coords);
  __oxide_tma_load_multicast(&dst, detail::TensorMapAccess::descriptor(map), detail::mbarrier_word(bar),
                             B::rank, c[0], c[1], c[2], c[3], c[4], blocks);
}

/// Starts the copies of the boxes of `map` that fill `dst`'s panels: panel p from the box at
/// `coords` moved p * Panels::panel_cols along the innermost dimension (a row-major k x n B's
/// k0 x n0 tile, 64 columns a copy for bf16 in Swizzle::b128). The map's box is one panel
/// (Panels::panel_type: Rows x panel_cols); the copies complete Panels::bytes on `bar`.
template <class E, std::size_t R, std::size_t C, Swizzle MS, class T, class B, Swizzle S>
void load(SharedPanels<E, R, C, MS> &dst, const TensorMap<T, B, S> &map,
          const std::array<std::int32_t, B::rank> &coords, Mbarrier &bar) noexcept {
  using Panels = SharedPanels<E, R, C, MS>;
  detail::check_destination<typename Panels::panel_type, TensorMap<T, B, S>>();
  auto c = detail::innermost_first(coords);
  for (std::size_t p = 0; p < Panels::panels; ++p, c[0] += static_cast<std::int32_t>(Panels::panel_cols))
    __oxide_tma_load(&dst.panel[p], detail::TensorMapAccess::descriptor(map), detail::mbarrier_word(bar),
                     B::rank, c[0], c[1], c[2], c[3], c[4]);
}

/// Brings `map`'s descriptor into the copy engine's cache ahead of the first copy.
template <class T, class B, Swizzle S> void prefetch(const TensorMap<T, B, S> &map) noexcept {
  __oxide_tma_prefetch(detail::TensorMapAccess::descriptor(map));
}

/// Starts the copy of `src`, a SharedMatrix of the box's shape, element type and swizzle in the
/// block's shared memory, into the box of `map` whose first element is at `coords` (outermost
/// first, as for load); elements of the box outside the tensor are not written, but for the
/// padding of a row's last 16-byte chunk (see the top of this file). `map` is a
/// TensorMap of a mutable T. One thread issues it, after the threads that wrote `src` made their
/// stores visible to the copy engine (fence_async_shared(), then a barrier). The copy joins the
/// thread's next store_commit() group; `src` may be written again after store_wait<N>() lets that
/// group finish reading, and the tensor holds the box when the kernel has ended. A contracted
/// kernel refuses it: launch the kernel with oxide::unsafe_launch.
template <class Matrix, class T, class B, Swizzle S>
void store(const TensorMap<T, B, S> &map, const std::array<std::int32_t, B::rank> &coords,
           const Matrix &src) noexcept {
  detail::check_source<Matrix, TensorMap<T, B, S>>();
  const auto c = detail::innermost_first(coords);
  __oxide_tma_store(detail::TensorMapAccess::descriptor(map), &src, B::rank, c[0], c[1], c[2], c[3], c[4]);
}

/// Closes the calling thread's stores started since the last store_commit() into a group
/// (cp.async.bulk.commit_group).
inline void store_commit() noexcept { __oxide_tma_store_commit(); }

/// Waits until at most `Pending` (0..7) of the calling thread's committed store groups still read
/// their shared memory (cp.async.bulk.wait_group.read): the sources of all older groups may be
/// written again.
template <unsigned Pending = 0>
  requires(Pending <= 7)
inline void store_wait() noexcept {
  __oxide_tma_store_wait(Pending);
}

} // namespace tma

} // namespace oxide
