// The launch checks a contract implies: once at oxide::prepare (the configuration against the
// contract and the device), and at every launch (the `requires` relations on the arguments).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "launch_contract.hpp"
#include "oxide/host/device.hpp"
#include "oxide/host/launch_config.hpp"

namespace oxide::detail {

/// Throws oxide::Error (DomainMismatch) unless a configuration of `rank` suits the contract.
void check_domain(const KernelContract &contract, const std::string &kernel, unsigned rank);

/// Throws oxide::Error (BlockMismatch, DynamicSharedOutOfRange, ComputeCapabilityTooLow) when the
/// configuration (of the contract's rank) or the device breaks the contract. The simulator
/// satisfies every min_compute_capability.
void check_configuration(const KernelContract &contract, const std::string &kernel,
                         const LaunchGeometry &geometry, const Device &device);

/// Throws oxide::Error (ComputeCapabilityTooLow) when a GPU of capability `cc`, described as
/// `device` ("device 0 (NVIDIA H200)"), is older than the contract allows.
void check_compute_capability(const Contract &contract, const std::string &kernel, ComputeCapability cc,
                              std::string_view device);

/// Throws oxide::Error (BlockOverLaunchBounds) when the block has more threads than the kernel's
/// launch_bounds (checked for unsafe launches too: the GPU refuses such a launch).
void check_launch_bounds(const RegisteredKernel &kernel, const LaunchGeometry &geometry);

/// Throws oxide::Error (RequiresViolated, RequiresOverflow) unless every `requires` relation
/// holds for `operands` (per parameter: a span's element count and extents, an integer scalar's
/// value, a signed one as its two's complement), and NegativeArgument when a signed scalar that
/// `requires` reads is negative.
void check_requires(const KernelContract &contract, const std::string &kernel,
                    std::span<const ContractOperand> operands);

/// Throws oxide::Error (DynamicSharedOutOfRange) when the contract ties dynamic shared memory to
/// the arguments (`dynamic_shared = 4 * tile`) and the launch's `bytes` are not that many (or, for
/// `expression..max`, fewer); RequiresOverflow when the expression cannot be evaluated.
void check_dynamic_shared(const KernelContract &contract, const std::string &kernel,
                          std::span<const ContractOperand> operands, std::uint32_t bytes);

/// `dynamic_shared = ...` of a contract with an expression, with the parameters' names.
[[nodiscard]] std::string dynamic_shared_text(const KernelContract &contract);

/// "256", "(32, 8)" or "(8, 8, 4)": a block written as a contract of that rank would.
[[nodiscard]] std::string format_extents(const Dim3 &extents, unsigned rank);

} // namespace oxide::detail
