// Launch contracts: the text of [[oxide::launch_contract("...")]], parsed and evaluated.
//
//   domain = 2, block = (16, 16), dynamic_shared = 0..4096, min_compute_capability = (8, 0),
//   cluster = (2, 1), cooperative = true,
//   requires = (in.size() == out.size(), n <= in.size(), rows * cols == out.size(),
//               out.width() == cols, out.height() == rows)
//
// `dynamic_shared` is a fixed range (`0..4096`, `1024`) or tied to the arguments by an expression
// written as in `requires`: `dynamic_shared = 4 * tile` (exactly that many bytes at each launch)
// or `dynamic_shared = in.size() * 4..8192` (at least that many, at most 8192).
//
// Header-only and dependency-free: the compiler parses the user's text (and reports errors at
// the offending field), and writes a canonical form into the device image, where parameter
// names are replaced by positions ($0.size(), $1) and named constants by their values; the
// runtime parses that canonical form and evaluates `requires` at every launch.
//
// Wherever a number goes, a user's contract may name a constant of the kernel's scope instead
// (`block = (kTile, kTile)`, `requires = (n <= Policy::kMax)`): a constexpr variable, a static
// constexpr member, a template parameter, an enumerator. The compiler resolves such names
// (ContractConstantResolver); the canonical form never contains one.
#pragma once

#include <oxide/detail/contract_operand.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace oxide::detail {

/// What a name in `requires` refers to.
struct ContractParam {
  std::uint32_t index = 0;
  bool is_span = false; ///< `name.size()` is valid; otherwise `name` is an integer scalar
  /// Set when the parameter exists but cannot appear in `requires` (e.g. a float).
  std::string unusable_reason;
  /// The parameter's type depends on a template parameter: whether it is a span is known only
  /// per instantiation, which is parsed again then.
  bool dependent = false;
  /// A span's dimensions (1, 2 or 3): a 2-D span has `.width()` and `.height()`, a 3-D one also
  /// `.depth()`; 0 when unknown (a device image's canonical text), which allows all three.
  std::uint32_t rank = 0;
};

/// One node of a `requires` expression tree (children by index into Contract::nodes).
struct ContractNode {
  enum class Kind : std::uint8_t { Literal, Size, Scalar, Add, Sub, Mul, Div, Mod, Extent };
  Kind kind = Kind::Literal;
  std::uint64_t value = 0; ///< Literal: the value; Size/Scalar/Extent: the parameter index
  std::uint32_t lhs = 0, rhs = 0;
  std::uint8_t axis = 0; ///< Extent: 0 width, 1 height, 2 depth
};

/// The names of a span's extents in `requires`, by axis.
inline constexpr const char *kContractExtentNames[] = {"width", "height", "depth"};

struct ContractRelation {
  enum class Op : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
  Op op = Op::Eq;
  std::uint32_t lhs = 0, rhs = 0; ///< expression roots
  std::string text;               ///< the relation as written, for messages
};

struct Contract {
  std::uint32_t domain = 0;                          ///< 1, 2 or 3
  std::optional<std::array<std::uint32_t, 3>> block; ///< exact block shape, if given
  std::uint32_t dynamic_shared_min = 0;              ///< allowed dynamic shared memory, bytes
  std::uint32_t dynamic_shared_max = 0;
  /// `dynamic_shared = 4 * tile` (exact) or `dynamic_shared = n.size() * 4..49152` (at least):
  /// the root, in `nodes`, of an expression over the arguments that each launch's dynamic shared
  /// memory is checked against. The fixed range above is then 0..max (0..UINT32_MAX when exact):
  /// what prepare can check without the arguments.
  std::optional<std::uint32_t> dynamic_shared_expr;
  bool dynamic_shared_exact = false; ///< the launch gives exactly the expression's bytes
  std::uint32_t min_cc_major = 0, min_cc_minor = 0;
  /// Thread-block cluster shape (Hopper); {1, 1, 1} when the kernel is not launched in clusters.
  std::array<std::uint32_t, 3> cluster = {1, 1, 1};
  /// Launched cooperatively: every block is resident at once, so the kernel may sync the grid.
  bool cooperative = false;
  std::vector<ContractNode> nodes;

  [[nodiscard]] bool has_cluster() const noexcept { return cluster != std::array<std::uint32_t, 3>{1, 1, 1}; }
  std::vector<ContractRelation> requires_;
};

/// A parse error: `offset` is the byte in the contract text where the problem starts.
struct ContractError {
  std::size_t offset = 0;
  std::string message;
};

/// Resolves a parameter name used in `requires`; std::nullopt when no parameter has that name.
using ContractNameResolver = std::function<std::optional<ContractParam>(std::string_view)>;

/// What a name that is not a parameter stands for: a constant's value, or why it has none.
struct ContractConstant {
  std::optional<std::uint64_t> value;
  std::string error;    ///< when there is no value: what is wrong and how to fix it
  bool unknown = false; ///< no constant has the name: `n<m>` is then a comparison, not a template
};
/// Resolves a constant name (`kBlock`, `Policy::kThreads`) starting at byte `offset` of the text.
using ContractConstantResolver = std::function<ContractConstant(std::string_view name, std::size_t offset)>;

