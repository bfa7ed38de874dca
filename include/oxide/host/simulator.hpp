// Running kernels on the CPU simulator without oxcc.
//
// Programs built with oxcc register their kernels automatically, with their launch contracts.
// A program compiled as plain host C++ (to debug a kernel under gdb or AddressSanitizer, in a
// test or a benchmark) registers them here, repeating the contract the attribute states, since
// a plain compiler ignores [[oxide::launch_contract]]. Such kernels have no device code, so they
// run on the simulator only.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "oxide/detail/host/registry.hpp"
#include "oxide/detail/param_kind.hpp"
#include "oxide/device/append.hpp"
#include "oxide/device/span.hpp"
#include "oxide/host/kernel_argument.hpp"

namespace oxide::sim {

namespace detail {
/// What a contracted registration adds: the contract text as a user writes it, one name per
/// parameter, their kinds (KernelInfo::param_kinds letters) and the launch bounds.
struct ContractSpec {
  std::string_view contract;
  std::span<const std::string_view> names;
  std::string_view kinds;
  std::uint32_t max_threads = 0;
};

/// Registers `host_address` as the kernel `name` with these parameter layouts and no device
/// code; `spec` is null for a kernel without a contract. Throws oxide::Error (InvalidContract).
void register_host_kernel(const void *host_address, std::string_view name,
                          std::span<const oxide::detail::HostParam> params, const ContractSpec *spec);

// The letters of oxide/detail/param_kind.hpp, as the compiler writes them for these types.
using oxide::detail::param_kind_letter;
using oxide::detail::ParamKind;
template <class T> inline constexpr char param_kind_v = param_kind_letter(oxide::detail::param_kind_v<T>);

template <class... P> constexpr std::array<oxide::detail::HostParam, sizeof...(P)> host_params() noexcept {
  static_assert((std::is_trivially_copyable_v<P> && ...),
                "oxide: kernel parameters must be trivially copyable");
  return {oxide::detail::HostParam{sizeof(P), alignof(P), oxide::detail::type_name<P>(),
                                   oxide::detail::span_element_size_v<P>, oxide::detail::param_kind_v<P>}...};
}
} // namespace detail

/// Makes `kernel` launchable on a simulator context, without a launch contract: with
/// oxide::unsafe_launch only. `name` is the name messages use. Registering a function twice, or
/// one oxcc already registered, changes nothing. On a CUDA context it fails with "the device
/// code of kernel ... cannot run".
template <class... P> void register_kernel(void (*kernel)(P...), std::string_view name) {
  static constexpr auto params = detail::host_params<P...>();
  detail::register_host_kernel(reinterpret_cast<const void *>(kernel), name, params, nullptr);
}

/// The same with a launch contract, so that oxide::prepare accepts the kernel: `contract` is the
/// text of its [[oxide::launch_contract("...")]], `param_names` the kernel's parameter names in
/// order (what `requires` refers to), `max_threads` its launch_bounds (0: none). Throws
/// oxide::Error (InvalidContract) when the contract does not parse.
///
///   oxide::sim::register_kernel(vecadd, "vecadd", "domain = 1, requires = (a.size() == c.size())",
///                               {"a", "b", "c"});
template <class... P>
void register_kernel(void (*kernel)(P...), std::string_view name, std::string_view contract,
                     const std::array<std::string_view, sizeof...(P)> &param_names,
                     std::uint32_t max_threads = 0) {
  // What the compiler refuses in a contracted kernel (docs/safety.md).
  static_assert(
      ((detail::param_kind_v<P> != detail::param_kind_letter(detail::ParamKind::mutable_span)) && ...),
      "oxide: a kernel with a launch contract cannot take a mutable oxide::Span<T>; use "
      "DisjointSpan<T> for outputs or Span<const T> for inputs, or register it without a contract");
  static_assert(
      (!std::is_pointer_v<P> && ...),
      "oxide: a kernel with a launch contract cannot take raw pointers; register it without a contract "
      "and launch it with oxide::unsafe_launch");
  static constexpr auto params = detail::host_params<P...>();
  static constexpr char kinds[] = {detail::param_kind_v<P>..., '\0'};
  const detail::ContractSpec spec{contract, param_names, {kinds, sizeof...(P)}, max_threads};
  detail::register_host_kernel(reinterpret_cast<const void *>(kernel), name, params, &spec);
}

} // namespace oxide::sim
