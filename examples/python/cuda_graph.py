"""Oxide launches inside a torch.cuda.graph capture: the launch path neither synchronises nor
allocates nor reads device memory, so the capture records it and each replay reruns it with the
inputs' new contents. Needs a CUDA GPU; prints PASS, or "skipped: no CUDA device".

    OXIDE_KERNELS=./libkernels.so PYTHONPATH=python python3 examples/python/cuda_graph.py
"""

import os
import sys

import torch

import oxide


def main():
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return 0
    kernels = oxide.load(os.environ.get("OXIDE_KERNELS", "libkernels.so"))
    rows, cols = 1024, 4096
    x = torch.randn(rows, cols, device="cuda")
    w = torch.rand(cols, device="cuda") + 0.5
    normed = torch.empty_like(x)
    summed = torch.empty_like(x)

    def step():
        kernels.rmsnorm(x, w, normed, rows, cols, 1e-6, threads=rows * 32)
        kernels.add(normed, x, summed)  # a residual, by a second Oxide kernel
        return summed * 2  # and a torch op between them and the result

    # Warm up on a side stream (as torch.cuda.graph asks): loads the module, prepares the launches.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        result = step()
    for replay in range(5):
        x.copy_(torch.randn(rows, cols, device="cuda") * (replay + 1))
        graph.replay()
        expected = 2 * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w + x)
        torch.testing.assert_close(result, expected, rtol=1e-4, atol=1e-4)

    # The launches are in the graph: one replay runs the two Oxide kernels and the multiply.
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(100):
        graph.replay()
    stop.record()
    stop.synchronize()
    print("cuda_graph: 5 replays match; %.1f us per replay (rmsnorm %dx%d + add + mul)" % (
        start.elapsed_time(stop) * 10, rows, cols))

    # An explicit stream= (a torch.cuda.Stream, a CuPy stream or a raw CUstream) overrides the
    # current one.
    stream = torch.cuda.Stream()
    a = torch.ones(1 << 16, device="cuda")
    c = torch.zeros_like(a)
    kernels.add(a, a, c, stream=stream)
    stream.synchronize()
    assert bool((c == 2).all())
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
