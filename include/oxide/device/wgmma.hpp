// Warpgroup tensor cores (Hopper, sm_90a): wgmma.mma_async with both operands in shared memory.
//
// A warpgroup is 4 consecutive warps of a block whose first warp's index is a multiple of 4:
// threads 128 g .. 128 g + 127 by linear thread index. One wgmma multiplies a 64 x K tile of A by
// a K x N tile of B into a 64 x N accumulator spread over the warpgroup's registers, K being 32
// bytes of the multiplicand (16 bf16/f16, 8 tf32, 32 fp8/int8). A and B are SharedMatrix tiles
// in the K-major layout (each row of A, and each row of B^T, holds consecutive k: a row-major A
// and a row-major n x k matrix B^T, as a linear layer's weights are stored), swizzled, as the
// copy engine (oxide/device/tma.hpp) writes them. The operations are asynchronous:
//
//   wgmma::fence();                        // accumulators and shared memory ready
//   wgmma::mma_async(acc, a, row0, b, 0);  // 64 x N += (64 x C) * (N x C)^T
//   wgmma::commit_group();
//   wgmma::wait_group<0>();                // acc valid, a and b reusable
//
// The kernel that uses them is compiled for sm_90a (the compiler picks it). The safe tier's
// writes from an accumulator go through DisjointSpan2D::warpgroup_tile_mut.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/device/half.hpp"
#include "oxide/device/intrinsics.hpp"
#include "oxide/device/mma.hpp"
#include "oxide/device/shared_matrix.hpp"

namespace oxide {

/// 8-bit floats (OCP FP8), as the tensor cores read them: E4M3 (no infinities, one NaN pattern
/// per sign, max 448) and E5M2 (IEEE-like, max 57344). Values are their bits; to_float and the
/// rounding conversions below work on the host and in kernels.
struct float8_e4m3 {
  std::uint8_t bits;
};
struct float8_e5m2 {
  std::uint8_t bits;
};

namespace detail {
/// The FP8 value of `f` with `M` mantissa bits and exponent bias `Bias`, rounded to nearest even,
/// saturating at `MaxBits` (the largest finite magnitude's bits); NaN stays NaN (`NanBits`).
template <unsigned M, int Bias, std::uint8_t MaxBits, std::uint8_t NanBits>
constexpr std::uint8_t to_fp8(float f) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(f);
  const std::uint8_t sign = static_cast<std::uint8_t>((u >> 24) & 0x80);
  const std::uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return sign | NanBits;
  const float a = std::bit_cast<float>(magnitude);
  // The smallest normal is 2^(1 - Bias); below it the step is 2^(1 - Bias - M).
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  const int e = exponent < 1 - Bias ? 1 - Bias : exponent;
  const float step = std::bit_cast<float>(static_cast<std::uint32_t>(e - static_cast<int>(M) + 127) << 23);
  const float q = a / step; // exact: a power-of-two division
  auto n = static_cast<std::uint32_t>(q);
  const float rest = q - static_cast<float>(n);
  if (rest > 0.5f || (rest == 0.5f && (n & 1)))
    ++n;
  // n * step with n < 2^(M+1): encode (a carry into the next binade is handled by the sum).
  const std::uint32_t encoded = static_cast<std::uint32_t>(e + Bias - 1) * (1u << M) + n;
  if (a >= 65536.0f * 65536.0f || encoded > MaxBits)
    return sign | MaxBits;
  return sign | static_cast<std::uint8_t>(encoded);
}
template <unsigned M, int Bias> constexpr float from_fp8(std::uint8_t bits) noexcept {
  const unsigned magnitude = bits & 0x7f, exponent = magnitude >> M, mantissa = magnitude & ((1u << M) - 1);
  const int e = exponent == 0 ? 1 - Bias : static_cast<int>(exponent) - Bias;
  const float scale = std::bit_cast<float>(static_cast<std::uint32_t>(e - static_cast<int>(M) + 127) << 23);
  const float value = static_cast<float>(exponent == 0 ? mantissa : mantissa | (1u << M)) * scale;
  return bits & 0x80 ? -value : value;
}
} // namespace detail

