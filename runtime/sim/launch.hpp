// The simulator's half of a launch.
#pragma once

#include "oxide/host/launch_core.hpp"
#include "oxide/host/registry.hpp"

namespace oxide::detail::sim {

/// Runs every block of `kernel` with the parameter values `arguments` point at, and returns when
/// all have finished. Throws oxide::Error, naming the block and thread, when one fails.
void launch(const PreparedKernel &kernel, void *const *arguments);

} // namespace oxide::detail::sim
