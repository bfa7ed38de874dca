// The kernel registry: which host functions are kernels, and where their device code is.
//
// The compiler registers every device image it embeds through __oxide_register_image (see
// oxide/detail/device_image.hpp). Runtime internal; the public entry point is oxide::prepare.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "oxide/detail/device_image.hpp"
#include "oxide/detail/param_kind.hpp"

namespace oxide::detail {

/// A registered kernel. The pointers stay valid for the life of the process.
struct RegisteredKernel {
  const DeviceImage *image = nullptr;
  std::size_t image_index = 0; ///< registration order; identifies the image in module caches
  const KernelInfo *info = nullptr;
  std::string display_name; ///< demangled, without parameters: "vecadd"

  [[nodiscard]] const std::string &entry_name() const noexcept { return info->name; }
};

/// One device copy of an oxide::constant: its symbol in one device image.
struct RegisteredConstant {
  const DeviceImage *image = nullptr;
  std::size_t image_index = 0;
  std::string symbol; ///< the mangled name, the same in the host and device compiles
};

/// Every device copy of the oxide::constant at this host address (one per image whose kernels
/// use it); empty when no kernel reads it.
[[nodiscard]] std::vector<RegisteredConstant> find_constant(const void *host_address);

/// The kernel registered for this host function address, if any.
[[nodiscard]] std::optional<RegisteredKernel> find_kernel(const void *host_address);
/// Like find_kernel, but throws oxide::Error naming the function when it is not a kernel.
[[nodiscard]] RegisteredKernel require_kernel(const void *host_address);

/// The code object to load on a device of compute capability `arch` (major * 10 + minor): the
/// cubin built for exactly that arch, else the newest cubin of the same major version that is
/// not newer (sm_86's on an sm_87 device: cubins are binary-compatible upwards within a major
/// version), else the newest PTX not newer than the device (the driver JIT-compiles it);
/// nullptr if there is none.
[[nodiscard]] const CodeObject *select_code(const DeviceImage &image, int arch) noexcept;

/// A host-side kernel parameter type, as seen by oxide::prepare.
struct HostParam {
  std::size_t size = 0;
  std::size_t align = 0;
  std::string_view type_name;
  std::size_t elem_size = 0;         ///< sizeof(T) of a span parameter's elements, 0 for other parameters
  ParamKind kind = ParamKind::other; ///< what the parameter is (detail::param_kind_v)
};

/// Throws oxide::Error (LayoutMismatch) when the host parameter types do not match the layout the
/// compiler recorded for the kernel (a stale build, or a runtime from a different Oxide version),
/// or, for a kernel whose image records its parameters' kinds (one with a contract), when a
/// parameter is of another kind on the host than in the device code: a host compile that sees
/// another signature (#ifdef __CUDA_ARCH__) would bind an output as an input.
void check_param_layout(const RegisteredKernel &kernel, std::span<const HostParam> host_params);

/// "vecadd" for "_Z6vecaddN5oxide4SpanIKfEES2_NS_12DisjointSpanIfEE"; unmangled names unchanged.
[[nodiscard]] std::string kernel_display_name(std::string_view entry_name);

} // namespace oxide::detail