inline std::optional<std::uint64_t> evaluate_contract_expression(const Contract &c, std::uint32_t node,
                                                                 std::span<const ContractOperand> operands);

namespace contract_impl {

/// One past the `>` that closes the template argument list opening at text[open] (a '<'), or
/// npos where none closes it before a `=` (a relation or a field), an unmatched `)` or the end:
/// `kSharedBytes<Config, 2>` in `dynamic_shared = kSharedBytes<Config, 2>`.
inline std::size_t template_arguments_end(std::string_view text, std::size_t open) {
  int angles = 0, parens = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    switch (text[i]) {
    case '<':
      ++angles;
      break;
    case '>':
      if (i + 1 < text.size() && text[i + 1] == '=')
        return std::string_view::npos; // `>=`: a relation
      if (--angles == 0)
        return parens == 0 ? i + 1 : std::string_view::npos;
      break;
    case '(':
      ++parens;
      break;
    case ')':
      if (--parens < 0)
        return std::string_view::npos;
      break;
    case '=':
      return std::string_view::npos;
    default:
      break;
    }
  }
  return std::string_view::npos;
}

inline constexpr std::uint32_t kMaxBlockThreads = 1024;
/// The portable cluster size limit: every GPU with clusters runs clusters of up to 8 blocks.
inline constexpr std::uint32_t kMaxClusterBlocks = 8;

class Parser {
public:
  Parser(std::string_view text, const ContractNameResolver &resolve,
         const ContractConstantResolver &resolve_constant)
      : text_(text), resolve_(resolve), resolve_constant_(resolve_constant) {}

