// Tensor cores at warp level (sm_80+): mma.sync fragments, ldmatrix and cp.async.
//
// One mma.sync multiplies a 16 x K tile A by a K x 8 tile B and adds a 16 x 8 tile C, the 32
// lanes of a warp each holding a few elements of every tile in registers: their fragments. The
// layouts below are PTX's ("Matrix Fragments for mma.m16n8k16" and its siblings); `coord(lane, i)`
// says which element of the tile element `i` of lane `lane`'s fragment is, and the simulator
// executes mma.sync with the same functions. Every lane of the warp must call these operations
// together (warp-collective), with the warp converged.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/half.hpp"
#include "oxide/device/intrinsics.hpp"
#include "oxide/device/span.hpp"

namespace oxide {

/// TensorFloat-32 as an element type of mma.sync: an f32 of which the tensor cores read the
/// sign, the exponent and the top 10 mantissa bits.
struct tf32 {
  float value;
};

/// `value` rounded to the nearest tf32 (ties away from zero, as cvt.rna.tf32.f32), as an f32.
constexpr float to_tf32(float value) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return value; // infinities and NaNs keep their bits
  return std::bit_cast<float>((bits + 0x1000u) & 0xffffe000u);
}

namespace mma {

/// A (row, column) position in a tile.
struct Coord {
  std::uint32_t row;
  std::uint32_t col;
  friend constexpr bool operator==(const Coord &, const Coord &) = default;
};

/// What mma.sync does with an input element type: the tile shape m16n8kK, how many elements
/// a 32-bit register holds, the accumulator type, and the type a fragment's elements read as.
template <class T> struct Traits;
template <> struct Traits<bfloat16> {
  static constexpr unsigned k = 16, per_register = 2;
  using value_type = bfloat16;
  using accumulator = float;
};
template <> struct Traits<half> {
  static constexpr unsigned k = 16, per_register = 2;
  using value_type = half;
  using accumulator = float;
};
template <> struct Traits<tf32> {
  static constexpr unsigned k = 8, per_register = 1;
  using value_type = float;
  using accumulator = float;
};
template <> struct Traits<std::int8_t> {
  static constexpr unsigned k = 32, per_register = 4;
  using value_type = std::int8_t;
  using accumulator = std::int32_t;
};

template <class T>
concept Multiplicand = requires { Traits<T>::k; };

namespace detail {
/// Element `w` (of Traits<T>::per_register) of a register, and the register with it replaced.
template <class T> constexpr typename Traits<T>::value_type element(std::uint32_t reg, unsigned w) noexcept {
  using V = typename Traits<T>::value_type;
  constexpr unsigned bits = 32 / Traits<T>::per_register;
  const std::uint32_t raw = bits == 32 ? reg : (reg >> (w * bits)) & ((1u << bits) - 1);
  if constexpr (sizeof(V) == 4)
    return std::bit_cast<V>(raw);
  else if constexpr (sizeof(V) == 2)
    return std::bit_cast<V>(static_cast<std::uint16_t>(raw));
  else
    return std::bit_cast<V>(static_cast<std::uint8_t>(raw));
}
template <class T>
constexpr std::uint32_t with_element(std::uint32_t reg, unsigned w,
                                     typename Traits<T>::value_type v) noexcept {
  using V = typename Traits<T>::value_type;
  constexpr unsigned bits = 32 / Traits<T>::per_register;
  std::uint32_t raw;
  if constexpr (sizeof(V) == 4)
    raw = std::bit_cast<std::uint32_t>(v);
  else if constexpr (sizeof(V) == 2)
    raw = std::bit_cast<std::uint16_t>(v);
  else
    raw = std::bit_cast<std::uint8_t>(v);
  if constexpr (bits == 32)
    return raw;
  const std::uint32_t mask = ((1u << bits) - 1) << (w * bits);
  return (reg & ~mask) | (raw << (w * bits));
}
} // namespace detail

/// A lane's part of the 16 x K tile A (row-major, "row" in PTX): 4 registers of
/// Traits<T>::per_register elements each. With g = lane / 4 and t = lane % 4, register r holds
/// row g + 8 * (r % 2), columns t * P + w (w < P elements per register), plus K / 2 for r >= 2.
template <Multiplicand T> struct FragmentA {
  using value_type = typename Traits<T>::value_type;
  static constexpr unsigned rows = 16, cols = Traits<T>::k, registers = 4;
  static constexpr unsigned size = registers * Traits<T>::per_register;

  std::uint32_t reg[registers] = {};

  /// The tile element that element `i` (< size) of lane `lane`'s fragment holds.
  static constexpr Coord coord(unsigned lane, unsigned i) noexcept {
    constexpr unsigned p = Traits<T>::per_register;
    const unsigned r = i / p, w = i % p;
    return {lane / 4 + 8 * (r % 2), (lane % 4) * p + w + (r >= 2 ? cols / 2 : 0)};
  }
  constexpr value_type get(unsigned i) const noexcept {
    return detail::element<T>(reg[i / Traits<T>::per_register], i % Traits<T>::per_register);
  }
  constexpr void set(unsigned i, value_type v) noexcept {
    auto &r = reg[i / Traits<T>::per_register];
    r = detail::with_element<T>(r, i % Traits<T>::per_register, v);
  }
};

/// A lane's part of the K x 8 tile B ("col" in PTX: each lane's elements run down a column):
/// 2 registers; register r holds rows t * P + w + r * K / 2, column g.
template <Multiplicand T> struct FragmentB {
  using value_type = typename Traits<T>::value_type;
  static constexpr unsigned rows = Traits<T>::k, cols = 8, registers = 2;
  static constexpr unsigned size = registers * Traits<T>::per_register;

  std::uint32_t reg[registers] = {};

  static constexpr Coord coord(unsigned lane, unsigned i) noexcept {
    constexpr unsigned p = Traits<T>::per_register;
    const unsigned r = i / p, w = i % p;
    return {(lane % 4) * p + w + r * (rows / 2), lane / 4};
  }
  constexpr value_type get(unsigned i) const noexcept {
    return detail::element<T>(reg[i / Traits<T>::per_register], i % Traits<T>::per_register);
  }
  constexpr void set(unsigned i, value_type v) noexcept {
    auto &r = reg[i / Traits<T>::per_register];
    r = detail::with_element<T>(r, i % Traits<T>::per_register, v);
  }
};

/// A lane's part of the 16 x 8 accumulator C (or result D), float or std::int32_t: element i
/// is row g + 8 * (i / 2), column t * 2 + i % 2.
template <class Acc> struct FragmentC {
  using value_type = Acc;
  static constexpr unsigned rows = 16, cols = 8, size = 4;

  Acc x[size] = {};

  static constexpr Coord coord(unsigned lane, unsigned i) noexcept {
    return {lane / 4 + 8 * (i / 2), (lane % 4) * 2 + i % 2};
  }
};

/// d = a * b + c for the warp's tiles (d may be c). bf16 and f16: m16n8k16; tf32: m16n8k8;
/// int8: m16n8k32 with a saturating s32 accumulator.
inline void mma_sync(FragmentC<float> &d, const FragmentA<bfloat16> &a, const FragmentB<bfloat16> &b,
                     const FragmentC<float> &c) noexcept {
  __oxide_mma_m16n8k16_bf16(d.x, a.reg, b.reg, c.x);
}
inline void mma_sync(FragmentC<float> &d, const FragmentA<half> &a, const FragmentB<half> &b,
                     const FragmentC<float> &c) noexcept {
  __oxide_mma_m16n8k16_f16(d.x, a.reg, b.reg, c.x);
}
inline void mma_sync(FragmentC<float> &d, const FragmentA<tf32> &a, const FragmentB<tf32> &b,
                     const FragmentC<float> &c) noexcept {
  __oxide_mma_m16n8k8_tf32(d.x, a.reg, b.reg, c.x);
}
inline void mma_sync(FragmentC<std::int32_t> &d, const FragmentA<std::int8_t> &a,
                     const FragmentB<std::int8_t> &b, const FragmentC<std::int32_t> &c) noexcept {
  __oxide_mma_m16n8k32_s8(d.x, a.reg, b.reg, c.x);
}

/// ldmatrix: `Count` (1, 2 or 4) 8x8 matrices of 16-bit elements from shared memory, one per
/// register. Lane l passes the address of row l % 8 of matrix l / 8 (16-byte aligned; lanes past
/// 8 * Count pass any address); register j of lane l gets row l / 4, columns 2 * (l % 4) and
/// 2 * (l % 4) + 1 of matrix j (the low half holds the first).
template <unsigned Count, class T>
  requires(sizeof(T) == 2 && (Count == 1 || Count == 2 || Count == 4))
inline void ldmatrix(std::uint32_t (&fragment)[Count], const T *row) noexcept {
  __oxide_ldmatrix(fragment, row, Count, 0);
}
/// ldmatrix .trans: register j of lane l gets rows 2 * (l % 4) and 2 * (l % 4) + 1 of column
/// l / 4 of matrix j.
template <unsigned Count, class T>
  requires(sizeof(T) == 2 && (Count == 1 || Count == 2 || Count == 4))
inline void ldmatrix_trans(std::uint32_t (&fragment)[Count], const T *row) noexcept {
  __oxide_ldmatrix(fragment, row, Count, 1);
}

/// stmatrix (sm_90): the inverse of ldmatrix. Stores `Count` (1, 2 or 4) 8x8 matrices of 16-bit
/// elements from `fragment` into shared memory, in ldmatrix's layout: lane l passes the address of
/// row l % 8 of matrix l / 8 (16-byte aligned; lanes past 8 * Count pass any address), and register
/// j of lane l holds row l / 4, columns 2 * (l % 4) and 2 * (l % 4) + 1 of matrix j (the low half
/// the first). That is the layout of an mma.sync accumulator pair packed into one register, and of
/// a wgmma accumulator's 8 x 8 pieces: a warp writes its C tile out as 16-bit values in one
/// instruction. Every lane of the warp calls it together.
template <unsigned Count, class T>
  requires(sizeof(T) == 2 && !std::is_const_v<T> && (Count == 1 || Count == 2 || Count == 4))
inline void stmatrix(T *row, const std::uint32_t (&fragment)[Count]) noexcept {
  __oxide_stmatrix(row, fragment, Count, 0);
}
/// stmatrix .trans: register j of lane l goes to rows 2 * (l % 4) and 2 * (l % 4) + 1 of column
/// l / 4 of matrix j (the inverse of ldmatrix_trans).
template <unsigned Count, class T>
  requires(sizeof(T) == 2 && !std::is_const_v<T> && (Count == 1 || Count == 2 || Count == 4))
inline void stmatrix_trans(T *row, const std::uint32_t (&fragment)[Count]) noexcept {
  __oxide_stmatrix(row, fragment, Count, 1);
}

/// A's fragment of the 16 x 16 row-major tile at `tile` in shared memory (`stride` elements
/// between rows): one ldmatrix.x4.
template <class T>
  requires(sizeof(T) == 2)
inline void load_a(FragmentA<T> &a, const T *tile, std::size_t stride) noexcept {
  const std::uint32_t lane = __oxide_lane_id();
  ldmatrix<4>(a.reg, tile + (lane % 16) * stride + (lane / 16) * 8);
}
/// B's fragment of the 16 x 8 tile stored transposed, as 8 rows of 16 k-elements (the n-th row
/// at `tile + n * stride`): one ldmatrix.x2.
template <class T>
  requires(sizeof(T) == 2)
inline void load_b(FragmentB<T> &b, const T *tile, std::size_t stride) noexcept {
  const std::uint32_t lane = __oxide_lane_id();
  ldmatrix<2>(b.reg, tile + (lane % 8) * stride + ((lane / 8) % 2) * 8);
}
/// B's fragment of the 16 x 8 row-major tile at `tile` (16 rows of 8 n-elements): one
/// ldmatrix.x2.trans.
template <class T>
  requires(sizeof(T) == 2)
inline void load_b_trans(FragmentB<T> &b, const T *tile, std::size_t stride) noexcept {
  const std::uint32_t lane = __oxide_lane_id();
  ldmatrix_trans<2>(b.reg, tile + (lane % 16) * stride);
}

} // namespace mma

