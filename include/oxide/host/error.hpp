// oxide::Error: the one exception type of the host runtime.
//
// Every error carries a kind, so callers can react to a specific failure (a violated launch
// contract, a kernel that trapped) without parsing what(). A failed CUDA driver call also keeps
// the call's name and the driver's error name; kernel() names the kernel involved, if any.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace oxide {

/// What went wrong. Launch checks (docs/safety.md) each have their own kind.
enum class ErrorKind : std::uint8_t {
  Other,              ///< misuse without a more specific kind (e.g. a moved-from object)
  Driver,             ///< a CUDA driver call failed: see Error::api() and driver_error_name()
  NoDevice,           ///< no driver, no GPU, or no GPU with that ordinal
  InvalidEnvironment, ///< a malformed OXIDE_DEVICE or OXIDE_SIM_* value
  OutOfMemory,        ///< the simulator or the address space cannot hold a buffer
  SizeMismatch,       ///< a host range and a device buffer of different sizes in a copy
  ViewShapeMismatch,  ///< buffer.view_2d/view_3d extents that do not cover the buffer exactly
  // --- oxide::prepare and oxide::unsafe_launch: the kernel ---
  NotAKernel,      ///< the function is not a registered kernel
  LayoutMismatch,  ///< host and device disagree on the parameter layout (a stale build)
  NoDeviceCode,    ///< the image has no code this device can run
  InvalidContract, ///< the contract stored for the kernel cannot be parsed (a toolchain mismatch)
  NoContract,      ///< oxide::prepare of a kernel without a launch contract
  // --- oxide::prepare and oxide::unsafe_launch: the launch configuration ---
  DomainMismatch,               ///< the configuration's rank is not the contract's domain
  GridInvalid,                  ///< a grid extent beyond CUDA's limits
  BlockInvalid,                 ///< a block extent of 0 or beyond CUDA's limits
  BlockMismatch,                ///< the block is not the contract's exact block
  BlockOverLaunchBounds,        ///< more threads per block than the kernel's launch_bounds
  BlockOverDeviceLimit,         ///< more threads per block than the device or compiled kernel allow
  DynamicSharedOutOfRange,      ///< dynamic shared memory outside the contract's range
  DynamicSharedOverDeviceLimit, ///< more shared memory than the device gives a block
  ComputeCapabilityTooLow,      ///< the device is older than the contract's min_compute_capability
  // --- each launch ---
  WrongStreamContext,   ///< the stream belongs to another context than the prepared launch
  WrongContext,         ///< a buffer belongs to another context than the stream or launch
  RequiresViolated,     ///< a `requires` relation of the contract is false for the arguments
  RequiresOverflow,     ///< a `requires` relation overflows (or goes below zero) in 64 bits
  OverlappingArguments, ///< memory a kernel writes is also passed through another argument
  LaunchFromKernel,     ///< a launch from kernel code (simulator)
  KernelFault,          ///< the kernel trapped, failed an assert, indexed out of bounds, deadlocked...
  // --- several devices (added last, so the values above keep their numbers) ---
  PeerAccessUnavailable, ///< Context::enable_peer_access between contexts that cannot share memory
  // --- clusters and cooperative launches ---
  ClusterMismatch,         ///< a grid that is not a whole number of the contract's clusters
  CooperativeGridTooLarge, ///< a cooperative grid with more blocks than the device holds at once
  UnsupportedOnSimulator,  ///< a launch the CPU simulator cannot run (see docs/simulator.md)
  // --- streams, events and graphs (docs/runtime.md) ---
  GraphCapture,       ///< an operation not allowed while a stream is captured, or a failed capture
  HostCallbackFailed, ///< a Stream::then callback threw; reported by the stream's next synchronize/query
  InvalidEvent,       ///< elapsed_ms of an event never recorded, or created without timing
  // --- buffers ---
  SliceOutOfRange, ///< buffer.slice(offset, count) past the end of the buffer
  // --- scalar arguments ---
  NegativeArgument,   ///< a signed integer that the contract's `requires` uses is negative
  ArgumentOutOfRange, ///< a scalar argument whose value its parameter type cannot hold (-1 for unsigned)
  // --- index maps ---
  NotAPermutation, ///< Permutation::from_host of a map with a repeated or out-of-range index
  // --- TMA ---
  InvalidTensorMap, ///< DeviceTensorMap::create with extents or strides that TMA cannot describe
  // --- host-side misuse of launch arguments ---
  ForgedSpan,  ///< a non-empty span passed directly as an argument (made with std::bit_cast or memcpy)
  BufferFreed, ///< Graph::launch after a buffer that its launches use was freed or given other memory
  // --- borrowed memory through the C ABI (oxide/c_api.h, docs/interop.md) ---
  ArgumentMismatch,   ///< a C ABI argument of the wrong sort (a scalar for a span, a tensor of another rank)
  DtypeMismatch,      ///< a borrowed tensor whose element type is not the parameter's
  UnsupportedStrides, ///< a borrowed tensor a span cannot describe (not contiguous)
  MisalignedArgument, ///< a borrowed pointer not aligned for its element type, or null
};

/// The enumerator's name, e.g. "RequiresViolated".
[[nodiscard]] std::string_view to_string(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
public:
  /// A failure found by Oxide itself. what() is "oxide: " + message.
  Error(ErrorKind kind, std::string_view message, std::string kernel = {});
  /// The same with kind() == ErrorKind::Other.
  explicit Error(std::string_view message, std::string kernel = {})
      : Error(ErrorKind::Other, message, std::move(kernel)) {}

  /// A failed driver call (kind() == ErrorKind::Driver). what() reads
  /// "oxide: <api> failed[ for kernel '<kernel>']: <error_name> (<description>)[\n<details>]".
  static Error driver(std::string api, int code, std::string error_name, std::string_view description,
                      std::string kernel = {}, std::string_view details = {});

  /// A kernel that stopped on the GPU (kind() == ErrorKind::KernelFault): a trap, a failed
  /// assert or bounds check, an illegal address. The driver reports it at the next call that
  /// waits for the kernel (`api`); what() names the kernel, says why it stopped when the kernel
  /// reported it (`reason`: a failed bounds check's place, thread, index and size) and that the
  /// context is lost.
  static Error kernel_fault(std::string api, int code, std::string error_name, std::string_view description,
                            std::string kernel, std::string_view reason = {});

  [[nodiscard]] ErrorKind kind() const noexcept { return info_->kind; }
  /// to_string(kind()): "RequiresViolated".
  [[nodiscard]] std::string_view kind_name() const noexcept { return to_string(info_->kind); }
  /// The driver API call that failed ("cuLaunchKernel"); empty when Oxide itself found the error.
  [[nodiscard]] const std::string &api() const noexcept { return info_->api; }
  /// The driver's name for the error ("CUDA_ERROR_INVALID_VALUE"); empty unless api() is set.
  [[nodiscard]] const std::string &driver_error_name() const noexcept { return info_->driver_error_name; }
  /// The driver's CUresult value; 0 unless api() is set.
  [[nodiscard]] int driver_error_code() const noexcept { return info_->driver_error_code; }
  /// The kernel involved, when the failure concerns one; empty otherwise.
  [[nodiscard]] const std::string &kernel() const noexcept { return info_->kernel; }

private:
  struct Info {
    ErrorKind kind = ErrorKind::Other;
    std::string api;
    std::string driver_error_name;
    int driver_error_code = 0;
    std::string kernel;
  };
  Error(const std::string &what, Info info);

  // Shared so that copying an exception never allocates (and so never throws).
  std::shared_ptr<const Info> info_;
};

} // namespace oxide
