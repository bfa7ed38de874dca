// How host values bind to kernel parameters, decided at compile time.
//
//   kernel parameter    accepted arguments
//   Span<const T>       any DeviceBuffer<T> lvalue (const or not), its view_2d/view_3d, any slice of
//                       it, Span<const T>, Span<T>
//   Span<T>             a non-const DeviceBuffer<T> lvalue or its slice(offset, count), Span<T>
//   DisjointSpan<T>     a non-const DeviceBuffer<T> lvalue or its slice, DisjointSpan<T>
//   DisjointSpan2D<T>   buffer.view_2d(width, height) of a non-const DeviceBuffer<T>, DisjointSpan2D<T>
//   DisjointSpan3D<T>   buffer.view_3d(width, height, depth), DisjointSpan3D<T>
//   AtomicSpan<T, S>    a non-const DeviceBuffer<T> lvalue or its slice
//   PermutationSpan     an oxide::Permutation lvalue (oxide/host/permutation.hpp)
//   TensorMap<T, B, S>  an oxide::DeviceTensorMap<T, B, S> lvalue of exactly that type
//                       (oxide/host/tensor_map.hpp)
//   arithmetic S        any arithmetic value, converted as in a function call (an int for an
//                       unsigned, 2.0 for a float); each launch checks that the value fits in S
//                       (ErrorKind::ArgumentOutOfRange: -1 for an unsigned, 2^40 for an int)
//   other by-value P    a P (enums, trivially copyable structs); never a pointer
//   T* / const T*       oxide::unsafe_launch only: a DeviceBuffer<T> lvalue (non-const for T*),
//                       or a pointer that converts to the parameter type
//
// Temporaries of DeviceBuffer are rejected: they would be freed while the kernel may still run.
// A span never gets a null data pointer: an empty buffer binds as a non-null, aligned pointer
// that is never dereferenced, since the compiler assumes span data is non-null.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include "oxide/detail/param_kind.hpp"
#include "oxide/device/atomic.hpp"
#include "oxide/device/span.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/buffer_view.hpp"

