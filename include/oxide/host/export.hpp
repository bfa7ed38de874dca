// OXIDE_EXPORT: makes a kernel callable through the C ABI of oxide/c_api.h (from C, from an
// nvcc-built program, from Python), by the name given.
//
//   [[kernel, oxide::launch_contract("domain = 1, requires = (x.size() == out.size())")]]
//   void scale(oxide::Span<const float> x, float factor, oxide::DisjointSpan<float> out) { ... }
//   OXIDE_EXPORT(scale);                        // exported as "scale"
//   OXIDE_EXPORT_AS("scale_f16", scale<half>);  // a template kernel's instantiation, named
//
// At namespace scope, after the kernel's declaration. Everything the ABI says about a parameter
// (its kind, element type, rank, size) is read from the kernel's C++ signature here, and its name
// and the contract from the kernel's device image: nothing is stated twice.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "oxide/c_api.h"
#include "oxide/detail/host/launch_core.hpp"
#include "oxide/device/half.hpp"
#include "oxide/host/dtype.hpp"

namespace oxide::detail {

/// What a C caller must know of one parameter, beyond its HostParam (size, alignment, kind).
struct ExportParam {
  std::int32_t dtype = OXIDE_DTYPE_NONE; ///< of the elements (span) or of the value (scalar)
  std::uint32_t rank = 0;                ///< 1, 2, 3 for spans, 0 for scalars
  bool writable = false;                 ///< the kernel may write through it
  bool floating = false;                 ///< a floating-point scalar (float, double, half, bfloat16)
};

template <class P> struct ElementOf {
  using type = P; // a scalar: its own type
};
template <class T> struct ElementOf<Span<T>> {
  using type = T;
};
template <class T> struct ElementOf<DisjointSpan<T>> {
  using type = T;
};
template <class T> struct ElementOf<DisjointSpan2D<T>> {
  using type = T;
};
template <class T> struct ElementOf<DisjointSpan3D<T>> {
  using type = T;
};
template <class T, Scope S> struct ElementOf<AtomicSpan<T, S>> {
  using type = T;
};

template <class P> constexpr ExportParam export_param() noexcept {
  constexpr ParamKind kind = param_kind_v<P>;
  static_assert(
      is_span(kind) || is_plain_param_v<P>,
      "oxide: OXIDE_EXPORT takes kernels whose parameters are spans (Span, DisjointSpan, "
      "DisjointSpan2D/3D, AtomicSpan) and scalars; AppendSpan, PermutationSpan, ClaimSet and TensorMap "
      "parameters need their host objects (launch such a kernel from C++)");
  static_assert(kind != ParamKind::append && kind != ParamKind::permutation && kind != ParamKind::claims,
                "oxide: OXIDE_EXPORT cannot pass an AppendSpan, PermutationSpan or ClaimSet from C");
  using E = typename ElementOf<P>::type;
  return {dtype_of<E>(), span_extents(kind), writes_through_v<P> || kind == ParamKind::atomic,
          std::is_floating_point_v<E> || std::is_same_v<E, half> || std::is_same_v<E, bfloat16>};
}

/// One exported kernel, as OXIDE_EXPORT registers it.
struct KernelExport {
  const char *name = nullptr;
  HostKernel host;
  const HostParam *params = nullptr;
  const ExportParam *exports = nullptr;
  std::size_t param_count = 0;
};

/// Adds `entry` to the library's exported kernels (runtime/c_api.cpp). Never throws: it runs
/// before main.
void register_export(const KernelExport &entry) noexcept;

template <class... P> bool export_kernel(const char *name, void (*kernel)(P...)) noexcept {
  check_kernel_signature<P...>();
  static constexpr std::array<HostParam, sizeof...(P) + 1> params{host_param<P>()..., HostParam{}};
  static constexpr std::array<ExportParam, sizeof...(P) + 1> exports{export_param<P>()..., ExportParam{}};
  register_export({name, host_kernel(kernel), params.data(), exports.data(), sizeof...(P)});
  return true;
}

} // namespace oxide::detail

#define OXIDE_EXPORT_CONCAT_IMPL(a, b) a##b
#define OXIDE_EXPORT_CONCAT(a, b) OXIDE_EXPORT_CONCAT_IMPL(a, b)

/// Exports `kernel` (a [[kernel]] function with a launch contract) under the name `name`, a
/// string literal, through the C ABI of oxide/c_api.h.
#define OXIDE_EXPORT_AS(name, ...)                                                                           \
  [[maybe_unused]] static const bool OXIDE_EXPORT_CONCAT(oxide_exported_kernel_, __COUNTER__) =              \
      ::oxide::detail::export_kernel(name, &__VA_ARGS__)

/// Exports `kernel` under its own name.
#define OXIDE_EXPORT(kernel) OXIDE_EXPORT_AS(#kernel, kernel)
