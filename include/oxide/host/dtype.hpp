// Element types as the C ABI (oxide/c_api.h) and DLPack name them: (type code << 8) | bits.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "oxide/c_api.h"
#include "oxide/detail/element_types.hpp"
#include "oxide/device/half.hpp"

namespace oxide::detail {

/// The OXIDE_DTYPE_* of T; OXIDE_DTYPE_NONE for a type without one.
template <class T> constexpr std::int32_t dtype_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>)
    return OXIDE_DTYPE_BOOL;
  else if constexpr (std::is_same_v<U, half>)
    return OXIDE_DTYPE_F16;
  else if constexpr (std::is_same_v<U, bfloat16>)
    return OXIDE_DTYPE_BF16;
  else if constexpr ((std::is_integral_v<U> && sizeof(U) <= 8) || std::is_same_v<U, float> ||
                     std::is_same_v<U, double>)
    return arithmetic_dtype<U>();
  else
    return OXIDE_DTYPE_NONE;
}

/// "float32", "bfloat16", "uint8"... for messages (runtime/c_api.cpp).
[[nodiscard]] std::string dtype_name(std::int32_t dtype);

} // namespace oxide::detail
