#include "sim/write_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/detail/param_kind.hpp"
#include "sim/block_runner.hpp"
#include "sim/sim_thread.hpp"

extern "C" {
constinit std::uint32_t __oxide_sim_checking = 0;
}

namespace oxide::detail::sim {
namespace {

// --- what the compiler registered --------------------------------------------------------------

struct DescriptionTable {
  std::shared_mutex mutex;
  std::unordered_map<const void *, std::vector<ParamDescription>> kernels;
};

DescriptionTable &descriptions() {
  static DescriptionTable *table = new DescriptionTable; // never destroyed: used by late launches
  return *table;
}

using oxide::detail::ParamKind;

/// The kind a description's letter encodes (parse_param_descriptions accepts no other letters).
ParamKind kind_of(char letter) { return oxide::detail::param_kind(letter).value_or(ParamKind::other); }

// --- simulator allocations ---------------------------------------------------------------------

struct Allocation {
  std::size_t bytes = 0;
  std::size_t reserved = 0;
};

struct AllocationTable {
  std::mutex mutex;
  std::map<std::uintptr_t, Allocation> allocations;
};

AllocationTable &allocations() {
  static AllocationTable *table = new AllocationTable;
  return *table;
}

/// The allocation that holds `address` (or ends there, for an empty range): its begin and sizes.
std::optional<std::pair<std::uintptr_t, Allocation>> allocation_of(std::uintptr_t address) {
  AllocationTable &table = allocations();
  std::lock_guard lock(table.mutex);
  auto it = table.allocations.upper_bound(address);
  if (it == table.allocations.begin())
    return std::nullopt;
  --it;
  if (address > it->first + it->second.bytes)
    return std::nullopt;
  return *it;
}

// --- reading parameter values --------------------------------------------------------------------

// The span layout (oxide/detail/intrinsic_abi.hpp) is one word per field.
static_assert(oxide::detail::kSpanDataOffset == 0 &&
              oxide::detail::kSpanExtentOffset == sizeof(std::uint64_t) &&
              oxide::detail::kSpanExtentStride == sizeof(std::uint64_t));

/// Word `index` of a parameter value: spans are {T *data; size_t extents...} (see the layout
/// test in tests/unit/sim_write_checks_test.cpp).
std::uint64_t word(const void *value, std::size_t index) {
  std::uint64_t w = 0;
  std::memcpy(&w, static_cast<const char *>(value) + index * sizeof w, sizeof w);
  return w;
}

/// a * b, or nullopt when it overflows.
std::optional<std::uint64_t> product(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::string thread_name(const LaunchGeometry &g, ThreadId id) {
  const std::uint64_t b = id.block;
  const std::uint32_t t = id.thread;
  return fmt::format("thread ({},{},{}) of block ({},{},{})", t % g.block.x, t / g.block.x % g.block.y,
                     t / (g.block.x * g.block.y), b % g.grid.x, b / g.grid.x % g.grid.y,
                     b / (std::uint64_t(g.grid.x) * g.grid.y));
}

/// Element `e` of `range` as the span indexes it: "5", "[y][x]", "[z][y][x]".
std::string element_name(const WriteRange &range, std::uint64_t e) {
  if (range.rank == 2)
    return fmt::format("[{}][{}]", e / range.width, e % range.width);
  if (range.rank == 3)
    return fmt::format("[{}][{}][{}]", e / (range.width * range.height), e / range.width % range.height,
                       e % range.width);
  return fmt::format("{}", e);
}

const char *role(char kind) {
  switch (kind_of(kind)) {
  case ParamKind::output:
  case ParamKind::output_2d:
  case ParamKind::output_3d:
    return "output";
  case ParamKind::append:
    return "append";
  case ParamKind::input:
    return "input";
  case ParamKind::permutation:
    return "permutation";
  case ParamKind::claims:
    return "claims";
  case ParamKind::mutable_span:
    return "mutable span";
  case ParamKind::atomic:
    return "atomic";
  case ParamKind::const_pointer:
    return "read-only pointer";
  default:
    return "pointer";
  }
}

} // namespace

std::optional<std::vector<ParamDescription>> parse_param_descriptions(std::string_view text) {
  std::vector<ParamDescription> params;
  if (text.empty())
    return params;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view entry = text.substr(0, comma);
    const std::size_t equals = entry.find('=');
    if (equals == std::string_view::npos || equals + 1 >= entry.size())
      return std::nullopt;
    ParamDescription param;
    param.name = std::string(entry.substr(0, equals));
    param.kind = entry[equals + 1];
    if (!oxide::detail::param_kind(param.kind))
      return std::nullopt;
    const std::string_view size = entry.substr(equals + 2);
    const auto [end, error] = std::from_chars(size.data(), size.data() + size.size(), param.element_size);
    if (size.empty() || error != std::errc() || end != size.data() + size.size())
      return std::nullopt;
    params.push_back(std::move(param));
    if (comma == std::string_view::npos)
      return params;
    text.remove_prefix(comma + 1);
  }
}

void describe_kernel_params(const void *host_function, std::vector<ParamDescription> params) {
  DescriptionTable &table = descriptions();
  std::unique_lock lock(table.mutex);
  table.kernels[host_function] = std::move(params);
}

std::optional<std::vector<ParamDescription>> kernel_param_descriptions(const void *host_function) {
  DescriptionTable &table = descriptions();
  std::shared_lock lock(table.mutex);
  const auto it = table.kernels.find(host_function);
  if (it == table.kernels.end())
    return std::nullopt;
  return it->second;
}

void note_allocation(const void *begin, std::size_t bytes, std::size_t reserved) {
  AllocationTable &table = allocations();
  std::lock_guard lock(table.mutex);
  table.allocations[reinterpret_cast<std::uintptr_t>(begin)] = {bytes, reserved};
}

void forget_allocation(const void *begin) noexcept {
  AllocationTable &table = allocations();
  std::lock_guard lock(table.mutex);
  table.allocations.erase(reinterpret_cast<std::uintptr_t>(begin));
}

std::unique_ptr<WriteChecks> WriteChecks::for_launch(const void *host_function, std::size_t param_count,
                                                     void *const *arguments) {
  std::optional<std::vector<ParamDescription>> params = kernel_param_descriptions(host_function);
  if (!params || params->size() != param_count)
    return nullptr;
  return from(std::move(*params), arguments);
}

std::unique_ptr<WriteChecks> WriteChecks::from(std::vector<ParamDescription> params, void *const *arguments) {
  auto checks = std::make_unique<WriteChecks>();
  checks->params_ = std::move(params);
  for (std::uint32_t i = 0; i < checks->params_.size(); ++i) {
    const ParamDescription &param = checks->params_[i];
    const void *value = arguments[i];
    WriteRange range;
    range.param = i;
    range.kind = param.kind;
    range.element_size = std::max<std::uint64_t>(param.element_size, 1);
    std::optional<std::uint64_t> count;
    const ParamKind kind = kind_of(param.kind);
    switch (kind) {
    case ParamKind::output:
    case ParamKind::append: // its slots, claimed as DisjointSpan elements are
    case ParamKind::input:
    case ParamKind::permutation: // read only, as an input
    case ParamKind::mutable_span:
    case ParamKind::atomic:
      count = word(value, 1);
      break;
    case ParamKind::claims: // one bit per element, in 32-bit words (at least one)
      count = std::max<std::uint64_t>((word(value, 1) + 31) / 32, 1);
      break;
    case ParamKind::output_2d:
      range.rank = 2;
      range.width = word(value, 1);
      range.height = word(value, 2);
      count = product(range.width, range.height);
      break;
    case ParamKind::output_3d: {
      range.rank = 3;
      range.width = word(value, 1);
      range.height = word(value, 2);
      const std::optional<std::uint64_t> area = product(range.width, range.height);
      count = area ? product(*area, word(value, 3)) : std::nullopt;
      break;
    }
    case ParamKind::const_pointer:
    case ParamKind::pointer:
      break;
    default:
      continue; // values: no memory
    }
    range.begin = static_cast<std::uintptr_t>(word(value, 0));
    std::optional<std::pair<std::uintptr_t, Allocation>> allocation;
    if (oxide::detail::is_pointer(kind)) {
      // A raw pointer: from where it points to the end of the simulator buffer it points into.
      allocation = range.begin != 0 ? allocation_of(range.begin) : std::nullopt;
      if (!allocation)
        continue;
      range.end = allocation->first + allocation->second.bytes;
    } else {
      const std::optional<std::uint64_t> bytes = count ? product(*count, range.element_size) : std::nullopt;
      if (!bytes || *bytes == 0 || range.begin + *bytes < range.begin)
        continue; // empty spans have no memory (their pointer is a placeholder)
      range.end = range.begin + *bytes;
      allocation = allocation_of(range.begin);
    }
    range.redzone_end = range.end;
    // The redzone follows a range that ends where its buffer does.
    if (allocation && allocation->first + allocation->second.bytes == range.end)
      range.redzone_end = allocation->first + allocation->second.reserved;
    checks->ranges_.push_back(range);
  }
  std::sort(checks->ranges_.begin(), checks->ranges_.end(),
            [](const WriteRange &a, const WriteRange &b) { return a.begin < b.begin; });
  return checks;
}

std::string WriteChecks::param_label(const WriteRange &range) const {
  const std::string &name = params_[range.param].name;
  if (name.empty())
    return fmt::format("{} parameter {}", role(range.kind), range.param + 1);
  return fmt::format("{} parameter '{}'", role(range.kind), name);
}

std::optional<std::string> WriteChecks::piece_violation(const WriteRange &range, std::uintptr_t from,
                                                        std::uintptr_t to, const Writer &writer, bool atomic,
                                                        const DisjointClaims &claims,
                                                        const LaunchGeometry &geometry) const {
  const std::uint64_t first = (from - range.begin) / range.element_size;
  switch (kind_of(range.kind)) {
  case ParamKind::mutable_span:
  case ParamKind::pointer:
    return std::nullopt;
  case ParamKind::atomic:
    if (atomic)
      return std::nullopt;
    return fmt::format("wrote element {} of {} with a plain store; an AtomicSpan is written only through its "
                       "atomic operations",
                       first, param_label(range));
  case ParamKind::input:
    return fmt::format("wrote element {} of {}, a Span<const T>, which kernels only read", first,
                       param_label(range));
  case ParamKind::permutation:
    return fmt::format("wrote index {} of {}, a PermutationSpan, which kernels only read", first,
                       param_label(range));
  case ParamKind::claims:
    return fmt::format("wrote word {} of {}, a ClaimSet, whose bits only claim_mut sets", first,
                       param_label(range));
  case ParamKind::const_pointer:
    return fmt::format("wrote through {} (a pointer to const), byte offset {} from the pointer",
                       param_label(range), from - range.begin);
  default:
    break;
  }
  // A DisjointSpan: every element the write touches must be the writer's.
  const std::uint64_t last = (to - 1 - range.begin) / range.element_size;
  const auto *data = reinterpret_cast<const void *>(range.begin);
  if (writer.claimed_data == data && first >= writer.claimed_first && last < writer.claimed_end)
    return std::nullopt;
  for (std::uint64_t e = first; e <= last; ++e) {
    const std::optional<ThreadId> owner = claims.owner(data, e);
    if (owner && *owner == writer.id)
      continue;
    if (owner)
      return fmt::format("wrote element {} of {}, which belongs to {}", element_name(range, e),
                         param_label(range), thread_name(geometry, *owner));
    return fmt::format("wrote element {} of {}, which it did not obtain through get_mut or tile_mut",
                       element_name(range, e), param_label(range));
  }
  return std::nullopt;
}

std::optional<std::string> WriteChecks::check(const Writer &writer, std::uintptr_t address,
                                              std::uint64_t bytes, bool atomic, const DisjointClaims &claims,
                                              const LaunchGeometry &geometry) const {
  if (bytes == 0)
    return std::nullopt;
  const std::uintptr_t to = address + bytes < address ? UINTPTR_MAX : address + bytes;
  // The common cases: no parameter's memory at all (the stack, shared memory), or one range that
  // holds the whole write and allows it.
  bool touches = false;
  for (const WriteRange &range : ranges_) {
    if (range.begin >= to)
      break;
    if (address >= range.redzone_end)
      continue;
    touches = true;
    if (address >= range.begin && to <= range.end &&
        !piece_violation(range, address, to, writer, atomic, claims, geometry))
      return std::nullopt;
  }
  if (!touches)
    return std::nullopt;

  // Rare: the write is not wholly inside one range that allows it. Split it into the pieces each
  // range (or its redzone) holds; a piece one range forbids is still fine when another range
  // (an aliasing argument) allows it.
  struct Piece {
    const WriteRange *range;
    std::uintptr_t from, to;
    bool redzone;
  };
  std::vector<Piece> pieces;
  for (const WriteRange &range : ranges_) {
    if (range.begin >= to)
      break;
    if (address < range.end && to > range.begin)
      pieces.push_back({&range, std::max(address, range.begin), std::min(to, range.end), false});
    if (address < range.redzone_end && to > range.end)
      pieces.push_back({&range, std::max(address, range.end), std::min(to, range.redzone_end), true});
  }
  auto allowed_elsewhere = [&](const Piece &piece) {
    for (const WriteRange &range : ranges_)
      if (&range != piece.range && range.begin <= piece.from && piece.to <= range.end &&
          !piece_violation(range, piece.from, piece.to, writer, atomic, claims, geometry))
        return true;
    return false;
  };
  for (const Piece &piece : pieces) {
    if (piece.redzone)
      continue;
    if (auto violation =
            piece_violation(*piece.range, piece.from, piece.to, writer, atomic, claims, geometry))
      if (!allowed_elsewhere(piece))
        return violation;
  }
  for (const Piece &piece : pieces) {
    if (!piece.redzone || allowed_elsewhere(piece))
      continue;
    const WriteRange &range = *piece.range;
    const std::uint64_t size = range.end - range.begin;
    if (oxide::detail::is_pointer(kind_of(range.kind)))
      return fmt::format("wrote past the end of the buffer of {} (byte offset {} from the pointer; the "
                         "buffer ends {} bytes after it)",
                         param_label(range), piece.from - range.begin, size);
    return fmt::format("wrote past the end of {} (byte offset {}; it has {} elements, {} bytes)",
                       param_label(range), piece.from - range.begin, size / range.element_size, size);
  }
  return std::nullopt;
}

CheckingLaunchScope::CheckingLaunchScope(bool active) noexcept : active_(active) {
  if (active_)
    std::atomic_ref(__oxide_sim_checking).fetch_add(1, std::memory_order_relaxed);
}

CheckingLaunchScope::~CheckingLaunchScope() {
  if (active_)
    std::atomic_ref(__oxide_sim_checking).fetch_sub(1, std::memory_order_relaxed);
}

namespace {

void check_write(void *address, std::uint64_t bytes, const char *where, bool atomic) noexcept {
  SimThread *thread = current_sim_thread;
  if (!thread || !thread->block)
    return; // host code, or a launch on another host thread
  const LaunchPlan &plan = thread->block->plan();
  if (!plan.writes || !plan.claims)
    return;
  const Writer writer{{thread->home->block, thread->linear},
                      thread->claimed_data,
                      thread->claimed_first,
                      thread->claimed_end};
  std::optional<std::string> violation = plan.writes->check(writer, reinterpret_cast<std::uintptr_t>(address),
                                                            bytes, atomic, *plan.claims, plan.geometry);
  if (!violation) [[likely]]
    return;
  std::string message = std::move(*violation);
  if (where && *where)
    message += fmt::format(" (at {})", where);
  violation.reset();
  thread->block->fail(*thread, std::move(message));
}

} // namespace

} // namespace oxide::detail::sim

