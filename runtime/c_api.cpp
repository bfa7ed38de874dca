// The C ABI of oxide/c_api.h: the kernels a library exports with OXIDE_EXPORT
// (oxide/host/export.hpp), described and launched with borrowed memory on the caller's stream.
//
// A launch binds each argument descriptor to its parameter by the parameter's layout (a span is
// its data pointer and extents at the offsets of oxide/detail/intrinsic_abi.hpp, a scalar its
// value converted with oxide::prepare's range check), then makes the checks and the launch of a
// prepared launch: check_launch (contract, `requires`, overlapping outputs) and launch_kernel.
// After a launch of the same kernel with the same block in the same context, the path takes a
// lock, copies a PreparedKernel and enqueues: no allocation, no synchronisation, no read of
// device memory, so stream capture records it.
#include "oxide/c_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "context_state.hpp"
#include "launch_contract.hpp"
#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/export.hpp"

// The ABI's parameter kinds are oxide/detail/param_kind.hpp's letters.
static_assert(OXIDE_PARAM_INPUT == oxide::detail::param_kind_letter(oxide::detail::ParamKind::input));
static_assert(OXIDE_PARAM_MUTABLE_SPAN ==
              oxide::detail::param_kind_letter(oxide::detail::ParamKind::mutable_span));
static_assert(OXIDE_PARAM_OUTPUT == oxide::detail::param_kind_letter(oxide::detail::ParamKind::output));
static_assert(OXIDE_PARAM_OUTPUT_2D == oxide::detail::param_kind_letter(oxide::detail::ParamKind::output_2d));
static_assert(OXIDE_PARAM_OUTPUT_3D == oxide::detail::param_kind_letter(oxide::detail::ParamKind::output_3d));
static_assert(OXIDE_PARAM_ATOMIC == oxide::detail::param_kind_letter(oxide::detail::ParamKind::atomic));
static_assert(OXIDE_PARAM_UNSIGNED_INTEGER ==
              oxide::detail::param_kind_letter(oxide::detail::ParamKind::unsigned_integer));
static_assert(OXIDE_PARAM_SIGNED_INTEGER ==
              oxide::detail::param_kind_letter(oxide::detail::ParamKind::signed_integer));
static_assert(OXIDE_PARAM_OTHER == oxide::detail::param_kind_letter(oxide::detail::ParamKind::other));
static_assert(OXIDE_STATUS_NOT_A_KERNEL == 1 + static_cast<int>(oxide::ErrorKind::NotAKernel));
static_assert(sizeof(oxide_arg) == 88 && sizeof(oxide_launch_config) == 64,
              "the C ABI's struct layouts are fixed");

namespace oxide::detail {
namespace {
struct Exported;
}
} // namespace oxide::detail

struct oxide_kernel {
  oxide::detail::KernelExport entry;
  oxide::detail::Exported *owner = nullptr;
};

