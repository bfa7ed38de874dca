// OXIDE_SIM_WARP_RACES=1 reports the lanes of a warp that update one shared word through
// AtomicRef::fetch_max (fetch_add is fine) as "warp-synchronous shared memory without a
// barrier", though atomic updates never race. (On x86-64 an atomic max is a load and a
// compare-exchange loop: the traced load looks like a plain read.) Found by tests/differential
// (generate.py --seed 7 --kernels 40 --only 37: a shared-memory histogram updated with
// fetch_max). Expected: PASS in every mode. Seen: PASS, PASS with OXIDE_SIM_CHECK=1, and with
// OXIDE_SIM_WARP_RACES=1:
//   FAIL: oxide: kernel 'shared_histogram' block (0,0,0) thread (4,0,0): warp-synchronous shared
//   memory without a barrier: lane 4 reads the word at byte 0 of a shared array, which lane 0 of
//   its warp wrote since their last sync_threads or warp::sync; ...
//
//   oxcc build warp-races-shared-atomic.cpp -o t && OXIDE_DEVICE=cpu OXIDE_SIM_WARP_RACES=1 ./t
#include <oxide/oxide.hpp>

#include <cstdio>
#include <vector>

[[kernel, oxide::launch_contract("domain = 1, block = 64")]]
void shared_histogram(oxide::DisjointSpan<unsigned> out) {
  const auto idx = oxide::thread::index_1d();
  const unsigned tid = oxide::thread_idx().x;
  auto bins = oxide::shared_array<unsigned, 4>();
  if (tid < 4)
    bins[tid] = 0;
  oxide::sync_threads();
  oxide::AtomicRef<unsigned, oxide::Scope::block>(bins[tid % 4])
      .fetch_max(tid); // lanes 0, 4, 8... share bin 0
  oxide::sync_threads();
  if (unsigned *o = out.get_mut(idx))
    *o = bins[tid % 4];
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  auto out = oxide::DeviceBuffer<unsigned>::zeroed(stream, 64);
  oxide::prepare(ctx, shared_histogram, oxide::LaunchConfig1D{1, 64})(stream, out);
  const std::vector<unsigned> got = out.to_host(stream);
  for (unsigned t = 0; t < 64; ++t)
    if (got[t] != 60 + t % 4) { // the largest thread index of bin t % 4
      std::printf("FAIL: thread %u read %u, expected %u\n", t, got[t], 60 + t % 4);
      return 1;
    }
  std::printf("PASS\n");
  return 0;
} catch (const oxide::Error &e) {
  std::printf("FAIL: %s\n", e.what());
  return 1;
}
