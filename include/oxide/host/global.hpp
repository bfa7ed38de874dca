// Setting and reading oxide::device_global variables (oxide/device/global.hpp) from the host.
#pragma once

#include <cstddef>
#include <type_traits>

#include "oxide/device/global.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
/// Writes `bytes` bytes at `value` to the host copy at `host_address` and, on a GPU, enqueues
/// the copy to every device copy in the stream's context (loading the modules that hold them).
void set_global_bytes(Stream &stream, void *host_address, const void *value, std::size_t bytes);
/// Waits for the stream and copies the variable's value in the stream's context to `value`.
void get_global_bytes(Stream &stream, const void *host_address, void *value, std::size_t bytes);
} // namespace detail

/// Sets `variable` to `value` for the kernels launched on `stream` after this call, in the
/// stream's context (other contexts keep their own copy). Ordered with the stream's work: a
/// kernel enqueued earlier still sees the old value. `value` may be a temporary. Throws
/// oxide::Error.
template <class T>
void set_global(Stream &stream, device_global<T> &variable, const std::type_identity_t<T> &value) {
  detail::set_global_bytes(stream, &detail::GlobalAccess::storage(variable), &value, sizeof(T));
}

/// The value of `variable` in the stream's context once the work enqueued on `stream` so far has
/// finished (this waits for it, like DeviceBuffer::to_host). Throws oxide::Error.
template <class T> [[nodiscard]] T get_global(Stream &stream, device_global<T> &variable) {
  T value;
  detail::get_global_bytes(stream, &detail::GlobalAccess::storage(variable), &value, sizeof(T));
  return value;
}

} // namespace oxide
