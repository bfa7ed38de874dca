// Soundness after optimisation, at run time: kernels whose code has undefined behaviour that an
// optimiser could take as proof that a guard is redundant (an assumption on the index,
// `if (!p) __builtin_unreachable()`, a [[noreturn]] function that returns, a signed overflow or
// an uninitialised variable as an AtomicSpan index, a switch whose default is unreachable, an
// assumption that the thread is its block's leader, a tile index or a pair that are assumed
// valid, a loop that overruns a local array, helpers that are not inlined writing past the
// kernel's local array). Each is launched with more threads than its output
// has elements. The output is a slice of a larger buffer: right behind it lie 64 canaries, then
// the kernel's input (a read-only slice of the same buffer). A guard that survived either skips
// the store or stops the kernel (a trap fails the launch); a guard that was deleted writes past
// the end of the output, over the canaries. The compiler's tests/lit/soundness checks the
// guards in the PTX; this program checks what the kernels do.
//
// A trap poisons a CUDA context, so each variant runs in a child process: `ub_guards` with no
// argument runs `ub_guards <variant>` for each variant. The child exits 0 when the launch
// finished and every canary and input element is intact (and, where the variant says, the
// output holds what the guarded kernel writes), 3 when the launch failed (the kernel trapped:
// acceptable), 1 when a canary or an input element was overwritten. The parent prints one line
// per variant and PASS when no child exited 1 (or otherwise abnormally). On an H200, the
// compiler before the fix (commit aff3395) failed 8 of the 12 variants: assume_index,
// assume_index_untested, unreachable_null, noreturn_returns, switch_default, pair_assumed,
// atomic_assumed_in_range and local_array_loop overwrote canaries. On the CPU simulator both
// compilers pass: it runs the host compile of the kernels.
//
//   oxcc build tests/lang/ub_guards.cpp -o ub_guards && ./ub_guards
//   (OXIDE_DEVICE=cpu runs it on the simulator.)
#include "child_variants.hpp"

#include <oxide/oxide.hpp>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------------------------
// The kernels: each writes `out` (a DisjointSpan or an AtomicSpan) and reads `in`.

inline void expect(bool condition) { __builtin_assume(condition); }

// An assumption about the index, in a helper: the bounds test must stay (skips the store).
[[kernel, oxide::launch_contract("domain = 1")]] void assume_index(oxide::DisjointSpan<float> out,
                                                                   oxide::Span<const float> in) {
  const auto &i = oxide::thread::index_1d();
  expect(i.get() < out.size());
  if (float *o = out.get_mut(i))
    *o = in[i.get() % in.size()] + 1.0f;
}

// The same assumption, then a store that is not tested: the null trap must stay.
[[kernel, oxide::launch_contract("domain = 1")]] void assume_index_untested(oxide::DisjointSpan<float> out,
                                                                            oxide::Span<const float> in) {
  const auto &i = oxide::thread::index_1d();
  auto in_range = [](std::size_t k, std::size_t n) { [[assume(k < n)]]; };
  in_range(i.get(), out.size());
  *out.get_mut(i) = in[i.get() % in.size()] + 1.0f;
}

// `if (!p) __builtin_unreachable();`: the path must trap.
[[kernel, oxide::launch_contract("domain = 1")]] void unreachable_null(oxide::DisjointSpan<float> out,
                                                                       oxide::Span<const float> in) {
  const auto &i = oxide::thread::index_1d();
  float *p = out.get_mut(i);
  if (!p)
    __builtin_unreachable();
  *p = in[i.get() % in.size()] + 2.0f;
}

[[noreturn]] inline void fail() {} // returns all the same
[[kernel, oxide::launch_contract("domain = 1")]] void noreturn_returns(oxide::DisjointSpan<float> out,
                                                                       oxide::Span<const float> in) {
  const auto &i = oxide::thread::index_1d();
  float *p = out.get_mut(i);
  if (!p)
    fail();
  *p = in[i.get() % in.size()] + 3.0f;
}

// A switch on the index whose default is "unreachable" ("we launch 4 threads").
[[kernel, oxide::launch_contract("domain = 1, requires = (out.size() >= 4)")]] void
switch_default(oxide::DisjointSpan<float> out, oxide::Span<const float> in) {
  const auto &i = oxide::thread::index_1d();
  float v = 0.0f;
  switch (i.get()) {
  case 0:
    v = 1.0f;
    break;
  case 1:
    v = 2.0f;
    break;
  case 2:
    v = 4.0f;
    break;
  case 3:
    v = 8.0f;
    break;
  default:
    __builtin_unreachable();
  }
  if (float *o = out.get_mut(i))
    *o = v + in[0];
}