namespace oxide {

// Declared here so that every parameter type has its kind below, whether or not the header that
// binds it (oxide/host/append_buffer.hpp, tensor_map.hpp) is included.
template <class T> class AppendSpan;
enum class Swizzle : std::uint32_t;
template <class T, class B, Swizzle S> class TensorMap;

namespace detail {

/// The kind of a kernel parameter of type P, as the compiler records it in the device image
/// (oxide/detail/param_kind.hpp; compiler/ast/ContractAttributes.cpp decides it for the device
/// compile): the runtime compares the two, so that a host compile that sees another signature
/// than the device compile (#ifdef __CUDA_ARCH__) cannot bind an output as an input.
template <class P>
inline constexpr ParamKind param_kind_v =
    !std::is_integral_v<P> || std::is_same_v<P, bool> || sizeof(P) > 8 ? ParamKind::other
    : std::is_unsigned_v<P>                                            ? ParamKind::unsigned_integer
                                                                       : ParamKind::signed_integer;
template <class T>
inline constexpr ParamKind param_kind_v<Span<T>> =
    std::is_const_v<T> ? ParamKind::input : ParamKind::mutable_span;
template <class T> inline constexpr ParamKind param_kind_v<DisjointSpan<T>> = ParamKind::output;
template <class T> inline constexpr ParamKind param_kind_v<DisjointSpan2D<T>> = ParamKind::output_2d;
template <class T> inline constexpr ParamKind param_kind_v<DisjointSpan3D<T>> = ParamKind::output_3d;
template <class T, Scope S> inline constexpr ParamKind param_kind_v<AtomicSpan<T, S>> = ParamKind::atomic;
template <class T> inline constexpr ParamKind param_kind_v<AppendSpan<T>> = ParamKind::append;
template <> inline constexpr ParamKind param_kind_v<PermutationSpan> = ParamKind::permutation;
template <> inline constexpr ParamKind param_kind_v<ClaimSet> = ParamKind::claims;
template <class T, class B, Swizzle S>
inline constexpr ParamKind param_kind_v<TensorMap<T, B, S>> =
    std::is_const_v<T> ? ParamKind::tensor_map : ParamKind::writable_tensor_map;

/// Whether P is a scalar or other plain by-value parameter: not a span, append span,
/// permutation or tensor map, whose values only the runtime makes (from buffers).
template <class P>
inline constexpr bool is_plain_param_v =
    param_kind_v<P> == ParamKind::other || param_kind_v<P> == ParamKind::unsigned_integer ||
    param_kind_v<P> == ParamKind::signed_integer;

template <class T> inline constexpr bool is_device_buffer_v = false;
template <class T> inline constexpr bool is_device_buffer_v<DeviceBuffer<T>> = true;

/// A non-const lvalue of DeviceBuffer<T>: the only argument a kernel may write through.
template <class Arg, class T>
concept MutableBufferLvalue =
    std::is_lvalue_reference_v<Arg> && std::same_as<std::remove_reference_t<Arg>, DeviceBuffer<T>>;

/// Any lvalue of DeviceBuffer<T>, const or not.
template <class Arg, class T>
concept BufferLvalue =
    std::is_lvalue_reference_v<Arg> && std::same_as<std::remove_cvref_t<Arg>, DeviceBuffer<T>>;

/// From converts to To by list-initialization, which rejects narrowing conversions.
template <class From, class To>
concept ConvertsWithoutNarrowing = requires { To{std::declval<From>()}; };

template <class T> inline constexpr bool is_buffer_view_v = false;
template <class T, unsigned R> inline constexpr bool is_buffer_view_v<BufferView<T, R>> = true;

/// A view of rank R over DeviceBuffer<T>, in any value category (views do not own memory).
template <class Arg, class T, unsigned R>
concept ViewOf = std::same_as<std::remove_cvref_t<Arg>, BufferView<T, R>>;

template <class T> inline constexpr bool is_buffer_slice_v = false;
template <class T> inline constexpr bool is_buffer_slice_v<BufferSlice<T>> = true;

/// A writable slice of a DeviceBuffer<T>, in any value category (slices do not own memory).
template <class Arg, class T>
concept MutableSliceOf = std::same_as<std::remove_cvref_t<Arg>, BufferSlice<T>>;

/// Any slice of a DeviceBuffer<T>, read-only or not.
template <class Arg, class T>
concept SliceOf = MutableSliceOf<Arg, T> || std::same_as<std::remove_cvref_t<Arg>, BufferSlice<const T>>;

/// A null data pointer becomes this: non-null, aligned for T, never dereferenced (size 0).
template <class T> T *non_null(T *data) noexcept {
  return data ? data : reinterpret_cast<T *>(static_cast<std::uintptr_t>(alignof(T)));
}

/// The pointer a span parameter gets for `buffer`: never null, even for an empty buffer.
template <class T> T *span_pointer(const DeviceBuffer<std::remove_const_t<T>> &buffer) noexcept {
  return non_null(reinterpret_cast<T *>(static_cast<std::uintptr_t>(buffer.device_ptr())));
}

/// The same for a slice: its first element (never null: an empty buffer's slices are empty).
template <class T, class U> T *span_pointer(const BufferSlice<U> &slice) noexcept {
  return non_null(reinterpret_cast<T *>(static_cast<std::uintptr_t>(slice.device_ptr())));
}

/// Binder<Param>::accepts<Arg> says whether an argument of type Arg (as forwarded: `X&` for
/// lvalues, `X` for rvalues) binds to Param; bind() builds the Param value. A plain by-value
/// parameter takes a value of its own type; the span kinds have their own Binder (an AppendSpan,
/// PermutationSpan or TensorMap value is never taken as it is: its header's Binder takes the
/// host object that owns the memory).
template <class Param> struct Binder {
  template <class Arg>
  static constexpr bool accepts = !std::is_pointer_v<Param> && std::is_trivially_copyable_v<Param> &&
                                  is_plain_param_v<Param> && std::is_same_v<std::remove_cvref_t<Arg>, Param>;
  static Param bind(const Param &value) noexcept { return value; }
};

/// Whether `value` keeps its value as a Param, where a function call would convert it silently:
/// an integer in Param's range, a float with an integral value in it, a finite double within a
/// float's range. An integer always fits a floating-point type (rounded, as in a call).
template <class Param, class Arg> [[nodiscard]] bool scalar_fits(Arg value) noexcept {
  using Limits = std::numeric_limits<Param>;
  if constexpr (ConvertsWithoutNarrowing<Arg, Param>)
    return true;
  else if constexpr (std::is_same_v<Param, bool>)
    return value == Arg(0) || value == Arg(1);
  else if constexpr (std::is_integral_v<Param> && std::is_integral_v<Arg>) {
    if constexpr (std::is_signed_v<Arg>)
      if (value < 0)
        return std::is_signed_v<Param> && std::intmax_t(value) >= std::intmax_t(Limits::min());
    return std::uintmax_t(value) <= std::uintmax_t(Limits::max());
  } else if constexpr (std::is_integral_v<Param>) { // from floating point: [-2^digits, 2^digits)
    const long double bound = std::ldexp(1.0L, Limits::digits);
    return value == std::trunc(value) && value < bound && value >= (std::is_signed_v<Param> ? -bound : 0.0L);
  } else if constexpr (std::is_floating_point_v<Arg>) // to a narrower floating-point type
    return !std::isfinite(value) || std::fabs(value) <= Limits::max();
  else
    return true;
}

/// An arithmetic argument binds to an arithmetic parameter as in a function call; the launch
/// checks first that it fits (scalar_fits), so the conversion never changes the value's meaning.
template <class Param>
  requires std::is_arithmetic_v<Param>
struct Binder<Param> {
  template <class Arg> static constexpr bool accepts = std::is_arithmetic_v<std::remove_cvref_t<Arg>>;
  template <class Arg> static Param bind(const Arg &value) noexcept { return static_cast<Param>(value); }
};

template <class T> struct Binder<Span<const T>> {
  template <class Arg>
  static constexpr bool accepts =
      BufferLvalue<Arg, T> || ViewOf<Arg, T, 2> || ViewOf<Arg, T, 3> || SliceOf<Arg, T> ||
      std::is_same_v<std::remove_cvref_t<Arg>, Span<const T>> ||
      std::is_same_v<std::remove_cvref_t<Arg>, Span<T>>;
  static Span<const T> bind(const DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_span(span_pointer<const T>(buffer), buffer.size());
  }
  template <class U> static Span<const T> bind(const BufferSlice<U> &slice) noexcept {
    return SpanAccess::make_span(span_pointer<const T>(slice), slice.size());
  }
  template <unsigned R> static Span<const T> bind(const BufferView<T, R> &view) noexcept {
    return bind(view.buffer());
  }
  // A span passed as it is must be empty (check_argument refuses others: host code cannot make
  // a non-empty span, except by forging one with std::bit_cast); it binds as an empty span.
  static Span<const T> bind(Span<const T>) noexcept {
    return SpanAccess::make_span(non_null<const T>(nullptr), 0);
  }
  static Span<const T> bind(Span<T>) noexcept { return SpanAccess::make_span(non_null<const T>(nullptr), 0); }
};

template <class T> struct Binder<Span<T>> { // T is not const here: Span<const T> is matched above
  template <class Arg>
  static constexpr bool accepts = MutableBufferLvalue<Arg, T> || MutableSliceOf<Arg, T> ||
                                  std::is_same_v<std::remove_cvref_t<Arg>, Span<T>>;
  static Span<T> bind(DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_span(span_pointer<T>(buffer), buffer.size());
  }
  static Span<T> bind(const BufferSlice<T> &slice) noexcept {
    return SpanAccess::make_span(span_pointer<T>(slice), slice.size());
  }
  static Span<T> bind(Span<T>) noexcept { return SpanAccess::make_span(non_null<T>(nullptr), 0); }
};

template <class T> struct Binder<DisjointSpan<T>> {
  template <class Arg>
  static constexpr bool accepts = MutableBufferLvalue<Arg, T> || MutableSliceOf<Arg, T> ||
                                  std::is_same_v<std::remove_cvref_t<Arg>, DisjointSpan<T>>;
  static DisjointSpan<T> bind(DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_disjoint(span_pointer<T>(buffer), buffer.size());
  }
  static DisjointSpan<T> bind(const BufferSlice<T> &slice) noexcept {
    return SpanAccess::make_disjoint(span_pointer<T>(slice), slice.size());
  }
  static DisjointSpan<T> bind(DisjointSpan<T>) noexcept {
    // Only an empty span can come from user code (SpanAccess is the runtime's); check_argument
    // refuses a non-empty one.
    return SpanAccess::make_disjoint(non_null<T>(nullptr), 0);
  }
};

template <class T, Scope S> struct Binder<AtomicSpan<T, S>> {
  template <class Arg> static constexpr bool accepts = MutableBufferLvalue<Arg, T> || MutableSliceOf<Arg, T>;
  static AtomicSpan<T, S> bind(DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_atomic<AtomicSpan<T, S>>(span_pointer<T>(buffer), buffer.size());
  }
  static AtomicSpan<T, S> bind(const BufferSlice<T> &slice) noexcept {
    return SpanAccess::make_atomic<AtomicSpan<T, S>>(span_pointer<T>(slice), slice.size());
  }
};

template <class T> struct Binder<DisjointSpan2D<T>> {
  template <class Arg>
  static constexpr bool accepts =
      ViewOf<Arg, T, 2> || std::is_same_v<std::remove_cvref_t<Arg>, DisjointSpan2D<T>>;
  static DisjointSpan2D<T> bind(const BufferView2D<T> &view) noexcept {
    return SpanAccess::make_disjoint_2d(span_pointer<T>(view.buffer()), view.width(), view.height());
  }
  static DisjointSpan2D<T> bind(DisjointSpan2D<T>) noexcept {
    return SpanAccess::make_disjoint_2d(non_null<T>(nullptr), 0, 0); // empty: see check_argument
  }
};

template <class T> struct Binder<DisjointSpan3D<T>> {
  template <class Arg>
  static constexpr bool accepts =
      ViewOf<Arg, T, 3> || std::is_same_v<std::remove_cvref_t<Arg>, DisjointSpan3D<T>>;
  static DisjointSpan3D<T> bind(const BufferView3D<T> &view) noexcept {
    return SpanAccess::make_disjoint_3d(span_pointer<T>(view.buffer()), view.width(), view.height(),
                                        view.depth());
  }
  static DisjointSpan3D<T> bind(DisjointSpan3D<T>) noexcept {
    return SpanAccess::make_disjoint_3d(non_null<T>(nullptr), 0, 0, 0); // empty: see check_argument
  }
};

/// The binding rules of oxide::unsafe_launch: those of Binder, plus raw pointer parameters.
template <class Param> struct UnsafeBinder : Binder<Param> {};

template <class T> struct UnsafeBinder<T *> {
  using Element = std::remove_cv_t<T>;
  template <class Arg>
  static constexpr bool accepts =
      (std::is_const_v<T> ? BufferLvalue<Arg, Element> || SliceOf<Arg, Element>
                          : MutableBufferLvalue<Arg, Element> || MutableSliceOf<Arg, Element>) ||
      (!is_device_buffer_v<std::remove_cvref_t<Arg>> && !is_buffer_slice_v<std::remove_cvref_t<Arg>> &&
       std::is_convertible_v<Arg, T *>);
  /// The buffer's device pointer as it is: null for an empty buffer (a pointer kernel may test it).
  static T *bind(const DeviceBuffer<Element> &buffer) noexcept {
    return reinterpret_cast<T *>(static_cast<std::uintptr_t>(buffer.device_ptr()));
  }
  template <class U> static T *bind(const BufferSlice<U> &slice) noexcept {
    return reinterpret_cast<T *>(static_cast<std::uintptr_t>(slice.device_ptr()));
  }
  static T *bind(T *pointer) noexcept { return pointer; }
};

} // namespace detail

/// Satisfied when an argument of type Arg (`X&` for an lvalue, `X` for an rvalue, as with
/// forwarding references) can be passed to a kernel parameter of type Param.
template <class Arg, class Param>
concept KernelArgument = detail::Binder<Param>::template accepts<Arg>;

/// The same for oxide::unsafe_launch, which also binds buffers and pointers to pointer parameters.
template <class Arg, class Param>
concept UnsafeKernelArgument = detail::UnsafeBinder<Param>::template accepts<Arg>;

namespace detail {

/// The spelling of T, from the compiler's function signature string (clang and GCC).
template <class T> constexpr std::string_view type_name() noexcept {
  constexpr std::string_view signature = __PRETTY_FUNCTION__;
  constexpr std::size_t start = signature.find("T = ") + 4;
  constexpr std::size_t semicolon = signature.find(';', start);
  constexpr std::size_t end = semicolon != std::string_view::npos ? semicolon : signature.rfind(']');
  return signature.substr(start, end - start);
}

/// sizeof(T) for a span parameter, whose elements device code names (the runtime checks that the
/// device code names them at that size); 0 for other parameters.
template <class P> inline constexpr std::size_t span_element_size_v = 0;
template <class T> inline constexpr std::size_t span_element_size_v<Span<T>> = sizeof(T);
template <class T> inline constexpr std::size_t span_element_size_v<DisjointSpan<T>> = sizeof(T);
template <class T> inline constexpr std::size_t span_element_size_v<DisjointSpan2D<T>> = sizeof(T);
template <class T> inline constexpr std::size_t span_element_size_v<DisjointSpan3D<T>> = sizeof(T);
template <class T, Scope S> inline constexpr std::size_t span_element_size_v<AtomicSpan<T, S>> = sizeof(T);

/// A fixed-capacity string for compile-time diagnostics.
struct DiagnosticText {
  char text[512] = {};
  std::size_t length = 0;