namespace oxide::detail {
namespace {

constexpr std::size_t kMaxParams = 64;
constexpr std::size_t kMaxParamBytes = 4096;

/// What an exported kernel's device image says, resolved at its first use (the image registers
/// in a constructor that may run after the export's).
struct Resolved {
  RegisteredKernel kernel;
  const KernelContract *contract = nullptr;
  std::vector<std::string> names;
  std::vector<oxide_param_info> params;
};

/// A prepared launch for one context, block and dynamic shared memory size; the grid is set per
/// launch (validated against CUDA's limits) unless the kernel is cooperative or clustered, whose
/// grid prepare_kernel checks against the device.
struct CachedPrepare {
  const ContextState *context = nullptr;
  Dim3 block;
  std::uint32_t dynamic_shared_bytes = 0;
  PreparedKernel prepared;
};

struct Exported {
  oxide_kernel handle;
  std::once_flag once;
  std::optional<Resolved> resolved;
  std::string resolve_error;
  ErrorKind resolve_kind = ErrorKind::Other;
  std::mutex mutex;
  std::vector<CachedPrepare> prepared; // a handful per kernel: the contexts and blocks it ran with
};

struct Exports {
  std::mutex mutex;
  std::deque<Exported> kernels; // stable addresses
};

Exports &exports() {
  static Exports *instance = new Exports; // never destroyed: used from constructors and destructors
  return *instance;
}

Exported &exported(const oxide_kernel *kernel) {
  if (!kernel)
    throw Error(ErrorKind::NotAKernel, "a null oxide_kernel; find kernels with oxide_find_kernel");
  return *kernel->owner;
}

const Resolved &resolve(Exported &e) {
  std::call_once(e.once, [&] {
    try {
      const KernelExport &entry = e.handle.entry;
      auto kernel = find_kernel(reinterpret_cast<const void *>(entry.host.function));
      if (!kernel)
        throw Error(
            ErrorKind::NotAKernel,
            fmt::format("'{}' is exported but is not a registered kernel; mark it [[kernel]] and build "
                        "it with oxcc",
                        entry.name));
      check_param_layout(*kernel, {entry.params, entry.param_count});
      Resolved r{*kernel, launch_contract(*kernel), {}, {}};
      if (r.contract && r.contract->names().size() == entry.param_count)
        r.names = r.contract->names();
      else
        for (std::size_t i = 0; i < entry.param_count; ++i)
          r.names.push_back(fmt::format("arg{}", i + 1));
      for (std::size_t i = 0; i < entry.param_count; ++i) {
        const HostParam &p = entry.params[i];
        const ExportParam &x = entry.exports[i];
        r.params.push_back({nullptr, param_kind_letter(p.kind), x.dtype, x.rank,
                            static_cast<std::uint32_t>(x.rank ? p.elem_size : p.size), x.writable ? 1 : 0});
      }
      Resolved &stored = e.resolved.emplace(std::move(r));
      for (std::size_t i = 0; i < stored.params.size(); ++i) // pointers into the stored names
        stored.params[i].name = stored.names[i].c_str();
    } catch (const Error &error) {
      e.resolve_error = error.what();
      e.resolve_kind = error.kind();
    } catch (const std::exception &error) {
      e.resolve_error = fmt::format("oxide: {}", error.what());
    }
  });
  if (!e.resolved)
    throw Error(e.resolve_kind, std::string_view(e.resolve_error).substr(std::strlen("oxide: ")));
  return *e.resolved;
}

thread_local std::string last_error;

/// Runs `body`, turning every exception into a status and this thread's message.
template <class F> int guarded(F &&body) noexcept {
  try {
    body();
    last_error.clear();
    return OXIDE_OK;
  } catch (const Error &error) {
    last_error = error.what();
    return 1 + static_cast<int>(error.kind());
  } catch (const std::bad_alloc &) {
    last_error = "oxide: out of host memory";
    return 1 + static_cast<int>(ErrorKind::OutOfMemory);
  } catch (const std::exception &error) {
    last_error = fmt::format("oxide: {}", error.what());
    return 1 + static_cast<int>(ErrorKind::Other);
  } catch (...) {
    last_error = "oxide: unknown exception";
    return 1 + static_cast<int>(ErrorKind::Other);
  }
}

/// The contexts and adopted streams of launches, made on first use and kept for the process: the
/// primary context of each device (the one PyTorch, JAX and CuPy use) and the simulator's.
class Contexts {
public:
  struct Entry {
    Context context;
    Stream default_stream;
    std::unordered_map<void *, Stream> adopted;
  };

