// What oxide::prepare and oxide::unsafe_launch share: the type-erased kernel, the checks made
// before each launch, and the launch itself. Runtime internal; see launch.hpp and
// unsafe_launch.hpp for the public API.
#pragma once

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "oxide/detail/contract_operand.hpp"
#include "oxide/detail/host/host_elements.hpp"
#include "oxide/detail/host/registry.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/kernel_argument.hpp"
#include "oxide/host/launch_config.hpp"
#include "oxide/host/stream.hpp"

namespace oxide::detail {

/// Any function pointer type; kernels are stored as this and cast back by their invoker.
using HostFunction = void (*)();

/// A kernel's host code: what the CPU simulator calls once per simulated thread.
struct HostKernel {
  HostFunction function = nullptr;
  /// Calls `function` with the parameter values `arguments` point at (one per parameter).
  void (*invoke)(HostFunction function, void *const *arguments) = nullptr;
};

template <class... P, std::size_t... I>
void invoke_host_kernel(HostFunction function, [[maybe_unused]] void *const *arguments,
                        std::index_sequence<I...>) {
  reinterpret_cast<void (*)(P...)>(function)(*static_cast<P *>(arguments[I])...);
}

/// The type-erased call of a kernel with parameters P..., generated at compile time.
template <class... P> void invoke_host_kernel(HostFunction function, void *const *arguments) {
  invoke_host_kernel<P...>(function, arguments, std::index_sequence_for<P...>{});
}

template <class... P> HostKernel host_kernel(void (*kernel)(P...)) noexcept {
  return {reinterpret_cast<HostFunction>(kernel), &invoke_host_kernel<P...>};
}

class KernelContract; // runtime/launch_contract.hpp: a parsed launch contract

/// A kernel ready to launch in one context with one shape: what prepare() resolved, or what an
/// unsafe launch resolves each time, independent of the kernel's C++ signature.
struct PreparedKernel {
  std::shared_ptr<ContextState> context;
  const RegisteredKernel *kernel = nullptr; ///< owned by `context`'s kernel cache
  /// The contract to check at each launch; nullptr for unsafe launches, which check none.
  const KernelContract *contract = nullptr;
  bool has_requires = false; ///< the contract has `requires` relations to evaluate
  bool simulated = false;    ///< the context is the CPU simulator: launches call `host`
  void *function = nullptr;  ///< CUfunction; nullptr on the simulator
  LaunchGeometry geometry;
  HostKernel host;
  /// Blocks per thread-block cluster (the contract's `cluster`); {1, 1, 1} without clusters.
  Dim3 cluster{1, 1, 1};
  bool cooperative = false; ///< launched cooperatively (the contract's `cooperative = true`)

