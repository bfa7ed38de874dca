#include "oxide/host/context.hpp"

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "device_internal.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {

ContextState::~ContextState() {
  const DriverApi &api = loaded_driver_api(); // this state exists, so the driver is loaded
  if (api.cuCtxPushCurrent(handle_) == CUDA_SUCCESS) {
    for (const auto &[image, module] : modules_)
      (void)api.cuModuleUnload(module); // nothing to do about a failure while tearing down
    CUcontext popped = nullptr;
    (void)api.cuCtxPopCurrent(&popped);
  }
  (void)api.cuDevicePrimaryCtxRelease(cu_device_);
}

ScopedCurrent::ScopedCurrent(const ContextState &context) {
  check(driver().cuCtxPushCurrent(context.handle()), "cuCtxPushCurrent");
}

ScopedCurrent::~ScopedCurrent() {
  CUcontext popped = nullptr;
  (void)loaded_driver_api().cuCtxPopCurrent(&popped);
}

} // namespace detail

Context Context::create() {
  if (detail::device_count() == 0)
    throw Error("no CUDA device found");
  return create(0);
}

Context Context::create(int ordinal) {
  Device device = Device::get(ordinal); // validates the ordinal
  const detail::DriverApi &api = detail::driver();
  CUdevice cu_device = 0;
  detail::check(api.cuDeviceGet(&cu_device, ordinal), "cuDeviceGet");
  CUcontext handle = nullptr;
  detail::check(api.cuDevicePrimaryCtxRetain(&handle, cu_device), "cuDevicePrimaryCtxRetain");
  return Context(std::make_shared<detail::ContextState>(std::move(device), cu_device, handle));
}

const std::shared_ptr<detail::ContextState> &Context::state() const {
  if (!state_) [[unlikely]]
    throw Error("use of a moved-from oxide::Context");
  return state_;
}

const Device &Context::device() const { return state()->device(); }

Stream Context::default_stream() const { return Stream(state(), nullptr, false); }

Stream Context::create_stream() const {
  const auto &context = state();
  detail::ScopedCurrent current(*context);
  CUstream stream = nullptr;
  detail::check(detail::driver().cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  return Stream(context, stream, true);
}

void Context::synchronize() const {
  detail::ScopedCurrent current(*state());
  detail::check(detail::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

void *Context::native_handle() const { return state()->handle(); }

} // namespace oxide
