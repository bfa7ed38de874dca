// Host definitions of the device intrinsics: kernel code running on the CPU.
#include <gtest/gtest.h>

#include "oxide/device.hpp"
#include "sim_thread.hpp"

namespace {

using oxide::detail::SpanAccess;

/// Runs `body` as if it were simulated GPU thread `index`.
template <class F> void as_sim_thread(std::size_t index, F body) {
  oxide::detail::SimThread thread{index};
  oxide::detail::current_sim_thread = &thread;
  body();
  oxide::detail::current_sim_thread = nullptr;
}

TEST(HostIntrinsics, SimulatedThreadSuppliesTheIndex) {
  float out[4] = {};
  const auto disjoint = SpanAccess::make_disjoint(out, 4);
  for (std::size_t i = 0; i < 6; ++i) // two threads past the end get no element
    as_sim_thread(i, [&] {
      const auto idx = oxide::thread::index_1d();
      EXPECT_EQ(idx.get(), i);
      if (float *slot = disjoint.get_mut(idx))
        *slot = static_cast<float>(idx.get()) * 2.0f;
    });
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[3], 6.0f);
  EXPECT_EQ(oxide::detail::current_sim_thread, nullptr);
}

TEST(HostIntrinsicsDeathTest, KernelCodeOutsideALaunchAborts) {
  EXPECT_DEATH((void)oxide::thread::index_1d().get(),
               "oxide: kernel code called outside a launch; launch kernels through oxide::prepare");
}

TEST(HostIntrinsicsDeathTest, OutOfBoundsSpanAccessAborts) {
  float data[2] = {1.0f, 2.0f};
  const auto span = SpanAccess::make_span<const float>(data, 2);
  EXPECT_EQ(span[1], 2.0f);
  EXPECT_EQ(span.get(5), nullptr);
  EXPECT_DEATH((void)span[5], "oxide: index 5 out of bounds for span of size 2");
}

} // namespace
