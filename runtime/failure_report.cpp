// The failure record of a context: allocated, pointed at by each module, read after a fault.
#include "failure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <new>

#include "cuda_driver.hpp"

namespace oxide::detail {
namespace {

/// Every live record, for the fault handler, which knows only the current context.
std::mutex registry_mutex;
std::vector<FailureReports *> registry;

FailureRecord &record_at(void *host) noexcept { return *static_cast<FailureRecord *>(host); }

/// This thread in the capture mode that allows what a stream capture would otherwise forbid
/// (allocating, synchronising a stream of our own): a module may be loaded, and the record
/// made, at a kernel's first launch, inside Graph::capture or a framework's capture.
class RelaxedCaptureMode {
public:
  RelaxedCaptureMode() noexcept
      : exchanged_(loaded_driver_api().cuThreadExchangeStreamCaptureMode(&mode_) == CUDA_SUCCESS) {}
  ~RelaxedCaptureMode() {
    if (exchanged_)
      (void)loaded_driver_api().cuThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED; // then the thread's own, to restore
  bool exchanged_;
};

} // namespace

bool FailureReports::reports_failures(std::string_view code) noexcept {
  return code.find(kFailureRecordGlobal) != std::string_view::npos;
}

std::unique_ptr<FailureReports> FailureReports::create(CUcontext context) noexcept {
  const DriverApi &api = loaded_driver_api();
  const RelaxedCaptureMode relaxed;
  void *host = nullptr;
  // The record, then its own device address: the source of the copies into the modules.
  if (api.cuMemHostAlloc(&host, sizeof(FailureRecord) + sizeof(CUdeviceptr), CU_MEMHOSTALLOC_DEVICEMAP) !=
      CUDA_SUCCESS)
    return nullptr;
  CUdeviceptr device = 0;
  CUstream stream = nullptr;
  if (api.cuMemHostGetDevicePointer(&device, host, 0) != CUDA_SUCCESS ||
      api.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    (void)api.cuMemFreeHost(host);
    return nullptr;
  }
  new (host) FailureRecord{};
  new (static_cast<char *>(host) + sizeof(FailureRecord)) CUdeviceptr(device);
  std::unique_ptr<FailureReports> reports(new (std::nothrow) FailureReports(context, host, stream));
  if (!reports) {
    (void)api.cuStreamDestroy(stream);
    (void)api.cuMemFreeHost(host);
    return nullptr;
  }
  std::lock_guard lock(registry_mutex);
  registry.push_back(reports.get());
  return reports;
}

FailureReports::FailureReports(CUcontext context, void *host, CUstream stream) noexcept
    : context_(context), host_(host), stream_(stream) {}

FailureReports::~FailureReports() {
  {
    std::lock_guard lock(registry_mutex);
    std::erase(registry, this);
  }
  const DriverApi &api = loaded_driver_api();
  (void)api.cuStreamDestroy(stream_);
  (void)api.cuMemFreeHost(host_);
}

void FailureReports::attach(CUmodule module) noexcept {
  const DriverApi &api = loaded_driver_api();
  const RelaxedCaptureMode relaxed;
  CUdeviceptr record_global = 0, sites_global = 0;
  std::size_t record_bytes = 0, sites_bytes = 0;
  if (api.cuModuleGetGlobal(&record_global, &record_bytes, module, kFailureRecordGlobal) != CUDA_SUCCESS ||
      record_bytes != sizeof(CUdeviceptr))
    return; // no bounds check in this module
  if (api.cuModuleGetGlobal(&sites_global, &sites_bytes, module, kFailureSitesGlobal) != CUDA_SUCCESS)
    sites_bytes = 0;
  std::string bytes(sites_bytes, '\0');
  // On a stream of our own, not the legacy one, so that a module loaded while another stream
  // is captured into a graph interferes with nothing.
  if (api.cuMemcpyHtoDAsync(record_global, static_cast<char *>(host_) + sizeof(FailureRecord),
                            sizeof(CUdeviceptr), stream_) != CUDA_SUCCESS ||
      (sites_bytes &&
       api.cuMemcpyDtoHAsync(bytes.data(), sites_global, sites_bytes, stream_) != CUDA_SUCCESS) ||
      api.cuStreamSynchronize(stream_) != CUDA_SUCCESS)
    return;
  SiteTable table{sites_global, {}};
  for (std::size_t begin = 0; begin < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\0', begin), bytes.size());
    table.sites.emplace_back(bytes, begin, end - begin);
    begin = end + 1;
  }
  std::lock_guard lock(tables_mutex_);
  tables_.push_back(std::move(table));
}

std::string FailureReports::take() {
  FailureRecord &record = record_at(host_);
  std::atomic_ref<std::uint32_t> state(record.state);
  if (state.load(std::memory_order_acquire) != kFailureClaimed)
    return {};
  std::string site = "a bounds check";
  {
    std::lock_guard lock(tables_mutex_);
    for (const SiteTable &table : tables_)
      if (table.address == record.sites && record.site >= 1 && record.site <= table.sites.size())
        site = table.sites[record.site - 1];
  }
  std::string report =
      fmt::format("{}: block ({},{},{}) thread ({},{},{}): index {} out of bounds for span of size {}", site,
                  record.block[0], record.block[1], record.block[2], record.thread[0], record.thread[1],
                  record.thread[2], record.index, record.size);
  state.store(0, std::memory_order_release);
  return report;
}

std::string take_failure_report(CUcontext context) {
  std::lock_guard lock(registry_mutex);
  for (FailureReports *reports : registry)
    if (reports->context() == context)
      if (std::string report = reports->take(); !report.empty())
        return report;
  return {};
}

} // namespace oxide::detail