  /// The context and the stream to launch on. The references stay valid (entries are never removed).
  std::pair<Entry *, Stream *> get(int device, void *cu_stream) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(device);
    if (it == entries_.end()) {
      if (device < OXIDE_DEVICE_SIMULATOR)
        throw Error(
            ErrorKind::NoDevice,
            fmt::format("device {} is neither a CUDA ordinal nor OXIDE_DEVICE_SIMULATOR (-1)", device));
      Context context = device == OXIDE_DEVICE_SIMULATOR ? Context::cpu() : Context::create(device);
      Stream standard = context.default_stream();
      it = entries_
               .emplace(device, std::make_unique<Entry>(Entry{std::move(context), std::move(standard), {}}))
               .first;
    }
    Entry &entry = *it->second;
    if (!cu_stream)
      return {&entry, &entry.default_stream};
    auto stream = entry.adopted.find(cu_stream);
    if (stream == entry.adopted.end())
      stream = entry.adopted.emplace(cu_stream, Stream::adopt(entry.context, cu_stream)).first;
    return {&entry, &stream->second};
  }

private:
  std::mutex mutex_;
  std::unordered_map<int, std::unique_ptr<Entry>> entries_;
};

Contexts &contexts() {
  static Contexts *instance = new Contexts; // never destroyed: launches may run in static destructors
  return *instance;
}

std::string shape_text(const oxide_arg &arg) {
  std::string text = "(";
  for (int d = 0; d < arg.ndim; ++d)
    text += fmt::format("{}{}", d ? ", " : "", arg.shape[d]);
  return text + (arg.ndim == 1 ? ",)" : ")");
}

/// Argument `index` for messages: "parameter 2 (weight)".
struct Label {
  const Resolved &r;
  std::size_t index;
};
std::string label(const Label &l) {
  return fmt::format("parameter {} ({})", l.index + 1, l.r.names[l.index]);
}

[[noreturn]] void fail(ErrorKind kind, const Resolved &r, std::size_t index, std::string_view what) {
  throw Error(kind, fmt::format("kernel '{}': {} {}", r.kernel.display_name, label({r, index}), what),
              r.kernel.display_name);
}

/// A tensor's element count, after checking its shape; the extents a span of `rank` gets
/// (innermost first: size, or width, height[, depth]).
std::uint64_t tensor_extents(const Resolved &r, std::size_t index, const oxide_arg &arg, unsigned rank,
                             std::array<std::uint64_t, 3> &extents) {
  if (arg.ndim < 0 || arg.ndim > OXIDE_MAX_DIMS)
    fail(ErrorKind::ArgumentMismatch, r, index,
         fmt::format("gets a tensor of {} dimensions; the ABI takes 0 to {}", arg.ndim, OXIDE_MAX_DIMS));
  std::uint64_t elements = 1;
  for (int d = 0; d < arg.ndim; ++d) {
    if (arg.shape[d] < 0)
      fail(ErrorKind::ArgumentMismatch, r, index, fmt::format("gets a tensor of shape {}", shape_text(arg)));
    if (__builtin_mul_overflow(elements, static_cast<std::uint64_t>(arg.shape[d]), &elements))
      fail(ErrorKind::ArgumentMismatch, r, index, fmt::format("gets a tensor of shape {}", shape_text(arg)));
  }
  // Contiguous (C order): each stride of an extent above 1 is the product of the inner extents.
  std::int64_t expected = 1;
  for (int d = arg.ndim - 1; d >= 0; --d) {
    if (arg.shape[d] > 1 && arg.strides[d] != expected)
      fail(ErrorKind::UnsupportedStrides, r, index,
           fmt::format("is a span, which needs a contiguous tensor, but gets shape {} with strides ({}); "
                       "pass a contiguous copy (.contiguous(), numpy.ascontiguousarray)",
                       shape_text(arg), [&] {
                         std::string s;
                         for (int k = 0; k < arg.ndim; ++k)
                           s += fmt::format("{}{}", k ? ", " : "", arg.strides[k]);
                         return s;
                       }()));
    expected *= std::max<std::int64_t>(arg.shape[d], 1);
  }
  if (rank == 1) {
    extents = {elements, 0, 0};
    return elements;
  }
  if (arg.ndim != static_cast<int>(rank))
    fail(ErrorKind::ArgumentMismatch, r, index,
         fmt::format("is a DisjointSpan{}D, which needs a tensor of {} dimensions ({}), but gets shape {}",
                     rank, rank, rank == 2 ? "height, width" : "depth, height, width", shape_text(arg)));
  for (unsigned k = 0; k < rank; ++k)
    extents[k] = static_cast<std::uint64_t>(arg.shape[rank - 1 - k]);
  return elements;
}

/// The scalar `arg` as parameter `index` of `dtype` (`size` bytes) into `out`; its value for
/// `requires` (an integer's, sign-extended) in `contract_value`.
template <class T> void store(void *out, T value) { std::memcpy(out, &value, sizeof value); }

template <class Param>
void convert_scalar(const PreparedKernel &kernel, std::size_t index, const oxide_arg &arg, void *out,
                    std::uint64_t &contract_value) {
  auto put = [&](auto value) {
    using A = decltype(value);
    if (!scalar_fits<Param>(value))
      throw_argument_out_of_range(kernel, index, type_name<Param>(), number_text(value),
                                  number_text(std::numeric_limits<Param>::lowest()),
                                  number_text(std::numeric_limits<Param>::max()));
    const Param converted = static_cast<Param>(value);
    store(out, converted);
    if constexpr (std::is_integral_v<Param> && !std::is_same_v<Param, bool>)
      contract_value = static_cast<std::uint64_t>(
          static_cast<std::conditional_t<std::is_signed_v<Param>, std::int64_t, std::uint64_t>>(converted));
    (void)sizeof(A);
  };
  switch (arg.dtype) {
  case OXIDE_DTYPE_I64: {
    std::int64_t v;
    std::memcpy(&v, &arg.data, sizeof v);
    put(v);
    return;
  }
  case OXIDE_DTYPE_U64:
    put(static_cast<std::uint64_t>(arg.data));
    return;
  case OXIDE_DTYPE_F64: {
    double v;
    std::memcpy(&v, &arg.data, sizeof v);
    put(v);
    return;
  }
  case OXIDE_DTYPE_BOOL:
    put(arg.data != 0);
    return;
  default:
    throw Error(
        ErrorKind::ArgumentMismatch,
        fmt::format("kernel '{}': argument {} is a scalar of {}; scalars are passed as int64, uint64, "
                    "float64 or bool",
                    kernel.display_name(), index + 1, dtype_name(arg.dtype)),
        kernel.display_name());
  }
}

/// A scalar for a half or bfloat16 parameter: through float, within the type's finite range.
template <class Param>
void convert_narrow_float(const PreparedKernel &kernel, std::size_t index, const oxide_arg &arg, void *out,
                          double highest) {
  float value = 0;
  std::uint64_t unused = 0;
  convert_scalar<float>(kernel, index, arg, &value, unused);
  if (std::isfinite(value) && std::fabs(value) > highest)
    throw_argument_out_of_range(kernel, index, type_name<Param>(), number_text(value), number_text(-highest),
                                number_text(highest));
  store(out, static_cast<Param>(value));
}

void bind_scalar(const PreparedKernel &kernel, std::size_t index, std::int32_t dtype, const oxide_arg &arg,
                 void *out, std::uint64_t &contract_value) {
  switch (dtype) {
  case OXIDE_DTYPE_BOOL:
    return convert_scalar<bool>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_I8:
    return convert_scalar<std::int8_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_I16:
    return convert_scalar<std::int16_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_I32:
    return convert_scalar<std::int32_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_I64:
    return convert_scalar<std::int64_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_U8:
    return convert_scalar<std::uint8_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_U16:
    return convert_scalar<std::uint16_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_U32:
    return convert_scalar<std::uint32_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_U64:
    return convert_scalar<std::uint64_t>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_F32:
    return convert_scalar<float>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_F64:
    return convert_scalar<double>(kernel, index, arg, out, contract_value);
  case OXIDE_DTYPE_F16:
    return convert_narrow_float<half>(kernel, index, arg, out, 65504.0);
  case OXIDE_DTYPE_BF16:
    return convert_narrow_float<bfloat16>(kernel, index, arg, out, 3.3895313892515355e38);
  default:
    break;
  }
  throw Error(
      ErrorKind::ArgumentMismatch,
      fmt::format("kernel '{}': argument {} has a parameter type that the C ABI cannot pass (a struct "
                  "or enum); launch the kernel from C++",
                  kernel.display_name(), index + 1),
      kernel.display_name());
}

/// The launch's grid and block from the configuration, the contract and the arguments.
LaunchGeometry launch_geometry(const Resolved &r, const KernelExport &entry,
                               const oxide_launch_config &config, const oxide_arg *args, unsigned rank) {
  LaunchGeometry g;
  g.dynamic_shared_bytes = config.dynamic_shared_bytes;
  auto dims = [](const std::uint32_t (&v)[3]) { return v[0] != 0 || v[1] != 0 || v[2] != 0; };
  if (dims(config.block))
    g.block = {config.block[0], std::max(config.block[1], 1u), std::max(config.block[2], 1u)};
  else if (r.contract && r.contract->contract().block) {
    const auto &b = *r.contract->contract().block;
    g.block = {b[0], b[1], b[2]};
  } else
    g.block = rank == 1 ? Dim3{256, 1, 1} : rank == 2 ? Dim3{16, 16, 1} : Dim3{8, 8, 4};
  if (dims(config.grid)) {
    g.grid = {config.grid[0], std::max(config.grid[1], 1u), std::max(config.grid[2], 1u)};
    return g;
  }
  // Extents left 0 after the first are 1: {n, 0, 0} covers n threads of a 1-D domain.
  std::array<std::uint64_t, 3> threads{config.threads[0], std::max<std::uint64_t>(config.threads[1], 1),
                                       std::max<std::uint64_t>(config.threads[2], 1)};
  if (config.threads[0] == 0 && config.threads[1] == 0 && config.threads[2] == 0) {
    // The first output's extents: the kernel writes each element once, one thread each.
    std::size_t output = entry.param_count;
    for (std::size_t i = 0; i < entry.param_count && output == entry.param_count; ++i)
      if (is_disjoint(entry.params[i].kind))
        output = i;
    if (output == entry.param_count)
      throw Error(ErrorKind::GridInvalid,
                  fmt::format("kernel '{}' has no DisjointSpan output to size its grid by; give the launch a "
                              "grid or the threads to cover",
                              r.kernel.display_name),
                  r.kernel.display_name);
    std::array<std::uint64_t, 3> extents{};
    const oxide_arg &arg = args[output];
    if (arg.type != OXIDE_ARG_TENSOR)
      fail(ErrorKind::ArgumentMismatch, r, output, "is a span: pass a tensor, not a scalar");
    const std::uint64_t elements = tensor_extents(r, output, arg, entry.exports[output].rank, extents);
    if (rank == 1)
      threads = {elements, 1, 1};
    else if (entry.exports[output].rank == 1)
      threads = {elements, 1, 1};
    else
      threads = {extents[0], extents[1], std::max<std::uint64_t>(extents[2], 1)};
  }
  auto blocks = [](std::uint64_t n, std::uint32_t per) -> std::uint32_t {
    const std::uint64_t count = (std::max<std::uint64_t>(n, 1) + per - 1) / per;
    return static_cast<std::uint32_t>(
        std::min<std::uint64_t>(count, std::numeric_limits<std::uint32_t>::max()));
  };
  g.grid = {blocks(threads[0], g.block.x), blocks(threads[1], g.block.y), blocks(threads[2], g.block.z)};
  if (threads[0] == 0 || threads[1] == 0 || threads[2] == 0)
    g.grid = {0, 0, 0}; // nothing to cover: an empty launch, which enqueues nothing
  return g;
}

/// The prepared launch for this context and geometry, from the kernel's cache.
PreparedKernel prepared_for(Exported &e, const Resolved &r, const Context &context, const LaunchGeometry &g,
                            unsigned rank) {
  const ContextState *state = ContextAccess::state(context).get();
  const bool empty = g.block_count() == 0;
  LaunchGeometry key = g;
  if (empty)
    key.grid = {1, 1, 1}; // prepared as one block; launch_kernel enqueues nothing for an empty grid
  {
    std::lock_guard lock(e.mutex);
    for (const CachedPrepare &c : e.prepared)
      if (c.context == state && c.block == key.block && c.dynamic_shared_bytes == key.dynamic_shared_bytes) {
        if (c.prepared.cooperative || c.prepared.cluster != Dim3{1, 1, 1})
          break; // their grid is checked against the device: prepare again
        validate_geometry(key, rank);
        PreparedKernel prepared = c.prepared;
        prepared.geometry.grid = g.grid;
        return prepared;
      }
  }
  PreparedKernel prepared = prepare_kernel(context, e.handle.entry.host,
                                           {e.handle.entry.params, e.handle.entry.param_count}, key, rank);
  {
    std::lock_guard lock(e.mutex);
    if (e.prepared.size() < 32)
      e.prepared.push_back({state, key.block, key.dynamic_shared_bytes, prepared});
  }
  (void)r;
  prepared.geometry.grid = g.grid;
  return prepared;
}

void launch(const oxide_kernel *handle, const oxide_launch_config *config, const oxide_arg *args,
            std::size_t count) {
  Exported &e = exported(handle);
  const Resolved &r = resolve(e);
  const KernelExport &entry = e.handle.entry;
  if (!config)
    throw Error(ErrorKind::ArgumentMismatch,
                fmt::format("kernel '{}': a null launch configuration", r.kernel.display_name),
                r.kernel.display_name);
  if (count != entry.param_count || (count != 0 && !args))
    throw Error(ErrorKind::ArgumentMismatch,
                fmt::format("kernel '{}' takes {} arguments ({}) but was given {}", r.kernel.display_name,
                            entry.param_count, fmt::join(r.names, ", "), args ? count : 0),
                r.kernel.display_name);
  if (count > kMaxParams)
    throw Error(ErrorKind::ArgumentMismatch,
                fmt::format("kernel '{}' has {} parameters; the C ABI launches kernels of at most {}",
                            r.kernel.display_name, count, kMaxParams),
                r.kernel.display_name);
  const unsigned rank = r.contract ? r.contract->contract().domain : 1;
  auto [context, stream] = contexts().get(config->device, config->stream);
  const LaunchGeometry geometry = launch_geometry(r, entry, *config, args, rank);
  const PreparedKernel prepared = prepared_for(e, r, context->context, geometry, rank);

  alignas(16) std::array<std::byte, kMaxParamBytes> storage;
  std::array<void *, kMaxParams> pointers{};
  std::array<ArgumentMemory, kMaxParams> memory{};
  std::array<ContractOperand, kMaxParams> values{};
  std::size_t offset = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const HostParam &p = entry.params[i];
    const ExportParam &x = entry.exports[i];
    offset = (offset + p.align - 1) / p.align * p.align;
    if (offset + p.size > storage.size())
      throw Error(ErrorKind::ArgumentMismatch,
                  fmt::format("kernel '{}': its parameters take more than the C ABI's {} bytes",
                              r.kernel.display_name, kMaxParamBytes),
                  r.kernel.display_name);
    void *slot = storage.data() + offset;
    std::memset(slot, 0, p.size);
    pointers[i] = slot;
    offset += p.size;
    const oxide_arg &arg = args[i];
    if (x.rank == 0) {
      if (arg.type != OXIDE_ARG_SCALAR)
        fail(ErrorKind::ArgumentMismatch, r, i,
             fmt::format("is a scalar ({}): pass a number, not a tensor", dtype_name(x.dtype)));
      bind_scalar(prepared, i, x.dtype, arg, slot, values[i].value);
      continue;
    }
    if (arg.type != OXIDE_ARG_TENSOR)
      fail(ErrorKind::ArgumentMismatch, r, i,
           fmt::format("is a span of {}: pass a tensor, not a scalar", dtype_name(x.dtype)));
    if (arg.dtype != x.dtype)
      fail(
          ErrorKind::DtypeMismatch, r, i,
          fmt::format("is a span of {} but gets a tensor of {}", dtype_name(x.dtype), dtype_name(arg.dtype)));
    std::array<std::uint64_t, 3> extents{};
    const std::uint64_t elements = tensor_extents(r, i, arg, x.rank, extents);
    std::uint64_t address = arg.data;
    if (elements != 0 && address == 0)
      fail(ErrorKind::MisalignedArgument, r, i, "gets a null pointer");
    if (address % p.elem_size != 0)
      fail(ErrorKind::MisalignedArgument, r, i,
           fmt::format("gets address {:#x}, which is not aligned to its {}-byte elements", address,
                       p.elem_size));
    if (address == 0)
      address = p.elem_size; // a span's data is never null (oxide/host/kernel_argument.hpp, non_null)
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(elements, std::uint64_t{p.elem_size}, &bytes))
      fail(ErrorKind::ArgumentMismatch, r, i, "gets a tensor larger than the address space");
    std::memcpy(static_cast<std::byte *>(slot) + kSpanDataOffset, &address, sizeof address);
    for (unsigned k = 0; k < x.rank; ++k)
      std::memcpy(static_cast<std::byte *>(slot) + kSpanExtentOffset + k * kSpanExtentStride, &extents[k],
                  sizeof extents[k]);
    memory[i] = {nullptr, address, bytes, x.writable, true, 0};
    values[i].value = elements;
    if (x.rank == 1)
      values[i].extents[0] = elements;
    else
      for (unsigned k = 0; k < x.rank && k < 3; ++k)
        values[i].extents[k] = extents[k];
  }
  check_launch(prepared, *stream, {memory.data(), count}, {values.data(), count});
  launch_kernel(prepared, *stream, pointers.data());
}

