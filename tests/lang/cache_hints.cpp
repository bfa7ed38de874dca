// Cache-hinted loads and stores (oxide/device/cache.hpp): every load hint (nc, ca, cg, cs, lu,
// cv) and every store hint (wb, cg, cs, wt) on elements of 1, 2, 4, 8 and 16 bytes, the 8- and
// 16-byte ones scalar and vector (ld.v2.b32 / ld.v4.b32). Each kernel copies an input to an
// output through one hinted load and one hinted store per element; the output starts zeroed
// and the inputs are never zero, so a load or store that moved nothing, the wrong bytes or the
// words of a vector in the wrong order fails. Also hinted stores through a tile and hinted loads
// in a helper that is not inlined.
//
//   oxcc run tests/lang/cache_hints.cpp
#include "lang_check.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace cache = oxide::cache;

// 8 and 16 bytes as vectors of words: PTX's ld/st need the alignment of the whole element.
struct alignas(8) Pair : std::array<float, 2> {};
struct alignas(16) Quad : std::array<std::uint32_t, 4> {};

template <class T> T pattern(std::size_t i) {
  const auto w = static_cast<std::uint32_t>(i * 2654435761u + 0x9e3779b9u) | 1u; // odd: never zero
  if constexpr (std::is_same_v<T, Pair>)
    return Pair{{static_cast<float>(w % 1000) + 0.5f, -static_cast<float>(i) - 0.25f}};
  else if constexpr (std::is_same_v<T, Quad>)
    return Quad{{w, w ^ 0xffu, static_cast<std::uint32_t>(i), w * 3u}};
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(w % 100000) + T(0.5);
  else
    return static_cast<T>(w);
}

template <cache::Hint Load, cache::Hint Store, class T>
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
copy_hinted(oxide::DisjointSpan<T> out, oxide::Span<const T> in) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx))
    oxide::store<Store>(o, oxide::load<Load>(in, idx.get()));
}

// Every load hint once per type, the store hints taken in turn so that each type meets all four.
template <class T> void copies(lang::Checker &check, const char *type, std::size_t n) {
  std::vector<T> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = pattern<T>(i);
  const auto in = oxide::DeviceBuffer<T>::from_host(check.stream, host);
  auto expect = [&](std::size_t i) { return host[i]; };
  std::printf("copies of %s\n", type);
  check.run("nc -> wb", copy_hinted<cache::read_only, cache::write_back, T>, n, expect, in);
  check.run("ca -> cg", copy_hinted<cache::all_levels, cache::global_level, T>, n, expect, in);
  check.run("cg -> cs", copy_hinted<cache::global_level, cache::streaming, T>, n, expect, in);
  check.run("cs -> wt", copy_hinted<cache::streaming, cache::write_through, T>, n, expect, in);
  check.run("lu -> cs", copy_hinted<cache::last_use, cache::streaming, T>, n, expect, in);
  check.run("cv -> wt", copy_hinted<cache::no_cache, cache::write_through, T>, n, expect, in);
}

// A streaming store to each element of a thread's tile.
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
tile_streaming(oxide::DisjointSpan<float> out, oxide::Span<const float> in) {
  const auto idx = oxide::thread::index_1d();
  const auto tile = out.tile_mut<4>(idx);
  for (std::size_t j = 0; j < tile.size(); ++j)
    oxide::store<cache::streaming>(&tile[j], 2.0f * in.load<cache::streaming>(idx.get() * 4 + j));
}

// Hinted loads in helpers that stay calls, given the span by value and by reference.
[[gnu::noinline]] float scaled(oxide::Span<const float> in, std::size_t i) {
  return 3.0f * in.load<cache::last_use>(i);
}
[[gnu::noinline]] float shifted(const oxide::Span<const float> &in, std::size_t i) {
  return in.load<cache::read_only>(i) + 1.0f;
}
[[kernel, oxide::launch_contract("domain = 1, requires = (in.size() == out.size())")]] void
helpers(oxide::DisjointSpan<float> out, oxide::Span<const float> in) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    oxide::store<cache::global_level>(o, scaled(in, idx.get()) + shifted(in, idx.get()));
}

int main() {
  return lang::run_group("cache_hints", [](lang::Checker &check) {
    const std::size_t n = 1000; // not a multiple of the block: the last block has idle threads
    copies<std::uint8_t>(check, "uint8_t (u8)", n);
    copies<std::uint16_t>(check, "uint16_t (u16)", n);
    copies<float>(check, "float (b32)", n);
    copies<double>(check, "double (v2.b32)", n);
    copies<Pair>(check, "Pair (v2.b32)", n);
    copies<Quad>(check, "Quad (v4.b32)", n);

    std::vector<float> host(n);
    for (std::size_t i = 0; i < n; ++i)
      host[i] = pattern<float>(i);
    const auto in = oxide::DeviceBuffer<float>::from_host(check.stream, host);
    auto out = oxide::DeviceBuffer<float>::zeroed(check.stream, n);
    oxide::prepare(check.ctx, tile_streaming,
                   oxide::LaunchConfig1D::for_elements((n + 3) / 4, 64))(check.stream, out, in);
    check.compare("tile_streaming", out.to_host(check.stream), [&](std::size_t i) { return 2.0f * host[i]; });
    check.run("helpers", helpers, n, [&](std::size_t i) { return 3.0f * host[i] + (host[i] + 1.0f); }, in);
  });
}