/// Asynchronous global-to-shared copies (cp.async): each thread starts copies, closes them into
/// a group with commit_group(), and wait_group<N>() lets all but its N newest groups land. The
/// destination must be shared memory and, in a kernel with a contract, the source an element of
/// a Span<const T> parameter (the compiler checks both). Other threads see the data after the
/// wait and a barrier.
namespace cp_async {

/// Copies elements [i, i + Bytes / sizeof(T)) of `src` to `dst` (shared memory, aligned to
/// Bytes, as the element of `src`); stops the kernel when they are not all in bounds.
template <std::size_t Bytes, class T>
  requires(Bytes == 4 || Bytes == 8 || Bytes == 16) && (Bytes % sizeof(T) == 0)
inline void copy(T *dst, Span<const T> src, std::size_t i) noexcept {
  constexpr std::size_t n = Bytes / sizeof(T);
  if (i >= src.size() || src.size() - i < n) [[unlikely]]
    __oxide_bounds_fail(i >= src.size() ? i : i + n - 1, src.size());
  __oxide_cp_async(dst, src.data() + i, Bytes, Bytes);
}

/// The same, but the elements past the end of `src` land as zeros (cp.async's src-size): for
/// the ragged edges of a tile.
template <std::size_t Bytes, class T>
  requires(Bytes == 4 || Bytes == 8 || Bytes == 16) && (Bytes % sizeof(T) == 0)
inline void copy_or_zero(T *dst, Span<const T> src, std::size_t i) noexcept {
  constexpr std::size_t n = Bytes / sizeof(T);
  const std::size_t inside = i < src.size() ? (src.size() - i < n ? src.size() - i : n) : 0;
  __oxide_cp_async(dst, inside ? src.data() + i : src.data(), Bytes,
                   static_cast<std::uint32_t>(inside * sizeof(T)));
}

/// Closes the calling thread's copies started since the last commit into a group.
inline void commit_group() noexcept { __oxide_cp_async_commit(); }

/// Waits until at most N of the calling thread's committed groups are still in flight.
template <unsigned N>
  requires(N <= 7)
inline void wait_group() noexcept {
  __oxide_cp_async_wait(N);
}

/// Waits for every committed group.
inline void wait_all() noexcept { wait_group<0>(); }

} // namespace cp_async

} // namespace oxide
