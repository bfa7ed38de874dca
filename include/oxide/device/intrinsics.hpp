// Oxide device intrinsics: the boundary between the C++ headers and the compiler.
//
// Every `__oxide_*` function below is declared, never defined, in device code: the `oxide-raise`
// pass turns each call into an `oxide` dialect op, and `oxide-to-nvvm` lowers the op to PTX.
// The host runtime defines the same symbols for the CPU simulator, so one header serves both
// compiles. User code never calls these directly; it uses the typed wrappers in oxide/device/.
#pragma once

#include <cstddef>

extern "C" {
/// Global linear index of the calling thread in a 1-D launch: blockIdx.x * blockDim.x + threadIdx.x.
std::size_t __oxide_index_1d() noexcept;
/// Reports an out-of-bounds access through a span and stops the kernel. Never returns.
[[noreturn]] void __oxide_bounds_fail(std::size_t index, std::size_t size) noexcept;
}
