// What the compiler records about each kernel parameter: one letter per parameter, in the
// oxide.params annotation and the device image's KernelInfo::param_kinds ("a=i,b=o,n=u"), and in
// the simulator's write-check descriptions ("a=i4,p=c4"); by name in the dialect's #oxide.kernel
// attribute. This is the one definition of the letters and the names: the frontend encodes them
// (compiler/ast/ContractAttributes.cpp), the dialect (Oxide/IR/KernelContract.h), the runtime and
// the simulator decode them here.
#pragma once

#include <optional>
#include <string_view>

namespace oxide::detail {

enum class ParamKind : char {
  input = 'i',               ///< Span<const T>
  mutable_span = 'm',        ///< Span<T>
  output = 'o',              ///< DisjointSpan<T>
  output_2d = '2',           ///< DisjointSpan2D<T>
  output_3d = '3',           ///< DisjointSpan3D<T>
  atomic = 'a',              ///< AtomicSpan<T>
  append = 'r',              ///< AppendSpan<T>: written at slots reserved from its counter
  permutation = 'q',         ///< PermutationSpan: a validated permutation, read only
  claims = 'k',              ///< ClaimSet: claim bits, set only by DisjointSpan::claim_mut
  tensor_map = 't',          ///< TensorMap<const T, Box, Swizzle>: read only, by TMA copies
  writable_tensor_map = 'w', ///< TensorMap<T, Box, Swizzle>: TMA stores write it (unsafe_launch only)
  unsigned_integer = 'u',    ///< an unsigned integer, usable in `requires`
  signed_integer = 's',      ///< a signed integer, usable in `requires`; launches check it is >= 0
  other = 'x',               ///< anything else
  const_pointer = 'c',       ///< const T *, in the simulator's descriptions only (oxide.params says x)
  pointer = 'p',             ///< T *, likewise
};

/// Every kind with the name the dialect's `#oxide.kernel` attribute spells it with.
struct ParamKindName {
  ParamKind kind;
  std::string_view name;
};
inline constexpr ParamKindName kParamKinds[] = {
    {ParamKind::input, "input"},
    {ParamKind::mutable_span, "mutable_span"},
    {ParamKind::output, "output"},
    {ParamKind::output_2d, "output_2d"},
    {ParamKind::output_3d, "output_3d"},
    {ParamKind::atomic, "atomic"},
    {ParamKind::append, "append"},
    {ParamKind::permutation, "permutation"},
    {ParamKind::claims, "claims"},
    {ParamKind::tensor_map, "tensor_map"},
    {ParamKind::writable_tensor_map, "writable_tensor_map"},
    {ParamKind::unsigned_integer, "unsigned_integer"},
    {ParamKind::signed_integer, "signed_integer"},
    {ParamKind::other, "other"},
    {ParamKind::const_pointer, "const_pointer"},
    {ParamKind::pointer, "pointer"},
};

/// The letter that encodes `kind`.
[[nodiscard]] constexpr char param_kind_letter(ParamKind kind) noexcept { return static_cast<char>(kind); }

/// The kind `letter` encodes; std::nullopt for a letter that encodes none.
[[nodiscard]] constexpr std::optional<ParamKind> param_kind(char letter) noexcept {
  for (const ParamKindName &entry : kParamKinds)
    if (param_kind_letter(entry.kind) == letter)
      return entry.kind;
  return std::nullopt;
}

/// The name of `kind` in the dialect's attribute.
[[nodiscard]] constexpr std::string_view param_kind_name(ParamKind kind) noexcept {
  for (const ParamKindName &entry : kParamKinds)
    if (entry.kind == kind)
      return entry.name;
  return {};
}

/// The kind named `name`; std::nullopt for a name that names none.
[[nodiscard]] constexpr std::optional<ParamKind> param_kind_named(std::string_view name) noexcept {
  for (const ParamKindName &entry : kParamKinds)
    if (entry.name == name)
      return entry.kind;
  return std::nullopt;
}

/// The number of extents of a span parameter's layout (oxide/detail/intrinsic_abi.hpp,
/// kSpanExtentOffset): 1 for a size, 2 or 3 for width, height[, depth]; 0 for a non-span.
[[nodiscard]] constexpr unsigned span_extents(ParamKind kind) noexcept {
  switch (kind) {
  case ParamKind::input:
  case ParamKind::mutable_span:
  case ParamKind::output:
  case ParamKind::atomic:
  case ParamKind::append:
  case ParamKind::permutation:
  case ParamKind::claims:
    return 1;
  case ParamKind::output_2d:
    return 2;
  case ParamKind::output_3d:
    return 3;
  case ParamKind::tensor_map: // its extents are the map's, not a size
  case ParamKind::writable_tensor_map:
  case ParamKind::unsigned_integer:
  case ParamKind::signed_integer:
  case ParamKind::other:
  case ParamKind::const_pointer:
  case ParamKind::pointer:
    break;
  }
  return 0;
}

/// Whether the parameter is a span: it has a `.size()` in `requires`.
[[nodiscard]] constexpr bool is_span(ParamKind kind) noexcept { return span_extents(kind) != 0; }

/// Whether the parameter is an integer scalar that `requires` may name.
[[nodiscard]] constexpr bool is_integer_scalar(ParamKind kind) noexcept {
  return kind == ParamKind::unsigned_integer || kind == ParamKind::signed_integer;
}

/// Whether the parameter is a DisjointSpan of any rank.
[[nodiscard]] constexpr bool is_disjoint(ParamKind kind) noexcept {
  return kind == ParamKind::output || kind == ParamKind::output_2d || kind == ParamKind::output_3d;
}

/// Whether the parameter is a raw pointer (the simulator's descriptions only).
[[nodiscard]] constexpr bool is_pointer(ParamKind kind) noexcept {
  return kind == ParamKind::const_pointer || kind == ParamKind::pointer;
}

} // namespace oxide::detail
