#include "oxide/host/error.hpp"

#include <fmt/format.h>

#include <utility>

namespace oxide {

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
#define OXIDE_ERROR_KIND(name)                                                                               \
  case ErrorKind::name:                                                                                      \
    return #name;
    OXIDE_ERROR_KIND(Other)
    OXIDE_ERROR_KIND(Driver)
    OXIDE_ERROR_KIND(NoDevice)
    OXIDE_ERROR_KIND(InvalidEnvironment)
    OXIDE_ERROR_KIND(OutOfMemory)
    OXIDE_ERROR_KIND(SizeMismatch)
    OXIDE_ERROR_KIND(ViewShapeMismatch)
    OXIDE_ERROR_KIND(NotAKernel)
    OXIDE_ERROR_KIND(LayoutMismatch)
    OXIDE_ERROR_KIND(NoDeviceCode)
    OXIDE_ERROR_KIND(InvalidContract)
    OXIDE_ERROR_KIND(NoContract)
    OXIDE_ERROR_KIND(DomainMismatch)
    OXIDE_ERROR_KIND(GridInvalid)
    OXIDE_ERROR_KIND(BlockInvalid)
    OXIDE_ERROR_KIND(BlockMismatch)
    OXIDE_ERROR_KIND(BlockOverLaunchBounds)
    OXIDE_ERROR_KIND(BlockOverDeviceLimit)
    OXIDE_ERROR_KIND(DynamicSharedOutOfRange)
    OXIDE_ERROR_KIND(DynamicSharedOverDeviceLimit)
    OXIDE_ERROR_KIND(ComputeCapabilityTooLow)
    OXIDE_ERROR_KIND(WrongStreamContext)
    OXIDE_ERROR_KIND(WrongContext)
    OXIDE_ERROR_KIND(RequiresViolated)
    OXIDE_ERROR_KIND(RequiresOverflow)
    OXIDE_ERROR_KIND(OverlappingArguments)
    OXIDE_ERROR_KIND(LaunchFromKernel)
    OXIDE_ERROR_KIND(KernelFault)
    OXIDE_ERROR_KIND(PeerAccessUnavailable)
    OXIDE_ERROR_KIND(ClusterMismatch)
    OXIDE_ERROR_KIND(CooperativeGridTooLarge)
    OXIDE_ERROR_KIND(UnsupportedOnSimulator)
    OXIDE_ERROR_KIND(GraphCapture)
    OXIDE_ERROR_KIND(HostCallbackFailed)
    OXIDE_ERROR_KIND(InvalidEvent)
    OXIDE_ERROR_KIND(SliceOutOfRange)
    OXIDE_ERROR_KIND(NegativeArgument)
    OXIDE_ERROR_KIND(ArgumentOutOfRange)
    OXIDE_ERROR_KIND(NotAPermutation)
    OXIDE_ERROR_KIND(InvalidTensorMap)
    OXIDE_ERROR_KIND(ForgedSpan)
    OXIDE_ERROR_KIND(BufferFreed)
    OXIDE_ERROR_KIND(ArgumentMismatch)
    OXIDE_ERROR_KIND(DtypeMismatch)
    OXIDE_ERROR_KIND(UnsupportedStrides)
    OXIDE_ERROR_KIND(MisalignedArgument)
#undef OXIDE_ERROR_KIND
  }
  return "Unknown";
}

Error::Error(ErrorKind kind, std::string_view message, std::string kernel)
    : std::runtime_error(fmt::format("oxide: {}", message)),
      info_(std::make_shared<const Info>(Info{kind, {}, {}, 0, std::move(kernel)})) {}

Error::Error(const std::string &what, Info info)
    : std::runtime_error(what), info_(std::make_shared<const Info>(std::move(info))) {}

Error Error::driver(std::string api, int code, std::string error_name, std::string_view description,
                    std::string kernel, std::string_view details) {
  std::string what = fmt::format("oxide: {} failed", api);
  if (!kernel.empty())
    what += fmt::format(" for kernel '{}'", kernel);
  what += fmt::format(": {} ({})", error_name, description);
  if (!details.empty())
    what += fmt::format("\n{}", details);
  return Error(what, Info{ErrorKind::Driver, std::move(api), std::move(error_name), code, std::move(kernel)});
}

Error Error::kernel_fault(std::string api, int code, std::string error_name, std::string_view description,
                          std::string kernel, std::string_view reason) {
  const std::string who = kernel.empty() ? std::string("a kernel") : fmt::format("kernel '{}'", kernel);
  std::string what =
      reason.empty()
          ? fmt::format(
                "oxide: {} stopped on the device: {} ({}); the device printed the reason above, if it "
                "was an assert or a trap. Reported by {}; the context cannot be used after this error.",
                who, error_name, description, api)
          : fmt::format("oxide: {} stopped on the device: {}. {} ({}), reported by {}; the context cannot be "
                        "used after this error.",
                        who, reason, error_name, description, api);
  return Error(what,
               Info{ErrorKind::KernelFault, std::move(api), std::move(error_name), code, std::move(kernel)});
}

} // namespace oxide