  std::variant<Contract, ContractError> parse() {
    Contract c;
    bool seen[7] = {};
    skip_space();
    if (at_end())
      return error(0, "empty launch contract; at least 'domain = 1|2|3' is required");
    while (true) {
      skip_space();
      const std::size_t field_start = pos_;
      const std::string_view name = identifier();
      if (name.empty())
        return error(pos_, "expected a field name (domain, block, dynamic_shared, min_compute_capability, "
                           "cluster, cooperative, requires)");
      int slot = name == "domain"                   ? 0
                 : name == "block"                  ? 1
                 : name == "dynamic_shared"         ? 2
                 : name == "min_compute_capability" ? 3
                 : name == "requires"               ? 4
                 : name == "cluster"                ? 5
                 : name == "cooperative"            ? 6
                                                    : -1;
      if (slot < 0)
        return error(field_start, "unknown contract field '" + std::string(name) +
                                      "'; the fields are domain, block, dynamic_shared, "
                                      "min_compute_capability, cluster, cooperative and requires");
      if (seen[slot])
        return error(field_start, "field '" + std::string(name) + "' is given twice");
      seen[slot] = true;
      skip_space();
      if (!consume('='))
        return error(pos_, "expected '=' after '" + std::string(name) + "'");
      std::optional<ContractError> err;
      switch (slot) {
      case 0:
        err = parse_domain(c);
        break;
      case 1:
        err = parse_block(c, field_start);
        break;
      case 2:
        err = parse_dynamic_shared(c);
        break;
      case 3:
        err = parse_min_cc(c);
        break;
      case 4:
        err = parse_requires(c);
        break;
      case 5:
        cluster_offset_ = field_start;
        err = parse_cluster(c);
        break;
      case 6:
        err = parse_cooperative(c);
        break;
      }
      if (err)
        return *err;
      skip_space();
      if (at_end())
        break;
      if (!consume(','))
        return error(pos_, "expected ',' between contract fields");
    }
    if (!seen[0])
      return error(0,
                   "the launch contract has no 'domain'; add 'domain = 1', 2 or 3 (the rank of the launch)");
    if (c.block) {
      for (std::uint32_t d = c.domain; d < 3; ++d)
        if ((*c.block)[d] != 1)
          return error(block_offset_, "block has more dimensions than the domain (" +
                                          std::to_string(c.domain) + "); give " + std::to_string(c.domain) +
                                          " extents");
    }
    for (std::uint32_t d = c.domain; d < 3; ++d)
      if (c.cluster[d] != 1)
        return error(cluster_offset_, "cluster has more dimensions than the domain (" +
                                          std::to_string(c.domain) + "); give " + std::to_string(c.domain) +
                                          " extents");
    if (c.has_cluster() && c.cooperative)
      return error(cluster_offset_, "a kernel cannot be both launched in clusters and cooperative; the CUDA "
                                    "driver launches one or the other");
    return c;
  }

private:
  static std::variant<Contract, ContractError> error(std::size_t offset, std::string message) {
    return ContractError{offset, std::move(message)};
  }
  static ContractError err(std::size_t offset, std::string message) { return {offset, std::move(message)}; }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool consume(char ch) {
    skip_space();
    if (peek() != ch)
      return false;
    ++pos_;
    return true;
  }
  bool consume(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    pos_ += token.size();
    return true;
  }
  std::string_view identifier() {
    skip_space();
    const std::size_t start = pos_;
    if (!at_end() && (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '$'))
      ++pos_;
    else
      return {};
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_'))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  /// `name`, `Scope::name` or `::Scope::name`: a parameter or a constant of the kernel's scope.
  std::string_view qualified_name() {
    skip_space();
    const std::size_t start = pos_;
    if (text_.substr(pos_, 2) == "::")
      pos_ += 2;
    while (true) {
      if (identifier().empty()) {
        pos_ = start;
        return {};
      }
      // Another component follows only as `::name`.
      if (text_.substr(pos_, 2) != "::" || pos_ + 2 >= text_.size() ||
          !(std::isalpha(static_cast<unsigned char>(text_[pos_ + 2])) || text_[pos_ + 2] == '_'))
        break;
      pos_ += 2;
    }
    // A variable template's value (`kSharedBytes<C>`, the `<` right after the name) where a
    // constant has that spelling; otherwise the `<` is a comparison.
    if (peek() == '<' && resolve_constant_) {
      const std::string_view base = text_.substr(start, pos_ - start);
      const std::size_t end = template_arguments_end(text_, pos_);
      const bool param = base.find(':') == std::string_view::npos && resolve_ && resolve_(base);
      if (end != std::string_view::npos && !param &&
          !resolve_constant_(text_.substr(start, end - start), start).unknown)
        pos_ = end;
    }
    return text_.substr(start, pos_ - start);
  }
  static bool starts_name(char ch) {
    return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_' || ch == ':';
  }
  /// The value of constant `name` at `start`, which must be at most `max`.
  std::optional<std::uint64_t> constant(std::string_view name, std::size_t start, std::uint64_t max,
                                        std::optional<ContractError> &failure) {
    if (!resolve_constant_) {
      failure = err(start, "expected a number, not '" + std::string(name) + "'");
      return std::nullopt;
    }
    ContractConstant c = resolve_constant_(name, start);
    if (!c.value) {
      failure = err(start, std::move(c.error));
      return std::nullopt;
    }
    if (*c.value > max) {
      failure = err(start, "number is too large (at most " + std::to_string(max) + "): '" +
                               std::string(name) + "' is " + std::to_string(*c.value));
      return std::nullopt;
    }
    return c.value;
  }
  /// A decimal integer or a named constant, at most `max`.
  std::optional<std::uint64_t> number(std::uint64_t max, std::optional<ContractError> &failure) {
    skip_space();
    const std::size_t start = pos_;
    if (starts_name(peek()))
      if (const std::string_view name = qualified_name(); !name.empty())
        return constant(name, start, max, failure);
    return integer(max, failure);
  }

  /// An unsigned decimal integer that fits in `max`.
  std::optional<std::uint64_t> integer(std::uint64_t max, std::optional<ContractError> &failure) {
    skip_space();
    const std::size_t start = pos_;
    std::uint64_t value = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) {
      const std::uint64_t digit = static_cast<std::uint64_t>(peek() - '0');
      if (value > (max - digit) / 10) {
        failure = err(start, "number is too large (at most " + std::to_string(max) + ")");
        return std::nullopt;
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) {
      failure = err(start, "expected a number");
      return std::nullopt;
    }
    return value;
  }

  std::optional<ContractError> parse_domain(Contract &c) {
    std::optional<ContractError> failure;
    const std::size_t start = (skip_space(), pos_);
    auto v = number(UINT32_MAX, failure);
    if (!v)
      return failure;
    if (*v < 1 || *v > 3)
      return err(start, "domain must be 1, 2 or 3 (the rank of the launch), not " + std::to_string(*v));
    c.domain = static_cast<std::uint32_t>(*v);
    return std::nullopt;
  }

  std::optional<ContractError> parse_block(Contract &c, std::size_t field_start) {
    block_offset_ = field_start;
    std::optional<ContractError> failure;
    std::array<std::uint32_t, 3> extents = {1, 1, 1};
    skip_space();
    const std::size_t start = pos_;
    if (consume('(')) {
      for (int d = 0; d < 3; ++d) {
        const std::size_t at = (skip_space(), pos_);
        auto v = number(kMaxBlockThreads, failure);
        if (!v)
          return failure;
        if (*v == 0)
          return err(at, "block extents must be at least 1");
        extents[d] = static_cast<std::uint32_t>(*v);
        if (consume(')'))
          break;
        if (d == 2 || !consume(','))
          return err(pos_, "expected ',' or ')' in block = (x, y, z)");
      }
    } else {
      auto v = number(kMaxBlockThreads, failure);
      if (!v)
        return failure;
      if (*v == 0)
        return err(start, "block extents must be at least 1");
      extents[0] = static_cast<std::uint32_t>(*v);
    }
    if (std::uint64_t(extents[0]) * extents[1] * extents[2] > kMaxBlockThreads)
      return err(start, "block has " + std::to_string(std::uint64_t(extents[0]) * extents[1] * extents[2]) +
                            " threads; a block holds at most 1024");
    c.block = extents;
    return std::nullopt;
  }

  /// cluster = (x, y, z) or cluster = x: blocks per thread-block cluster, at most 8 in all.
  std::optional<ContractError> parse_cluster(Contract &c) {
    std::optional<ContractError> failure;
    std::array<std::uint32_t, 3> extents = {1, 1, 1};
    skip_space();
    const std::size_t start = pos_;
    const bool list = consume('(');
    for (int d = 0; d < 3; ++d) {
      const std::size_t at = (skip_space(), pos_);
      auto v = number(kMaxClusterBlocks, failure);
      if (!v)
        return failure->message.starts_with("number is too large")
                   ? err(at,
                         "a cluster holds at most 8 blocks (the portable limit of every GPU with clusters)")
                   : failure;
      if (*v == 0)
        return err(at, "cluster extents must be at least 1");
      extents[d] = static_cast<std::uint32_t>(*v);
      if (!list || consume(')'))
        break;
      if (d == 2 || !consume(','))
        return err(pos_, "expected ',' or ')' in cluster = (x, y, z)");
    }
    if (extents[0] * extents[1] * extents[2] > kMaxClusterBlocks)
      return err(start,
                 "cluster has " + std::to_string(extents[0] * extents[1] * extents[2]) +
                     " blocks; a cluster holds at most 8 (the portable limit of every GPU with clusters)");
    c.cluster = extents;
    return std::nullopt;
  }

  std::optional<ContractError> parse_cooperative(Contract &c) {
    const std::size_t at = (skip_space(), pos_);
    const std::string_view value = identifier();
    if (value != "true" && value != "false")
      return err(at, "expected cooperative = true or cooperative = false");
    c.cooperative = value == "true";
    return std::nullopt;
  }

  /// dynamic_shared = N, N..M, or an expression over the arguments (`4 * tile`, exactly that many
  /// bytes; `n * 4..M`, at least that many and at most M). An expression of constants alone is a
  /// number.
  std::optional<ContractError> parse_dynamic_shared(Contract &c) {
    std::optional<ContractError> failure;
    const std::size_t start = (skip_space(), pos_);
    const std::size_t nodes_before = c.nodes.size();
    auto root = expression(c, failure);
    if (!root)
      return failure;
    const bool reads_arguments = std::any_of(c.nodes.begin() + static_cast<std::ptrdiff_t>(nodes_before),
                                             c.nodes.end(), [](const ContractNode &n) {
                                               return n.kind == ContractNode::Kind::Size ||
                                                      n.kind == ContractNode::Kind::Scalar ||
                                                      n.kind == ContractNode::Kind::Extent;
                                             });
    std::uint64_t lo = 0;
    if (!reads_arguments) {
      const auto value = evaluate_constant(c, *root);
      c.nodes.resize(nodes_before); // a number: no expression to keep
      if (!value)
        return err(start, "dynamic_shared cannot be evaluated: its arithmetic overflows 64 bits, goes below "
                          "zero or divides by zero");
      if (*value > UINT32_MAX)
        return err(start, "number is too large (at most " + std::to_string(UINT32_MAX) +
                              "): dynamic_shared is " + std::to_string(*value) + " bytes");
      lo = *value;
    }
    std::uint64_t hi = reads_arguments ? UINT32_MAX : lo;
    const bool range = consume("..");
    if (range) {
      skip_space();
      const std::size_t hi_at = pos_;
      const auto not_a_number = [&] {
        return err(hi_at, "the upper bound of dynamic_shared = lo..hi must be a number; only the lower bound "
                          "(or an exact size, dynamic_shared = expression) may depend on the arguments");
      };
      if (peek() == '$' || peek() == '(' || (starts_name(peek()) && resolve_(peek_name())))
        return not_a_number();
      auto v = number(UINT32_MAX, failure);
      if (!v)
        return failure;
      if (skip_space(), std::string_view("+-*/%").find(peek()) != std::string_view::npos && !at_end())
        return not_a_number();
      hi = *v;
      if (hi < lo)
        return err(start,
                   "dynamic_shared range " + std::to_string(lo) + ".." + std::to_string(hi) + " is empty");
    }
    c.dynamic_shared_min = static_cast<std::uint32_t>(lo);
    c.dynamic_shared_max = static_cast<std::uint32_t>(hi);
    if (reads_arguments) {
      c.dynamic_shared_expr = *root;
      c.dynamic_shared_exact = !range;
    }
    return std::nullopt;
  }

  /// The unqualified name at the current position, without consuming it.
  std::string_view peek_name() {
    const std::size_t at = pos_;
    const std::string_view name = identifier();
    pos_ = at;
    return name;
  }

  /// The value of an expression of literals alone.
  static std::optional<std::uint64_t> evaluate_constant(const Contract &c, std::uint32_t node) {
    return evaluate_contract_expression(c, node, {});
  }

  std::optional<ContractError> parse_min_cc(Contract &c) {
    std::optional<ContractError> failure;
    if (!consume('('))
      return err(pos_, "expected min_compute_capability = (major, minor)");
    auto major = number(99, failure);
    if (!major)
      return failure;
    if (!consume(','))
      return err(pos_, "expected ',' in min_compute_capability = (major, minor)");
    auto minor = number(9, failure);
    if (!minor)
      return failure;
    if (!consume(')'))
      return err(pos_, "expected ')' after min_compute_capability = (major, minor)");
    c.min_cc_major = static_cast<std::uint32_t>(*major);
    c.min_cc_minor = static_cast<std::uint32_t>(*minor);
    return std::nullopt;
  }

  std::optional<ContractError> parse_requires(Contract &c) {
    if (!consume('('))
      return err(pos_, "expected requires = (relation, ...)");
    while (true) {
      skip_space();
      const std::size_t start = pos_;
      ContractRelation rel;
      std::optional<ContractError> failure;
      auto lhs = expression(c, failure);
      if (!lhs)
        return failure;
      skip_space();
      const std::size_t op_at = pos_;
      if (consume("=="))
        rel.op = ContractRelation::Op::Eq;
      else if (consume("!="))
        rel.op = ContractRelation::Op::Ne;
      else if (consume("<="))
        rel.op = ContractRelation::Op::Le;
      else if (consume(">="))
        rel.op = ContractRelation::Op::Ge;
      else if (consume('<'))
        rel.op = ContractRelation::Op::Lt;
      else if (consume('>'))
        rel.op = ContractRelation::Op::Gt;
      else
        return err(op_at, "expected a comparison (==, !=, <, <=, >, >=) in a requires relation");
      auto rhs = expression(c, failure);
      if (!rhs)
        return failure;
      rel.lhs = *lhs;
      rel.rhs = *rhs;
      std::string_view written = text_.substr(start, pos_ - start);
      while (!written.empty() && std::isspace(static_cast<unsigned char>(written.back())))
        written.remove_suffix(1);
      rel.text = std::string(written);
      c.requires_.push_back(std::move(rel));
      if (consume(')'))
        return std::nullopt;
      if (!consume(','))
        return err(pos_, "expected ',' or ')' in requires = (...)");
    }
  }

  // Limits that keep every recursive walk of a contract (this parser, the canonical writer, the
  // evaluator, the compiler's lowering of `requires`) far from the end of the stack. A launch
  // contract states a few relations between sizes; these are hundreds of times what one needs.
  static constexpr std::uint32_t kMaxNesting = 32;
  static constexpr std::size_t kMaxNodes = 512;

  std::optional<std::uint32_t> add_node(Contract &c, ContractNode node, std::size_t at,
                                        std::optional<ContractError> &failure) {
    if (c.nodes.size() >= kMaxNodes) {
      failure = err(at, "requires = (...) has more than " + std::to_string(kMaxNodes) +
                            " numbers, names and operators; state a few relations between sizes "
                            "and compute the rest in host code");
      return std::nullopt;
    }
    // Operators nest as deep as their chain is long (`n + n + n` is ((n + n) + n)), and the
    // canonical text writes each with its parentheses: the same limit, so that it parses again.
    const bool binary = node.kind == ContractNode::Kind::Add || node.kind == ContractNode::Kind::Sub ||
                        node.kind == ContractNode::Kind::Mul || node.kind == ContractNode::Kind::Div ||
                        node.kind == ContractNode::Kind::Mod;
    const std::uint32_t depth = binary ? 1 + std::max(depths_[node.lhs], depths_[node.rhs]) : 0;
    if (depth > kMaxNesting) {
      failure = err(at, "operators nested more than " + std::to_string(kMaxNesting) +
                            " deep in a requires expression (each operator of a chain counts); simplify it");
      return std::nullopt;
    }
    c.nodes.push_back(node);
    depths_.resize(c.nodes.size());
    depths_.back() = depth;
    return static_cast<std::uint32_t>(c.nodes.size() - 1);
  }

  std::optional<std::uint32_t> expression(Contract &c, std::optional<ContractError> &failure) {
    auto lhs = term(c, failure);
    while (lhs) {
      skip_space();
      ContractNode::Kind kind;
      if (peek() == '+')
        kind = ContractNode::Kind::Add;
      else if (peek() == '-')
        kind = ContractNode::Kind::Sub;
      else
        break;
      const std::size_t op_at = pos_++;
      auto rhs = term(c, failure);
      if (!rhs)
        return std::nullopt;
      lhs = add_node(c, {kind, 0, *lhs, *rhs}, op_at, failure);
    }
    return lhs;
  }

  std::optional<std::uint32_t> term(Contract &c, std::optional<ContractError> &failure) {
    auto lhs = factor(c, failure);
    while (lhs) {
      skip_space();
      ContractNode::Kind kind;
      if (peek() == '*')
        kind = ContractNode::Kind::Mul;
      else if (peek() == '/')
        kind = ContractNode::Kind::Div;
      else if (peek() == '%')
        kind = ContractNode::Kind::Mod;
      else
        break;
      const std::size_t op_at = pos_++;
      auto rhs = factor(c, failure);
      if (!rhs)
        return std::nullopt;
      lhs = add_node(c, {kind, 0, *lhs, *rhs}, op_at, failure);
    }
    return lhs;
  }

  std::optional<std::uint32_t> factor(Contract &c, std::optional<ContractError> &failure) {
    skip_space();
    const std::size_t start = pos_;
    if (consume('(')) {
      if (nesting_ == kMaxNesting) {
        failure = err(start, "parentheses nested more than " + std::to_string(kMaxNesting) +
                                 " deep in a requires expression; simplify it");
        return std::nullopt;
      }
      ++nesting_;
      auto inner = expression(c, failure);
      --nesting_;
      if (!inner)
        return std::nullopt;
      if (!consume(')')) {
        failure = err(pos_, "expected ')'");
        return std::nullopt;
      }
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(peek()))) {
      auto v = integer(UINT64_MAX, failure);
      if (!v)
        return std::nullopt;
      return add_node(c, {ContractNode::Kind::Literal, *v}, start, failure);
    }
    const std::string_view name = qualified_name();
    if (name.empty()) {
      failure = err(start, "expected a parameter name, 'name.size()' or a number");
      return std::nullopt;
    }
    const bool size = consume(".size()");
    std::optional<std::uint8_t> axis;
    for (std::uint8_t a = 0; a < 3 && !size && !axis; ++a)
      if (consume("." + std::string(kContractExtentNames[a]) + "()"))
        axis = a;
    const bool qualified = name.find(':') != std::string_view::npos;
    auto param = qualified ? std::nullopt : resolve_(name);
    if (!param && resolve_constant_ && !size && !axis) {
      auto value = constant(name, start, UINT64_MAX, failure);
      if (!value)
        return std::nullopt;
      return add_node(c, {ContractNode::Kind::Literal, *value}, start, failure);
    }
    if (!param) {
      failure = err(start, "'" + std::string(name) + "' is not a parameter of this kernel");
      return std::nullopt;
    }
    if (!param->unusable_reason.empty()) {
      failure = err(start, param->unusable_reason);
      return std::nullopt;
    }
    if (axis) {
      const char *extent = kContractExtentNames[*axis];
      if (!param->dependent && !param->is_span) {
        failure = err(start, "'" + std::string(name) + "' is not a span; '." + extent +
                                 "()' applies to DisjointSpan2D and DisjointSpan3D parameters");
        return std::nullopt;
      }
      if (!param->dependent && param->rank != 0 && param->rank <= *axis) {
        failure = err(start, "'" + std::string(name) + "' is a " + std::to_string(param->rank) +
                                 "-D span, which has no " + extent +
                                 (param->rank == 1 ? "; compare '" : "; use '") + std::string(name) +
                                 (param->rank == 1 ? ".size()'" : ".width()' or '.height()'"));
        return std::nullopt;
      }
      ContractNode node{ContractNode::Kind::Extent, param->index};
      node.axis = *axis;
      return add_node(c, node, start, failure);
    }
    if (param->dependent)
      return add_node(c, {size ? ContractNode::Kind::Size : ContractNode::Kind::Scalar, param->index}, start,
                      failure);
    if (size && !param->is_span) {
      failure = err(start, "'" + std::string(name) +
                               "' is not a span; '.size()' applies to Span and DisjointSpan parameters");
      return std::nullopt;
    }
    if (!size && param->is_span) {
      failure = err(start, "'" + std::string(name) + "' is a span; compare its size with '" +
                               std::string(name) + ".size()'");
      return std::nullopt;
    }
    return add_node(c, {size ? ContractNode::Kind::Size : ContractNode::Kind::Scalar, param->index}, start,
                    failure);
  }

