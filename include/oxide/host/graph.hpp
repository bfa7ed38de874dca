// oxide::Graph: a sequence of launches and copies captured once from a stream and replayed with
// one call (CUDA graphs: cuStreamBeginCapture ... cuStreamEndCapture, cuGraphInstantiate,
// cuGraphLaunch), which saves the CPU cost of enqueuing each operation.
//
//   auto stream = ctx.create_stream();                  // not the default stream
//   auto graph = oxide::Graph::capture(stream, [&](oxide::Stream &s) {
//     step(s, a, b);                                    // prepared launches, unsafe_launch,
//     b.copy_to_async(s, pinned);                       // async copies, s.then(...)
//   });
//   for (int i = 0; i < 100; ++i)
//     graph.launch(stream);
//   stream.synchronize();
//
// A graph refers to memory by address, as the captured operations did: every buffer (and pinned
// or host memory) it uses must stay allocated as long as the graph may be launched, and the
// kernels' scalar arguments are those of the capture.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>

namespace oxide {

class Stream;

namespace detail {
struct GraphState;
} // namespace detail

/// An executable graph (a CUgraphExec and its CUgraph) of one context, destroyed with this
/// object (cuGraphExecDestroy, cuGraphDestroy). RAII and move-only. On the simulator a graph is
/// the list of the operations recorded during the capture, run in order by launch().
class Graph {
public:
  /// Captures what `body(stream)` enqueues on `stream` (a stream of Context::create_stream or
  /// Stream::adopt: the default stream cannot be captured) and instantiates it. Nothing runs
  /// during the capture. Capture is per thread (CU_STREAM_CAPTURE_MODE_THREAD_LOCAL): the body
  /// may not, on this thread, synchronize or query the stream or the context, copy to the host
  /// synchronously (copy_to_host, to_host: use copy_to_async), allocate device or pinned memory,
  /// free memory (destroy a buffer), or use the default stream; each makes the capture fail with
  /// oxide::Error (GraphCapture), as does a driver call the capture invalidates. An exception
  /// from `body` ends the capture and propagates (oxide::Error of a driver capture failure becomes
  /// GraphCapture). Throws oxide::Error.
  template <class Body>
    requires std::is_invocable_v<Body &, Stream &>
  [[nodiscard]] static Graph capture(Stream &stream, Body &&body) {
    using B = std::remove_reference_t<Body>;
    return capture_with(
        stream, [](void *b, Stream &s) { (*static_cast<B *>(b))(s); },
        const_cast<void *>(static_cast<const void *>(std::addressof(body))));
  }

  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph();

  /// Enqueues the whole graph on `stream` (cuGraphLaunch), which must belong to the graph's
  /// context (else WrongStreamContext). On the simulator, runs the recorded operations in order
  /// before returning (errors surface here, as a launch's would); launched on a stream being
  /// captured, its operations are recorded into the new graph. (On a GPU, cuGraphLaunch on a
  /// capturing stream is the driver's to accept or refuse.)
  void launch(Stream &stream) const;
  /// The number of nodes: one per captured launch, copy, memset or host callback.
  [[nodiscard]] std::size_t node_count() const;
  [[nodiscard]] bool is_simulated() const;
  /// The CUgraphExec, for interoperation with other CUDA code; nullptr on the simulator.
  [[nodiscard]] void *native_handle() const noexcept;
  /// The captured CUgraph (e.g. to inspect or clone it); nullptr on the simulator.
  [[nodiscard]] void *graph_handle() const noexcept;

private:
  explicit Graph(std::shared_ptr<detail::GraphState> state) noexcept;
  static Graph capture_with(Stream &stream, void (*invoke)(void *, Stream &), void *body);
  [[nodiscard]] const detail::GraphState &state() const;

  std::shared_ptr<detail::GraphState> state_;
};

} // namespace oxide
