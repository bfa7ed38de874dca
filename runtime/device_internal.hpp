// Device enumeration shared by Device and Context.
#pragma once

namespace oxide::detail {

/// Number of devices; 0 when the driver reports CUDA_ERROR_NO_DEVICE. Throws oxide::Error when
/// the driver cannot be loaded or fails otherwise.
[[nodiscard]] int device_count();

} // namespace oxide::detail