/// oxide_fill: DeviceBuffer::fill on borrowed memory, on the caller's stream.
void fill(std::int32_t device, void *cu_stream, std::uint64_t data, std::uint64_t count,
          std::uint32_t elem_size, const void *value) {
  if (!value)
    throw Error(ErrorKind::ArgumentMismatch, "oxide_fill: a null value");
  if (elem_size == 0)
    throw Error(ErrorKind::ArgumentMismatch, "oxide_fill: an element size of 0 bytes");
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{elem_size}, &bytes) ||
      bytes > std::numeric_limits<std::uint64_t>::max() - data)
    throw Error(
        ErrorKind::ArgumentMismatch,
        fmt::format("oxide_fill: {} elements of {} bytes at {:#x} lie past the end of the address space",
                    count, elem_size, data));
  if (count != 0 && data == 0)
    throw Error(ErrorKind::MisalignedArgument,
                fmt::format("oxide_fill: a null pointer for {} elements of {} bytes", count, elem_size));
  auto [context, stream] = contexts().get(device, cu_stream);
  fill_elements(*stream, nullptr, data, value, elem_size, static_cast<std::size_t>(count), "oxide_fill");
}

} // namespace

std::string dtype_name(std::int32_t dtype) {
  switch (dtype) {
  case OXIDE_DTYPE_BOOL:
    return "bool";
  case OXIDE_DTYPE_F16:
    return "float16";
  case OXIDE_DTYPE_BF16:
    return "bfloat16";
  case OXIDE_DTYPE_NONE:
    return "a type without a dtype";
  default:
    break;
  }
  const int code = dtype >> 8, bits = dtype & 0xff;
  if (code == 0)
    return fmt::format("int{}", bits);
  if (code == 1)
    return fmt::format("uint{}", bits);
  if (code == 2)
    return fmt::format("float{}", bits);
  return fmt::format("dtype {:#x}", dtype);
}

