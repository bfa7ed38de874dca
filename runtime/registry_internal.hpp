// The registry's entry point for the runtime's own registrations (see sim/register_kernel.cpp).
#pragma once

#include <span>

#include "oxide/detail/device_image.hpp"

namespace oxide::detail {

/// Registers `image` and maps each host address to the kernel of the same index in `names`.
/// Aborts on an inconsistent image, like __oxide_register_image.
void add_to_registry(DeviceImage image, std::span<const void *const> addresses,
                     std::span<const char *const> names);

} // namespace oxide::detail
