// The simulator's half of oxide::prepare and of a launch.
#pragma once

#include "oxide/host/launch.hpp"
#include "oxide/host/registry.hpp"

namespace oxide::detail::sim {

/// Checks `geometry` against the simulated device's limits; throws oxide::Error naming `kernel`.
void check_geometry(const LaunchGeometry &geometry, const std::string &kernel);

/// Runs every block of `kernel` with the parameter values `arguments` point at, and returns when
/// all have finished. Throws oxide::Error, naming the block and thread, when one fails.
void launch(const PreparedKernel &kernel, void *const *arguments);

} // namespace oxide::detail::sim
