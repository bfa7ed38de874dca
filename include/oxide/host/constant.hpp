// Setting oxide::constant variables (oxide/device/constant.hpp) from the host.
#pragma once

#include <cstddef>
#include <type_traits>

#include "oxide/device/constant.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {
/// Writes `bytes` bytes at `value` to the host copy at `host_address` and, on a GPU, enqueues
/// the copy to every device copy in the stream's context (loading the modules that hold them).
void set_constant_bytes(Stream &stream, void *host_address, const void *value, std::size_t bytes);
} // namespace detail

/// Sets `variable` to `value` for the kernels launched on `stream` after this call, in the
/// stream's context (other contexts keep their own copy). Ordered with the stream's work: a
/// kernel enqueued earlier still reads the old value. `value` may be a temporary. On the CPU
/// simulator, the host copy is what kernels read. Throws oxide::Error.
template <class T>
void set_constant(Stream &stream, constant<T> &variable, const std::type_identity_t<T> &value) {
  detail::set_constant_bytes(stream, &detail::ConstantAccess::storage(variable), &value, sizeof(T));
}

} // namespace oxide
