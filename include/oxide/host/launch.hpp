// Kernel launches: oxide::prepare and the reusable PreparedLaunch.
//
// prepare() does everything that can fail once (registry lookup, module load, layout and limit
// checks); each launch then only binds arguments, at compile time, and enqueues the kernel on
// the GPU or runs it on the CPU simulator, whichever backend the context has.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "oxide/host/buffer.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/kernel_argument.hpp"
#include "oxide/host/launch_config.hpp"
#include "oxide/host/registry.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {

/// Any function pointer type; kernels are stored as this and cast back by their invoker.
using HostFunction = void (*)();

/// A kernel's host code: what the CPU simulator calls once per simulated thread.
struct HostKernel {
  HostFunction function = nullptr;
  /// Calls `function` with the parameter values `arguments` point at (one per parameter).
  void (*invoke)(HostFunction function, void *const *arguments) = nullptr;
};

/// What prepare() resolved, independent of the kernel's C++ signature.
struct PreparedKernel {
  std::shared_ptr<ContextState> context;
  void *function = nullptr; ///< CUfunction; nullptr on the simulator
  std::string entry_name;   ///< the PTX entry (mangled) name
  std::string display_name; ///< "vecadd", for messages
  LaunchGeometry geometry;
  HostKernel host;
  bool simulated = false; ///< the context is the CPU simulator: launches call `host`
};

[[nodiscard]] PreparedKernel prepare_kernel(const Context &context, HostKernel host,
                                            std::span<const HostParam> params,
                                            const LaunchGeometry &geometry);

template <class... P, std::size_t... I>
void invoke_host_kernel(HostFunction function, [[maybe_unused]] void *const *arguments,
                        std::index_sequence<I...>) {
  reinterpret_cast<void (*)(P...)>(function)(*static_cast<P *>(arguments[I])...);
}

/// The type-erased call of a kernel with parameters P..., generated at compile time.
template <class... P> void invoke_host_kernel(HostFunction function, void *const *arguments) {
  invoke_host_kernel<P...>(function, arguments, std::index_sequence_for<P...>{});
}

/// The device memory an argument gives the kernel, for the checks made at every launch.
struct ArgumentMemory {
  const ContextState *owner = nullptr; ///< nullptr when not a DeviceBuffer
  std::uint64_t begin = 0;
  std::uint64_t bytes = 0;
  bool writable = false;
  bool present = false; ///< false for scalars and other by-value parameters
};

/// Throws oxide::Error when a buffer belongs to another context, or when memory the kernel
/// writes is also passed through another argument (which would race).
void check_arguments(const PreparedKernel &kernel, std::span<const ArgumentMemory> arguments);
void launch_kernel(const PreparedKernel &kernel, Stream &stream, void **arguments);

template <class P> inline constexpr bool writes_through_v = false;
template <class T> inline constexpr bool writes_through_v<Span<T>> = !std::is_const_v<T>;
template <class T> inline constexpr bool writes_through_v<DisjointSpan<T>> = true;

template <class T> inline constexpr bool is_span_v = false;
template <class T> inline constexpr bool is_span_v<Span<T>> = true;

template <class Param, class Arg> ArgumentMemory argument_memory(const Arg &arg) noexcept {
  using A = std::remove_cvref_t<Arg>;
  if constexpr (is_device_buffer_v<A>)
    return {BufferAccess::context(arg), arg.device_ptr(), arg.size_bytes(), writes_through_v<Param>, true};
  else if constexpr (is_span_v<A>)
    return {nullptr, reinterpret_cast<std::uintptr_t>(arg.data()),
            arg.size() * sizeof(typename A::element_type), writes_through_v<Param>, true};
  else
    return {}; // scalars and structs; a DisjointSpan argument can only be an empty one
}

template <class... P, class... A>
constexpr bool binds_all(std::type_identity<std::tuple<P...>>,
                         std::type_identity<std::tuple<A...>>) noexcept {
  if constexpr (sizeof...(P) != sizeof...(A))
    return false;
  else
    return (KernelArgument<A, P> && ...);
}

