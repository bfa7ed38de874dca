// The one hook graph capture needs in the launch path (runtime/launch.cpp): on the simulator, a
// launch on a stream that Graph::capture records is recorded instead of run. Runtime internal.
#pragma once

namespace oxide {
class Stream;
namespace detail {
struct PreparedKernel;

/// Simulator: when `stream` is being captured, records the launch of `kernel` with a copy of the
/// parameter values `arguments` point at, for Graph::launch to run, and returns true; returns
/// false (the caller runs the kernel now) otherwise. Throws oxide::Error.
bool capture_simulated_launch(const PreparedKernel &kernel, const Stream &stream, void *const *arguments);

} // namespace detail
} // namespace oxide
