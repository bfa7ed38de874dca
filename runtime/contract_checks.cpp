#include "contract_checks.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <utility>
#include <vector>

#include "launch_contract.hpp"
#include "oxide/detail/host/launch_core.hpp"
#include "oxide/host/error.hpp"
#include "sim/sim_thread.hpp"

namespace oxide::detail {

std::string format_extents(const Dim3 &e, unsigned rank) {
  switch (rank) {
  case 1:
    return fmt::format("{}", e.x);
  case 2:
    return fmt::format("({}, {})", e.x, e.y);
  default:
    return fmt::format("({}, {}, {})", e.x, e.y, e.z);
  }
}

void check_domain(const KernelContract &contract, const std::string &kernel, unsigned rank) {
  const std::uint32_t domain = contract.contract().domain;
  if (rank == domain)
    return;
  throw Error(ErrorKind::DomainMismatch,
              fmt::format("kernel '{}' has domain = {} in its launch contract, but is prepared with a "
                          "LaunchConfig{}D; prepare it with a LaunchConfig{}D",
                          kernel, domain, rank, domain),
              kernel);
}

void check_configuration(const KernelContract &contract, const std::string &kernel,
                         const LaunchGeometry &geometry, const Device &device) {
  const Contract &c = contract.contract();
  if (c.block) {
    const Dim3 exact{(*c.block)[0], (*c.block)[1], (*c.block)[2]};
    if (!(geometry.block == exact)) {
      // How to make the configuration it needs: for_elements uses its own default block
      // (256, 16 x 16, 8 x 8 x 4) unless it is given one.
      const std::string fix =
          c.domain == 1 ? fmt::format("LaunchConfig1D::for_elements(n, {})", exact.x)
          : c.domain == 2
              ? fmt::format("LaunchConfig2D::for_elements(width, height, {{{}, {}, 1}})", exact.x, exact.y)
              : fmt::format("LaunchConfig3D::for_elements(width, height, depth, {{{}, {}, {}}})", exact.x,
                            exact.y, exact.z);
      throw Error(ErrorKind::BlockMismatch,
                  fmt::format("kernel '{}' must be launched with block = {} (its launch contract), but the "
                              "launch configuration has block {}; make it with {}",
                              kernel, format_extents(exact, c.domain),
                              format_extents(geometry.block, c.domain), fix),
                  kernel);
    }
  }
  const std::uint32_t shared = geometry.dynamic_shared_bytes;
  if (shared < c.dynamic_shared_min || shared > c.dynamic_shared_max) {
    const std::string allowed =
        c.dynamic_shared_expr
            ? fmt::format("at most {} bytes of dynamic shared memory (dynamic_shared = {} in its launch "
                          "contract)",
                          c.dynamic_shared_max, dynamic_shared_text(contract))
        : c.dynamic_shared_max == 0
            ? std::string("no dynamic shared memory (add dynamic_shared = N or a range to "
                          "its launch contract to allow some)")
        : c.dynamic_shared_min == c.dynamic_shared_max
            ? fmt::format("dynamic_shared = {} bytes (its launch contract)", c.dynamic_shared_min)
            : fmt::format("dynamic_shared = {}..{} bytes (its launch contract)", c.dynamic_shared_min,
                          c.dynamic_shared_max);
    throw Error(ErrorKind::DynamicSharedOutOfRange,
                fmt::format("kernel '{}' allows {}, but the launch configuration asks for {} bytes", kernel,
                            allowed, shared),
                kernel);
  }
  if (c.has_cluster()) {
    const Dim3 cluster{c.cluster[0], c.cluster[1], c.cluster[2]};
    if (geometry.grid.x % cluster.x != 0 || geometry.grid.y % cluster.y != 0 ||
        geometry.grid.z % cluster.z != 0)
      throw Error(
          ErrorKind::ClusterMismatch,
          fmt::format("kernel '{}' runs in clusters of {} blocks (its launch contract), but the grid {} is "
                      "not a whole number of clusters; round the grid up to a multiple of the cluster",
                      kernel, format_extents(cluster, c.domain), format_extents(geometry.grid, c.domain)),
          kernel);
  }
  // The simulator runs every kernel the host compiler built: it has no compute capability.
  if (device.is_simulator())
    return;
  const std::string where = fmt::format("device {} ({})", device.ordinal(), device.name());
  check_compute_capability(c, kernel, device.compute_capability(), where);
  if (c.has_cluster() && device.compute_capability().major < 9)
    throw Error(ErrorKind::ComputeCapabilityTooLow,
                fmt::format("kernel '{}' runs in thread-block clusters, which need compute capability 9.0 or "
                            "newer, but {} has {}.{}",
                            kernel, where, device.compute_capability().major,
                            device.compute_capability().minor),
                kernel);
}

void check_compute_capability(const Contract &c, const std::string &kernel, ComputeCapability cc,
                              std::string_view device) {
  if (std::pair(std::uint32_t(cc.major), std::uint32_t(cc.minor)) >=
      std::pair(c.min_cc_major, c.min_cc_minor))
    return;
  throw Error(
      ErrorKind::ComputeCapabilityTooLow,
      fmt::format("kernel '{}' needs compute capability {}.{} or newer (its launch contract), but {} has "
                  "{}.{}",
                  kernel, c.min_cc_major, c.min_cc_minor, device, cc.major, cc.minor),
      kernel);
}

void check_launch_bounds(const RegisteredKernel &kernel, const LaunchGeometry &geometry) {
  const std::uint32_t bound = kernel.info->max_threads;
  const std::uint64_t threads = geometry.threads_per_block();
  if (bound == 0 || threads <= bound)
    return;
  throw Error(ErrorKind::BlockOverLaunchBounds,
              fmt::format("kernel '{}' has launch_bounds({}), but the launch configuration has blocks of {} "
                          "threads {}",
                          kernel.display_name, bound, threads, format_extents(geometry.block, 3)),
              kernel.display_name);
}

namespace {

/// Appends the operands `node` reads (a parameter, or a span's extent), each once, in the order
/// they appear.
void collect_operands(const Contract &c, std::uint32_t node, std::vector<const ContractNode *> &out) {
  const ContractNode &n = c.nodes[node];
  switch (n.kind) {
  case ContractNode::Kind::Literal:
    return;
  case ContractNode::Kind::Size:
  case ContractNode::Kind::Scalar:
  case ContractNode::Kind::Extent:
    for (const ContractNode *seen : out)
      if (seen->kind == n.kind && seen->value == n.value && seen->axis == n.axis)
        return;
    out.push_back(&n);
    return;
  default:
    collect_operands(c, n.lhs, out);
    collect_operands(c, n.rhs, out);
  }
}

/// "a.size() = 100 and c.size() = 200": the value of every operand the expressions at `roots` read.
std::string describe_operands(const KernelContract &contract, std::initializer_list<std::uint32_t> roots,
                              std::span<const ContractOperand> values) {
  const Contract &c = contract.contract();
  std::vector<const ContractNode *> operands;
  for (const std::uint32_t root : roots)
    collect_operands(c, root, operands);
  std::string out;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const ContractNode &n = *operands[i];
    if (i > 0)
      out += i + 1 == operands.size() ? " and " : ", ";
    const std::string &name = contract.names()[n.value];
    if (n.kind == ContractNode::Kind::Extent)
      out += fmt::format("{}.{}() = {}", name, oxide::detail::kContractExtentNames[n.axis % 3],
                         values[n.value].extents[n.axis % 3]);
    else
      out += fmt::format("{}{} = {}", name, n.kind == ContractNode::Kind::Size ? ".size()" : "",
                         values[n.value].value);
  }
  return out;
}

} // namespace