extern "C" {

void __oxide_sim_check_write(void *address, std::uint64_t bytes, const char *where) noexcept {
  oxide::detail::sim::check_write(address, bytes, where, false);
}

void __oxide_sim_check_atomic_write(void *address, std::uint64_t bytes, const char *where) noexcept {
  oxide::detail::sim::check_write(address, bytes, where, true);
}

void __oxide_sim_local_write_outside(std::uint64_t index, std::uint64_t count, const char *where) noexcept {
  using namespace oxide::detail::sim;
  std::string message =
      fmt::format("a write to element {} of a local array of {} elements lands outside it", index, count);
  if (where)
    message += fmt::format(" (at {})", where);
  SimThread *thread = current_sim_thread;
  if (!thread || !thread->block) {
    std::fprintf(stderr, "oxide: %s\n", message.c_str());
    std::abort();
  }
  thread->block->fail(*thread, std::move(message));
}

void __oxide_sim_register_params(const void *const *kernels, const char *const *descriptions,
                                 std::size_t count) noexcept {
  // Runs in a static constructor: nothing may escape. A description this runtime cannot read
  // (a different oxcc) leaves its kernel unchecked.
  try {
    for (std::size_t i = 0; i < count; ++i)
      if (auto params = oxide::detail::sim::parse_param_descriptions(descriptions[i]))
        oxide::detail::sim::describe_kernel_params(kernels[i], std::move(*params));
  } catch (...) {
  }
}

} // extern "C"