  std::string_view text_;
  const ContractNameResolver &resolve_;
  const ContractConstantResolver &resolve_constant_;
  std::size_t pos_ = 0;
  std::uint32_t nesting_ = 0;         ///< open parentheses around the current factor
  std::vector<std::uint32_t> depths_; ///< each node's operator depth, as add_node made it
  std::size_t block_offset_ = 0;
  std::size_t cluster_offset_ = 0;
};

/// Writes an expression with parameter `i` spelled `names[i]` (or `$i` when names is empty).
inline void write_expression(const Contract &c, std::uint32_t node, const std::vector<std::string> &names,
                             std::string &out) {
  const ContractNode &n = c.nodes[node];
  auto name = [&](std::uint64_t i) { return i < names.size() ? names[i] : "$" + std::to_string(i); };
  switch (n.kind) {
  case ContractNode::Kind::Literal:
    out += std::to_string(n.value);
    return;
  case ContractNode::Kind::Size:
    out += name(n.value) + ".size()";
    return;
  case ContractNode::Kind::Scalar:
    out += name(n.value);
    return;
  case ContractNode::Kind::Extent:
    out += name(n.value) + "." + kContractExtentNames[n.axis % 3] + "()";
    return;
  default:
    out += '(';
    write_expression(c, n.lhs, names, out);
    out += n.kind == ContractNode::Kind::Add   ? " + "
           : n.kind == ContractNode::Kind::Sub ? " - "
           : n.kind == ContractNode::Kind::Mul ? " * "
           : n.kind == ContractNode::Kind::Div ? " / "
                                               : " % ";
    write_expression(c, n.rhs, names, out);
    out += ')';
  }
}