namespace {

/// "parameter 2 'c'" (names are in the image of a kernel with a contract), else "parameter 2".
std::string parameter_label(const PreparedKernel &kernel, std::size_t index) {
  std::string param = fmt::format("parameter {}", index + 1);
  if (const auto kinds = parse_param_kinds(kernel.kernel->info->param_kinds);
      kinds && index < kinds->names.size())
    param += fmt::format(" '{}'", kinds->names[index]);
  return param;
}

} // namespace

void throw_forged_span(const PreparedKernel &kernel, std::size_t index, std::string_view type) {
  // Simulated kernel code that launches a kernel with its own spans: that launch is what is wrong
  // (sim::launch refuses it, after the arguments are checked).
  if (sim::current_sim_thread)
    throw Error(ErrorKind::LaunchFromKernel,
                fmt::format("kernel '{}' launched from kernel code; launch kernels from the host",
                            kernel.display_name()),
                kernel.display_name());
  throw Error(ErrorKind::ForgedSpan,
              fmt::format("argument {} of kernel '{}' (for {}) is a non-empty {} passed as it is; host code "
                          "cannot make a non-empty span (one made with std::bit_cast or memcpy escapes every "
                          "launch check): pass the DeviceBuffer, its slice or its view, which the launch "
                          "turns into the span, or an empty span",
                          index + 1, kernel.display_name(), parameter_label(kernel, index), type),
              kernel.display_name());
}

void throw_stale_view(const PreparedKernel &kernel, std::size_t index, unsigned rank, std::size_t width,
                      std::size_t height, std::size_t depth, std::size_t buffer_size) {
  const std::string view = rank == 2 ? fmt::format("view_2d({}, {})", width, height)
                                     : fmt::format("view_3d({}, {}, {})", width, height, depth);
  throw Error(
      ErrorKind::ViewShapeMismatch,
      fmt::format("argument {} of kernel '{}' (for {}) is a {} of {} elements, but its buffer now has "
                  "{}: the buffer was assigned another allocation after the view was made; make the "
                  "view again from the buffer as it is",
                  index + 1, kernel.display_name(), parameter_label(kernel, index), view,
                  width * height * depth, buffer_size),
      kernel.display_name());
}

