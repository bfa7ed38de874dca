// Device enumeration shared by Device and Context.
#pragma once

#include <string>

namespace oxide::detail {

/// Number of devices; 0 when the driver reports CUDA_ERROR_NO_DEVICE. Throws oxide::Error when
/// the driver cannot be loaded or fails otherwise.
[[nodiscard]] int device_count();

/// Why there is no usable CUDA device, in a few words ("libcuda.so.1: cannot open shared object
/// file: ..."); empty when there is one. Never throws.
[[nodiscard]] std::string cuda_unavailable_reason() noexcept;

} // namespace oxide::detail
