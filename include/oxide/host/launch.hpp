// Kernel launches: a 1-D launch configuration, oxide::prepare, and the reusable PreparedLaunch.
//
// prepare() does everything that can fail once (registry lookup, module load, layout and limit
// checks); each launch then only binds arguments, at compile time, and enqueues the kernel.
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
#include "oxide/host/registry.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

/// A 1-D grid of `grid` blocks of `block` threads, with `dynamic_shared_bytes` of dynamic shared
/// memory per block. A grid of 0 blocks is an empty launch: nothing is enqueued.
struct LaunchConfig1D {
  static constexpr std::uint32_t kMaxBlock = 1024;       // CUDA's limit on threads per block
  static constexpr std::uint32_t kMaxGrid = 0x7fffffffu; // CUDA's limit on gridDim.x

  std::uint32_t grid = 1;
  std::uint32_t block = 1;
  std::uint32_t dynamic_shared_bytes = 0;

  /// Enough blocks of `block` threads to cover `elements` (rounded up). Throws oxide::Error
  /// when `block` is out of range or the grid would exceed kMaxGrid blocks.
  [[nodiscard]] static LaunchConfig1D for_elements(std::size_t elements, std::uint32_t block = 256,
                                                   std::uint32_t dynamic_shared_bytes = 0);
  /// Throws oxide::Error unless 1 <= block <= kMaxBlock and grid <= kMaxGrid.
  void validate() const;
  [[nodiscard]] std::uint64_t total_threads() const noexcept { return std::uint64_t(grid) * block; }

  friend bool operator==(const LaunchConfig1D &, const LaunchConfig1D &) = default;
};

namespace detail {

/// What prepare() resolved, independent of the kernel's C++ signature.
struct PreparedKernel {
  std::shared_ptr<ContextState> context;
  void *function = nullptr; ///< CUfunction
  std::string entry_name;   ///< the PTX entry (mangled) name
  std::string display_name; ///< "vecadd", for messages
  LaunchConfig1D config;
};

[[nodiscard]] PreparedKernel prepare_kernel(const Context &context, const void *host_address,
                                            std::span<const HostParam> params, const LaunchConfig1D &config);

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

/// A kernel bound to a context and a launch configuration; call it to launch. Cheap to call
/// repeatedly and from several threads.
template <class... P> class PreparedLaunch {
public:
  /// Whether operator() accepts arguments of these types (`X&` for lvalues, `X` for rvalues).
  template <class... Args>
  static constexpr bool accepts_arguments = detail::binds_all(std::type_identity<std::tuple<P...>>{},
                                                              std::type_identity<std::tuple<Args...>>{});

  explicit PreparedLaunch(detail::PreparedKernel kernel) noexcept : kernel_(std::move(kernel)) {}

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

  [[nodiscard]] const LaunchConfig1D &config() const noexcept { return kernel_.config; }
  /// The kernel's demangled name, without parameters.
  [[nodiscard]] const std::string &kernel_name() const noexcept { return kernel_.display_name; }

private:
  template <std::size_t... I, class... Args>
  static constexpr void check_each(std::index_sequence<I...>,
                                   std::type_identity<std::tuple<Args...>>) noexcept {
    ((void)detail::CheckKernelArgument<I, Args, P>{}, ...);
  }

  detail::PreparedKernel kernel_;
};

/// Prepares `kernel` (a function marked [[kernel]] and built with oxcc) for launches in
/// `context` with `config`: loads its module once per context, checks the parameter layout
/// and the launch limits. Throws oxide::Error on any failure.
template <class... P>
[[nodiscard]] PreparedLaunch<P...> prepare(const Context &context, void (*kernel)(P...),
                                           LaunchConfig1D config) {
  static_assert((!std::is_reference_v<P> && ...), "oxide: kernel parameters must be passed by value");
  static_assert((std::is_trivially_copyable_v<P> && ...),
                "oxide: kernel parameters must be trivially copyable");
  static constexpr std::array<detail::HostParam, sizeof...(P)> params{detail::host_param<P>()...};
  return PreparedLaunch<P...>(
      detail::prepare_kernel(context, reinterpret_cast<const void *>(kernel), params, config));
}

} // namespace oxide