  /// "vecadd", for messages.
  [[nodiscard]] const std::string &display_name() const noexcept { return kernel->display_name; }
};

/// oxide::prepare's runtime half: the kernel must have a launch contract, and the configuration
/// (of `rank`) must satisfy it and the device. Throws oxide::Error.
[[nodiscard]] PreparedKernel prepare_kernel(const Context &context, HostKernel host,
                                            HostElements<const HostParam> params,
                                            const LaunchGeometry &geometry, unsigned rank);
/// oxide::unsafe_launch's: any kernel, in the stream's context, within CUDA's and the device's
/// limits (rank 0: any shape). Cheap after the first call per context and kernel.
[[nodiscard]] PreparedKernel prepare_unsafe_kernel(const Stream &stream, HostKernel host,
                                                   HostElements<const HostParam> params,
                                                   const LaunchGeometry &geometry, unsigned rank);

/// The device memory an argument gives the kernel, for the checks made at every launch.
struct ArgumentMemory {
  const ContextState *owner = nullptr; ///< nullptr when not a DeviceBuffer
  std::uint64_t begin = 0;
  std::uint64_t bytes = 0;
  bool writable = false;
  bool present = false; ///< false for scalars and other by-value parameters
  /// The DeviceBuffer's allocation id (BufferAccess::allocation), 0 when not a buffer: a graph
  /// capture records it, and Graph::launch checks that the buffer still holds that memory.
  std::uint64_t allocation = 0;
};

/// The checks before every launch. Always: the stream belongs to the kernel's context and every
/// buffer to the same context (WrongStreamContext, WrongContext). With a contract: every
/// `requires` relation holds for `contract_values` (see contract_value) and no memory the kernel
/// writes is passed through another argument (OverlappingArguments).
void check_launch(const PreparedKernel &kernel, const Stream &stream,
                  HostElements<const ArgumentMemory> arguments,
                  HostElements<const ContractOperand> contract_values);
/// Enqueues the kernel (or runs it on the simulator) with the parameter values `arguments`
/// point at. Call check_launch first.
void launch_kernel(const PreparedKernel &kernel, Stream &stream, void **arguments);

template <class P>
inline constexpr bool writes_through_v = std::is_pointer_v<P> && !std::is_const_v<std::remove_pointer_t<P>>;
template <class T> inline constexpr bool writes_through_v<Span<T>> = !std::is_const_v<T>;
template <class T> inline constexpr bool writes_through_v<DisjointSpan<T>> = true;
template <class T> inline constexpr bool writes_through_v<DisjointSpan2D<T>> = true;
template <class T> inline constexpr bool writes_through_v<DisjointSpan3D<T>> = true;
template <class T, Scope S> inline constexpr bool writes_through_v<AtomicSpan<T, S>> = true;

template <class T> inline constexpr bool is_span_v = false;
template <class T> inline constexpr bool is_span_v<Span<T>> = true;

/// AppendBuffer (oxide/host/append_buffer.hpp), which gives the kernel its elements (its counter is
/// its own memory, which no other argument can name).
template <class T> inline constexpr bool is_append_buffer_v = false;
/// oxide::Permutation (oxide/host/permutation.hpp), which gives the kernel its indices, read-only.
template <class T> inline constexpr bool is_permutation_v = false;
/// PermutationIndices<Permutation>::of(p): the buffer of p's indices, which Permutation does not
/// expose (oxide/host/permutation.hpp).
template <class T> struct PermutationIndices;
/// oxide::Claims (oxide/host/claims.hpp), which gives the kernel its claim bits to set.
template <class T> inline constexpr bool is_claims_v = false;
/// ClaimBits<Claims>::of(c): the buffer of c's bits, which Claims does not expose.
template <class T> struct ClaimBits;
/// oxide::DeviceTensorMap (oxide/host/tensor_map.hpp), whose copies read its tensor.
template <class T> inline constexpr bool is_device_tensor_map_v = false;

template <class Param, class Arg> ArgumentMemory argument_memory(const Arg &arg) noexcept {
  using A = std::remove_cvref_t<Arg>;
  if constexpr (is_device_buffer_v<A>)
    return {BufferAccess::context(arg),   arg.device_ptr(), arg.size_bytes(), writes_through_v<Param>, true,
            BufferAccess::allocation(arg)};
  else if constexpr (is_buffer_view_v<A>)
    return argument_memory<Param>(arg.buffer());
  else if constexpr (is_append_buffer_v<A>)
    return argument_memory<Param>(arg.elements());
  else if constexpr (is_permutation_v<A>)
    return argument_memory<Param>(PermutationIndices<A>::of(arg));
  else if constexpr (is_claims_v<A>)
    return argument_memory<Param>(ClaimBits<A>::of(arg));
  else if constexpr (is_device_tensor_map_v<A>) // the tensor, read-only (its descriptor is its own)
    return argument_memory<Param>(arg.buffer());
  else if constexpr (is_buffer_slice_v<A>) // only the slice's own bytes
    return {BufferAccess::context(arg.buffer()),
            arg.device_ptr(),
            arg.size_bytes(),
            writes_through_v<Param>,
            true,
            BufferAccess::allocation(arg.buffer())};
  else if constexpr (is_span_v<A>)
    return {nullptr, reinterpret_cast<std::uintptr_t>(arg.data()),
            arg.size() * sizeof(typename A::element_type), writes_through_v<Param>, true};
  else
    return {}; // scalars, structs and raw pointers; a DisjointSpan argument can only be an empty one
}

template <class T> inline constexpr bool has_size_v = false;
template <class T> inline constexpr bool has_size_v<Span<T>> = true;
template <class T> inline constexpr bool has_size_v<DisjointSpan<T>> = true;
template <class T> inline constexpr bool has_size_v<DisjointSpan2D<T>> = true;
template <class T> inline constexpr bool has_size_v<DisjointSpan3D<T>> = true;
template <class T, Scope S> inline constexpr bool has_size_v<AtomicSpan<T, S>> = true;

/// What a bound parameter contributes to `requires`: a span's element count and its extents
/// (width, height, depth of 2-D/3-D spans), an integer's value (a signed one sign-extended:
/// check_requires rejects negative ones); 0 for anything else.
template <class P> constexpr ContractOperand contract_operand(const P &value) noexcept {
  if constexpr (requires { value.depth(); })
    return {value.size(), {value.width(), value.height(), value.depth()}};
  else if constexpr (requires { value.height(); })
    return {value.size(), {value.width(), value.height(), 1}};
  else if constexpr (has_size_v<P>)
    return {value.size(), {value.size(), 1, 1}};
  else if constexpr (std::is_integral_v<P> && !std::is_same_v<P, bool>)
    return {static_cast<std::uint64_t>(
        static_cast<std::conditional_t<std::is_signed_v<P>, std::int64_t, P>>(value))};
  else
    return {};
}

/// Throws oxide::Error (ArgumentOutOfRange): argument `index` (`value`, as text) does not fit its
/// parameter of type `type`, whose values lie in [`lowest`, `highest`].
[[noreturn]] void throw_argument_out_of_range(const PreparedKernel &kernel, std::size_t index,
                                              std::string_view type, std::string_view value,
                                              std::string_view lowest, std::string_view highest);

/// A number as text ("-1", "2.5", "1e+40"), for messages.
template <class T> std::string number_text(T value) {
  if constexpr (std::is_same_v<T, bool>)
    return value ? "true" : "false";
  else {
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::string(text, end);
  }
}

/// Checks a scalar argument before it binds; see scalar_fits.
template <class Param, class Arg>
void check_scalar_argument(const PreparedKernel &kernel, std::size_t index, const Arg &arg) {
  using A = std::remove_cvref_t<Arg>;
  if constexpr (std::is_arithmetic_v<Param> && std::is_arithmetic_v<A> && !ConvertsWithoutNarrowing<A, Param>)
    if (!scalar_fits<Param>(static_cast<A>(arg))) [[unlikely]]
      throw_argument_out_of_range(kernel, index, type_name<Param>(), number_text(static_cast<A>(arg)),
                                  number_text(std::numeric_limits<Param>::lowest()),
                                  number_text(std::numeric_limits<Param>::max()));
}

/// A span value passed as an argument as it is (not a buffer, view or slice the runtime makes it from).
template <class A> inline constexpr bool is_direct_span_v = false;
template <class T> inline constexpr bool is_direct_span_v<Span<T>> = true;
template <class T> inline constexpr bool is_direct_span_v<DisjointSpan<T>> = true;
template <class T> inline constexpr bool is_direct_span_v<DisjointSpan2D<T>> = true;
template <class T> inline constexpr bool is_direct_span_v<DisjointSpan3D<T>> = true;

/// Whether a span value has no element. An extent of 0, not size() == 0: the product of a
/// forged span's extents may wrap to 0.
template <class S> [[nodiscard]] constexpr bool span_is_empty(const S &span) noexcept {
  if constexpr (requires { span.depth(); })
    return span.width() == 0 || span.height() == 0 || span.depth() == 0;
  else if constexpr (requires { span.height(); })
    return span.width() == 0 || span.height() == 0;
  else
    return span.size() == 0;
}

/// Throws oxide::Error (ForgedSpan): argument `index`, a span of type `type` passed as it is,
/// is not empty. Host code has no way to make a non-empty span but std::bit_cast or memcpy,
/// which would give the kernel memory that no launch check sees.
[[noreturn]] void throw_forged_span(const PreparedKernel &kernel, std::size_t index, std::string_view type);
/// Throws oxide::Error (ViewShapeMismatch): argument `index`, a view of `extents` elements, no
/// longer covers its buffer, which now has `buffer_size` (it was assigned another allocation).
[[noreturn]] void throw_stale_view(const PreparedKernel &kernel, std::size_t index, unsigned rank,
                                   std::size_t width, std::size_t height, std::size_t depth,
                                   std::size_t buffer_size);
/// Throws oxide::Error (SliceOutOfRange): argument `index`, slice(offset, count), reaches past
/// the end of its buffer, which now has `buffer_size` elements.
[[noreturn]] void throw_stale_slice(const PreparedKernel &kernel, std::size_t index, std::size_t offset,
                                    std::size_t count, std::size_t buffer_size);

/// The checks of one argument before it binds: a scalar's value fits (check_scalar_argument); a
/// span passed as it is is empty; a view or slice still lies in its buffer, which may have been
/// assigned a smaller allocation since the view or slice was made.
template <class Param, class Arg>
void check_argument(const PreparedKernel &kernel, std::size_t index, const Arg &arg) {
  using A = std::remove_cvref_t<Arg>;
  check_scalar_argument<Param>(kernel, index, arg);
  if constexpr (is_direct_span_v<A>) {
    if (!span_is_empty(arg)) [[unlikely]]
      throw_forged_span(kernel, index, type_name<A>());
  } else if constexpr (is_buffer_view_v<A>) {
    // The extents' product was checked not to overflow when the view was made.
    if (arg.width() * arg.height() * arg.depth() != arg.buffer().size()) [[unlikely]]
      throw_stale_view(kernel, index, A::rank, arg.width(), arg.height(), arg.depth(), arg.buffer().size());
  } else if constexpr (is_buffer_slice_v<A>) {
    const std::size_t size = arg.buffer().size();
    if (arg.offset() > size || arg.size() > size - arg.offset()) [[unlikely]]
      throw_stale_slice(kernel, index, arg.offset(), arg.size(), size);
  }
}

template <bool Unsafe, class Param, class Arg> constexpr bool binds() noexcept {
  if constexpr (Unsafe)
    return UnsafeKernelArgument<Arg, Param>;
  else
    return KernelArgument<Arg, Param>;
}

template <bool Unsafe, class... P, class... A>
constexpr bool binds_all(std::type_identity<std::tuple<P...>>,
                         std::type_identity<std::tuple<A...>>) noexcept {
  if constexpr (sizeof...(P) != sizeof...(A))
    return false;
  else
    return (binds<Unsafe, P, A>() && ...);
}

/// Instantiates CheckKernelArgument for each argument, so each mismatch is reported on its own.
template <bool Unsafe, class... P, class... A, std::size_t... I>
constexpr void check_each_argument(std::index_sequence<I...>, std::type_identity<std::tuple<P...>>,
                                   std::type_identity<std::tuple<A...>>) noexcept {
  ((void)CheckKernelArgument<I, A, P, Unsafe>{}, ...);
}

template <class T> constexpr HostParam host_param() noexcept {
  return {sizeof(T), alignof(T), type_name<T>(), span_element_size_v<T>, param_kind_v<T>};
}

template <class... P> constexpr void check_kernel_signature() noexcept {
  static_assert((!std::is_reference_v<P> && ...), "oxide: kernel parameters must be passed by value");
  static_assert((std::is_trivially_copyable_v<P> && ...),
                "oxide: kernel parameters must be trivially copyable");
}

/// One parameter's value in a launch (see BoundArguments).
template <std::size_t I, class P> struct BoundArgument {
  P value;
};
template <class Indices, class... P> struct BoundArguments;
/// The values of a launch's parameters: a plain aggregate, not a std::tuple, whose constructors'
/// constraints and std::apply cost every compile some 40 ms of instantiation per kernel
/// signature.
template <std::size_t... I, class... P>
struct BoundArguments<std::index_sequence<I...>, P...> : BoundArgument<I, P>... {};

template <bool Unsafe, class... P, std::size_t... I, class... Args>
void bind_and_launch_indexed(const PreparedKernel &kernel, Stream &stream, std::index_sequence<I...>,
                             Args &&...args) {
  (check_argument<P>(kernel, I, args), ...);
  // Braced initialization binds the arguments left to right.
  BoundArguments<std::index_sequence<I...>, P...> values{
      {std::conditional_t<Unsafe, UnsafeBinder<P>, Binder<P>>::bind(args)}...};
  const std::array<ArgumentMemory, sizeof...(P)> memory{argument_memory<P>(args)...};
  std::array<ContractOperand, sizeof...(P)> operands{};
  if (kernel.has_requires)
    operands = {contract_operand(static_cast<const BoundArgument<I, P> &>(values).value)...};
  check_launch(kernel, stream, memory, operands);
  std::array<void *, sizeof...(P)> pointers{&static_cast<BoundArgument<I, P> &>(values).value...};
  launch_kernel(kernel, stream, pointers.data());
}

/// Binds `args` to the parameters P... with Binder (or UnsafeBinder), checks the launch and
/// launches. The argument types were checked at compile time by the caller.
template <bool Unsafe, class... P, class... Args>
void bind_and_launch(const PreparedKernel &kernel, Stream &stream, Args &&...args) {
  bind_and_launch_indexed<Unsafe, P...>(kernel, stream, std::index_sequence_for<P...>{},
                                        std::forward<Args>(args)...);
}

} // namespace oxide::detail
