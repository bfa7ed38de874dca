// Must be reported by AddressSanitizer on the simulator (scripts/test-sanitizers.sh): an unsafe
// kernel writes one element past the end of its buffer, inside the 256-byte rounding of the
// allocation, which the runtime poisons.
#include <oxide/oxide.hpp>

#include <cstdio>

[[kernel]] void past_the_end(oxide::Span<float> data) {
  float *raw = data.data();
  raw[data.size() + oxide::thread_idx().x] = 1.0f;
}

int main() {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto buffer = oxide::DeviceBuffer<float>::zeroed(stream, 100);
  oxide::unsafe_launch(stream, past_the_end, oxide::LaunchConfig1D{1, 1}, buffer);
  stream.synchronize();
  std::puts("not caught");
}
