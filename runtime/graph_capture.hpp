// The one hook graph capture needs in the launch path (runtime/launch.cpp): on the simulator, a
// launch on a stream that Graph::capture records is recorded instead of run. Runtime internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace oxide {
class Stream;
namespace detail {
struct PreparedKernel;

/// Simulator: when `stream` is being captured, records the launch of `kernel` with a copy of the
/// parameter values `arguments` point at, for Graph::launch to run, and returns true; returns
/// false (the caller runs the kernel now) otherwise. Throws oxide::Error.
bool capture_simulated_launch(const PreparedKernel &kernel, const Stream &stream, void *const *arguments);

struct ArgumentMemory;

/// When `stream` is being captured, records the buffers (their allocation ids) that the launch of
/// `kernel` with these `count` arguments uses, for Graph::launch to check that each still holds
/// the same memory: a replay writes by address. Cheap when not capturing. Throws std::bad_alloc.
void capture_launch_allocations(const PreparedKernel &kernel, const Stream &stream,
                                const ArgumentMemory *arguments, std::size_t count);

/// The index of the first of `ids` that is no longer live (its buffer was freed or given other
/// memory), or ids.size() when all are (runtime/buffer_memory.cpp).
[[nodiscard]] std::size_t first_freed_allocation(std::span<const std::uint64_t> ids) noexcept;

} // namespace detail
} // namespace oxide
