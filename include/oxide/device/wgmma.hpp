// Warpgroup tensor cores (Hopper, sm_90a): wgmma.mma_async with both operands in shared memory.
//
// A warpgroup is 4 consecutive warps of a block whose first warp's index is a multiple of 4:
// threads 128 g .. 128 g + 127 by linear thread index. One wgmma multiplies a 64 x K tile of A by
// a K x N tile of B into a 64 x N accumulator spread over the warpgroup's registers, K being 32
// bytes of the multiplicand (16 bf16/f16, 8 tf32, 32 fp8/int8). A and B are swizzled tiles in
// shared memory, as the copy engine (oxide/device/tma.hpp) writes them, in either layout:
// - K-major, a SharedMatrix whose rows hold consecutive k: a row-major A, and a row-major n x k
//   W = B^T (a linear layer's weights);
// - MN-major (bf16 and f16), a SharedPanels whose rows hold consecutive m or n: a row-major k x n
//   B (V in attention's P V), or a column-major A.
// The operations are asynchronous:
//
//   wgmma::fence();                        // accumulators and shared memory ready
//   wgmma::mma_async(acc, a, row0, b, 0);  // 64 x N += (64 x K) * (K x N)
//   wgmma::commit_group();
//   wgmma::wait_group<0>();                // acc valid, a and b reusable
//
// The kernel that uses them is compiled for sm_90a (the compiler picks it). The safe tier's
// writes from an accumulator go through DisjointSpan2D::warpgroup_tile_mut.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
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
/// How wgmma reads a shared-memory operand (PTX "Matrix Descriptor Format", "Shared Memory Matrix
/// Layout"): its descriptor at offset mn0 along M (or N) and k 0, how far the descriptor's start
/// field (16-byte units) moves per instruction (K elements), and whether it is MN-major.
template <class M> struct Operand;

/// The swizzle's mode in a descriptor's bits 62-63.
template <Swizzle S>
inline constexpr std::uint64_t swizzle_mode = S == Swizzle::b128  ? 1
                                              : S == Swizzle::b64 ? 2
                                                                  : 3;

/// K-major: the matrix's rows are M (or N), its columns K. Leading byte offset 1 (unused in a
/// swizzle), stride byte offset 8 rows.
template <class T, std::size_t R, std::size_t C, Swizzle S> struct Operand<SharedMatrix<T, R, C, S>> {
  using matrix_type = SharedMatrix<T, R, C, S>;
  using value_type = T;
  static constexpr bool mn_major = false;
  static constexpr Swizzle swizzle = S;
  static constexpr std::size_t mn_extent = R, k_extent = C, mn_align = 8;
  template <class V> static constexpr std::uint64_t k_step = Traits<V>::k * sizeof(V) / 16;

  [[nodiscard]] static std::uint64_t descriptor(const matrix_type &m, std::size_t mn0) noexcept {
    constexpr std::uint64_t stride = 8 * matrix_type::row_bytes;
    const std::uint64_t address =
        __oxide_shared_address(&m) + static_cast<std::uint32_t>(mn0 * matrix_type::row_bytes);
    return ((address & 0x3ffff) >> 4) | (std::uint64_t{1} << 16) | ((stride >> 4) << 32) |
           (swizzle_mode<S> << 62);
  }
};