inline constexpr const char *kRelationOps[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};

} // namespace contract_impl

/// Parses contract text written by a user; `resolve` maps parameter names, `resolve_constant`
/// (when given) the other names, which then stand for numbers.
inline std::variant<Contract, ContractError>
parse_contract(std::string_view text, const ContractNameResolver &resolve,
               const ContractConstantResolver &resolve_constant = {}) {
  return contract_impl::Parser(text, resolve, resolve_constant).parse();
}

/// A name that a user's contract text refers to, and the byte where it is first used.
struct ContractName {
  std::string_view name;
  std::size_t offset = 0;
  /// A template's name or one of its arguments (`kBytes`, `C` in `kBytes<C>`): the parser asks
  /// for them only if `kBytes<C>` names no constant, so a failed lookup is not yet an error.
  bool in_template_id = false;
};

/// The names of a user's contract text that stand for values: parameters and constants, in
/// order of first use, each once. Field names, `true`/`false` and `.size()` are not values. The
/// compiler looks these up before parsing, where the kernel is declared: a kernel template's are
/// looked up once and evaluated per instantiation.
inline std::vector<ContractName> contract_names(std::string_view text) {
  std::vector<ContractName> names;
  auto alpha = [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; };
  auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  std::size_t pos = 0;
  std::size_t template_id_end = 0; // names before it belong to a template-id candidate
  char previous = '\0';            // the last character before pos that is not a space
  auto add = [&](std::string_view name, std::size_t at, bool in_template_id) {
    auto same =
        std::find_if(names.begin(), names.end(), [&](const ContractName &n) { return n.name == name; });
    if (same == names.end())
      names.push_back({name, at, in_template_id});
    else
      same->in_template_id = same->in_template_id && in_template_id;
  };
  while (pos < text.size()) {
    const char ch = text[pos];
    const bool starts =
        alpha(ch) || (text.substr(pos, 2) == "::" && pos + 2 < text.size() && alpha(text[pos + 2]));
    if (!starts || std::isdigit(static_cast<unsigned char>(previous))) {
      if (!std::isspace(static_cast<unsigned char>(ch)))
        previous = ch;
      ++pos;
      continue;
    }
    const std::size_t start = pos;
    while (true) {
      if (text.substr(pos, 2) == "::")
        pos += 2;
      while (pos < text.size() && alnum(text[pos]))
        ++pos;
      if (text.substr(pos, 2) != "::" || pos + 2 >= text.size() || !alpha(text[pos + 2]))
        break;
    }
    const std::string_view name = text.substr(start, pos - start);
    std::size_t next = pos;
    while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next])))
      ++next;
    const bool field = next < text.size() && text[next] == '=' && text.substr(next, 2) != "==";
    const bool accessor =
        previous == '.' && (name == "size" || name == "width" || name == "height" || name == "depth");
    if (!field && !accessor && name != "true" && name != "false") {
      const std::size_t end = pos < text.size() && text[pos] == '<'
                                  ? contract_impl::template_arguments_end(text, pos)
                                  : std::string_view::npos;
      if (end != std::string_view::npos) {
        add(text.substr(start, end - start), start, true);
        template_id_end = std::max(template_id_end, end);
      }
      add(name, start, start < template_id_end);
    }
    previous = text[pos - 1];
  }
  return names;
}

