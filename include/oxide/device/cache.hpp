// Cache-hinted global loads and stores: CUDA's __ldg, __ldca, __ldcg, __ldcs, __ldlu, __ldcv and
// __stwb, __stcg, __stcs, __stwt, as one ld.global.<hint> / st.global.<hint> of a whole element.
//
//   float x = in.load<oxide::cache::streaming>(i);            // ld.global.cs: read once
//   if (float *o = out.get_mut(idx))
//     oxide::store<oxide::cache::streaming>(o, x * 2.0f);     // st.global.cs: not read again
//
// Loads are members of Span<const T> (span.hpp), bounds-checked like operator[]. A hinted store
// is a store like `*o = v`: in a contracted kernel the compiler checks where it lands by the
// same rules (the thread's own output element, never an input), and that it is global memory.
// The hints change only where the data is cached, never the value: on the CPU simulator they
// are plain loads and stores.
#pragma once

#include <cstddef>
#include <type_traits>

#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/device/intrinsics.hpp"

namespace oxide::cache {

/// A cache operator of PTX (the PTX ISA, "Cache Operators").
using Hint = intrinsic::CacheHint;

/// ld.global.nc, through the read-only data cache (__ldg): memory no thread writes during the
/// launch, which is what a Span<const T> input is. Loads only.
inline constexpr Hint read_only = Hint::read_only;
/// .ca, cache at all levels (L1 and L2; __ldca). Loads only.
inline constexpr Hint all_levels = Hint::all_levels;
/// .cg, cache in L2, not L1 (__ldcg, __stcg).
inline constexpr Hint global_level = Hint::global_level;
/// .cs, streaming: likely accessed once, evicted first (__ldcs, __stcs).
inline constexpr Hint streaming = Hint::streaming;
/// .lu, last use: the line is not needed again (__ldlu). Loads only.
inline constexpr Hint last_use = Hint::last_use;
/// .cv, do not cache: fetch again on every load (__ldcv). Loads only.
inline constexpr Hint no_cache = Hint::no_cache;
/// .wb, write back at all coherent levels (__stwb; what a plain store does). Stores only.
inline constexpr Hint write_back = Hint::write_back;
/// .wt, write through to system memory (__stwt). Stores only.
inline constexpr Hint write_through = Hint::write_through;

/// Whether `hint` is a load's (nc, ca, cg, cs, lu, cv) or a store's (wb, cg, cs, wt).
[[nodiscard]] constexpr bool is_load_hint(Hint hint) noexcept {
  return hint != write_back && hint != write_through;
}
[[nodiscard]] constexpr bool is_store_hint(Hint hint) noexcept {
  return hint == write_back || hint == global_level || hint == streaming || hint == write_through;
}

/// Whether a T moves in one hinted access: trivially copyable, 1, 2, 4, 8 or 16 bytes, aligned to
/// its size (PTX's ld and st need that alignment; a struct of two floats needs alignas(8)).
template <class T>
inline constexpr bool is_hintable_v =
    std::is_trivially_copyable_v<T> &&
    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16) &&
    alignof(T) >= sizeof(T);

} // namespace oxide::cache

namespace oxide {

namespace detail {
/// The element at `p`, in global memory, read with one ld.global.<H>.
template <cache::Hint H, class T>
[[nodiscard, gnu::always_inline]] inline T cached_load(const T *p) noexcept {
  static_assert(cache::is_load_hint(H), "cache::write_back and cache::write_through are store hints");
  static_assert(cache::is_hintable_v<T>, "a cache-hinted load reads one element of 1, 2, 4, 8 or 16 bytes "
                                         "aligned to its size (give a struct alignas(sizeof))");
#ifdef __CUDA_ARCH__
  alignas(T) unsigned char bits[sizeof(T)];
  __oxide_cached_load(bits, p, sizeof(T), intrinsic::code(H));
  return __builtin_bit_cast(T, bits);
#else
  return *p; // the simulator has no caches to hint
#endif
}
} // namespace detail

/// Writes `value` to `*element` (global memory: an output element, the pointer get_mut or
/// tile_mut gives) with one st.global.<H>: cache::streaming, global_level, write_through or
/// write_back. `element` must not be null (check get_mut's result as for a plain store).
template <cache::Hint H, class T>
[[gnu::always_inline]] inline void store(T *element, const std::type_identity_t<T> &value) noexcept {
  static_assert(cache::is_store_hint(H),
                "a store takes cache::streaming, global_level, write_through or write_back");
  static_assert(!std::is_const_v<T>, "a cache-hinted store writes through a pointer to a non-const element");
  static_assert(cache::is_hintable_v<T>, "a cache-hinted store writes one element of 1, 2, 4, 8 or 16 bytes "
                                         "aligned to its size (give a struct alignas(sizeof))");
#ifdef __CUDA_ARCH__
  __oxide_cached_store(element, &value, sizeof(T), intrinsic::code(H));
#else
  *element = value;
#endif
}

} // namespace oxide
