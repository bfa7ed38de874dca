// What a launch contract's `requires` reads of one kernel argument: shared by the host launch
// templates, which fill it, and the contract evaluator (contract.hpp), which reads it.
#pragma once

#include <array>
#include <cstdint>

namespace oxide::detail {

/// A span's element count and its extents (width, height, depth; 1 past its rank), or an
/// integer's value (a signed one as its two's complement).
struct ContractOperand {
  std::uint64_t value = 0;
  std::array<std::uint64_t, 3> extents = {1, 1, 1};
};

} // namespace oxide::detail
