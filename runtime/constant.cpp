// oxide::set_constant: the host copy of an oxide::constant and its copies in device modules.
#include "oxide/host/constant.hpp"

#include <fmt/format.h>

#include <cstring>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/detail/host/registry.hpp"
#include "oxide/host/error.hpp"

namespace oxide::detail {

void set_constant_bytes(Stream &stream, void *host_address, const void *value, std::size_t bytes) {
  ContextState &state = *detail::StreamAccess::context_state(stream);
  std::memmove(host_address, value, bytes);
  if (state.is_simulator())
    return; // kernels run on the host and read the host copy; simulator streams run in order
  // No kernel reads a constant that is in no image: then the host copy is all there is.
  for (const RegisteredConstant &constant : find_constant(host_address)) {
    CUmodule module =
        state.module_for_image(*constant.image, constant.image_index,
                               fmt::format("constant '{}'", kernel_display_name(constant.symbol)));
    ScopedCurrent current(state);
    CUdeviceptr device = 0;
    std::size_t device_bytes = 0;
    check(driver().cuModuleGetGlobal(&device, &device_bytes, module, constant.symbol.c_str()),
          "cuModuleGetGlobal");
    if (device_bytes != bytes)
      throw Error(
          ErrorKind::LayoutMismatch,
          fmt::format("oxide::constant '{}' is {} bytes on the host but {} in the device image; rebuild "
                      "the program with oxcc",
                      kernel_display_name(constant.symbol), bytes, device_bytes));
    check(driver().cuMemcpyHtoDAsync(device, value, bytes, static_cast<CUstream>(stream.native_handle())),
          "cuMemcpyHtoDAsync");
  }
}

} // namespace oxide::detail