/// MN-major: the matrix's rows are K, its columns M (or N), in panels of the swizzle's width.
/// Leading byte offset: from one panel to the next; stride byte offset: 8 rows (K) of a panel.
template <class T, std::size_t R, std::size_t C, Swizzle S> struct Operand<SharedPanels<T, R, C, S>> {
  using matrix_type = SharedPanels<T, R, C, S>;
  using panel_type = typename matrix_type::panel_type;
  using value_type = T;
  static constexpr bool mn_major = true;
  static constexpr Swizzle swizzle = S;
  static constexpr std::size_t mn_extent = C, k_extent = R, mn_align = matrix_type::panel_cols;
  template <class V> static constexpr std::uint64_t k_step = Traits<V>::k * panel_type::row_bytes / 16;

  [[nodiscard]] static std::uint64_t descriptor(const matrix_type &m, std::size_t mn0) noexcept {
    constexpr std::uint64_t leading = sizeof(panel_type), stride = 8 * panel_type::row_bytes;
    static_assert(leading >> 4 < (1u << 14), "a SharedPanels' panel is too large for a wgmma descriptor");
    const std::uint64_t address =
        __oxide_shared_address(&m) +
        static_cast<std::uint32_t>(mn0 / matrix_type::panel_cols * sizeof(panel_type));
    return ((address & 0x3ffff) >> 4) | ((leading >> 4) << 16) | ((stride >> 4) << 32) |
           (swizzle_mode<S> << 62);
  }
};

template <class M>
concept SharedOperand = requires { Operand<M>::mn_major; };
} // namespace detail

// diagnose_if (a clang extension, which -Wpedantic names) makes a constant offset outside the
// operand an error at the caller's line.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgcc-compat"

/// acc (+)= A * B: the 64 x K tile of A at M offset a_m0 times the K x N tile of B at N offset
/// b_n0, over all of the operands' K, as K / Traits<T>::k instructions issued back to back.
/// Without Accumulate, acc = A * B. Each operand is either
/// - a SharedMatrix, K-major: its rows are M (or N), its columns K. A row-major m x k A, and a
///   row-major n x k W whose transpose is B (a linear layer's weights), come this way; a_m0 and
///   b_n0 are rows, multiples of 8;
/// - a SharedPanels, MN-major (bf16 and f16 only): its rows are K, its columns M (or N). A
///   row-major k x n B comes this way; a_m0 and b_n0 are columns, multiples of the panel width,
///   and N is whole panels.
/// Warpgroup-collective and asynchronous: acc is valid, and a and b may be overwritten, after a
/// wait_group that covers its commit_group; call fence() before it. The offsets are checked
/// before the first instruction (the kernel stops when a tile does not fit), so that no call
/// lands between the instructions and their wait: ptxas would serialise them.
template <bool Accumulate = true, Multiplicand T, std::uint32_t N, detail::SharedOperand MA,
          detail::SharedOperand MB>
