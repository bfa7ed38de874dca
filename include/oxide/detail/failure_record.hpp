// Where a failed bounds check on the GPU leaves its report: the layout that the compiler's
// oxide-write-failure-reports writes and the runtime reads after the launch has failed.
//
// The report is written by the kernel into host memory mapped into the device, not printed:
// a call (vprintf, __assertfail) anywhere in a kernel makes ptxas give the kernel a stack frame
// and put a YIELD into its loops, hot paths included (the histograms lost 3 % to it). The
// record's address is in each module's kFailureRecordGlobal, which the runtime sets when it
// loads the module; a trap after the write fails the launch, and the runtime reads the record
// when it reports that failure. Where the check is (file, line, function) is a site number
// into the module's kFailureSitesGlobal, which the runtime reads when it loads the module.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oxide::detail {

/// The module global (a 64-bit address, 0 until the runtime sets it) that holds the address of
/// the context's FailureRecord.
inline constexpr char kFailureRecordGlobal[] = "__oxide_failure_record";
/// The module global that describes its report sites: "file:line: in function", each ended by a
/// NUL, site 1 first.
inline constexpr char kFailureSitesGlobal[] = "__oxide_failure_sites";

struct FailureRecord {
  /// 0 until a failing thread claims the record (compare-and-swap to kFailureClaimed): the first
  /// failure is the one reported.
  std::uint32_t state;
  /// The site in the module's table (1 on); 0 when the compiler could not tell which.
  std::uint32_t site;
  /// The device address of the module's kFailureSitesGlobal: which module's table `site` is in.
  std::uint64_t sites;
  std::uint64_t index;
  std::uint64_t size;
  std::uint32_t block[3];
  std::uint32_t thread[3];
};

inline constexpr std::uint32_t kFailureClaimed = 1;

/// The byte offsets the compiler writes at: one definition, the struct's.
inline constexpr std::size_t kFailureStateOffset = offsetof(FailureRecord, state);
inline constexpr std::size_t kFailureSiteOffset = offsetof(FailureRecord, site);
inline constexpr std::size_t kFailureSitesOffset = offsetof(FailureRecord, sites);
inline constexpr std::size_t kFailureIndexOffset = offsetof(FailureRecord, index);
inline constexpr std::size_t kFailureSizeOffset = offsetof(FailureRecord, size);
inline constexpr std::size_t kFailureBlockOffset = offsetof(FailureRecord, block);
inline constexpr std::size_t kFailureThreadOffset = offsetof(FailureRecord, thread);

} // namespace oxide::detail