/// A relation as text, with parameter i spelled names[i] ("a.size() == c.size()").
inline std::string render_contract_relation(const Contract &c, const ContractRelation &r,
                                            const std::vector<std::string> &names) {
  std::string out;
  contract_impl::write_expression(c, r.lhs, names, out);
  out += contract_impl::kRelationOps[static_cast<int>(r.op)];
  contract_impl::write_expression(c, r.rhs, names, out);
  return out;
}

/// The canonical text of a contract: names replaced by `$index`, every field explicit.
/// parse_canonical_contract(canonical_contract(c)) gives back an equivalent contract.
inline std::string canonical_contract(const Contract &c) {
  std::string out = "domain = " + std::to_string(c.domain);
  if (c.block)
    out += ", block = (" + std::to_string((*c.block)[0]) + ", " + std::to_string((*c.block)[1]) + ", " +
           std::to_string((*c.block)[2]) + ")";
  if (c.dynamic_shared_expr) {
    out += ", dynamic_shared = ";
    contract_impl::write_expression(c, *c.dynamic_shared_expr, {}, out);
    if (!c.dynamic_shared_exact)
      out += ".." + std::to_string(c.dynamic_shared_max);
  } else {
    out += ", dynamic_shared = " + std::to_string(c.dynamic_shared_min) + ".." +
           std::to_string(c.dynamic_shared_max);
  }
  if (c.min_cc_major != 0 || c.min_cc_minor != 0)
    out += ", min_compute_capability = (" + std::to_string(c.min_cc_major) + ", " +
           std::to_string(c.min_cc_minor) + ")";
  if (c.has_cluster())
    out += ", cluster = (" + std::to_string(c.cluster[0]) + ", " + std::to_string(c.cluster[1]) + ", " +
           std::to_string(c.cluster[2]) + ")";
  if (c.cooperative)
    out += ", cooperative = true";
  if (!c.requires_.empty()) {
    out += ", requires = (";
    for (std::size_t i = 0; i < c.requires_.size(); ++i) {
      const ContractRelation &r = c.requires_[i];
      if (i)
        out += ", ";
      out += render_contract_relation(c, r, {});
    }
    out += ')';
  }
  return out;
}

