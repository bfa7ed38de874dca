// The checking mode's write checks: what a simulated thread may write.
//
// oxcc instruments the host code of every function a kernel reaches (compiler/host/
// SimWriteChecks.cpp): before each store, atomic read-modify-write, compare-exchange and
// memset/memcpy/memmove destination it calls __oxide_sim_check_write(address, bytes, where)
// (or __oxide_sim_check_atomic_write for atomic instructions), behind a test of the global
// __oxide_sim_checking, which is non-zero only while a checking launch runs. It also registers,
// per kernel, what each parameter is (__oxide_sim_register_params).
//
// At a launch in the checking mode, WriteChecks::for_launch turns the parameter values into a
// small sorted vector of byte ranges: every DisjointSpan (of any rank), Span<const T>, Span<T>,
// AtomicSpan and raw pointer argument, and the redzone after a buffer when the simulator
// allocated it (DeviceBuffer memory carries kRedzoneBytes after its end in the checking mode).
// WriteChecks::check then classifies one write of a simulated thread. Writes to anything else
// (a fiber's stack, shared memory, host memory) are not checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "oxide/host/launch_config.hpp"
#include "sim/disjoint_claims.hpp"

namespace oxide::detail::sim {

/// What the compiler recorded about one kernel parameter.
struct ParamDescription {
  std::string name;               ///< "" when the parameter has none
  char kind = 'x';                ///< see WriteChecks::for_launch
  std::uint64_t element_size = 0; ///< bytes per element of a span or pointee; 0 when unknown
  friend bool operator==(const ParamDescription &, const ParamDescription &) = default;
};

/// Parses the compiler's description of a kernel's parameters: "name=<kind><element size>,...",
/// e.g. "a=i4,c=o4,n=u0" (an empty text is a kernel without parameters). nullopt when malformed.
[[nodiscard]] std::optional<std::vector<ParamDescription>> parse_param_descriptions(std::string_view text);

/// Records the parameters of the kernel whose host code is at `host_function`; a later
/// registration of the same function replaces the earlier one. Thread-safe.
void describe_kernel_params(const void *host_function, std::vector<ParamDescription> params);
/// What describe_kernel_params recorded for `host_function`: a copy, empty when nothing was.
[[nodiscard]] std::optional<std::vector<ParamDescription>>
kernel_param_descriptions(const void *host_function);

/// Bytes of poisoned memory after every simulator DeviceBuffer in the checking mode (after the
/// rounding up to 256 bytes), so that a write just past the end lands in memory of the buffer.
inline constexpr std::size_t kRedzoneBytes = 256;

/// The simulator's allocations in the checking mode, so that a launch knows which parameter
/// ranges end at the end of a buffer, followed by its redzone. `bytes` is the buffer's size,
/// `reserved` what was allocated (bytes, rounding and redzone). Thread-safe.
void note_allocation(const void *begin, std::size_t bytes, std::size_t reserved);
void forget_allocation(const void *begin) noexcept;

/// One parameter's memory in a launch.
struct WriteRange {
  std::uintptr_t begin = 0;       ///< the first byte of the parameter's memory
  std::uintptr_t end = 0;         ///< one past its last byte
  std::uintptr_t redzone_end = 0; ///< end, or the end of the redzone that follows it
  std::uint32_t param = 0;        ///< its index among the kernel's parameters
  char kind = 'x';                ///< the ParamDescription kind
  std::uint64_t element_size = 1;
  std::uint64_t width = 0, height = 0; ///< of a 2-D/3-D DisjointSpan: element [z][y][x]
  unsigned rank = 1;
};

/// The running thread, as a write check sees it.
struct Writer {
  ThreadId id;
  /// The run of elements its last successful claim extended (see SimThread): a write into it is
  /// allowed without looking the claims up.
  const void *claimed_data = nullptr;
  std::size_t claimed_first = 0, claimed_end = 0;
};

class WriteChecks {
public:
  /// The ranges of a launch of the kernel whose host code is at `host_function` and whose
  /// `param_count` parameter values `arguments` point at; nullptr when the compiler recorded no
  /// parameters for it (a kernel not built by oxcc) or a different number of them. Kinds:
  ///   o, 2, 3  DisjointSpan of rank 1, 2, 3: a thread writes only elements it claimed
  ///   i        Span<const T>: never written
  ///   m        Span<T>: written anywhere inside
  ///   a        AtomicSpan<T>: written by atomic operations only
  ///   c        const T*: never written (from the pointer to the end of its buffer)
  ///   p        T*: written anywhere from the pointer to the end of its buffer
  ///   u, x     values: no memory
  /// Ranges of raw pointers exist only for pointers into simulator buffers.
  [[nodiscard]] static std::unique_ptr<WriteChecks>
  for_launch(const void *host_function, std::size_t param_count, void *const *arguments);
  /// The same from descriptions (unit tests).
  [[nodiscard]] static std::unique_ptr<WriteChecks> from(std::vector<ParamDescription> params,
                                                         void *const *arguments);

