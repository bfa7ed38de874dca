// The simulated GPU thread that is running on the current host thread, if any.
//
// Kernels are ordinary host functions; when the CPU simulator runs one, it points
// current_sim_thread at the state of the GPU thread being simulated, so that the host
// definitions of the __oxide_* intrinsics can answer. Null outside a simulated launch.
#pragma once

#include <cstddef>

namespace oxide::detail {

struct SimThread {
  std::size_t index_1d = 0; ///< blockIdx.x * blockDim.x + threadIdx.x
};

extern constinit thread_local SimThread *current_sim_thread;

} // namespace oxide::detail
