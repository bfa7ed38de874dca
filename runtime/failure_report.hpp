// The record into which a context's kernels report a failed bounds check, and its reading when
// the launch has failed (the layout: oxide/detail/failure_record.hpp).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "oxide/detail/failure_record.hpp"

namespace oxide::detail {

/// One context's FailureRecord, in pinned host memory mapped into the device (a trap leaves
/// device memory unreadable), and the site tables of the modules that report into it.
class FailureReports {
public:
  /// Whether device code (PTX or cubin) has a failure report: it names kFailureRecordGlobal.
  /// Asking the module for a global it lacks is an API error that compute-sanitizer reports.
  [[nodiscard]] static bool reports_failures(std::string_view code) noexcept;

  /// Allocates the record with `context` current; nullptr when it cannot (the kernels then stop
  /// with a trap and no report). Never throws.
  static std::unique_ptr<FailureReports> create(CUcontext context) noexcept;
  /// Frees the record; its context must be current. Never throws.
  ~FailureReports();
  FailureReports(const FailureReports &) = delete;
  FailureReports &operator=(const FailureReports &) = delete;

  /// Points `module`'s kFailureRecordGlobal at the record and reads its site table, with the
  /// module's context current. A module without reports is left alone. Never throws: a module
  /// that cannot be attached still stops at a failed check, without the report.
  void attach(CUmodule module) noexcept;

  /// What the first failed check since the last call reported ("file:line: in function: block
  /// (x,y,z) thread (x,y,z): index I out of bounds for span of size N"), or "" if none; the
  /// record is cleared. Thread-safe.
  [[nodiscard]] std::string take();

  [[nodiscard]] CUcontext context() const noexcept { return context_; }

private:
  FailureReports(CUcontext context, void *host, CUstream stream) noexcept;

  struct SiteTable {
    CUdeviceptr address = 0;
    std::vector<std::string> sites; // site 1 first
  };

  CUcontext context_;
  void *host_;      // the FailureRecord, then its device address (the source of the modules' copies)
  CUstream stream_; // the copies to the modules: not the user's streams, nor the legacy one
  std::mutex tables_mutex_;
  std::vector<SiteTable> tables_;
};

/// The report of the first failed bounds check in `context` (FailureReports::take of every
/// record registered for it), or "" if none.
[[nodiscard]] std::string take_failure_report(CUcontext context);

} // namespace oxide::detail