template <class T> constexpr HostParam host_param() noexcept {
  return {sizeof(T), alignof(T), type_name<T>()};
}

} // namespace detail

/// A kernel bound to a context and a launch configuration (LaunchConfig1D, 2D or 3D); call it to
/// launch. Cheap to call repeatedly and from several threads.
template <class Config, class... P> class BasicPreparedLaunch {
public:
  /// Whether operator() accepts arguments of these types (`X&` for lvalues, `X` for rvalues).
  template <class... Args>
  static constexpr bool accepts_arguments = detail::binds_all(std::type_identity<std::tuple<P...>>{},
                                                              std::type_identity<std::tuple<Args...>>{});

  BasicPreparedLaunch(detail::PreparedKernel kernel, const Config &config) noexcept
      : kernel_(std::move(kernel)), config_(config) {}

  /// Enqueues the kernel on `stream`. Each argument is bound to its parameter at compile time
  /// (see oxide/host/kernel_argument.hpp); buffers the kernel may write must not alias any other
  /// argument, which is checked before the launch.
  template <class... Args> void operator()(Stream &stream, Args &&...args) const {
    (void)detail::CheckArgumentCount<sizeof...(Args), sizeof...(P)>{};
    if constexpr (sizeof...(Args) == sizeof...(P)) {
      // Each CheckKernelArgument reports its own mismatch; the guard stops follow-on errors.
      check_each(std::index_sequence_for<Args...>{}, std::type_identity<std::tuple<Args...>>{});
      if constexpr (accepts_arguments<Args...>) {
        const std::array<detail::ArgumentMemory, sizeof...(P)> memory{detail::argument_memory<P>(args)...};
        detail::check_arguments(kernel_, memory);
        // Braced initialization binds the arguments left to right.
        std::tuple<P...> values{detail::Binder<P>::bind(args)...};
        std::array<void *, sizeof...(P)> pointers =
            std::apply([](auto &...value) { return std::array<void *, sizeof...(P)>{&value...}; }, values);
        detail::launch_kernel(kernel_, stream, pointers.data());
      }
    }
  }

  [[nodiscard]] const Config &config() const noexcept { return config_; }
  /// Whether launches run on the CPU simulator.
  [[nodiscard]] bool is_simulated() const noexcept { return kernel_.simulated; }
  /// The kernel's demangled name, without parameters.
  [[nodiscard]] const std::string &kernel_name() const noexcept { return kernel_.display_name; }

private:
  template <std::size_t... I, class... Args>
  static constexpr void check_each(std::index_sequence<I...>,
                                   std::type_identity<std::tuple<Args...>>) noexcept {
    ((void)detail::CheckKernelArgument<I, Args, P>{}, ...);
  }

  detail::PreparedKernel kernel_;
  Config config_;
};

/// A prepared 1-D launch; BasicPreparedLaunch<LaunchConfig2D/3D, P...> for the other shapes.
template <class... P> using PreparedLaunch = BasicPreparedLaunch<LaunchConfig1D, P...>;

namespace detail {
template <class Config, class... P>
[[nodiscard]] BasicPreparedLaunch<Config, P...> prepare_launch(const Context &context, void (*kernel)(P...),
                                                               const Config &config) {
  static_assert((!std::is_reference_v<P> && ...), "oxide: kernel parameters must be passed by value");
  static_assert((std::is_trivially_copyable_v<P> && ...),
                "oxide: kernel parameters must be trivially copyable");
  static constexpr std::array<HostParam, sizeof...(P)> params{host_param<P>()...};
  config.validate();
  const HostKernel host{reinterpret_cast<HostFunction>(kernel), &invoke_host_kernel<P...>};
  return {prepare_kernel(context, host, params, geometry_of(config)), config};
}
} // namespace detail

/// Prepares `kernel` (a function marked [[kernel]] and built with oxcc) for launches in
/// `context` with `config`: loads its module once per context (nothing to load on the
/// simulator), checks the parameter layout and the launch limits. Throws oxide::Error on any
/// failure.
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

} // namespace oxide
