// How host values bind to kernel parameters, decided at compile time.
//
//   kernel parameter   accepted arguments
//   Span<const T>      any DeviceBuffer<T> lvalue (const or not), Span<const T>, Span<T>
//   Span<T>            a non-const DeviceBuffer<T> lvalue, Span<T>
//   DisjointSpan<T>    a non-const DeviceBuffer<T> lvalue, DisjointSpan<T>
//   arithmetic S       an arithmetic value that converts to S without narrowing
//   other by-value P   a P (enums, trivially copyable structs); never a pointer
//
// Temporaries of DeviceBuffer are rejected: they would be freed while the kernel may still run.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "oxide/device/span.hpp"
#include "oxide/host/buffer.hpp"

namespace oxide {

namespace detail {

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
concept ConvertsWithoutNarrowing = requires {
  To{std::declval<From>()};
};

template <class T> T *device_pointer(const DeviceBuffer<std::remove_const_t<T>> &buffer) noexcept {
  return reinterpret_cast<T *>(static_cast<std::uintptr_t>(buffer.device_ptr()));
}

/// Binder<Param>::accepts<Arg> says whether an argument of type Arg (as forwarded: `X&` for
/// lvalues, `X` for rvalues) binds to Param; bind() builds the Param value.
template <class Param> struct Binder {
  template <class Arg>
  static constexpr bool accepts = !std::is_pointer_v<Param> && std::is_trivially_copyable_v<Param> &&
                                  std::is_same_v<std::remove_cvref_t<Arg>, Param>;
  static Param bind(const Param &value) noexcept { return value; }
};

template <class Param>
requires std::is_arithmetic_v<Param>
struct Binder<Param> {
  template <class Arg>
  static constexpr bool accepts =
      std::is_arithmetic_v<std::remove_cvref_t<Arg>> &&ConvertsWithoutNarrowing<Arg, Param>;
  template <class Arg> static Param bind(const Arg &value) noexcept { return Param{value}; }
};

template <class T> struct Binder<Span<const T>> {
  template <class Arg>
  static constexpr bool accepts =
      BufferLvalue<Arg, T> || std::is_same_v<std::remove_cvref_t<Arg>, Span<const T>> ||
      std::is_same_v<std::remove_cvref_t<Arg>, Span<T>>;
  static Span<const T> bind(const DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_span(device_pointer<const T>(buffer), buffer.size());
  }
  static Span<const T> bind(Span<const T> span) noexcept { return span; }
  static Span<const T> bind(Span<T> span) noexcept {
    return SpanAccess::make_span<const T>(span.data(), span.size());
  }
};

template <class T> struct Binder<Span<T>> { // T is not const here: Span<const T> is matched above
  template <class Arg>
  static constexpr bool accepts =
      MutableBufferLvalue<Arg, T> || std::is_same_v<std::remove_cvref_t<Arg>, Span<T>>;
  static Span<T> bind(DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_span(device_pointer<T>(buffer), buffer.size());
  }
  static Span<T> bind(Span<T> span) noexcept { return span; }
};

template <class T> struct Binder<DisjointSpan<T>> {
  template <class Arg>
  static constexpr bool accepts =
      MutableBufferLvalue<Arg, T> || std::is_same_v<std::remove_cvref_t<Arg>, DisjointSpan<T>>;
  static DisjointSpan<T> bind(DeviceBuffer<T> &buffer) noexcept {
    return SpanAccess::make_disjoint(device_pointer<T>(buffer), buffer.size());
  }
  static DisjointSpan<T> bind(DisjointSpan<T> span) noexcept { return span; }
};

} // namespace detail

/// Satisfied when an argument of type Arg (`X&` for an lvalue, `X` for an rvalue, as with
/// forwarding references) can be passed to a kernel parameter of type Param.
template <class Arg, class Param>
concept KernelArgument = detail::Binder<Param>::template accepts<Arg>;

namespace detail {

/// The spelling of T, from the compiler's function signature string (clang and GCC).
template <class T> constexpr std::string_view type_name() noexcept {
  constexpr std::string_view signature = __PRETTY_FUNCTION__;
  constexpr std::size_t start = signature.find("T = ") + 4;
  constexpr std::size_t semicolon = signature.find(';', start);
  constexpr std::size_t end = semicolon != std::string_view::npos ? semicolon : signature.rfind(']');
  return signature.substr(start, end - start);
}

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

template <std::size_t Index, class Arg, class Param> constexpr DiagnosticText argument_diagnostic() noexcept {
  DiagnosticText d;
  d << "oxide: argument " << Index + 1 << " (" << type_name<Arg>()
    << ") cannot be passed as kernel parameter of type '" << type_name<Param>() << "'";
  if constexpr (is_device_buffer_v<std::remove_cvref_t<Arg>> && !std::is_lvalue_reference_v<Arg>)
    d << "; pass a named DeviceBuffer, not a temporary (it would be freed while the kernel runs)";
  else if constexpr (is_device_buffer_v<std::remove_cvref_t<Arg>>)
    d << "; a const DeviceBuffer binds only to Span<const T>, and the element types must match";
  else if constexpr (std::is_arithmetic_v<Param>)
    d << "; scalars must convert without narrowing (add an explicit cast)";
  return d;
}

constexpr DiagnosticText argument_count_diagnostic(std::size_t given, std::size_t expected) noexcept {
  DiagnosticText d;
  d << "oxide: wrong number of kernel arguments: the kernel takes " << expected << ", the launch passes "
    << given;
  return d;
}

/// Instantiated once per argument so that a mismatch is reported with its position and types.
template <std::size_t Index, class Arg, class Param> struct CheckKernelArgument {
#if defined(__clang__) && __clang_major__ >= 17
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++26-extensions"
  // Clang accepts a computed message before C++26, which names the argument and both types.
  static_assert(KernelArgument<Arg, Param>, argument_diagnostic<Index, Arg, Param>());
#pragma clang diagnostic pop
#else
  static_assert(KernelArgument<Arg, Param>,
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