// Only block leaders write; the assumption says every thread is one. The element of block b
// must hold the leader's thread index (0), whatever the other threads would have stored.
[[kernel, oxide::launch_contract("domain = 1")]] void block_leader_assumed(oxide::DisjointSpan<float> out,
                                                                           oxide::Span<const float> in) {
  const unsigned t = oxide::thread_idx().x;
  [[assume(t == 0)]];
  if (float *o = out.get_mut(oxide::block::index()))
    *o = float(t) + in[0] * 0.0f;
}

// A tile index assumed inside the tile: j = 5 is not, for a tile of 4.
[[kernel, oxide::launch_contract("domain = 1")]] void tile_index_assumed(oxide::DisjointSpan<float> out,
                                                                         std::uint32_t j) {
  const auto t = out.tile_mut<4>(oxide::thread::index_1d());
  expect(j < t.size());
  t[j] = 5.0f;
}

// Both elements of a pair assumed to exist.
[[kernel, oxide::launch_contract("domain = 1")]] void pair_assumed(oxide::DisjointSpan<float> out,
                                                                   std::uint32_t distance) {
  const auto pair = out.pair_mut(oxide::thread::index_1d(), distance);
  float *lo = pair.get_mut(0), *hi = pair.get_mut(1);
  expect(lo && hi);
  *lo = 6.0f;
  *hi = 7.0f;
}

// A signed overflow as an AtomicSpan index: for every thread but 0, j wraps to a negative int.
[[kernel, oxide::launch_contract("domain = 1")]] void atomic_signed_overflow(oxide::AtomicSpan<unsigned> bins,
                                                                             oxide::Span<const unsigned> in) {
  const auto &i = oxide::thread::index_1d();
  const int j = int(i.get()) + INT_MAX;
  bins.fetch_add(j, in[0] * 0u + 1u);
}

// An uninitialised AtomicSpan index for the threads past the end of `in`.
[[kernel, oxide::launch_contract("domain = 1")]] void atomic_uninitialised(oxide::AtomicSpan<unsigned> bins,
                                                                           oxide::Span<const unsigned> in) {
  unsigned k;
  if (const unsigned *x = in.get(oxide::thread::index_1d().get()))
    k = *x % 8;
  bins.fetch_add(k, 1u);
}

// An assumption on a loaded index, with the contract's bins.size() == 64: values of 64 and more
// must stop the kernel.
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 64)")]] void
atomic_assumed_in_range(oxide::AtomicSpan<unsigned> bins, oxide::Span<const unsigned> in) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    [[assume(*x < 64)]];
    bins.fetch_add(*x, 1u);
  }
}

// A local array overrun in a loop that updates the AtomicSpan at the loop counter: n > 256
// overruns `hist`, and the update of bins[256] must stop the kernel.
[[kernel, oxide::launch_contract("domain = 1, requires = (bins.size() == 256)")]] void
local_array_loop(oxide::AtomicSpan<unsigned> bins, oxide::Span<const unsigned> in, std::uint32_t n) {
  unsigned hist[256] = {};
  for (std::uint32_t k = 0; k < n; ++k) {
    hist[k] += in[k % in.size()];
    bins.fetch_add(k, hist[k]);
  }
}

// Helpers that are not inlined writing into the kernel's local array at an index from the input
// (0 to 9 against 4 elements): the helper gets the array's bounds and tests the write; without
// the test the write lands on the thread's other locals or spill slots, which no canary sees, so
// these variants must stop. A noinline helper, a recursive one (as std::sort's introsort loop),
// and a pointer a helper returns.
[[gnu::noinline]] void put_local(float *p, int k, float v) { p[k] = v; }
void fill_local(float *p, int n, float v) {
  if (n <= 0)
    return;
  p[n - 1] = v;
  fill_local(p, n - 1, v);
}
[[gnu::noinline]] float *local_at(float *p, int k) { return p + k; }

inline void local_result(oxide::DisjointSpan<float> out, const float (&local)[4]) {
  const auto &i = oxide::thread::index_1d();
  if (float *o = out.get_mut(i))
    *o = local[0] + local[1] + local[2] + local[3];
}