  constexpr DiagnosticText &operator<<(std::string_view s) noexcept {
    for (char c : s)
      if (length + 1 < sizeof text)
        text[length++] = c;
    return *this;
  }
  constexpr DiagnosticText &operator<<(std::size_t n) noexcept {
    char digits[20] = {};
    std::size_t count = 0;
    do
      digits[count++] = static_cast<char>('0' + n % 10);
    while ((n /= 10) != 0);
    while (count > 0)
      *this << std::string_view(&digits[--count], 1);
    return *this;
  }
  [[nodiscard]] constexpr const char *data() const noexcept { return text; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return length; }
};

template <class T> inline constexpr unsigned disjoint_rank_v = 0;
template <class T> inline constexpr unsigned disjoint_rank_v<DisjointSpan2D<T>> = 2;
template <class T> inline constexpr unsigned disjoint_rank_v<DisjointSpan3D<T>> = 3;

/// A TensorMap parameter (oxide/device/tma.hpp; its binding is in oxide/host/tensor_map.hpp).
template <class P> inline constexpr bool is_tensor_map_param_v = false;

template <std::size_t Index, class Arg, class Param, bool Unsafe>
constexpr DiagnosticText argument_diagnostic() noexcept {
  DiagnosticText d;
  d << "oxide: argument " << Index + 1 << " (" << type_name<Arg>()
    << ") cannot be passed as kernel parameter of type '" << type_name<Param>() << "'";
  if constexpr (is_device_buffer_v<std::remove_cvref_t<Arg>> && !std::is_lvalue_reference_v<Arg>)
    d << "; pass a named DeviceBuffer, not a temporary (it would be freed while the kernel runs)";
  else if constexpr (disjoint_rank_v<Param> == 2)
    d << "; pass buffer.view_2d(width, height) of a non-const DeviceBuffer with the same element type";
  else if constexpr (disjoint_rank_v<Param> == 3)
    d << "; pass buffer.view_3d(width, height, depth) of a non-const DeviceBuffer with the same element type";
  else if constexpr (std::is_same_v<Param, PermutationSpan>)
    d << "; a PermutationSpan takes a named oxide::Permutation (Permutation::from_host checks the map)";
  else if constexpr (is_tensor_map_param_v<Param>)
    d << "; a TensorMap<T, Box, Swizzle> takes a named oxide::DeviceTensorMap<T, Box, Swizzle> of the same "
         "element type, box and swizzle";
  else if constexpr (std::is_pointer_v<Param> && !Unsafe)
    d << "; raw pointer parameters take arguments only in oxide::unsafe_launch";
  else if constexpr (is_device_buffer_v<std::remove_cvref_t<Arg>>)
    d << "; a const DeviceBuffer binds only to Span<const T> (or const T* in unsafe launches), and the "
         "element "
         "types must match";
  else if constexpr (std::is_arithmetic_v<Param>)
    d << "; a scalar parameter takes an integer or floating-point value, which the launch converts and "
         "checks that it fits";
  return d;
}

constexpr DiagnosticText argument_count_diagnostic(std::size_t given, std::size_t expected) noexcept {
  DiagnosticText d;
  d << "oxide: wrong number of kernel arguments: the kernel takes " << expected << ", the launch passes "
    << given;
  return d;
}

/// Instantiated once per argument so that a mismatch is reported with its position and types.
/// `Unsafe` selects the binding rules of oxide::unsafe_launch.
template <std::size_t Index, class Arg, class Param, bool Unsafe = false> struct CheckKernelArgument {
  static constexpr bool ok = Unsafe ? UnsafeKernelArgument<Arg, Param> : KernelArgument<Arg, Param>;
#if defined(__clang__) && __clang_major__ >= 17
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++26-extensions"
  // Clang accepts a computed message before C++26, which names the argument and both types.
  static_assert(ok, argument_diagnostic<Index, Arg, Param, Unsafe>());
#pragma clang diagnostic pop
#else
  static_assert(ok,
                "oxide: an argument cannot be passed as its kernel parameter; the CheckKernelArgument<index, "
                "argument, parameter> instantiation in this diagnostic names it");
#endif
};

template <std::size_t Given, std::size_t Expected> struct CheckArgumentCount {
#if defined(__clang__) && __clang_major__ >= 17
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++26-extensions"
  static_assert(Given == Expected, argument_count_diagnostic(Given, Expected));
#pragma clang diagnostic pop
#else
  static_assert(Given == Expected, "oxide: wrong number of kernel arguments");
#endif
};

} // namespace detail

} // namespace oxide
