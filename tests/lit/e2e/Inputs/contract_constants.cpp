// Contracts written with C++ constants, in a program built by oxcc: a kernel template whose
// block and launch bounds are template arguments and whose `requires` reads its spans and a
// signed count, each instantiation with its own contract; scalar arguments that convert as in a
// call. argv[1] picks a violation; the program prints the error's kind and message.
#include <oxide/oxide.hpp>

#include <cstdio>
#include <string_view>
#include <vector>

struct Narrow {
  static constexpr unsigned kBlock = 64;
};
struct Wide {
  static constexpr unsigned kBlock = 128;
};
#define SCALE_CONTRACT "domain = 1, block = (Wide::kBlock), requires = (offset <= out.size())"

// out[i] = in[i] for i < n, T{} after.
template <class T, class Policy>
[[kernel,
  oxide::launch_contract("domain = 1, block = Policy::kBlock, requires = (n <= out.size(), in.size() "
                         "== out.size())"),
  oxide::launch_bounds(Policy::kBlock)]] void
first_n(int n, oxide::Span<const T> in, oxide::DisjointSpan<T> out) {
  const auto idx = oxide::thread::index_1d();
  if (T *o = out.get_mut(idx))
    *o = static_cast<int>(idx.get()) < n ? in[idx.get()] : T{};
}

[[kernel, oxide::launch_contract(SCALE_CONTRACT)]] void scale(float factor, unsigned offset,
                                                              oxide::DisjointSpan<float> out) {
  const auto idx = oxide::thread::index_1d();
  if (float *o = out.get_mut(idx))
    *o = factor * static_cast<float>(idx.get() + offset);
}

template <class T, class Policy> bool check_first_n(oxide::Context &ctx, oxide::Stream &stream, int n) {
  std::vector<T> host(300);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<T>(i + 1);
  auto in = oxide::DeviceBuffer<T>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<T>::zeroed(stream, host.size());
  oxide::prepare(ctx, first_n<T, Policy>,
                 oxide::LaunchConfig1D::for_elements(host.size(), Policy::kBlock))(stream, n, in, out);
  const std::vector<T> result = out.to_host(stream);
  for (std::size_t i = 0; i < host.size(); ++i)
    if (result[i] != (static_cast<int>(i) < n ? host[i] : T{})) {
      std::printf("mismatch at %zu\n", i);
      return false;
    }
  return true;
}

int main(int argc, char **argv) try {
  const std::string_view which = argc > 1 ? argv[1] : "";
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto floats = oxide::DeviceBuffer<float>::zeroed(stream, 300);
  auto in = oxide::DeviceBuffer<float>::zeroed(stream, 300);
  if (which == "negative")
    oxide::prepare(ctx, first_n<float, Wide>, oxide::LaunchConfig1D{3, 128})(stream, -1, in, floats);
  else if (which == "requires")
    oxide::prepare(ctx, first_n<float, Wide>, oxide::LaunchConfig1D{3, 128})(stream, 301, in, floats);
  else if (which == "block")
    (void)oxide::prepare(ctx, first_n<int, Narrow>, oxide::LaunchConfig1D{3, 128});
  else if (which == "range")
    oxide::prepare(ctx, scale, oxide::LaunchConfig1D{3, 128})(stream, 1.0, -1, floats);
  else {
    bool ok = check_first_n<float, Wide>(ctx, stream, 200) && check_first_n<int, Narrow>(ctx, stream, 7) &&
              check_first_n<double, Narrow>(ctx, stream, 0);
    // A double for the float and an int for the unsigned.
    oxide::prepare(ctx, scale, oxide::LaunchConfig1D{3, 128})(stream, 0.5, 2, floats);
    const std::vector<float> scaled = floats.to_host(stream);
    for (std::size_t i = 0; i < scaled.size(); ++i)
      ok = ok && scaled[i] == 0.5f * static_cast<float>(i + 2);
    std::printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  }
  std::printf("no error\n");
  return 0;
} catch (const oxide::Error &e) {
  std::printf("%s: %s\n", std::string(e.kind_name()).c_str(), e.what());
  return 1;
}
