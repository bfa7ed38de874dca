// CUB's vectorised loads (BLOCK_LOAD_VECTORIZE, WARP_LOAD_VECTORIZE): a thread's run of items
// read as 2- or 4-element vectors where the run is inside its span and aligned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/device/span.hpp"
#include "oxide/device/vector.hpp"

namespace oxide::cub {

namespace detail {

/// The widest vector of T (2 or 4 elements, at most 16 bytes) that N items split into; 1 when
/// none does or T is not arithmetic (oxide::Vec holds arithmetic elements).
template <class T, int N> constexpr std::size_t vector_width() noexcept {
  if constexpr (!std::is_arithmetic_v<T>)
    return 1;
  else if (N % 4 == 0 && sizeof(T) * 4 <= 16)
    return 4;
  else if (N % 2 == 0 && sizeof(T) * 2 <= 16)
    return 2;
  else
    return 1;
}

/// CUB's vectorised load: items[0 .. N) from in[first ..] as N / V vectors of V elements (one
/// 8- or 16-byte load each, ld.global.v4 for four floats), when the run is inside `in` and its
/// address is aligned to the vector; false (nothing read) otherwise, and the caller reads the
/// items one by one. A read, through the span's own bounds: nothing here writes.
template <class U, class T, int N>
[[gnu::always_inline]] inline bool load_vectors(Span<U> in, std::size_t first, T (&items)[N]) noexcept {
  constexpr std::size_t V = vector_width<T, N>();
  if constexpr (V == 1) {
    return false;
  } else {
    using Vector = Vec<T, V>;
    if (first > in.size() || in.size() - first < std::size_t{N})
      return false;
    const U *run = in.data() + first;
    if (reinterpret_cast<std::uintptr_t>(run) % alignof(Vector) != 0)
      return false;
    const auto *vectors = reinterpret_cast<const Vector *>(run);
    for (std::size_t v = 0; v < N / V; ++v) {
      const Vector x = vectors[v];
      items[v * V] = x.x;
      items[v * V + 1] = x.y;
      if constexpr (V == 4) {
        items[v * V + 2] = x.z;
        items[v * V + 3] = x.w;
      }
    }
    return true;
  }
}

} // namespace detail

} // namespace oxide::cub
