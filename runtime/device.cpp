#include "oxide/host/device.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <array>
#include <climits>
#include <cstring>

#include "cuda_driver.hpp"
#include "device_internal.hpp"
#include "oxide/host/error.hpp"

namespace oxide {

int detail::device_count() {
  const CUresult init = driver_init_result();
  if (init == CUDA_ERROR_NO_DEVICE)
    return 0;
  const DriverApi &api = driver(); // throws for any other cuInit failure
  int count = 0;
  check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

std::string detail::cuda_unavailable_reason() noexcept {
  try {
    if (const std::string_view failure = driver_load_failure(); !failure.empty())
      return std::string(failure);
    const CUresult init = driver_init_result();
    if (init == CUDA_ERROR_NO_DEVICE)
      return "the driver found none";
    if (init != CUDA_SUCCESS) {
      const char *name = nullptr;
      if (loaded_driver_api().cuGetErrorName(init, &name) != CUDA_SUCCESS || !name)
        name = "unknown error";
      return fmt::format("cuInit failed: {}", name);
    }
    return device_count() == 0 ? "the driver found none" : "";
  } catch (const std::exception &e) {
    return e.what();
  }
}

Device detail::simulator_device(unsigned workers) {
  Device device;
  device.ordinal_ = -1;
  device.name_ = "Oxide CPU simulator";
  device.sm_count_ = static_cast<int>(workers);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  device.total_memory_ = pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
  device.max_threads_per_block_ = 1024;
  device.max_grid_dim_x_ = INT_MAX;
  device.max_shared_optin_ = 48 * 1024;
  device.simulator_ = true;
  return device;
}

int Device::count() noexcept {
  try {
    return detail::device_count();
  } catch (...) {
    return 0; // no driver, or a driver that cannot initialize: either way, no usable device
  }
}

Device Device::get(int ordinal) {
  const int count = detail::device_count();
  if (ordinal < 0 || ordinal >= count)
    throw Error(ErrorKind::NoDevice,
                count == 0 ? std::string("no CUDA device found")
                           : fmt::format("no CUDA device {} (this machine has {})", ordinal, count));
  const detail::DriverApi &api = detail::driver();
  CUdevice handle = 0;
  detail::check(api.cuDeviceGet(&handle, ordinal), "cuDeviceGet");

  Device device;
  device.ordinal_ = ordinal;
  std::array<char, 256> name{};
  detail::check(api.cuDeviceGetName(name.data(), static_cast<int>(name.size()), handle), "cuDeviceGetName");
  device.name_ = std::string(name.data(), strnlen(name.data(), name.size()));
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    detail::check(api.cuDeviceGetAttribute(&value, which, handle), "cuDeviceGetAttribute");
    return value;
  };
  device.cc_ = {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
  device.sm_count_ = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  device.max_threads_per_block_ = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  device.max_grid_dim_x_ = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  device.max_shared_optin_ = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  std::size_t bytes = 0;
  detail::check(api.cuDeviceTotalMem(&bytes, handle), "cuDeviceTotalMem");
  device.total_memory_ = bytes;
  return device;
}

} // namespace oxide