[[kernel, oxide::launch_contract("domain = 1")]] void local_noinline_helper(oxide::DisjointSpan<float> out,
                                                                            oxide::Span<const float> in) {
  float local[4] = {};
  put_local(local, static_cast<int>(in[oxide::thread::index_1d().get() % in.size()]), 9.0f);
  local_result(out, local);
}

[[kernel, oxide::launch_contract("domain = 1")]] void local_recursive_helper(oxide::DisjointSpan<float> out,
                                                                             oxide::Span<const float> in) {
  float local[4] = {};
  fill_local(local, static_cast<int>(in[oxide::thread::index_1d().get() % in.size()]) + 1, 9.0f);
  local_result(out, local);
}

[[kernel, oxide::launch_contract("domain = 1")]] void local_returned_pointer(oxide::DisjointSpan<float> out,
                                                                             oxide::Span<const float> in) {
  float local[4] = {};
  *local_at(local, static_cast<int>(in[oxide::thread::index_1d().get() % in.size()])) = 9.0f;
  local_result(out, local);
}

// ---------------------------------------------------------------------------------------------
// The host side.

namespace {

constexpr std::size_t kCanaries = 64;
constexpr float kFloatCanary = -12345.5f;
constexpr unsigned kUintCanary = 0xcafef00du;

/// One buffer laid out as [output: n][canaries: 64][input: m]; the output and the input are
/// slices of it, so a write past the end of the output lands on the canaries.
template <class T> struct Arena {
  std::size_t n, m;
  T canary;
  std::vector<T> initial;
  oxide::DeviceBuffer<T> buffer;

  Arena(oxide::Stream &stream, std::size_t n_, std::size_t m_, T canary_, T out_init,
        const std::function<T(std::size_t)> &input)
      : n(n_), m(m_), canary(canary_), initial(make(n_, m_, canary_, out_init, input)),
        buffer(oxide::DeviceBuffer<T>::from_host(stream, initial)) {}

  static std::vector<T> make(std::size_t n, std::size_t m, T canary, T out_init,
                             const std::function<T(std::size_t)> &input) {
    std::vector<T> v(n + kCanaries + m, canary);
    for (std::size_t k = 0; k < n; ++k)
      v[k] = out_init;
    for (std::size_t k = 0; k < m; ++k)
      v[n + kCanaries + k] = input(k);
    return v;
  }
  auto out() { return buffer.slice(0, n); }
  auto in() const { return buffer.slice(n + kCanaries, m); } // read-only: binds to Span<const T>

  /// Prints what was overwritten; false if anything was.
  bool intact(const std::vector<T> &now, const char *variant) const {
    std::size_t bad = 0;
    for (std::size_t k = n; k < now.size(); ++k) {
      if (std::memcmp(&now[k], &initial[k], sizeof(T)) != 0) {
        if (bad++ < 4)
          std::printf("%s: %s %zu overwritten\n", variant, k < n + kCanaries ? "canary" : "input element",
                      k < n + kCanaries ? k - n : k - n - kCanaries);
      }
    }
    if (bad != 0)
      std::printf("%s: %zu elements past the end of the output overwritten\n", variant, bad);
    return bad == 0;
  }
};

struct Env {
  oxide::Context ctx = oxide::Context::create();
  oxide::Stream stream = ctx.default_stream();
};

constexpr std::size_t kOut = 100;                          // elements of a float output
const oxide::LaunchConfig1D kLaunch{4, 64};                // 256 threads, more than kOut
float float_input(std::size_t k) { return float(k % 10); } // the input of the float kernels
unsigned uint_input(std::size_t k) { return unsigned(k); } // 0, 1, 2... (64 and up too)

/// A float kernel (out, in) launched over 256 threads: ok or trapped, never past the end.
template <class Kernel>
int run_float(const char *variant, Kernel kernel, oxide::LaunchConfig1D config = kLaunch) {
  Env env;
  Arena<float> arena(env.stream, kOut, 32, kFloatCanary, 0.0f, float_input);
  auto out = arena.out();
  auto in = arena.in();
  oxide::prepare(env.ctx, kernel, config)(env.stream, out, in);
  env.stream.synchronize();
  return arena.intact(arena.buffer.to_host(env.stream), variant) ? 0 : 1;
}

/// A float kernel whose index is past a local array for some threads: it must stop (the child
/// exits 3); a launch that finishes wrote past that array.
template <class Kernel> int run_must_stop(const char *variant, Kernel kernel) {
  if (run_float(variant, kernel) != 0)
    return 1;
  std::printf("%s: finished, so some thread wrote past its local array\n", variant);
  return 1;
}

template <class Kernel, class... Args> int run_float_only(const char *variant, Kernel kernel, Args... args) {
  Env env;
  Arena<float> arena(env.stream, kOut, 32, kFloatCanary, 0.0f, float_input);
  auto out = arena.out();
  oxide::prepare(env.ctx, kernel, kLaunch)(env.stream, out, args...);
  env.stream.synchronize();
  return arena.intact(arena.buffer.to_host(env.stream), variant) ? 0 : 1;
}

template <class Kernel, class... Args>
int run_atomic(const char *variant, Kernel kernel, std::size_t bins, std::size_t inputs,
               oxide::LaunchConfig1D config, Args... args) {
  Env env;
  Arena<unsigned> arena(env.stream, bins, inputs, kUintCanary, 0u, uint_input);
  auto out = arena.out();
  auto in = arena.in();
  oxide::prepare(env.ctx, kernel, config)(env.stream, out, in, args...);
  env.stream.synchronize();
  return arena.intact(arena.buffer.to_host(env.stream), variant) ? 0 : 1;
}

struct Variant {
  const char *name;
  std::function<int(const char *)> run;
};

const std::vector<Variant> &variants() {
  static const std::vector<Variant> all = {
      {"assume_index", [](const char *v) { return run_float(v, assume_index); }},
      {"assume_index_untested", [](const char *v) { return run_float(v, assume_index_untested); }},
      {"unreachable_null", [](const char *v) { return run_float(v, unreachable_null); }},
      {"noreturn_returns", [](const char *v) { return run_float(v, noreturn_returns); }},
      {"switch_default", [](const char *v) { return run_float(v, switch_default); }},
      {"block_leader_assumed",
       [](const char *v) {
         Env env;
         Arena<float> arena(env.stream, 3, 32, kFloatCanary, -1.0f, float_input); // 4 blocks, 3 elements
         auto out = arena.out();
         auto in = arena.in();
         oxide::prepare(env.ctx, block_leader_assumed, kLaunch)(env.stream, out, in);
         env.stream.synchronize();
         const std::vector<float> now = arena.buffer.to_host(env.stream);
         bool ok = arena.intact(now, v);
         for (std::size_t b = 0; b < 3; ++b)
           if (now[b] != 0.0f) {
             std::printf("%s: element %zu = %g: written by a thread that is not its block's leader\n", v, b,
                         double(now[b]));
             ok = false;
           }
         return ok ? 0 : 1;
       }},
      {"tile_index_assumed",
       [](const char *v) { return run_float_only(v, tile_index_assumed, std::uint32_t{5}); }},
      {"pair_assumed", [](const char *v) { return run_float_only(v, pair_assumed, std::uint32_t{4}); }},
      {"atomic_signed_overflow",
       [](const char *v) { return run_atomic(v, atomic_signed_overflow, 16, 32, kLaunch); }},
      {"atomic_uninitialised",
       [](const char *v) { return run_atomic(v, atomic_uninitialised, 8, 32, kLaunch); }},
      {"atomic_assumed_in_range",
       [](const char *v) { return run_atomic(v, atomic_assumed_in_range, 64, 100, kLaunch); }},
      {"local_array_loop",
       [](const char *v) {
         return run_atomic(v, local_array_loop, 256, 32, oxide::LaunchConfig1D{1, 1}, std::uint32_t{300});
       }},
      {"local_noinline_helper", [](const char *v) { return run_must_stop(v, local_noinline_helper); }},
      {"local_recursive_helper", [](const char *v) { return run_must_stop(v, local_recursive_helper); }},
      {"local_returned_pointer", [](const char *v) { return run_must_stop(v, local_returned_pointer); }},
  };
  return all;
}

} // namespace

int main(int argc, char **argv) {
  return lang::run_variants(argc, argv, variants(), [](const Variant &, int code) {
    const char *what = code == 0   ? "ok: finished, nothing past the end written"
                       : code == 3 ? "ok: the kernel stopped (the launch failed)"
                       : code == 1 ? "FAILED: wrote past the end of its output"
                                   : "FAILED: the child did not exit normally";
    return lang::Verdict{code != 0 && code != 3, what};
  });
}
