// oxide::Device: a CUDA device, or the CPU simulator, and a snapshot of its properties.
#pragma once

#include <cstddef>
#include <string>

namespace oxide {

class Device;
namespace detail {
/// The simulator's Device: it runs blocks on `workers` host threads.
[[nodiscard]] Device simulator_device(unsigned workers);
} // namespace detail

/// Compute capability, e.g. {9, 0} for an H100/H200.
struct ComputeCapability {
  int major = 0;
  int minor = 0;
  /// major * 10 + minor: the number in "sm_90".
  [[nodiscard]] constexpr int as_int() const noexcept { return major * 10 + minor; }
  friend constexpr bool operator==(const ComputeCapability &, const ComputeCapability &) = default;
};

/// A CUDA device, or the CPU simulator ("Oxide CPU simulator", ordinal -1, compute capability
/// 0.0, sm_count = its worker threads). A value type: properties are read once, when the Device
/// is obtained.
class Device {
public:
  /// Number of CUDA devices; 0 when there is no driver or no GPU (never throws). The simulator
  /// is not counted.
  [[nodiscard]] static int count() noexcept;
  /// The device with this ordinal; throws oxide::Error when it does not exist.
  [[nodiscard]] static Device get(int ordinal);

  /// The CUDA ordinal; -1 for the simulator.
  [[nodiscard]] int ordinal() const noexcept { return ordinal_; }
  [[nodiscard]] bool is_simulator() const noexcept { return simulator_; }
  [[nodiscard]] const std::string &name() const noexcept { return name_; }
  [[nodiscard]] ComputeCapability compute_capability() const noexcept { return cc_; }
  /// Number of streaming multiprocessors.
  [[nodiscard]] int sm_count() const noexcept { return sm_count_; }
  /// Global memory in bytes.
  [[nodiscard]] std::size_t total_memory() const noexcept { return total_memory_; }
  [[nodiscard]] int max_threads_per_block() const noexcept { return max_threads_per_block_; }
  [[nodiscard]] int max_grid_dim_x() const noexcept { return max_grid_dim_x_; }
  /// Shared memory a block may use with the opt-in attribute set (static + dynamic).
  [[nodiscard]] int max_shared_memory_per_block_optin() const noexcept { return max_shared_optin_; }

private:
  friend Device detail::simulator_device(unsigned workers);
  Device() = default;

  int ordinal_ = 0;
  std::string name_;
  ComputeCapability cc_;
  int sm_count_ = 0;
  std::size_t total_memory_ = 0;
  int max_threads_per_block_ = 0;
  int max_grid_dim_x_ = 0;
  int max_shared_optin_ = 0;
  bool simulator_ = false;
};

} // namespace oxide
