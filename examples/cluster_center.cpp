// cluster_center: subtracts from every value the mean of its segment of 1024 values, where a
// segment is handled by a cluster of 4 blocks of 256 threads (Hopper thread-block clusters).
// Each block sums its 256 values into its own shared memory, the cluster meets at
// oxide::cluster::sync(), and every block then reads the other blocks' partial sums straight
// from their shared memory (distributed shared memory, oxide::cluster::map_shared): the
// segment's mean without a trip through global memory or a second launch. The cluster's witness
// (oxide::cluster::index()) owns the segment's element of `means`: one thread of the cluster
// writes it.
//
//   oxcc run examples/cluster_center.cpp
#include <oxide/oxide.hpp>

#include "problem_size.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

constexpr std::uint32_t kBlock = 256, kClusterBlocks = 4;
constexpr std::uint32_t kSegment = kBlock * kClusterBlocks;
constexpr std::uint32_t kWarps = kBlock / oxide::warp::kSize;

[[kernel, oxide::launch_contract("domain = 1, block = 256, cluster = 4, min_compute_capability = (9, 0), "
                                 "requires = (in.size() == out.size())")]] void
center(oxide::Span<const float> in, oxide::DisjointSpan<float> out, oxide::DisjointSpan<float> means) {
  auto warp_sums = oxide::shared_array<float, kWarps>();
  auto block_sum = oxide::shared_array<float, 1>(); // read by the cluster's other blocks
  const auto i = oxide::thread::index_1d();
  const std::uint32_t t = oxide::thread_idx().x;
  const float x = i.get() < in.size() ? in[i.get()] : 0.0f;
  const float warp_sum = oxide::warp::sum(x);
  if (oxide::warp::lane_id() == 0)
    warp_sums[t / oxide::warp::kSize] = warp_sum;
  oxide::sync_threads();
  if (t < oxide::warp::kSize) {
    const float sum = oxide::warp::sum(t < kWarps ? warp_sums[t] : 0.0f);
    if (t == 0)
      block_sum[0] = sum;
  }
  oxide::cluster::sync(); // every block of the cluster has its sum in shared memory
  float segment = 0.0f;
  for (std::uint32_t rank = 0; rank < oxide::cluster::block_count(); ++rank)
    segment += oxide::cluster::map_shared(block_sum, rank)[0];
  // No block may exit while another still reads its shared memory.
  oxide::cluster::sync();
  if (float *o = out.get_mut(i))
    *o = x - segment / static_cast<float>(kSegment);
  if (float *mean = means.get_mut(oxide::cluster::index())) // thread 0 of the cluster's first block
    *mean = segment / static_cast<float>(kSegment);
}

int main() try {
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  const std::size_t segments = example::small_problem(ctx) ? 64 : 16384; // 16M values on a GPU
  const std::size_t n = segments * kSegment;
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1.0f, 3.0f);
  std::vector<float> host(n);
  for (float &x : host)
    x = dist(rng);

  auto in = oxide::DeviceBuffer<float>::from_host(stream, host);
  auto out = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(n, std::numeric_limits<float>::quiet_NaN()));
  auto means = oxide::DeviceBuffer<float>::from_host(
      stream, std::vector<float>(segments, std::numeric_limits<float>::quiet_NaN()));
  // The grid must be a whole number of clusters: n is a multiple of the segment.
  oxide::prepare(ctx, center, oxide::LaunchConfig1D::for_elements(n, kBlock))(stream, in, out, means);
  const std::vector<float> result = out.to_host(stream), segment_means = means.to_host(stream);

  std::size_t wrong = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    double sum = 0.0, magnitude = 0.0;
    for (std::size_t j = s * kSegment; j < (s + 1) * kSegment; ++j) {
      sum += host[j];
      magnitude += std::fabs(host[j]);
    }
    // float sums of 1024 terms in a tree of depth 10 + 5 + 2: error below 2^-24 * 17 * magnitude.
    const double tolerance = 17.0 * magnitude / kSegment * 0x1p-24 + 2.0 * 0x1p-24 * 4.0;
    if (!(std::fabs(segment_means[s] - sum / kSegment) <= tolerance) && wrong++ < 5)
      std::printf("means[%zu]: got %.9g, expected %.9g\n", s, segment_means[s], sum / kSegment);
    for (std::size_t j = s * kSegment; j < (s + 1) * kSegment; ++j) {
      const double expected = host[j] - sum / kSegment;
      if (!(std::fabs(result[j] - expected) <= tolerance) && wrong++ < 5)
        std::printf("out[%zu]: got %.9g, expected %.9g\n", j, result[j], expected);
    }
  }
  if (wrong != 0) {
    std::printf("FAIL: %zu of %zu elements wrong\n", wrong, n);
    return 1;
  }
  std::printf("cluster_center: %zu segments of %u values, clusters of %u blocks on %s\nPASS\n", segments,
              kSegment, kClusterBlocks, ctx.device().name().c_str());
  return 0;
} catch (const oxide::Error &e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
