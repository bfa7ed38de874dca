// Launch-time contract checks in a program built by oxcc, so the contract, parameter kinds and
// launch bounds come from the compiler's device image. argv[1] picks the violation; the program
// prints the error's kind and message.
#include <oxide/oxide.hpp>

#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

[[kernel, oxide::launch_contract(
              "domain = 1, block = 128, requires = (a.size() == c.size(), b.size() == c.size())")]] void
vecadd(oxide::Span<const float> a, oxide::Span<const float> b, oxide::DisjointSpan<float> c) {
  const auto idx = oxide::thread::index_1d();
  if (float *out = c.get_mut(idx))
    *out = a[idx.get()] + b[idx.get()];
}

[[kernel,
  oxide::launch_contract("domain = 2, dynamic_shared = 16..256, requires = (rows * cols == out.size())"),
  oxide::launch_bounds(256)]] void
fill(std::uint64_t rows, std::uint64_t cols, oxide::Span<const float> in, oxide::DisjointSpan2D<float> out) {
  const auto idx = oxide::thread::index_2d();
  if (float *o = out.get_mut(idx))
    *o = in.empty() ? float(rows + cols) : in[0];
}

[[kernel]] void in_place(oxide::Span<float> data) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i < data.size())
    data[i] += 1.0f;
}

int main(int argc, char **argv) try {
  const std::string_view which = argc > 1 ? argv[1] : "";
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto floats = [&](std::size_t n) {
    return oxide::DeviceBuffer<float>::from_host(stream, std::vector<float>(n, 1.0f));
  };
  auto a = floats(100), b = floats(100), c = floats(200), grid = floats(64), none = floats(0),
       none2 = floats(0), none3 = floats(0);
  const oxide::LaunchConfig2D fill_config{{2, 2, 1}, {8, 8, 1}, 16};
  if (which == "requires")
    oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D{2, 128})(stream, a, b, c);
  else if (which == "overflow")
    oxide::prepare(ctx, fill, fill_config)(stream, std::uint64_t{1} << 40, std::uint64_t{1} << 40, none,
                                           grid.view_2d(8, 8));
  else if (which == "block")
    (void)oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D::for_elements(200)); // block 256
  else if (which == "domain")
    (void)oxide::prepare(ctx, fill, oxide::LaunchConfig3D{{1, 1, 1}, {8, 8, 1}, 16});
  else if (which == "bounds")
    (void)oxide::prepare(ctx, fill, oxide::LaunchConfig2D{{1, 1, 1}, {32, 16, 1}, 16});
  else if (which == "shared")
    (void)oxide::prepare(ctx, fill, oxide::LaunchConfig2D{{1, 1, 1}, {8, 8, 1}, 0});
  else if (which == "overlap")
    oxide::prepare(ctx, fill, fill_config)(stream, 8u, 8u, grid, grid.view_2d(8, 8));
  else if (which == "no-contract") {
    // Through a pointer the compiler does not follow, so that the runtime's check answers (named
    // directly, the kernel is a compile error: safety/prepare-contract.test).
    void (*const kernel)(oxide::Span<float>) = in_place;
    (void)oxide::prepare(ctx, kernel, oxide::LaunchConfig1D{1, 32});
  }
  else if (which == "view")
    (void)grid.view_2d(10, 10);
  else {
    // Everything right: empty inputs bind as non-null spans, the unsafe launch runs.
    oxide::prepare(ctx, fill, fill_config)(stream, 8u, 8u, none, grid.view_2d(8, 8));
    oxide::prepare(ctx, vecadd, oxide::LaunchConfig1D{0, 128})(stream, none, none2, none3);
    oxide::unsafe_launch(stream, in_place, oxide::LaunchConfig{{1}, {64}}, grid);
    const bool ok = grid.to_host(stream) == std::vector<float>(64, 17.0f);
    std::printf("%s\n", ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  }
  std::printf("no error\n");
  return 0;
} catch (const oxide::Error &e) {
  std::printf("%.*s: %s\n", static_cast<int>(e.kind_name().size()), e.kind_name().data(), e.what());
  return 1;
}
