// The process-wide kernel registry, filled by the constructors the compiler emits.
#include "oxide/detail/host/registry.hpp"

#include <cxxabi.h>
#include <dlfcn.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "oxide/host/error.hpp"
#include "registry_internal.hpp"

namespace oxide::detail {
namespace {

struct Entry {
  std::size_t image_index;
  const KernelInfo *info;
};

class Registry {
public:
  /// Returns the image's index.
  std::size_t add(DeviceImage image, std::span<const void *const> addresses,
                  std::span<const char *const> names) {
    std::lock_guard lock(mutex_);
    const std::size_t index = images_.size();
    const DeviceImage &stored = *images_.emplace_back(std::make_unique<const DeviceImage>(std::move(image)));
    for (std::size_t i = 0; i < addresses.size(); ++i) {
      const KernelInfo *info = names[i] ? stored.find_kernel(names[i]) : nullptr;
      if (!info)
        fail(fmt::format("kernel '{}' is registered but not described by its device image",
                         names[i] ? names[i] : "(null)"));
      // An inline or template kernel is registered by every object that uses it; all
      // registrations describe the same code, so the first one wins.
      kernels_.try_emplace(addresses[i], Entry{index, info});
    }
    return index;
  }

  void add_constants(std::size_t image_index, std::span<const void *const> addresses,
                     std::span<const char *const> names) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < addresses.size(); ++i)
      constants_[addresses[i]].push_back(
          RegisteredConstant{images_[image_index].get(), image_index, std::string(names[i])});
  }

  std::vector<RegisteredConstant> find_constant(const void *address) const {
    std::lock_guard lock(mutex_);
    auto it = constants_.find(address);
    return it == constants_.end() ? std::vector<RegisteredConstant>{} : it->second;
  }

  std::optional<RegisteredKernel> find(const void *address) const {
    std::lock_guard lock(mutex_);
    auto it = kernels_.find(address);
    if (it == kernels_.end())
      return std::nullopt;
    const Entry &entry = it->second;
    return RegisteredKernel{images_[entry.image_index].get(), entry.image_index, entry.info,
                            kernel_display_name(entry.info->name)};
  }

  [[noreturn]] static void fail(const std::string &message) noexcept {
    // Images come from our own compiler: a bad one is a toolchain bug, not a user error, and it
    // surfaces before main, where an exception could not be caught anyway.
    std::fprintf(stderr, "oxide: internal error: %s; rebuild the program with a matching oxcc and runtime\n",
                 message.c_str());
    std::abort();
  }

private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<const DeviceImage>> images_; // stable addresses, never removed
  std::unordered_map<const void *, Entry> kernels_;
  // An inline constant used by several objects has one copy in each of their images.
  std::unordered_map<const void *, std::vector<RegisteredConstant>> constants_;
};

Registry &registry() {
  // Never destroyed: registration runs in static constructors and lookups may run in static
  // destructors, in any order relative to this object.
  static Registry *instance = new Registry;
  return *instance;
}

std::string demangle(const char *symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> result(abi::__cxa_demangle(symbol, nullptr, nullptr, &status),
                                                     &std::free);
  return status == 0 && result ? std::string(result.get()) : std::string(symbol);
}

} // namespace