constexpr float8_e4m3 to_float8_e4m3(float value) noexcept {
  return {detail::to_fp8<3, 7, 0x7e, 0x7f>(value)};
}
constexpr float8_e5m2 to_float8_e5m2(float value) noexcept {
  return {detail::to_fp8<2, 15, 0x7b, 0x7f>(value)};
}
constexpr float to_float(float8_e4m3 value) noexcept {
  return (value.bits & 0x7f) == 0x7f ? std::bit_cast<float>(0x7fc00000u) : detail::from_fp8<3, 7>(value.bits);
}
constexpr float to_float(float8_e5m2 value) noexcept {
  if ((value.bits & 0x7c) == 0x7c)
    return (value.bits & 3) ? std::bit_cast<float>(0x7fc00000u)
                            : (value.bits & 0x80 ? -__builtin_huge_valf() : __builtin_huge_valf());
  return detail::from_fp8<2, 15>(value.bits);
}

namespace warpgroup {

inline constexpr std::uint32_t kThreads = 128;

/// The calling thread's warpgroup in its block (linear thread index / 128), the same for its
/// 128 threads: branch on it to give warpgroups roles (producer, consumers).
[[nodiscard]] inline std::uint32_t index() noexcept {
  return static_cast<std::uint32_t>(detail::thread_in_block() / kThreads);
}
/// The calling thread's place in its warpgroup, 0..127 (the `rank` of Accumulator::coord).
[[nodiscard]] inline std::uint32_t rank() noexcept {
  return static_cast<std::uint32_t>(detail::thread_in_block() % kThreads);
}

/// setmaxnreg: the calling warpgroup's register budget per thread becomes `Count` (a multiple
/// of 8 in 24..256). Every thread of the warpgroup calls it; it takes effect when the kernel
/// starts with a register cap (a launch contract's block size gives one).
template <std::uint32_t Count>
  requires(Count % 8 == 0 && Count >= 24 && Count <= 256)
inline void increase_registers() noexcept {
  __oxide_setmaxnreg(Count, 1);
}
template <std::uint32_t Count>
  requires(Count % 8 == 0 && Count >= 24 && Count <= 256)
inline void decrease_registers() noexcept {
  __oxide_setmaxnreg(Count, 0);
}

} // namespace warpgroup

namespace wgmma {

/// What wgmma does with a multiplicand type: its code, K per instruction, the accumulator type.
template <class T> struct Traits;
template <> struct Traits<bfloat16> {
  static constexpr intrinsic::WgmmaType type = intrinsic::WgmmaType::bf16;
  static constexpr unsigned k = 16;
  using accumulator = float;
};
template <> struct Traits<half> {
  static constexpr intrinsic::WgmmaType type = intrinsic::WgmmaType::f16;
  static constexpr unsigned k = 16;
  using accumulator = float;
};
template <> struct Traits<tf32> {
  static constexpr intrinsic::WgmmaType type = intrinsic::WgmmaType::tf32;
  static constexpr unsigned k = 8;
  using accumulator = float;
};
template <> struct Traits<float8_e4m3> {
  static constexpr intrinsic::WgmmaType type = intrinsic::WgmmaType::e4m3;
  static constexpr unsigned k = 32;
  using accumulator = float;
};
template <> struct Traits<float8_e5m2> {
  static constexpr intrinsic::WgmmaType type = intrinsic::WgmmaType::e5m2;
  static constexpr unsigned k = 32;
  using accumulator = float;
};
template <> struct Traits<std::int8_t> {
  static constexpr intrinsic::WgmmaType type = intrinsic::WgmmaType::s8;
  static constexpr unsigned k = 32;
  using accumulator = std::int32_t;
};

template <class T>
concept Multiplicand = requires { Traits<T>::k; };

/// The N of an m64nNk instruction for T: a multiple of 8 up to 256 (for int8: 8, 16, 24, 32,
/// then multiples of 16).
template <class T, std::uint32_t N>
concept Width = N >= 8 && N <= 256 && N % 8 == 0 &&
                (Traits<T>::type != intrinsic::WgmmaType::s8 || N <= 32 || N % 16 == 0);

/// A warpgroup's 64 x N accumulator: N / 2 registers per thread. Element i of the thread of
/// rank r (warpgroup::rank()) holds tile element coord(r, i).
template <Multiplicand T, std::uint32_t N>
  requires Width<T, N>
struct Accumulator {
  using value_type = typename Traits<T>::accumulator;
  static constexpr std::uint32_t rows = 64, cols = N, size = N / 2;

