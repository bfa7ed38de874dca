#include "oxide/host/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string_view>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "device_internal.hpp"
#include "device_selection.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/stream.hpp"
#include "stream_state.hpp"

#include <limits>

namespace oxide {

namespace detail {

ContextState::~ContextState() {
  if (simulator_)
    return;
  const DriverApi &api = loaded_driver_api(); // this state exists, so the driver is loaded
  if (pool_)
    (void)api.cuMemPoolDestroy(pool_); // what is still allocated goes when it is freed
  if (api.cuCtxPushCurrent(handle_) == CUDA_SUCCESS) {
    for (const auto &[image, module] : modules_)
      (void)api.cuModuleUnload(module); // nothing to do about a failure while tearing down
    failure_reports_.reset();           // its memory is the context's
    CUcontext popped = nullptr;
    (void)api.cuCtxPopCurrent(&popped);
  }
  (void)api.cuDevicePrimaryCtxRelease(cu_device_);
}

CUmemoryPool ContextState::memory_pool() const {
  std::lock_guard lock(pool_mutex_);
  if (pool_made_ || simulator_)
    return pool_;
  pool_made_ = true;
  const DriverApi &api = loaded_driver_api();
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = static_cast<int>(device_.ordinal());
  CUmemoryPool pool = nullptr;
  if (api.cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS)
    return nullptr; // no memory pools here: the default pool's calls report what is wrong
  std::uint64_t keep_all = std::numeric_limits<std::uint64_t>::max();
  (void)api.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all);
  pool_ = pool;
  return pool_;
}

void ContextState::trim_memory_pool() const noexcept {
  std::lock_guard lock(pool_mutex_);
  if (pool_)
    (void)loaded_driver_api().cuMemPoolTrimTo(pool_, 0);
}

bool ContextState::peer_access_enabled(CUcontext peer) const {
  std::lock_guard lock(peers_mutex_);
  return std::find(peers_.begin(), peers_.end(), peer) != peers_.end();
}

void ContextState::record_peer_access(CUcontext peer) {
  std::lock_guard lock(peers_mutex_);
  if (std::find(peers_.begin(), peers_.end(), peer) == peers_.end())
    peers_.push_back(peer);
}

std::string ContextState::label() const {
  return simulator_ ? std::string("the CPU simulator") : fmt::format("device {}", device_.ordinal());
}

namespace {

/// What an Error says without its "oxide: " prefix, to quote it inside another message.
std::string_view reason(const Error &error) {
  std::string_view what = error.what();
  if (what.starts_with("oxide: "))
    what.remove_prefix(7);
  return what;
}

} // namespace

ScopedCurrent::ScopedCurrent(const ContextState &context) {
  check(driver().cuCtxPushCurrent(context.handle()), "cuCtxPushCurrent");
}

ScopedCurrent::~ScopedCurrent() {
  CUcontext popped = nullptr;
  (void)loaded_driver_api().cuCtxPopCurrent(&popped);
}

} // namespace detail

Context Context::create() {
  const detail::DeviceChoice choice = detail::device_choice_from_environment();
  switch (choice.kind) {
  case detail::DeviceChoice::Kind::cpu:
    return cpu();
  case detail::DeviceChoice::Kind::cuda:
    try {
      return create(choice.ordinal);
    } catch (const Error &e) {
      throw Error(ErrorKind::NoDevice, fmt::format("OXIDE_DEVICE={} asks for a CUDA device, but {}",
                                                   std::getenv("OXIDE_DEVICE"), detail::reason(e)));
    }
  case detail::DeviceChoice::Kind::automatic:
    break;
  }
  const std::string unavailable = detail::cuda_unavailable_reason();
  if (unavailable.empty())
    return create(0);
  Context context = cpu();
  // Once per process: a program may create many contexts, and one notice says it all.
  static std::once_flag notice;
  std::call_once(notice, [&] {
    std::fprintf(stderr, "oxide: no CUDA device (%s); running kernels on the CPU simulator\n",
                 unavailable.c_str());
  });
  return context;
}

Context Context::cpu() {
  const detail::sim::Options options = detail::sim::options_from_environment();
  return Context(std::make_shared<detail::ContextState>(detail::simulator_device(options.threads), options));
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

bool Context::is_simulator() const { return state()->is_simulator(); }

Stream Context::default_stream() const { return Stream(state(), nullptr, nullptr, Stream::Kind::Default); }

Stream Context::create_stream() const {
  const auto &context = state();
  CUstream stream = nullptr; // the simulator's streams are synchronous: nothing to create
  if (!context->is_simulator()) {
    detail::ScopedCurrent current(*context);
    detail::check(detail::driver().cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
  }
  std::shared_ptr<detail::StreamState> shared;
  try {
    shared = std::make_shared<detail::StreamState>(context, stream, Stream::Kind::Owned);
  } catch (...) {
    if (stream)
      (void)detail::driver().cuStreamDestroy(stream);
    throw;
  }
  return Stream(context, std::move(shared), stream, Stream::Kind::Owned);
}

void Context::synchronize() const {
  detail::check_thread_not_capturing("Context::synchronize", "synchronize after Graph::capture returns");
  if (state()->is_simulator())
    return; // every launch and copy has finished when its call returned
  detail::ScopedCurrent current(*state());
  detail::check(detail::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

bool Context::can_access_peer(const Context &other) const {
  const detail::ContextState &self = *state(), &peer = *other.state();
  if (self.is_simulator() || peer.is_simulator())
    return false;
  if (self.cu_device() == peer.cu_device())
    return true;
  int can_access = 0;
  detail::check(detail::driver().cuDeviceCanAccessPeer(&can_access, self.cu_device(), peer.cu_device()),
                "cuDeviceCanAccessPeer");
  return can_access != 0;
}

void Context::enable_peer_access(const Context &other) const {
  detail::ContextState &self = *state();
  const detail::ContextState &peer = *other.state();
  if (self.is_simulator() || peer.is_simulator())
    throw Error(
        ErrorKind::PeerAccessUnavailable,
        fmt::format("enable_peer_access: no peer access between {} and {}: the CPU simulator's memory "
                    "is host memory (copies between it and a GPU go through the host)",
                    self.label(), peer.label()));
  if (self.handle() == peer.handle())
    return; // one device: its memory is already reachable
  if (!can_access_peer(other))
    throw Error(ErrorKind::PeerAccessUnavailable,
                fmt::format("enable_peer_access: {} ({}) cannot access the memory of {} ({}) directly; "
                            "copies between them are staged through pinned host memory",
                            self.label(), self.device().name(), peer.label(), peer.device().name()));
  detail::ScopedCurrent current(self);
  const CUresult result = detail::driver().cuCtxEnablePeerAccess(peer.handle(), 0);
  if (result == CUDA_ERROR_TOO_MANY_PEERS || result == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
    throw Error(ErrorKind::PeerAccessUnavailable,
                fmt::format("enable_peer_access: the driver refuses peer access from {} to {} ({})",
                            self.label(), peer.label(),
                            result == CUDA_ERROR_TOO_MANY_PEERS ? "CUDA_ERROR_TOO_MANY_PEERS"
                                                                : "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"));
  if (result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    detail::check(result, "cuCtxEnablePeerAccess");
  self.record_peer_access(peer.handle());
}

void *Context::native_handle() const { return state()->handle(); } // nullptr on the simulator

} // namespace oxide
