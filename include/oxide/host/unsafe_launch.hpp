// oxide::unsafe_launch: launching a kernel without a launch contract.
//
// UNSAFE. Nothing is known about what such a kernel writes, so nothing stops two threads from
// writing the same element, a write out of bounds, or an output that aliases an input; the
// caller guarantees all of that. What is still checked: the kernel is registered and its
// parameter layout matches, every argument's type (at compile time; raw pointer parameters
// accept DeviceBuffers and pointers here), the shape against CUDA's, the device's and the
// kernel's launch_bounds limits, and that the stream and every buffer belong to one context.
// Kernels with a contract can be launched this way too; their contract is then not checked.
#pragma once

#include <array>
#include <tuple>
#include <type_traits>
#include <utility>

#include "oxide/detail/host/launch_core.hpp"

namespace oxide {

namespace detail {
template <class Config, class... P, class... Args>
void unsafe_launch(Stream &stream, void (*kernel)(P...), const Config &config, Args &&...args) {
  check_kernel_signature<P...>();
  (void)CheckArgumentCount<sizeof...(Args), sizeof...(P)>{};
  if constexpr (sizeof...(Args) == sizeof...(P)) {
    check_each_argument<true>(std::index_sequence_for<Args...>{}, std::type_identity<std::tuple<P...>>{},
                              std::type_identity<std::tuple<Args...>>{});
    if constexpr (binds_all<true>(std::type_identity<std::tuple<P...>>{},
                                  std::type_identity<std::tuple<Args...>>{})) {
      static constexpr std::array<HostParam, sizeof...(P)> params{host_param<P>()...};
      const PreparedKernel prepared = prepare_unsafe_kernel(stream, host_kernel(kernel), params,
                                                            geometry_of(config), launch_rank_v<Config>);
      bind_and_launch<true, P...>(prepared, stream, std::forward<Args>(args)...);
    }
  }
}
} // namespace detail

/// UNSAFE: launches `kernel` (any [[kernel]] built with oxcc, with or without a launch
/// contract) on `stream` with `config`, without checking a contract. The kernel is looked up
/// and its module loaded once per context, so repeated calls are cheap. Throws oxide::Error.
///
///   oxide::unsafe_launch(stream, scatter, oxide::LaunchConfig{{blocks}, {256}}, in, perm, out, n);
template <class... P, class... Args>
void unsafe_launch(Stream &stream, void (*kernel)(P...), const LaunchConfig &config, Args &&...args) {
  detail::unsafe_launch(stream, kernel, config, std::forward<Args>(args)...);
}

/// The same with a LaunchConfig1D, 2D or 3D (checked with that rank's rules).
template <class Config, class... P, class... Args>
  requires(std::is_same_v<Config, LaunchConfig1D> || std::is_same_v<Config, LaunchConfig2D> ||
           std::is_same_v<Config, LaunchConfig3D>)
void unsafe_launch(Stream &stream, void (*kernel)(P...), const Config &config, Args &&...args) {
  detail::unsafe_launch(stream, kernel, config, std::forward<Args>(args)...);
}

} // namespace oxide