  value_type x[size] = {};

  [[nodiscard]] static constexpr mma::Coord coord(std::uint32_t rank, std::uint32_t i) noexcept {
    const std::uint32_t warp = rank / 32, lane = rank % 32;
    return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
  }
};

namespace detail {
/// The descriptor (PTX "Matrix Descriptor Format") of the K-major tile at rows row0.., columns
/// k0.. of `m`: start address >> 4, leading byte offset 1 (unused in a swizzle), stride byte
/// offset 8 rows >> 4, the swizzle mode in bits 62-63.
template <class T, std::size_t R, std::size_t C, Swizzle S>
[[nodiscard]] inline std::uint64_t descriptor(const SharedMatrix<T, R, C, S> &m, std::size_t row0,
                                              std::size_t k0) noexcept {
  using M = SharedMatrix<T, R, C, S>;
  constexpr std::uint64_t mode = S == Swizzle::b128 ? 1 : S == Swizzle::b64 ? 2 : 3;
  constexpr std::uint64_t stride = 8 * M::row_bytes;
  const std::uint64_t address =
      __oxide_shared_address(&m) + static_cast<std::uint32_t>(row0 * M::row_bytes + k0 * sizeof(T));
  return ((address & 0x3ffff) >> 4) | (std::uint64_t{1} << 16) | ((stride >> 4) << 32) | (mode << 62);
}
} // namespace detail

/// acc (+)= A * B^T: rows [a_row0, a_row0 + 64) of `a` times rows [b_row0, b_row0 + N) of `b`
/// (B^T's rows: the n of the product), over all C columns of both, as C / K instructions issued
/// back to back. Without Accumulate, acc = A * B^T. Warpgroup-collective and asynchronous: acc is
/// valid, and a and b may be overwritten, after a wait_group that covers its commit_group; call
/// fence() before it. The row offsets (multiples of 8) are checked before the first instruction
/// (the kernel stops when a tile does not fit), so that no call lands between the instructions
/// and their wait: ptxas would serialise them.
template <bool Accumulate = true, Multiplicand T, std::uint32_t N, std::size_t RA, std::size_t RB,
          std::size_t C, Swizzle SA, Swizzle SB>
  requires(SA != Swizzle::none && SB != Swizzle::none && C % Traits<T>::k == 0)
[[gnu::always_inline]] inline void mma_async(Accumulator<T, N> &acc, const SharedMatrix<T, RA, C, SA> &a,
                                             std::size_t a_row0, const SharedMatrix<T, RB, C, SB> &b,
                                             std::size_t b_row0) noexcept {
  if (a_row0 % 8 != 0 || a_row0 + 64 > RA || b_row0 % 8 != 0 || b_row0 + N > RB) [[unlikely]]
    __oxide_trap("wgmma::mma_async: the A or B tile is not inside its SharedMatrix");
  const std::uint64_t da = detail::descriptor(a, a_row0, 0), db = detail::descriptor(b, b_row0, 0);
  // Instruction i reads columns [i K, i K + K): i K sizeof(T) bytes on, in the descriptors'
  // start-address field (16-byte units; the tiles end below the field's 2^18 bytes).
  constexpr std::uint64_t step = Traits<T>::k * sizeof(T) / 16;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (__oxide_wgmma(acc.x, da + I * step, db + I * step, N, intrinsic::code(Traits<T>::type),
                   Accumulate || I > 0 ? 1 : 0, 0, 0),
     ...);
  }(std::make_index_sequence<C / Traits<T>::k>{});
}

/// Orders the warpgroup's earlier accesses to its accumulators and to shared memory before the
/// wgmmas that follow: before the first of a batch, and after touching the accumulators.
inline void fence() noexcept { __oxide_wgmma_fence(); }
/// Closes the wgmmas issued since the last commit into a group.
inline void commit_group() noexcept { __oxide_wgmma_commit_group(); }
/// Waits until at most N of the warpgroup's committed groups are in flight.
template <unsigned N>
  requires(N <= 7)
inline void wait_group() noexcept {
  __oxide_wgmma_wait_group(N);
}

} // namespace wgmma
} // namespace oxide
