// TMA on the CPU simulator: each block copies a 64 x 64 bf16 box of a 100 x 64 matrix through a
// DeviceTensorMap into a 128-byte-swizzled SharedMatrix and writes two columns of it out; the rows
// past the matrix's end land as zeros.
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

using Map = oxide::TensorMap<const oxide::bfloat16, oxide::Box<64, 64>, oxide::Swizzle::b128>;
struct Shared {
  Map::matrix_type tile;
  oxide::Mbarrier bar;
};

[[kernel, oxide::launch_contract("domain = 1, block = 128, dynamic_shared = 1..232448")]]
void copy_tile(Map map, oxide::DisjointSpan<float> out) {
  auto &s = oxide::dynamic_shared_object<Shared>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t == 0) {
    s.bar.init(1);
    oxide::Mbarrier::fence_init();
    s.bar.arrive_expect_tx(Map::box_bytes);
    oxide::tma::load(s.tile, map, {static_cast<std::int32_t>(64 * oxide::block_idx().x), 0}, s.bar);
  }
  oxide::sync_threads();
  s.bar.wait(0);
  if (float *o = out.get_mut(oxide::thread::index_1d()))
    *o = static_cast<float>(s.tile(t % 64, t / 64));
}

int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::uint64_t rows = 100;
  std::vector<oxide::bfloat16> host(rows * 64);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<oxide::bfloat16>(static_cast<float>(i % 97));
  auto map = oxide::DeviceTensorMap<const oxide::bfloat16, oxide::Box<64, 64>, oxide::Swizzle::b128>::create(
      stream, oxide::DeviceBuffer<oxide::bfloat16>::from_host(stream, host), {rows, 64});
  auto out = oxide::DeviceBuffer<float>::zeroed(stream, 256);
  oxide::prepare(
      ctx, copy_tile,
      oxide::LaunchConfig1D{2, 128, static_cast<std::uint32_t>(oxide::dynamic_shared_bytes_for<Shared>)})(
      stream, map, out);
  const auto got = out.to_host(stream);
  for (std::size_t i = 0; i < 256; ++i) {
    const std::size_t b = i / 128, t = i % 128, r = 64 * b + t % 64, c = t / 64;
    const float expected = r < rows ? static_cast<float>((r * 64 + c) % 97) : 0.0f;
    if (got[i] != expected) {
      std::printf("FAIL at %zu: %f\n", i, got[i]);
      return 1;
    }
  }
  std::puts("tma_copy: 2 boxes, 0 wrong");
  std::puts("PASS");
}