  /// Why `writer` may not write the `bytes` bytes at `address` (its message, after "kernel 'k'
  /// block (...) thread (...): "), or nullopt when it may. `atomic`: an atomic instruction.
  /// `claims` says who got which DisjointSpan element; `geometry` names the other threads.
  [[nodiscard]] std::optional<std::string> check(const Writer &writer, std::uintptr_t address,
                                                 std::uint64_t bytes, bool atomic,
                                                 const DisjointClaims &claims,
                                                 const LaunchGeometry &geometry) const;

  [[nodiscard]] std::span<const WriteRange> ranges() const noexcept { return ranges_; }
  [[nodiscard]] const std::vector<ParamDescription> &params() const noexcept { return params_; }

private:
  /// Why the piece [from, to) of `range` may not be written, or nullopt.
  [[nodiscard]] std::optional<std::string> piece_violation(const WriteRange &range, std::uintptr_t from,
                                                           std::uintptr_t to, const Writer &writer,
                                                           bool atomic, const DisjointClaims &claims,
                                                           const LaunchGeometry &geometry) const;
  [[nodiscard]] std::string param_label(const WriteRange &range) const;

  std::vector<ParamDescription> params_;
  std::vector<WriteRange> ranges_; ///< sorted by begin
};

/// Counts the checking launches in progress in __oxide_sim_checking for its lifetime.
class CheckingLaunchScope {
public:
  explicit CheckingLaunchScope(bool active) noexcept;
  CheckingLaunchScope(const CheckingLaunchScope &) = delete;
  CheckingLaunchScope &operator=(const CheckingLaunchScope &) = delete;
  ~CheckingLaunchScope();

private:
  bool active_;
};

} // namespace oxide::detail::sim

extern "C" {
/// Non-zero while a launch in the checking mode runs: instrumented code calls the checks only
/// then. Read by compiled code as a 32-bit integer (an atomic load, monotonic).
extern std::uint32_t __oxide_sim_checking;
/// Checks a plain write of `bytes` bytes at `address` by the running simulated thread; `where`
/// ("file:line:col", or null) names it in the report. Does nothing outside a checking launch.
void __oxide_sim_check_write(void *address, std::uint64_t bytes, const char *where) noexcept;
/// The same for an atomic instruction (atomicrmw, cmpxchg, atomic store).
void __oxide_sim_check_atomic_write(void *address, std::uint64_t bytes, const char *where) noexcept;
/// Stops the running simulated thread, whose write at element `index` of one of its own arrays
/// of `count` elements (at `where`, or null) lands outside it. Called in every mode.
[[noreturn]] void __oxide_sim_local_write_outside(std::uint64_t index, std::uint64_t count,
                                                  const char *where) noexcept;
/// Called by a constructor oxcc adds to every host object with kernels: kernel `i`, at host
/// address kernels[i], has the parameters descriptions[i] (see parse_param_descriptions).
void __oxide_sim_register_params(const void *const *kernels, const char *const *descriptions,
                                 std::size_t count) noexcept;
}
