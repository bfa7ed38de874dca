// oxide::Graph: stream capture into CUDA graphs on a GPU, recording and replay on the simulator,
// and the capture bookkeeping the other stream operations consult (stream_state.hpp).
#include "oxide/host/graph.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "graph_capture.hpp"
#include "oxide/detail/host/launch_core.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/stream.hpp"
#include "sim/launch.hpp"
#include "stream_state.hpp"

namespace oxide {

namespace detail {

/// An instantiated graph: the CUgraphExec and its CUgraph, or the simulator's recorded operations.
struct GraphState {
  std::shared_ptr<ContextState> context;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<std::function<void()>> operations; ///< simulator
  /// Host callbacks' callables (and, on the simulator, graphs launched during the capture).
  std::vector<std::shared_ptr<void>> keep_alive;
  /// The buffers the captured launches use (allocation ids, distinct) and who uses each
  /// ("argument 1 of kernel 'fill'"): launch() checks that each still holds that memory.
  std::vector<std::uint64_t> allocations;
  std::vector<std::string> allocation_users;

  GraphState() = default;
  GraphState(const GraphState &) = delete;
  GraphState &operator=(const GraphState &) = delete;
  ~GraphState() {
    if (!graph && !exec)
      return;
    const DriverApi &api = loaded_driver_api(); // a CUgraph exists, so the driver is loaded
    if (api.cuCtxPushCurrent(context->handle()) != CUDA_SUCCESS)
      return;
    // A launch still in flight finishes after cuGraphExecDestroy, but its host callbacks use the
    // callables freed with this state: wait for it first.
    if (exec && !keep_alive.empty())
      (void)api.cuCtxSynchronize();
    if (exec)
      (void)api.cuGraphExecDestroy(exec);
    if (graph)
      (void)api.cuGraphDestroy(graph);
    CUcontext popped = nullptr;
    (void)api.cuCtxPopCurrent(&popped);
  }
};

namespace {

/// The capture the calling thread runs (Graph::capture's body), innermost first.
thread_local CaptureScope *current_capture = nullptr;

constexpr const char *kCaptureRules =
    "while Graph::capture records a stream, its body may only enqueue work: it may not synchronize or "
    "query the stream or the context, copy to the host synchronously (use copy_to_async), allocate or "
    "free memory, or use the default stream";

bool is_capture_error(int code) noexcept {
  return code >= CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED && code <= CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
}

std::string_view without_prefix(std::string_view what) {
  if (what.starts_with("oxide: "))
    what.remove_prefix(7);
  return what;
}

/// The body's exception, with a driver error of the capture turned into GraphCapture.
[[noreturn]] void rethrow_body_failure(const std::exception_ptr &failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error &e) {
    if (e.kind() == ErrorKind::Driver && is_capture_error(e.driver_error_code()))
      throw Error(ErrorKind::GraphCapture,
                  fmt::format("Graph::capture: {}; {}", without_prefix(e.what()), kCaptureRules));
    throw;
  }
}

std::string driver_error_name(CUresult result) {
  const char *name = nullptr;
  if (loaded_driver_api().cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return fmt::format("CUDA error {}", static_cast<int>(result));
  return name;
}

/// A simulated launch recorded during a capture: the kernel and a copy of its parameter values.
class RecordedLaunch {
public:
  RecordedLaunch(const PreparedKernel &kernel, void *const *arguments) : kernel_(kernel) {
    const std::vector<ParamLayout> &params = kernel.kernel->info->params;
    std::vector<std::size_t> offsets;
    offsets.reserve(params.size());
    std::size_t offset = 0;
    for (const ParamLayout &param : params) {
      const std::size_t align = std::max<std::size_t>(param.align, 1);
      offset = (offset + align - 1) / align * align;
      offsets.push_back(offset);
      offset += param.size;
      alignment_ = std::max(alignment_, align);
    }
    storage_ = static_cast<std::byte *>(
        ::operator new(std::max<std::size_t>(offset, 1), std::align_val_t(alignment_)));
    pointers_.reserve(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      std::memcpy(storage_ + offsets[i], arguments[i], params[i].size);
      pointers_.push_back(storage_ + offsets[i]);
    }
  }
  RecordedLaunch(const RecordedLaunch &) = delete;
  RecordedLaunch &operator=(const RecordedLaunch &) = delete;
  ~RecordedLaunch() { ::operator delete(storage_, std::align_val_t(alignment_)); }

  void run() const { sim::launch(kernel_, pointers_.data()); }

private:
  PreparedKernel kernel_;
  std::size_t alignment_ = alignof(std::max_align_t);
  std::byte *storage_ = nullptr;
  std::vector<void *> pointers_;
};

} // namespace

CaptureScope *thread_capture() noexcept { return current_capture; }

CaptureScope *capture_in_progress(const StreamState *order) noexcept {
  if (current_capture) [[unlikely]]
    return current_capture;
  return order ? order->capture.load(std::memory_order_acquire) : nullptr;
}

void defer_free(CaptureScope &capture, const std::function<void()> &free, const char *what) noexcept {
  try {
    std::lock_guard lock(capture.deferred_mutex);
    capture.deferred_frees.push_back(free);
    if (capture.freed_what.empty())
      capture.freed_what = what;
  } catch (...) {
    free(); // no memory to defer it: free now (a GPU capture then fails, having been invalidated)
  }
}

void check_not_capturing(const Stream &stream, std::string_view operation, std::string_view advice) {
  if (!stream_capture(stream)) [[likely]]
    return;
  throw Error(ErrorKind::GraphCapture,
              fmt::format("{} is not allowed while the stream is being captured into a graph{}{}", operation,
                          advice.empty() ? "" : "; ", advice));
}

void check_thread_not_capturing(std::string_view operation, std::string_view advice) {
  if (!current_capture) [[likely]]
    return;
  throw Error(
      ErrorKind::GraphCapture,
      fmt::format("{} is not allowed while this thread captures a stream into a graph (Graph::capture){}{}",
                  operation, advice.empty() ? "" : "; ", advice));
}

void capture_launch_allocations(const PreparedKernel &kernel, const Stream &stream,
                                const ArgumentMemory *arguments, std::size_t count) {
  CaptureScope *capture = stream_capture(stream);
  if (!capture) [[likely]]
    return;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t id = arguments[i].allocation;
    if (id == 0 ||
        std::find(capture->allocations.begin(), capture->allocations.end(), id) != capture->allocations.end())
      continue;
    capture->allocations.push_back(id);
    capture->allocation_users.push_back(
        fmt::format("the buffer of argument {} of kernel '{}'", i + 1, kernel.display_name()));
  }
}

bool capture_simulated_launch(const PreparedKernel &kernel, const Stream &stream, void *const *arguments) {
  CaptureScope *capture = stream_capture(stream);
  if (!capture) [[likely]]
    return false;
  auto recorded = std::make_shared<const RecordedLaunch>(kernel, arguments);
  capture->operations.emplace_back([recorded] { recorded->run(); });
  return true;
}

} // namespace detail

