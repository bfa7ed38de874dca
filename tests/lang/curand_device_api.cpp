// Language coverage, cuRAND's device API from the CUDA toolkit's own <curand_kernel.h>, in
// contracted kernels: Philox4x32-10 (uniform, normal, 4-wide, raw 32-bit), XORWOW through the
// CUDA idiom of one state per thread kept in a DisjointSpan between launches, MRG32k3a, and
// double-precision draws. Each result is compared with the same calls made by the host code (on
// a GPU that is NVIDIA's device path against its host path); the first Philox block is also
// compared with the generator's published known answer, so the simulator is checked against
// something it did not compute.
//
//   oxcc run tests/lang/curand_device_api.cpp
#include "lang_check.hpp"

#include <curand_kernel.h>

#include <array>
#include <cstdint>
#include <cstdio>

constexpr std::size_t kN = 1000;
constexpr unsigned long long kSeed = 0x5eed'1234'abcdULL;

using U32x4 = std::array<std::uint32_t, 4>;
using F32x4 = std::array<float, 4>;

U32x4 philox_raw_at(std::size_t i, unsigned long long seed) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, i, 0, &state);
  const uint4 v = curand4(&state);
  return {v.x, v.y, v.z, v.w};
}

// Four raw words of subsequence i: the generator's whole first block.
[[kernel, oxide::launch_contract("domain = 1")]] void philox_raw(oxide::DisjointSpan<U32x4> out,
                                                                 unsigned long long seed) {
  const auto i = oxide::thread::index_1d();
  if (U32x4 *o = out.get_mut(i))
    *o = philox_raw_at(i.get(), seed);
}

float philox_uniform_at(std::size_t i, unsigned long long seed) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, 0, 4 * i, &state); // one sequence, skipped ahead by an offset
  float sum = 0.0f;
  for (int k = 0; k < 3; ++k)
    sum += curand_uniform(&state);
  return sum + curand_normal(&state);
}

[[kernel, oxide::launch_contract("domain = 1")]] void philox_uniform(oxide::DisjointSpan<float> out,
                                                                     unsigned long long seed) {
  const auto i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = philox_uniform_at(i.get(), seed);
}

// CUDA's float4 as curand_normal4 returns it, copied into the output's element type.
F32x4 philox_normal4_at(std::size_t i, unsigned long long seed) {
  curandStatePhilox4_32_10_t state;
  curand_init(seed, i, 0, &state);
  const float4 v = curand_normal4(&state);
  return {v.x, v.y, v.z, v.w};
}

[[kernel, oxide::launch_contract("domain = 1")]] void philox_normal4(oxide::DisjointSpan<F32x4> out,
                                                                     unsigned long long seed) {
  const auto i = oxide::thread::index_1d();
  if (F32x4 *o = out.get_mut(i))
    *o = philox_normal4_at(i.get(), seed);
}

// The CUDA idiom: one launch seeds a state per thread, later launches draw from it and store it
// back (each thread reads and writes only its own state).
[[kernel, oxide::launch_contract("domain = 1")]] void xorwow_setup(oxide::DisjointSpan<curandState> states,
                                                                   unsigned long long seed) {
  const auto i = oxide::thread::index_1d();
  if (curandState *state = states.get_mut(i))
    curand_init(seed, i.get(), 0, state);
}

[[kernel, oxide::launch_contract("domain = 1, requires = (states.size() == out.size())")]] void
xorwow_draw(oxide::DisjointSpan<float> out, oxide::DisjointSpan<curandState> states) {
  const auto i = oxide::thread::index_1d();
  if (curandState *state = states.get_mut(i)) {
    curandState local = *state;
    const float u = curand_uniform(&local);
    const float n = curand_normal(&local);
    *state = local;
    if (float *o = out.get_mut(i))
      *o = u + 10.0f * n;
  }
}

double mrg_double_at(std::size_t i, unsigned long long seed) {
  curandStateMRG32k3a state;
  curand_init(seed, i, 0, &state);
  return curand_uniform_double(&state) + curand_normal_double(&state) +
         curand_log_normal_double(&state, 0.0, 0.5);
}

[[kernel, oxide::launch_contract("domain = 1")]] void mrg_double(oxide::DisjointSpan<double> out,
                                                                 unsigned long long seed) {
  const auto i = oxide::thread::index_1d();
  if (double *o = out.get_mut(i))
    *o = mrg_double_at(i.get(), seed);
}

int main() {
  return lang::run_group("curand_device_api", [](lang::Checker &c) {
    // Random123's known answer for Philox4x32-10 with key and counter 0 (curand_init(0, 0, 0)).
    c.run(
        "philox_known_answer", philox_raw, 1,
        [](std::size_t) { return U32x4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}; }, 0ULL);
    c.run("philox_raw", philox_raw, kN, [](std::size_t i) { return philox_raw_at(i, kSeed); }, kSeed);
    c.run(
        "philox_uniform", philox_uniform, kN, [](std::size_t i) { return philox_uniform_at(i, kSeed); },
        kSeed);
    c.run(
        "philox_normal4", philox_normal4, kN, [](std::size_t i) { return philox_normal4_at(i, kSeed); },
        kSeed);
    c.run("mrg_double", mrg_double, kN, [](std::size_t i) { return mrg_double_at(i, kSeed); }, kSeed);

    // XORWOW: two draws from the states the setup launch left, against the host's sequence.
    auto states = oxide::DeviceBuffer<curandState>::uninitialized(c.stream, kN);
    const auto config = oxide::LaunchConfig1D::for_elements(kN, 64);
    oxide::prepare(c.ctx, xorwow_setup, config)(c.stream, states, kSeed);
    auto out = oxide::DeviceBuffer<float>::zeroed(c.stream, kN);
    auto draw = oxide::prepare(c.ctx, xorwow_draw, config);
    std::vector<curandState> host_states(kN);
    for (std::size_t i = 0; i < kN; ++i)
      curand_init(kSeed, i, 0, &host_states[i]);
    for (int round = 0; round < 2; ++round) {
      draw(c.stream, out, states);
      std::vector<float> want(kN);
      for (std::size_t i = 0; i < kN; ++i) {
        const float u = curand_uniform(&host_states[i]);
        want[i] = u + 10.0f * curand_normal(&host_states[i]);
      }
      c.compare(round == 0 ? "xorwow_draw_1" : "xorwow_draw_2", out.to_host(c.stream),
                [&](std::size_t i) { return want[i]; });
    }
  });
}