/// Parses the canonical text stored in a device image: names are `$index`; whether `$i` is a
/// span is given by `param_is_span` (the kernel's parameter kinds).
inline std::variant<Contract, ContractError>
parse_canonical_contract(std::string_view text, const std::vector<bool> &param_is_span) {
  return parse_contract(text, [&](std::string_view name) -> std::optional<ContractParam> {
    if (name.size() < 2 || name[0] != '$')
      return std::nullopt;
    std::uint32_t index = 0;
    for (char ch : name.substr(1)) {
      if (ch < '0' || ch > '9')
        return std::nullopt;
      index = index * 10 + static_cast<std::uint32_t>(ch - '0');
    }
    if (index >= param_is_span.size())
      return std::nullopt;
    return ContractParam{index, param_is_span[index], {}};
  });
}

/// The value of a `requires` expression given each parameter's operand (`operands[i]`: a span's
/// size and extents, a scalar's value); std::nullopt when the arithmetic overflows, goes below
/// zero or divides by zero. `/` and `%` are unsigned integer division (rounding down) and its
/// remainder.
inline std::optional<std::uint64_t> evaluate_contract_expression(const Contract &c, std::uint32_t node,
                                                                 std::span<const ContractOperand> operands) {
  const ContractNode &n = c.nodes[node];
  switch (n.kind) {
  case ContractNode::Kind::Literal:
    return n.value;
  case ContractNode::Kind::Size:
  case ContractNode::Kind::Scalar:
    return n.value < operands.size() ? std::optional<std::uint64_t>(operands[n.value].value) : std::nullopt;
  case ContractNode::Kind::Extent:
    return n.value < operands.size() && n.axis < 3
               ? std::optional<std::uint64_t>(operands[n.value].extents[n.axis])
               : std::nullopt;
  default:
    break;
  }
  auto lhs = evaluate_contract_expression(c, n.lhs, operands);
  auto rhs = evaluate_contract_expression(c, n.rhs, operands);
  if (!lhs || !rhs)
    return std::nullopt;
  std::uint64_t result = 0;
  switch (n.kind) {
  case ContractNode::Kind::Add:
    return __builtin_add_overflow(*lhs, *rhs, &result) ? std::nullopt : std::optional(result);
  case ContractNode::Kind::Sub:
    return __builtin_sub_overflow(*lhs, *rhs, &result) ? std::nullopt : std::optional(result);
  case ContractNode::Kind::Mul:
    return __builtin_mul_overflow(*lhs, *rhs, &result) ? std::nullopt : std::optional(result);
  case ContractNode::Kind::Div:
    return *rhs == 0 ? std::nullopt : std::optional(*lhs / *rhs);
  case ContractNode::Kind::Mod:
    return *rhs == 0 ? std::nullopt : std::optional(*lhs % *rhs);
  default:
    return std::nullopt;
  }
}

/// Whether relation `r` holds; std::nullopt when its arithmetic overflows.
inline std::optional<bool> evaluate_contract_relation(const Contract &c, const ContractRelation &r,
                                                      std::span<const ContractOperand> operands) {
  auto lhs = evaluate_contract_expression(c, r.lhs, operands);
  auto rhs = evaluate_contract_expression(c, r.rhs, operands);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (r.op) {
  case ContractRelation::Op::Eq:
    return *lhs == *rhs;
  case ContractRelation::Op::Ne:
    return *lhs != *rhs;
  case ContractRelation::Op::Lt:
    return *lhs < *rhs;
  case ContractRelation::Op::Le:
    return *lhs <= *rhs;
  case ContractRelation::Op::Gt:
    return *lhs > *rhs;
  case ContractRelation::Op::Ge:
    return *lhs >= *rhs;
  }
  return std::nullopt;
}

} // namespace oxide::detail