std::string kernel_display_name(std::string_view entry_name) {
  std::string name = demangle(std::string(entry_name).c_str());
  // Drop the parameter list: from the '(' that matches the final ')'.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')')
        ++depth;
      else if (name[i] == '(' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  // Template kernels demangle with their return type first.
  if (name.starts_with("void "))
    name.erase(0, 5);
  return name;
}

std::optional<RegisteredKernel> find_kernel(const void *host_address) {
  return registry().find(host_address);
}

std::vector<RegisteredConstant> find_constant(const void *host_address) {
  return registry().find_constant(host_address);
}

RegisteredKernel require_kernel(const void *host_address) {
  if (auto kernel = find_kernel(host_address))
    return *std::move(kernel);
  std::string function = fmt::format("function at {}", host_address);
  Dl_info info{};
  if (dladdr(host_address, &info) && info.dli_sname && info.dli_saddr == host_address)
    function = fmt::format("function '{}' at {}", demangle(info.dli_sname), host_address);
  throw Error(ErrorKind::NotAKernel,
              fmt::format("{} is not a registered kernel; mark it [[kernel]] and build with oxcc", function));
}

const CodeObject *select_code(const DeviceImage &image, int arch) noexcept {
  // Of the code objects that run on the device (code_runs_on: a cubin of its major version not
  // newer than it, PTX not newer than it, architecture-specific code of its very architecture),
  // the newest cubin loads without a JIT, an exact one first; otherwise the driver JITs the
  // newest PTX. Architecture-specific code outranks portable code of the same architecture.
  const CodeObject *cubin = nullptr, *ptx = nullptr;
  auto newer = [](const CodeObject &code, const CodeObject *than) {
    return !than || code.arch > than->arch ||
           (code.arch == than->arch && code.features == CodeFeatures::ArchSpecific &&
            than->features != CodeFeatures::ArchSpecific);
  };
  for (const CodeObject &code : image.code) {
    if (!code_runs_on(code, arch))
      continue;
    if (code.kind == CodeKind::Cubin && newer(code, cubin))
      cubin = &code;
    if (code.kind == CodeKind::Ptx && newer(code, ptx))
      ptx = &code;
  }
  return cubin ? cubin : ptx;
}

namespace {

/// What a parameter of `kind` is, for messages: "an input (Span<const T>)".
std::string_view kind_description(ParamKind kind) noexcept {
  switch (kind) {
  case ParamKind::input:
    return "an input (Span<const T>)";
  case ParamKind::mutable_span:
    return "a mutable Span<T>";
  case ParamKind::output:
    return "an output (DisjointSpan<T>)";
  case ParamKind::output_2d:
    return "an output (DisjointSpan2D<T>)";
  case ParamKind::output_3d:
    return "an output (DisjointSpan3D<T>)";
  case ParamKind::atomic:
    return "an AtomicSpan<T>";
  case ParamKind::append:
    return "an AppendSpan<T>";
  case ParamKind::permutation:
    return "a PermutationSpan";
  case ParamKind::claims:
    return "a ClaimSet";
  case ParamKind::tensor_map:
    return "a read-only TensorMap<const T, ...>";
  case ParamKind::writable_tensor_map:
    return "a writable TensorMap<T, ...>";
  case ParamKind::unsigned_integer:
    return "an unsigned integer";
  case ParamKind::signed_integer:
    return "a signed integer";
  case ParamKind::other:
  case ParamKind::const_pointer:
  case ParamKind::pointer:
    break;
  }
  return "a by-value parameter of another type";
}

/// Throws oxide::Error (LayoutMismatch) when a parameter's kind on the host is not the one the
/// device image records (KernelInfo::param_kinds, "a=i,c=o"; empty for a kernel without a
/// contract, whose launches check no kinds). The launch checks (overlaps, what is written) follow
/// the host's types, the verifier's proof the device code's: they must agree.
void check_param_kinds(const RegisteredKernel &kernel, std::span<const HostParam> host_params) {
  const std::string &text = kernel.info->param_kinds;
  if (text.empty())
    return;
  std::size_t index = 0;
  std::string_view rest = text;
  while (!rest.empty() && index < host_params.size()) {
    const std::size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    const std::size_t equals = entry.rfind('=');
    if (equals == std::string_view::npos || equals + 2 != entry.size())
      break; // malformed: launch_contract reports it (InvalidContract)
    const std::optional<ParamKind> device = param_kind(entry[equals + 1]);
    // The frontend writes `x` for a raw pointer (const_pointer and pointer are the simulator's).
    const ParamKind host = is_pointer(host_params[index].kind) ? ParamKind::other : host_params[index].kind;
    // `x` is any other by-value parameter (the frontend writes it for each element of a
    // parameter pack, too): it binds no memory and `requires` cannot name it, so any host
    // by-value kind may stand for it.
    const bool by_value = device == ParamKind::other && span_extents(host) == 0 &&
                          host != ParamKind::tensor_map && host != ParamKind::writable_tensor_map;
    if (device && *device != host && !by_value)
      throw Error(
          ErrorKind::LayoutMismatch,
          fmt::format("kernel '{}' parameter {} '{}' is {} on the host ({}) but {} in its device code: the "
                      "host and device compiles see different kernel signatures (#ifdef __CUDA_ARCH__, "
                      "a macro or a header that differs between them), so the launch checks would not be "
                      "those of the code that runs; declare the kernel alike in both compiles",
                      kernel.display_name, index + 1, entry.substr(0, equals), kind_description(host),
                      host_params[index].type_name, kind_description(*device)),
          kernel.display_name);
    ++index;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
}

} // namespace

void check_param_layout(const RegisteredKernel &kernel, std::span<const HostParam> host_params) {
  const auto &device_params = kernel.info->params;
  if (device_params.size() != host_params.size())
    throw Error(
        ErrorKind::LayoutMismatch,
        fmt::format("kernel '{}' takes {} parameters in its device image but {} on the host; rebuild the "
                    "program with oxcc",
                    kernel.display_name, device_params.size(), host_params.size()),
        kernel.display_name);
  for (std::size_t i = 0; i < host_params.size(); ++i) {
    const HostParam &host = host_params[i];
    const ParamLayout &device = device_params[i];
    if (host.size != device.size || host.align != device.align)
      throw Error(
          ErrorKind::LayoutMismatch,
          fmt::format("kernel '{}' parameter {} ({}) is {} bytes aligned to {} on the host but {} bytes "
                      "aligned to {} in the device image; rebuild the program with oxcc",
                      kernel.display_name, i + 1, host.type_name, host.size, host.align, device.size,
                      device.align),
          kernel.display_name);
    // The safety verifier proved the kernel's writes for the element size it names; a span read
    // as another type (std::bit_cast to a DisjointSpan<double>) would index past its end.
    if (device.elem_size != 0 && host.elem_size != device.elem_size)
      throw Error(
          ErrorKind::LayoutMismatch,
          fmt::format("kernel '{}' names the elements of parameter {} ({}) as {}-byte elements in its "
                      "device code, but they are {} bytes: the kernel reinterprets the span as "
                      "another element type; use the span's own type (or launch with "
                      "oxide::unsafe_launch)",
                      kernel.display_name, i + 1, host.type_name, device.elem_size, host.elem_size),
          kernel.display_name);
  }
  check_param_kinds(kernel, host_params);
}

} // namespace oxide::detail

void oxide::detail::add_to_registry(DeviceImage image, std::span<const void *const> addresses,
                                    std::span<const char *const> names) {
  (void)registry().add(std::move(image), addresses, names);
}

extern "C" void __oxide_register_image(const unsigned char *image, std::size_t image_size,
                                       const void *const *kernel_addresses, const char *const *kernel_names,
                                       std::size_t kernel_count) {
  using oxide::detail::Registry;
  if (!image || (kernel_count != 0 && (!kernel_addresses || !kernel_names)))
    Registry::fail("__oxide_register_image called with null arguments");
  auto decoded = oxide::detail::decode_image({image, image_size});
  if (!decoded)
    Registry::fail(fmt::format("malformed device image ({} bytes)", image_size));
  (void)oxide::detail::registry().add(std::move(*decoded), {kernel_addresses, kernel_count},
                                      {kernel_names, kernel_count});
}

extern "C" void
__oxide_register_image_with_constants(const unsigned char *image, std::size_t image_size,
                                      const void *const *kernel_addresses, const char *const *kernel_names,
                                      std::size_t kernel_count, const void *const *constant_addresses,
                                      const char *const *constant_names, std::size_t constant_count) {
  using oxide::detail::Registry;
  if (!image || (kernel_count != 0 && (!kernel_addresses || !kernel_names)) ||
      (constant_count != 0 && (!constant_addresses || !constant_names)))
    Registry::fail("__oxide_register_image_with_constants called with null arguments");
  auto decoded = oxide::detail::decode_image({image, image_size});
  if (!decoded)
    Registry::fail(fmt::format("malformed device image ({} bytes)", image_size));
  auto &registry = oxide::detail::registry();
  const std::size_t index =
      registry.add(std::move(*decoded), {kernel_addresses, kernel_count}, {kernel_names, kernel_count});
  registry.add_constants(index, {constant_addresses, constant_count}, {constant_names, constant_count});
}

extern "C" void __oxide_register_fat_image(const unsigned char *image, std::size_t image_size,
                                           const unsigned char *fatbin, const void *const *kernel_addresses,
                                           const char *const *kernel_names, std::size_t kernel_count,
                                           const void *const *constant_addresses,
                                           const char *const *constant_names, std::size_t constant_count) {
  using oxide::detail::Registry;
  if (!image || (kernel_count != 0 && (!kernel_addresses || !kernel_names)) ||
      (constant_count != 0 && (!constant_addresses || !constant_names)))
    Registry::fail("__oxide_register_fat_image called with null arguments");
  const std::size_t fatbin_size = oxide::detail::fatbin_size(fatbin);
  if (fatbin_size == 0)
    Registry::fail("__oxide_register_fat_image: the device code is not a CUDA fatbinary");
  auto decoded = oxide::detail::decode_image({image, image_size}, {fatbin, fatbin_size});
  if (!decoded)
    Registry::fail(
        fmt::format("malformed device image ({} bytes, fatbinary of {} bytes)", image_size, fatbin_size));
  auto &registry = oxide::detail::registry();
  const std::size_t index =
      registry.add(std::move(*decoded), {kernel_addresses, kernel_count}, {kernel_names, kernel_count});
  if (constant_count != 0)
    registry.add_constants(index, {constant_addresses, constant_count}, {constant_names, constant_count});
}