Graph::Graph(std::shared_ptr<detail::GraphState> state) noexcept : state_(std::move(state)) {}
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;
Graph::~Graph() = default;

const detail::GraphState &Graph::state() const {
  if (!state_) [[unlikely]]
    throw Error("use of a moved-from oxide::Graph");
  return *state_;
}

Graph Graph::capture_with(Stream &stream, void (*invoke)(void *, Stream &), void *body) {
  const std::shared_ptr<detail::ContextState> &context = detail::StreamAccess::context_state(stream);
  if (stream.is_default())
    throw Error(ErrorKind::GraphCapture,
                "Graph::capture: the default stream cannot be captured; capture a stream "
                "made with Context::create_stream()");
  const std::shared_ptr<detail::StreamState> &stream_state = detail::StreamAccess::state(stream);
  if (stream_state->capture.load(std::memory_order_acquire))
    throw Error(ErrorKind::GraphCapture, "Graph::capture: the stream is already being captured");
  const bool simulated = context->is_simulator();
  auto scope = std::make_unique<detail::CaptureScope>();
  scope->stream = stream_state;
  scope->simulated = simulated;
  auto graph = std::make_shared<detail::GraphState>();
  graph->context = context;

  if (!simulated) {
    detail::ScopedCurrent current(*context);
    detail::check(
        detail::driver().cuStreamBeginCapture(stream_state->handle, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "cuStreamBeginCapture");
  }
  stream_state->capture.store(scope.get(), std::memory_order_release);
  detail::CaptureScope *outer = std::exchange(detail::current_capture, scope.get());
  std::exception_ptr failure;
  try {
    invoke(body, stream);
  } catch (...) {
    failure = std::current_exception();
  }
  detail::current_capture = outer;
  stream_state->capture.store(nullptr, std::memory_order_release);

  CUresult ended = CUDA_SUCCESS;
  if (!simulated) {
    const detail::DriverApi &api = detail::loaded_driver_api();
    if (api.cuCtxPushCurrent(context->handle()) == CUDA_SUCCESS) {
      ended = api.cuStreamEndCapture(stream_state->handle, &graph->graph); // destroyed with `graph`
      CUcontext popped = nullptr;
      (void)api.cuCtxPopCurrent(&popped);
    }
  }
  for (const auto &free : scope->deferred_frees) // now that nothing is captured any more
    free();

  if (failure)
    detail::rethrow_body_failure(failure);
  if (ended != CUDA_SUCCESS)
    throw Error(ErrorKind::GraphCapture,
                fmt::format("Graph::capture: cuStreamEndCapture failed: {}: an operation during the capture "
                            "invalidated it; {}",
                            detail::driver_error_name(ended), detail::kCaptureRules));
  if (!scope->freed_what.empty())
    throw Error(
        ErrorKind::GraphCapture,
        fmt::format("Graph::capture: {} was freed during the capture, so the graph may refer to freed "
                    "memory; keep the memory a graph uses alive as long as the graph",
                    scope->freed_what));
  graph->operations = std::move(scope->operations);
  graph->keep_alive = std::move(scope->keep_alive);
  graph->allocations = std::move(scope->allocations);
  graph->allocation_users = std::move(scope->allocation_users);
  if (!simulated) {
    detail::ScopedCurrent current(*context);
    detail::check(detail::driver().cuGraphInstantiateWithFlags(&graph->exec, graph->graph, 0),
                  "cuGraphInstantiateWithFlags");
  }
  return Graph(std::move(graph));
}

void Graph::launch(Stream &stream) const {
  const detail::GraphState &graph = state();
  const detail::ContextState &context = *detail::StreamAccess::context_state(stream);
  if (context.handle() != graph.context->handle())
    throw Error(ErrorKind::WrongStreamContext,
                fmt::format("Graph::launch: the graph belongs to {} but the stream to {}",
                            graph.context->label(), context.label()));
  // The captured launches write and read their buffers by address: a buffer freed since (or
  // given other memory) would make them write whatever memory now lies there.
  if (const std::size_t freed = detail::first_freed_allocation(graph.allocations);
      freed != graph.allocations.size())
    throw Error(ErrorKind::BufferFreed,
                fmt::format("Graph::launch: {} was freed or given other memory after the capture, and the "
                            "graph would use its old address; keep every buffer a graph uses alive, and "
                            "unchanged, as long as the graph is launched, or capture the graph again",
                            graph.allocation_users[freed]));
  // Launched inside another capture, the new graph uses these buffers too.
  if (detail::CaptureScope *outer = detail::stream_capture(stream)) {
    for (std::size_t i = 0; i < graph.allocations.size(); ++i)
      if (std::find(outer->allocations.begin(), outer->allocations.end(), graph.allocations[i]) ==
          outer->allocations.end()) {
        outer->allocations.push_back(graph.allocations[i]);
        outer->allocation_users.push_back(graph.allocation_users[i]);
      }
  }
  if (graph.context->is_simulator()) {
    if (detail::record_if_capturing(stream, [inner = state_] {
          for (const auto &operation : inner->operations)
            operation();
        }))
      return;
    for (const auto &operation : graph.operations)
      operation();
    return;
  }
  detail::ScopedCurrent current(context);
  detail::check(detail::driver().cuGraphLaunch(graph.exec, static_cast<CUstream>(stream.native_handle())),
                "cuGraphLaunch");
}

std::size_t Graph::node_count() const {
  const detail::GraphState &graph = state();
  if (graph.context->is_simulator())
    return graph.operations.size();
  std::size_t count = 0;
  detail::ScopedCurrent current(*graph.context);
  detail::check(detail::driver().cuGraphGetNodes(graph.graph, nullptr, &count), "cuGraphGetNodes");
  return count;
}

bool Graph::is_simulated() const { return state().context->is_simulator(); }

void *Graph::native_handle() const noexcept { return state_ ? state_->exec : nullptr; }

void *Graph::graph_handle() const noexcept { return state_ ? state_->graph : nullptr; }

} // namespace oxide
