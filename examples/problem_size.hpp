// How big a problem an example solves: the full size on a GPU, a small one on the CPU simulator
// (which runs every thread as a fiber) and under OXIDE_EXAMPLE_SMALL=1, which the GPU suite sets
// for its compute-sanitizer runs (tens of times slower than the kernels alone). A small run also
// skips the timing repetitions.
#pragma once

#include <oxide/oxide.hpp>

#include <cstdlib>
#include <string_view>

namespace example {

[[nodiscard]] inline bool small_problem(const oxide::Context &ctx) {
  const char *small = std::getenv("OXIDE_EXAMPLE_SMALL");
  return ctx.is_simulator() ||
         (small != nullptr && std::string_view(small) != "" && std::string_view(small) != "0");
}

} // namespace example
