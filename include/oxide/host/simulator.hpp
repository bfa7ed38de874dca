// Running kernels on the CPU simulator without oxcc.
//
// Programs built with oxcc register their kernels automatically. A program compiled as plain
// host C++ (to debug a kernel under gdb or AddressSanitizer, in a test or a benchmark) registers
// them here; such kernels have no device code, so they run on the simulator only.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <type_traits>

#include "oxide/host/kernel_argument.hpp"
#include "oxide/host/registry.hpp"

namespace oxide::sim {

namespace detail {
/// Registers `host_address` as the kernel `name` with these parameter layouts and no device code.
void register_host_kernel(const void *host_address, std::string_view name,
                          std::span<const oxide::detail::HostParam> params);
} // namespace detail

/// Makes `kernel` launchable through oxide::prepare on a simulator context; `name` is the name
/// messages use. Registering a function twice, or one oxcc already registered, changes nothing.
/// Preparing it on a CUDA context fails with "the device code of kernel ... cannot run".
template <class... P> void register_kernel(void (*kernel)(P...), std::string_view name) {
  static_assert((std::is_trivially_copyable_v<P> && ...),
                "oxide: kernel parameters must be trivially copyable");
  static constexpr std::array<oxide::detail::HostParam, sizeof...(P)> params{
      oxide::detail::HostParam{sizeof(P), alignof(P), oxide::detail::type_name<P>()}...};
  detail::register_host_kernel(reinterpret_cast<const void *>(kernel), name, params);
}

} // namespace oxide::sim
