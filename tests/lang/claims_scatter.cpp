// Language coverage, scatters at indices kernels compute (DisjointSpan::claim_mut through a
// ClaimSet, oxide::Claims on the host): a 24-byte record scattered by a permutation computed in
// the kernel, a scatter where ten threads compete for each element (exactly one wins each), a
// second launch without reset (nothing is claimed twice) and one after reset, and a key-value
// scatter in the style of a radix sort's, each compared with the host.
//
//   oxcc run tests/lang/claims_scatter.cpp
#include <oxide/oxide.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

constexpr std::size_t kN = 1000;
constexpr std::size_t kStride = 7919; // coprime with kN: i -> i * kStride % kN is a permutation

struct Record {
  double key;
  std::uint64_t value;
  float weight;
};

[[kernel, oxide::launch_contract("domain = 1, requires = (claims.size() == out.size())")]] void
permute(oxide::DisjointSpan<Record> out, oxide::ClaimSet claims) {
  const std::size_t i = oxide::thread::index_1d().get();
  // The launch rounds up to whole blocks: threads past the end would map onto the first
  // threads' elements and win them whenever their block runs first (16 host cores do that).
  if (i >= out.size())
    return;
  if (Record *o = out.claim_mut(i * kStride % out.size(), claims))
    *o = Record{double(i) * 0.5, i * 3 + 1, float(i % 17)};
}

// Thread i < kN competes for element i % 10 and writes its own index there when it wins.
[[kernel, oxide::launch_contract("domain = 1")]] void compete(oxide::DisjointSpan<std::uint32_t> out,
                                                              oxide::ClaimSet claims) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i >= kN) // the launch's rounding up to whole blocks
    return;
  if (std::uint32_t *o = out.claim_mut(i % 10, claims))
    *o = std::uint32_t(i);
}

// A stable counting scatter of (key, value) pairs by their low 4 bits, as one pass of an LSD radix
// sort: the destination is the digit's start plus the element's rank among equal digits before it.
struct Pair {
  std::uint32_t key, value;
};
[[kernel,
  oxide::launch_contract("domain = 1, requires = (in.size() == out.size(), start.size() == 16)")]] void
radix_pass(oxide::Span<const Pair> in, oxide::Span<const std::uint32_t> start, oxide::ClaimSet claims,
           oxide::DisjointSpan<Pair> out) {
  const std::size_t i = oxide::thread::index_1d().get();
  if (i >= in.size())
    return;
  const std::uint32_t digit = in[i].key & 15u;
  std::uint32_t rank = 0;
  for (std::size_t k = 0; k < i; ++k)
    rank += (in[k].key & 15u) == digit;
  if (Pair *o = out.claim_mut(start[digit] + rank, claims))
    *o = in[i];
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const auto config = oxide::LaunchConfig1D::for_elements(kN, 64);
  std::size_t failures = 0, checks = 0;
  const auto expect = [&](bool ok, const char *what, std::size_t at) {
    ++checks;
    if (!ok && failures++ < 8)
      std::printf("mismatch: %s at %zu\n", what, at);
  };

  // A permutation computed in the kernel: every claim wins, every element is written once.
  auto records = oxide::DeviceBuffer<Record>::zeroed(stream, kN);
  auto record_claims = oxide::Claims::create(stream, kN);
  oxide::prepare(ctx, permute, config)(stream, records, record_claims);
  const std::vector<Record> got = records.to_host(stream);
  for (std::size_t i = 0; i < kN; ++i) {
    const Record &r = got[i * kStride % kN];
    expect(r.key == double(i) * 0.5 && r.value == i * 3 + 1 && r.weight == float(i % 17), "permute", i);
  }
  expect(record_claims.count(stream) == kN, "permute: claimed", kN);

  // Ten threads for each of ten elements: exactly ten claims win, each by a thread of its residue.
  auto winners = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, std::vector<std::uint32_t>(10, ~0u));
  auto winner_claims = oxide::Claims::create(stream, 10);
  auto contest = oxide::prepare(ctx, compete, config);
  contest(stream, winners, winner_claims);
  std::vector<std::uint32_t> first = winners.to_host(stream);
  for (std::size_t k = 0; k < 10; ++k)
    expect(first[k] < kN && first[k] % 10 == k, "compete", k);
  expect(winner_claims.count(stream) == 10, "compete: claimed", 10);
  const std::vector<bool> bits = winner_claims.claimed(stream);
  for (std::size_t k = 0; k < 10; ++k)
    expect(bits[k], "compete: bit", k);

  // Without reset, the bits are still set: the next launch writes nothing.
  winners.fill(stream, 12345u);
  contest(stream, winners, winner_claims);
  for (std::uint32_t w : winners.to_host(stream))
    expect(w == 12345u, "no reset: untouched", w);
  // After reset, each element is claimed again.
  winner_claims.reset(stream);
  expect(winner_claims.count(stream) == 0, "reset", 0);
  contest(stream, winners, winner_claims);
  for (std::size_t k = 0; k < 10; ++k)
    expect(winners.to_host(stream)[k] % 10 == k, "after reset", k);

  // One pass of a radix sort: a stable scatter by digit, compared with the host's.
  std::vector<Pair> pairs(kN);
  for (std::size_t i = 0; i < kN; ++i)
    pairs[i] = {std::uint32_t(i * 2654435761u), std::uint32_t(i)};
  std::vector<std::uint32_t> count(16, 0), start(16, 0);
  for (const Pair &p : pairs)
    ++count[p.key & 15u];
  for (std::size_t d = 1; d < 16; ++d)
    start[d] = start[d - 1] + count[d - 1];
  std::vector<Pair> want(kN);
  {
    std::vector<std::uint32_t> next = start;
    for (const Pair &p : pairs)
      want[next[p.key & 15u]++] = p;
  }
  auto in = oxide::DeviceBuffer<Pair>::from_host(stream, pairs);
  auto starts = oxide::DeviceBuffer<std::uint32_t>::from_host(stream, start);
  auto sorted = oxide::DeviceBuffer<Pair>::zeroed(stream, kN);
  auto pair_claims = oxide::Claims::create(stream, kN);
  oxide::prepare(ctx, radix_pass, config)(stream, in, starts, pair_claims, sorted);
  const std::vector<Pair> out = sorted.to_host(stream);
  for (std::size_t i = 0; i < kN; ++i)
    expect(out[i].key == want[i].key && out[i].value == want[i].value, "radix_pass", i);

  std::printf("claims_scatter: %zu checks on %s\n", checks, ctx.device().name().c_str());
  if (failures != 0) {
    std::printf("FAIL: %zu checks failed\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\nFAIL\n", e.what());
  return 1;
}