[[gnu::always_inline]] inline void mma_async(Accumulator<T, N> &acc, const MA &a, std::size_t a_m0,
                                             const MB &b, std::size_t b_n0) noexcept
    __attribute__((
        diagnose_if(a_m0 % detail::Operand<MA>::mn_align != 0 || a_m0 + 64 > detail::Operand<MA>::mn_extent,
                    "wgmma::mma_async: A's 64 rows at this offset are not inside its shared matrix (a "
                    "SharedMatrix's rows from a multiple of 8, a SharedPanels' columns from a panel's first)",
                    "error")))
    __attribute__((
        diagnose_if(b_n0 % detail::Operand<MB>::mn_align != 0 || b_n0 + N > detail::Operand<MB>::mn_extent,
                    "wgmma::mma_async: B's N columns at this offset are not inside its shared matrix (a "
                    "SharedMatrix's rows from a multiple of 8, a SharedPanels' columns from a panel's first)",
                    "error"))) {
  using OA = detail::Operand<MA>;
  using OB = detail::Operand<MB>;
  static_assert(std::is_same_v<typename OA::value_type, T> && std::is_same_v<typename OB::value_type, T>,
                "wgmma::mma_async: A's and B's elements are the accumulator's multiplicand type");
  static_assert(OA::swizzle != Swizzle::none && OB::swizzle != Swizzle::none,
                "wgmma::mma_async reads swizzled operands (Swizzle::b32, b64 or b128), as TMA lands them");
  static_assert(OA::k_extent == OB::k_extent && OA::k_extent % Traits<T>::k == 0,
                "wgmma::mma_async: A and B have the same K (a SharedMatrix's columns, a SharedPanels' rows), "
                "a multiple of the instruction's K (32 bytes of the type)");
  static_assert((!OA::mn_major && !OB::mn_major) || sizeof(T) == 2,
                "wgmma::mma_async: only bf16 and f16 operands may be MN-major (SharedPanels); tf32, FP8 and "
                "int8 operands are K-major (a SharedMatrix whose columns are K)");
  static_assert(
      64 % OA::mn_align == 0 && N % OB::mn_align == 0,
      "wgmma::mma_async: an MN-major operand's tile is whole panels (64 rows of A, N columns of B)");
  if (a_m0 % OA::mn_align != 0 || a_m0 + 64 > OA::mn_extent || b_n0 % OB::mn_align != 0 ||
      b_n0 + N > OB::mn_extent) [[unlikely]]
    __oxide_trap("wgmma::mma_async: the A or B tile is not inside its shared matrix");
  const std::uint64_t da = OA::descriptor(a, a_m0), db = OB::descriptor(b, b_n0);
  // Instruction i reads k in [i K, i K + K): its descriptors' start-address fields move i steps
  // (the tiles end below the field's 2^18 bytes).
  constexpr std::uint64_t step_a = OA::template k_step<T>, step_b = OB::template k_step<T>;
  [&]<std::size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) {
    (__oxide_wgmma(acc.x, da + I * step_a, db + I * step_b, N, intrinsic::code(Traits<T>::type),
                   Accumulate || I > 0 ? 1 : 0, OA::mn_major ? 1 : 0, OB::mn_major ? 1 : 0),
     ...);
  }(std::make_index_sequence<OA::k_extent / Traits<T>::k>{});
}

/// A 64 x K tile of A in the warpgroup's registers: the register-A form of mma_async
/// (FlashAttention's P V, P computed by the previous product). K / Traits<T>::k blocks of 4
/// 32-bit registers per thread; in each block, warp w of the warpgroup holds rows 16 w .. 16 w + 15
/// as mma.sync's m16nXkK A fragment (oxide/device/mma.hpp). Element i of the thread of rank r
/// (warpgroup::rank()) is tile element coord(r, i); to_register_a makes one from an accumulator.
template <Multiplicand T, std::uint32_t K>
  requires(K > 0 && K % Traits<T>::k == 0)
struct RegisterA {
  static constexpr std::uint32_t rows = 64, cols = K, blocks = K / Traits<T>::k, per_register = 4 / sizeof(T),
                                 size = blocks * 4 * per_register;

  std::uint32_t reg[blocks][4] = {};

  [[nodiscard]] static constexpr mma::Coord coord(std::uint32_t rank, std::uint32_t i) noexcept {
    const std::uint32_t warp = rank / 32, lane = rank % 32, block = i / (4 * per_register),
                        r = i / per_register % 4, e = i % per_register;
    return {16 * warp + lane / 4 + 8 * (r % 2),
            block * Traits<T>::k + lane % 4 * per_register + e + (r >= 2 ? Traits<T>::k / 2 : 0)};
  }
  [[nodiscard]] constexpr T get(std::uint32_t i) const noexcept {
    const std::uint32_t word = reg[i / (4 * per_register)][i / per_register % 4];
    return std::bit_cast<T>(static_cast<Bits>(word >> (i % per_register * 8 * sizeof(T))));
  }
  constexpr void set(std::uint32_t i, T value) noexcept {
    std::uint32_t &word = reg[i / (4 * per_register)][i / per_register % 4];
    const std::uint32_t shift = i % per_register * 8 * sizeof(T);
    const std::uint32_t mask = sizeof(T) == 4 ? ~0u : ((1u << 8 * sizeof(T)) - 1) << shift;
    word = (word & ~mask) | (std::uint32_t{std::bit_cast<Bits>(value)} << shift);
  }

private:
  using Bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>>;
};