void register_export(const KernelExport &entry) noexcept {
  Exports &all = exports();
  std::lock_guard lock(all.mutex);
  Exported &e = all.kernels.emplace_back();
  e.handle = {entry, &e};
}

} // namespace oxide::detail

using oxide::detail::exports;
using oxide::detail::guarded;

extern "C" {

int oxide_c_api_version(void) { return OXIDE_C_API_VERSION; }

size_t oxide_kernel_count(void) {
  auto &all = exports();
  std::lock_guard lock(all.mutex);
  return all.kernels.size();
}

const oxide_kernel *oxide_kernel_at(size_t index) {
  auto &all = exports();
  std::lock_guard lock(all.mutex);
  return index < all.kernels.size() ? &all.kernels[index].handle : nullptr;
}

const oxide_kernel *oxide_find_kernel(const char *name) {
  const oxide_kernel *found = nullptr;
  (void)guarded([&] {
    if (!name)
      throw oxide::Error(oxide::ErrorKind::NotAKernel, "oxide_find_kernel: a null name");
    auto &all = exports();
    std::lock_guard lock(all.mutex);
    for (auto &e : all.kernels)
      if (std::strcmp(e.handle.entry.name, name) == 0) {
        found = &e.handle;
        return;
      }
    std::string names;
    for (auto &e : all.kernels)
      names += fmt::format("{}'{}'", names.empty() ? "" : ", ", e.handle.entry.name);
    throw oxide::Error(oxide::ErrorKind::NotAKernel,
                       fmt::format("no kernel named '{}' is exported by this library ({})", name,
                                   names.empty() ? "it exports none: mark kernels with OXIDE_EXPORT"
                                                 : "it exports " + names));
  });
  return found;
}

const char *oxide_kernel_name(const oxide_kernel *kernel) { return kernel ? kernel->entry.name : ""; }

const char *oxide_kernel_contract(const oxide_kernel *kernel) {
  const char *text = "";
  (void)guarded(
      [&] { text = oxide::detail::resolve(oxide::detail::exported(kernel)).kernel.info->contract.c_str(); });
  return text;
}

int oxide_kernel_shape(const oxide_kernel *kernel, uint32_t *domain, uint32_t block[3]) {
  return guarded([&] {
    const auto &r = oxide::detail::resolve(oxide::detail::exported(kernel));
    const oxide::detail::Contract *c = r.contract ? &r.contract->contract() : nullptr;
    if (domain)
      *domain = c ? c->domain : 0;
    if (block)
      for (int i = 0; i < 3; ++i)
        block[i] = c && c->block ? (*c->block)[i] : 0;
  });
}

size_t oxide_kernel_param_count(const oxide_kernel *kernel) { return kernel ? kernel->entry.param_count : 0; }

int oxide_kernel_param(const oxide_kernel *kernel, size_t index, oxide_param_info *info) {
  return guarded([&] {
    const auto &r = oxide::detail::resolve(oxide::detail::exported(kernel));
    if (index >= r.params.size() || !info)
      throw oxide::Error(oxide::ErrorKind::ArgumentMismatch,
                         fmt::format("kernel '{}' has {} parameters; there is no parameter {}",
                                     r.kernel.display_name, r.params.size(), index));
    *info = r.params[index];
  });
}

int oxide_launch(const oxide_kernel *kernel, const oxide_launch_config *config, const oxide_arg *args,
                 size_t count) {
  return guarded([&] { oxide::detail::launch(kernel, config, args, count); });
}

int oxide_fill(int32_t device, void *stream, uint64_t data, uint64_t count, uint32_t elem_size,
               const void *value) {
  return guarded([&] { oxide::detail::fill(device, stream, data, count, elem_size, value); });
}

const char *oxide_last_error(void) { return oxide::detail::last_error.c_str(); }

const char *oxide_status_name(int status) {
  if (status == OXIDE_OK)
    return "Ok";
  if (status < 1 || status > 256)
    return "Unknown";
  // to_string returns literals (NUL-terminated), "Unknown" for a value that names no kind.
  return oxide::to_string(static_cast<oxide::ErrorKind>(status - 1)).data();
}

} // extern "C"
