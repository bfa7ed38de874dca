// Kernels without launch contracts (launched with oxide::unsafe_launch) whose writes break the
// safety model: the compiler cannot reject them, the checking mode of the CPU simulator must.
// argv[1] picks the kernel; the program prints "done" when the launch returns and the error's
// message when it fails (exit status 1).
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

constexpr std::size_t kElements = 1000; // 4000 bytes: the buffer's end is not 256-byte aligned

// Each thread writes its element, then its right-hand neighbour's.
[[kernel]] void next_neighbour(oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    p[0] = 1.0f;
    if (idx.get() + 1 < out.size())
      p[1] = 2.0f;
  }
}

// Each thread writes its element, then its left-hand neighbour's (which that thread obtained).
[[kernel]] void previous_neighbour(oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    p[0] = 1.0f;
    if (idx.get() > 0)
      p[-1] = 2.0f;
  }
}

// The last thread writes one element past the end.
[[kernel]] void past_the_end(oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    p[0] = 1.0f;
    if (idx.get() == out.size() - 1)
      p[1] = 2.0f;
  }
}

// The same through memset, which the optimiser keeps as a call of llvm.memset.
[[kernel]] void memset_past_the_end(oxide::DisjointSpan<float> out, std::uint32_t bytes) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    if (idx.get() == out.size() - 1)
      std::memset(p, 0, bytes);
    else
      *p = 1.0f;
  }
}

// Half as many threads as elements: thread i also writes element i + n/2, which no thread obtains.
[[kernel]] void unclaimed(oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx))
    p[out.size() / 2] = 3.0f;
}

// A helper the optimiser keeps out of line: the checks follow the kernel's calls.
[[gnu::noinline]] void store_at(float *p, std::size_t offset, float value) { p[offset] = value; }

[[kernel]] void neighbour_in_helper(oxide::DisjointSpan<float> out, std::size_t offset) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx))
    store_at(p, idx.get() + offset < out.size() ? offset : 0, 4.0f);
}

// Writes an input through const_cast.
[[kernel]] void write_input(oxide::Span<const float> in, oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *p = out.get_mut(idx)) {
    *p = in[idx.get()];
    if (idx.get() == 7)
      const_cast<float &>(in[idx.get()]) = 0.0f;
  }
}

// Forges a pointer to an AtomicSpan's elements and stores through it.
[[kernel]] void plain_store_to_atomic(oxide::AtomicSpan<std::uint32_t> counts) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i == 3) {
    std::uint32_t *data;
    std::memcpy(&data, &counts, sizeof data);
    data[i] = 1;
  } else if (i < counts.size()) {
    counts.fetch_add(i, 1);
  }
}

// What is allowed: own elements (by get_mut and tile_mut), atomics, shared memory, the stack.
[[kernel]] void correct(oxide::Span<const float> in, oxide::DisjointSpan<float> out,
                        oxide::AtomicSpan<std::uint32_t> counts, oxide::DisjointSpan<float> tiles) {
  const auto idx = oxide::thread::index_1d();
  auto staged = oxide::shared_array<float, 256>();
  const std::uint32_t t = oxide::thread_idx().x;
  staged[t] = 1.0f;
  oxide::sync_threads();
  float local[4];
  for (int k = 0; k < 4; ++k)
    local[k] = staged[(t + k) % 256];
  if (float *p = out.get_mut(idx)) {
    *p = (local[0] + local[3]) / 2 + in[idx.get()];
    counts.fetch_add(idx.get() % counts.size(), 1);
  }
  auto tile = tiles.tile_mut<4>(idx);
  for (std::size_t j = 0; j < tile.size(); ++j)
    tile[j] = float(j);
}

int main(int argc, char **argv) try {
  const std::string_view which = argc > 1 ? argv[1] : "";
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const auto in = oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(kElements, 1.0f));
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, kElements);
  auto counts = oxide::DeviceBuffer<std::uint32_t>::zeroed(stream, 16);
  const auto all = oxide::LaunchConfig1D::for_elements(kElements);
  if (which == "next-neighbour")
    oxide::unsafe_launch(stream, next_neighbour, all, out);
  else if (which == "previous-neighbour")
    oxide::unsafe_launch(stream, previous_neighbour, all, out);
  else if (which == "past-the-end")
    oxide::unsafe_launch(stream, past_the_end, all, out);
  else if (which == "memset-past-the-end")
    oxide::unsafe_launch(stream, memset_past_the_end, all, out, std::uint32_t{12});
  else if (which == "unclaimed")
    oxide::unsafe_launch(stream, unclaimed, oxide::LaunchConfig1D{2, kElements / 4}, out);
  else if (which == "helper")
    oxide::unsafe_launch(stream, neighbour_in_helper, all, out, std::size_t{1});
  else if (which == "input")
    oxide::unsafe_launch(stream, write_input, all, in, out);
  else if (which == "atomic")
    oxide::unsafe_launch(stream, plain_store_to_atomic, oxide::LaunchConfig1D{1, 16}, counts);
  else if (which == "correct") {
    auto tiles = oxide::DeviceBuffer<float>::zeroed(stream, 4 * kElements - 2); // a partial last tile
    oxide::unsafe_launch(stream, correct, oxide::LaunchConfig1D{4, 256}, in, out, counts, tiles);
    const std::vector<float> t = tiles.to_host(stream);
    const std::vector<float> o = out.to_host(stream);
    if (o != std::vector<float>(kElements, 2.0f) || t[5] != 1.0f || t[t.size() - 1] != 1.0f) {
      std::puts("wrong results");
      return 1;
    }
  } else {
    std::fprintf(stderr, "usage: %s <kernel>\n", argv[0]);
    return 2;
  }
  (void)out.to_host(stream);
  std::puts("done");
  return 0;
} catch (const oxide::Error &e) {
  std::printf("%s\n", e.what());
  return 1;
}