/// The 64 x N accumulator `acc` rounded to T (bf16 or f16) as the A of a next product: element
/// (row, column) of acc becomes element (row, column) of the result. The layouts line up, so this
/// is N / 4 packed conversions (cvt.rn.bf16x2.f32) and no data movement.
template <class T, class U, std::uint32_t N>
  requires(std::is_same_v<T, bfloat16> || std::is_same_v<T, half>) && (N % 16 == 0) &&
          std::is_same_v<typename Accumulator<U, N>::value_type, float>
[[nodiscard, gnu::always_inline]] inline RegisterA<T, N>
to_register_a(const Accumulator<U, N> &acc) noexcept {
  RegisterA<T, N> a;
  // Accumulator elements 8 b .. 8 b + 7 are k block b's fragment, two to a register.
  for (std::uint32_t b = 0; b < N / 16; ++b)
    for (std::uint32_t r = 0; r < 4; ++r) {
      const float lo = acc.x[8 * b + 2 * r], hi = acc.x[8 * b + 2 * r + 1];
      if constexpr (std::is_same_v<T, bfloat16>)
        a.reg[b][r] = std::bit_cast<std::uint32_t>(to_bfloat16x2(lo, hi));
      else
        a.reg[b][r] = std::bit_cast<std::uint32_t>(to_halfx2(lo, hi));
    }
  return a;
}

/// acc (+)= A * B with A in registers (RegisterA<T, K>) and the K x N tile of B at N offset b_n0
/// in shared memory, either layout, as the other form: K / Traits<T>::k instructions back to back.
/// Call fence() after writing A's registers and before this.
template <bool Accumulate = true, Multiplicand T, std::uint32_t N, std::uint32_t K, detail::SharedOperand MB>
[[gnu::always_inline]] inline void mma_async(Accumulator<T, N> &acc, const RegisterA<T, K> &a, const MB &b,
                                             std::size_t b_n0) noexcept
    __attribute__((
        diagnose_if(b_n0 % detail::Operand<MB>::mn_align != 0 || b_n0 + N > detail::Operand<MB>::mn_extent,
                    "wgmma::mma_async: B's N columns at this offset are not inside its shared matrix (a "
                    "SharedMatrix's rows from a multiple of 8, a SharedPanels' columns from a panel's "
                    "first)",
                    "error"))) {
  using OB = detail::Operand<MB>;
  static_assert(std::is_same_v<typename OB::value_type, T>,
                "wgmma::mma_async: B's elements are the accumulator's multiplicand type");
  static_assert(OB::swizzle != Swizzle::none,
                "wgmma::mma_async reads swizzled operands (Swizzle::b32, b64 or b128), as TMA lands them");
  static_assert(OB::k_extent == K, "wgmma::mma_async: B's K (a SharedMatrix's columns, a SharedPanels' rows) "
                                   "is the register tile's K");
  static_assert(!OB::mn_major || sizeof(T) == 2,
                "wgmma::mma_async: only bf16 and f16 operands may be MN-major (SharedPanels)");
  static_assert(N % OB::mn_align == 0, "wgmma::mma_async: an MN-major operand's tile is whole panels");
  if (b_n0 % OB::mn_align != 0 || b_n0 + N > OB::mn_extent) [[unlikely]]
    __oxide_trap("wgmma::mma_async: the B tile is not inside its shared matrix");
  const std::uint64_t db = OB::descriptor(b, b_n0);
  constexpr std::uint64_t step_b = OB::template k_step<T>;
  [&]<std::size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) {
    (__oxide_wgmma_rs(acc.x, a.reg[I], db + I * step_b, N, intrinsic::code(Traits<T>::type),
                      Accumulate || I > 0 ? 1 : 0, OB::mn_major ? 1 : 0),
     ...);
  }(std::make_index_sequence<RegisterA<T, K>::blocks>{});
}

#pragma clang diagnostic pop

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
