// oxide::set_constant, set_global and get_global: the host copy of an oxide::constant or
// oxide::device_global and its copies in device modules.
#include "oxide/host/constant.hpp"
#include "oxide/host/global.hpp"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/detail/host/registry.hpp"
#include "oxide/host/error.hpp"

namespace oxide::detail {

namespace {
/// The device copies, in the stream's context, of the variable at `host_address` (loading the
/// modules that hold them): none when no kernel uses it. `what` names the kind for errors.
std::vector<CUdeviceptr> device_copies(ContextState &state, const void *host_address, std::size_t bytes,
                                       const char *what) {
  std::vector<CUdeviceptr> copies;
  for (const RegisteredConstant &variable : find_constant(host_address)) {
    CUmodule module =
        state.module_for_image(*variable.image, variable.image_index,
                               fmt::format("{} '{}'", what, kernel_display_name(variable.symbol)));
    ScopedCurrent current(state);
    CUdeviceptr device = 0;
    std::size_t device_bytes = 0;
    check(driver().cuModuleGetGlobal(&device, &device_bytes, module, variable.symbol.c_str()),
          "cuModuleGetGlobal");
    if (device_bytes != bytes)
      throw Error(ErrorKind::LayoutMismatch,
                  fmt::format("{} '{}' is {} bytes on the host but {} in the device image; rebuild the "
                              "program with oxcc",
                              what, kernel_display_name(variable.symbol), bytes, device_bytes));
    copies.push_back(device);
  }
  return copies;
}

void set_variable_bytes(Stream &stream, void *host_address, const void *value, std::size_t bytes,
                        const char *what) {
  ContextState &state = *detail::StreamAccess::context_state(stream);
  std::memmove(host_address, value, bytes);
  if (state.is_simulator())
    return; // kernels run on the host and read the host copy; simulator streams run in order
  for (CUdeviceptr device : device_copies(state, host_address, bytes, what)) {
    ScopedCurrent current(state);
    check(driver().cuMemcpyHtoDAsync(device, value, bytes, static_cast<CUstream>(stream.native_handle())),
          "cuMemcpyHtoDAsync");
  }
}
} // namespace

void set_constant_bytes(Stream &stream, void *host_address, const void *value, std::size_t bytes) {
  set_variable_bytes(stream, host_address, value, bytes, "oxide::constant");
}

void set_global_bytes(Stream &stream, void *host_address, const void *value, std::size_t bytes) {
  set_variable_bytes(stream, host_address, value, bytes, "oxide::device_global");
}

void get_global_bytes(Stream &stream, const void *host_address, void *value, std::size_t bytes) {
  ContextState &state = *detail::StreamAccess::context_state(stream);
  std::vector<CUdeviceptr> copies;
  if (!state.is_simulator())
    copies = device_copies(state, host_address, bytes, "oxide::device_global");
  if (!copies.empty()) {
    ScopedCurrent current(state);
    check(driver().cuMemcpyDtoHAsync(value, copies.front(), bytes,
                                     static_cast<CUstream>(stream.native_handle())),
          "cuMemcpyDtoHAsync");
  }
  stream.synchronize(); // the kernels before this call have finished (on the simulator too)
  // On the simulator, and on a GPU when no kernel uses the variable, the host copy is the value.
  if (copies.empty())
    std::memmove(value, host_address, bytes);
}

} // namespace oxide::detail