void throw_stale_slice(const PreparedKernel &kernel, std::size_t index, std::size_t offset, std::size_t count,
                       std::size_t buffer_size) {
  throw Error(ErrorKind::SliceOutOfRange,
              fmt::format("argument {} of kernel '{}' (for {}) is slice({}, {}), but its buffer now has {} "
                          "elements: the buffer was assigned another allocation after the slice was made; "
                          "make the slice again from the buffer as it is",
                          index + 1, kernel.display_name(), parameter_label(kernel, index), offset, count,
                          buffer_size),
              kernel.display_name());
}

void throw_argument_out_of_range(const PreparedKernel &kernel, std::size_t index, std::string_view type,
                                 std::string_view value, std::string_view lowest, std::string_view highest) {
  const std::string param = parameter_label(kernel, index);
  throw Error(
      ErrorKind::ArgumentOutOfRange,
      fmt::format("argument {} of kernel '{}' is {}, which {} ({}, from {} to {}) cannot hold; pass a "
                  "value in that range or change the parameter's type",
                  index + 1, kernel.display_name(), value, param, type, lowest, highest),
      kernel.display_name());
}

void check_requires(const KernelContract &contract, const std::string &kernel,
                    std::span<const ContractOperand> values) {
  const Contract &c = contract.contract();
  for (const std::uint32_t i : contract.signed_operands())
    if (const auto value = static_cast<std::int64_t>(values[i].value); value < 0) [[unlikely]]
      throw Error(ErrorKind::NegativeArgument,
                  fmt::format("launch of '{}' violates its contract: parameter '{}' is {}, but a signed "
                              "integer that requires uses must not be negative; pass a value >= 0",
                              kernel, contract.names()[i], value),
                  kernel);
  for (const ContractRelation &relation : c.requires_) {
    const std::optional<bool> holds = evaluate_contract_relation(c, relation, values);
    if (holds == true) [[likely]]
      continue;
    const std::string text = render_contract_relation(c, relation, contract.names());
    const std::string operands = describe_operands(contract, {relation.lhs, relation.rhs}, values);
    if (!holds)
      throw Error(ErrorKind::RequiresOverflow,
                  fmt::format("launch of '{}' violates its contract: requires {} cannot be evaluated, its "
                              "arithmetic overflows 64 bits, goes below zero or divides by zero with {}",
                              kernel, text, operands),
                  kernel);
    throw Error(ErrorKind::RequiresViolated,
                fmt::format("launch of '{}' violates its contract: requires {}, but {}", kernel, text,
                            operands.empty() ? std::string("it does not hold") : operands),
                kernel);
  }
}

std::string dynamic_shared_text(const KernelContract &contract) {
  const Contract &c = contract.contract();
  std::string expression;
  contract_impl::write_expression(c, *c.dynamic_shared_expr, contract.names(), expression);
  if (expression.size() > 1 && expression.front() == '(' && expression.back() == ')')
    expression = expression.substr(1, expression.size() - 2); // the root's own parentheses
  return c.dynamic_shared_exact ? expression : fmt::format("{}..{}", expression, c.dynamic_shared_max);
}

void check_dynamic_shared(const KernelContract &contract, const std::string &kernel,
                          std::span<const ContractOperand> values, std::uint32_t bytes) {
  const Contract &c = contract.contract();
  if (!c.dynamic_shared_expr)
    return;
  const std::optional<std::uint64_t> need = evaluate_contract_expression(c, *c.dynamic_shared_expr, values);
  if (need && (c.dynamic_shared_exact ? bytes == *need : bytes >= *need)) [[likely]]
    return;
  const std::string operands = describe_operands(contract, {*c.dynamic_shared_expr}, values);
  if (!need)
    throw Error(ErrorKind::RequiresOverflow,
                fmt::format("launch of '{}' violates its contract: dynamic_shared = {} cannot be evaluated, "
                            "its arithmetic overflows 64 bits, goes below zero or divides by zero with {}",
                            kernel, dynamic_shared_text(contract), operands),
                kernel);
  throw Error(ErrorKind::DynamicSharedOutOfRange,
              fmt::format("launch of '{}' violates its contract: dynamic_shared = {} asks for {}{} bytes of "
                          "dynamic shared memory with {}, but the launch configuration gives {}; prepare the "
                          "launch with {} {} bytes",
                          kernel, dynamic_shared_text(contract), c.dynamic_shared_exact ? "" : "at least ",
                          *need, operands, bytes, c.dynamic_shared_exact ? "exactly" : "at least", *need),
              kernel);
}

} // namespace oxide::detail
