// Safe kernel launches: oxide::prepare and the reusable PreparedLaunch.
//
// prepare() does everything that can fail once (registry lookup, module load, layout checks,
// the launch contract against the configuration and the device); each launch then binds the
// arguments at compile time, checks the stream, the buffers' context, the contract's `requires`
// relations and that outputs alias nothing, and enqueues the kernel on the GPU or runs it on the
// CPU simulator, whichever backend the context has. Kernels without a launch contract are
// launched with oxide::unsafe_launch (oxide/host/unsafe_launch.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "oxide/detail/host/launch_core.hpp"

namespace oxide {

/// A kernel bound to a context and a launch configuration (LaunchConfig1D, 2D or 3D); call it to
/// launch. Cheap to call repeatedly and from several threads.
template <class Config, class... P> class BasicPreparedLaunch {
public:
  /// Whether operator() accepts arguments of these types (`X&` for lvalues, `X` for rvalues).
  template <class... Args>
  static constexpr bool accepts_arguments = detail::binds_all<false>(
      std::type_identity<std::tuple<P...>>{}, std::type_identity<std::tuple<Args...>>{});

  BasicPreparedLaunch(detail::PreparedKernel kernel, const Config &config) noexcept
      : kernel_(std::move(kernel)), config_(config) {}

  /// Enqueues the kernel on `stream`, which must belong to the prepared context. Each argument
  /// is bound to its parameter at compile time (see oxide/host/kernel_argument.hpp); before the
  /// launch, the contract's `requires` relations are evaluated on the arguments and buffers the
  /// kernel writes must not overlap any other argument. Throws oxide::Error.
  template <class... Args> void operator()(Stream &stream, Args &&...args) const {
    (void)detail::CheckArgumentCount<sizeof...(Args), sizeof...(P)>{};
    if constexpr (sizeof...(Args) == sizeof...(P)) {
      // Each CheckKernelArgument reports its own mismatch; the guard stops follow-on errors.
      detail::check_each_argument<false>(std::index_sequence_for<Args...>{},
                                         std::type_identity<std::tuple<P...>>{},
                                         std::type_identity<std::tuple<Args...>>{});
      if constexpr (accepts_arguments<Args...>)
        detail::bind_and_launch<false, P...>(kernel_, stream, std::forward<Args>(args)...);
    }
  }

  [[nodiscard]] const Config &config() const noexcept { return config_; }
  /// Whether launches run on the CPU simulator.
  [[nodiscard]] bool is_simulated() const noexcept { return kernel_.simulated; }
  /// The kernel's demangled name, without parameters.
  [[nodiscard]] const std::string &kernel_name() const noexcept { return kernel_.display_name(); }

private:
  detail::PreparedKernel kernel_;
  Config config_;
};

/// A prepared 1-D launch; BasicPreparedLaunch<LaunchConfig2D/3D, P...> for the other shapes.
template <class... P> using PreparedLaunch = BasicPreparedLaunch<LaunchConfig1D, P...>;

namespace detail {
template <class Config, class... P>
[[nodiscard]] BasicPreparedLaunch<Config, P...> prepare_launch(const Context &context, void (*kernel)(P...),
                                                               const Config &config) {
  check_kernel_signature<P...>();
  static constexpr std::array<HostParam, sizeof...(P)> params{host_param<P>()...};
  return {prepare_kernel(context, host_kernel(kernel), params, geometry_of(config), launch_rank_v<Config>),
          config};
}
} // namespace detail

/// Prepares `kernel` (a function marked [[kernel]] with a launch contract, built with oxcc) for
/// launches in `context` with `config`: loads its module once per context (nothing to load on
/// the simulator), checks the parameter layout, and checks the configuration against the launch
/// contract (domain, exact block, launch bounds, dynamic shared memory, compute capability) and
/// the device's limits. Throws oxide::Error, whose kind() says which check failed; a kernel
/// without a contract is refused (ErrorKind::NoContract): launch it with oxide::unsafe_launch.
/// oxcc already rejects, at the call, a kernel defined in the calling file without a contract
/// (compiler/ast/SafetyChecker.cpp); the run-time check covers kernels defined elsewhere.
template <class... P>
[[nodiscard]] PreparedLaunch<P...> prepare(const Context &context, void (*kernel)(P...),
                                           LaunchConfig1D config) {
  return detail::prepare_launch(context, kernel, config);
}

/// The same for a 2-D or 3-D launch. A template so that a braced `{grid, block}` still means
/// a LaunchConfig1D.
template <class Config, class... P>
  requires(std::is_same_v<Config, LaunchConfig2D> || std::is_same_v<Config, LaunchConfig3D>)
[[nodiscard]] BasicPreparedLaunch<Config, P...> prepare(const Context &context, void (*kernel)(P...),
                                                        const Config &config) {
  return detail::prepare_launch(context, kernel, config);
}

namespace detail {
/// The exact block of `host`'s launch contract, for a domain of `rank` elements (oxide::elements).
/// Throws oxide::Error: NoContract without a contract, DomainMismatch when `rank` is not its
/// domain, BlockMismatch when the contract fixes no block.
[[nodiscard]] Dim3 contract_block(const Context &context, HostKernel host,
                                  HostElements<const HostParam> params, unsigned rank);
} // namespace detail

/// Prepares `kernel` for launches over `domain` (oxide::elements(n), (width, height) or
/// (width, height, depth)): the block is the one the kernel's launch contract fixes
/// (`block = ...`) and the grid covers each extent, rounded up to whole blocks. A contract
/// without `block` is refused (ErrorKind::BlockMismatch, saying what to write instead), as is a
/// domain of another rank than the contract's (ErrorKind::DomainMismatch). Otherwise the same as
/// prepare with the LaunchConfig this makes.
template <unsigned Rank, class... P>
[[nodiscard]] BasicPreparedLaunch<detail::launch_config_for_rank_t<Rank>, P...>
prepare(const Context &context, void (*kernel)(P...), const Elements<Rank> &domain) {
  detail::check_kernel_signature<P...>();
  static constexpr std::array<detail::HostParam, sizeof...(P)> params{detail::host_param<P>()...};
  const Dim3 block = detail::contract_block(context, detail::host_kernel(kernel), params, Rank);
  return detail::prepare_launch(context, kernel, detail::config_for(domain, block));
}

namespace detail {
[[nodiscard]] std::uint32_t max_resident_blocks(const Context &context, HostKernel host,
                                                HostElements<const HostParam> params,
                                                std::uint32_t block_threads,
                                                std::uint32_t dynamic_shared_bytes);
} // namespace detail

/// How many blocks of `block_threads` threads (with `dynamic_shared_bytes` of dynamic shared
/// memory each) of `kernel` the context's device holds at once: the largest grid a cooperative
/// launch (`cooperative = true`) may have. Throws oxide::Error.
template <class... P>
[[nodiscard]] std::uint32_t max_resident_blocks(const Context &context, void (*kernel)(P...),
                                                std::uint32_t block_threads,
                                                std::uint32_t dynamic_shared_bytes = 0) {
  static constexpr std::array<detail::HostParam, sizeof...(P)> params{detail::host_param<P>()...};
  return detail::max_resident_blocks(context, detail::host_kernel(kernel), params, block_threads,
                                     dynamic_shared_bytes);
}

} // namespace oxide
