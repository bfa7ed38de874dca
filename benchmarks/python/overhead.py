"""Per-call host overhead from Python of c = a + b on three CUDA tensors: an Oxide kernel (the
`add` of examples/python/kernels.cpp through python/oxide), a Triton kernel, and PyTorch's own
torch.add(a, b, out=c), in the same run. Each is timed on the host only: rounds of calls few
enough that the GPU's launch queue never fills, the best round's time per call; the GPU work is
4096 elements, a few microseconds. Also a bare ctypes call (the floor of any ctypes binding) and,
when CUDA Python is importable, a bare cuLaunchKernel of the same Oxide kernel's function.

    OXIDE_KERNELS=./libkernels.so PYTHONPATH=python python3 benchmarks/python/overhead.py
"""

import ctypes
import os
import sys
import time

import torch

import oxide

CALLS = 400
ROUNDS = 30


def host_us(fn):
    best = float("inf")
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed / CALLS * 1e6)
    torch.cuda.synchronize()
    return best


def triton_add():
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def add_kernel(a, b, c, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(c + offsets, tl.load(a + offsets, mask=mask) + tl.load(b + offsets, mask=mask), mask=mask)

    def launch(a, b, c):
        n = c.numel()
        add_kernel[(triton.cdiv(n, 1024),)](a, b, c, n, BLOCK=1024)

    return launch


def main():
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return 0
    kernels = oxide.load(os.environ.get("OXIDE_KERNELS", "libkernels.so"))
    n = 4096
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty_like(a)
    add = kernels.add
    results = []

    add(a, b, c)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)
    results.append(("oxide (python/oxide, ctypes)", host_us(lambda: add(a, b, c))))

    triton = triton_add()
    if triton is not None:
        triton(a, b, c)
        torch.cuda.synchronize()
        assert torch.equal(c, a + b)
        results.append(("triton", host_us(lambda: triton(a, b, c))))
    else:
        print("triton: not installed")

    results.append(("torch.add(a, b, out=c)", host_us(lambda: torch.add(a, b, out=c))))

    # Floors: a ctypes call that does nothing, and the C ABI launch without the Python layer.
    version = kernels._dll.oxide_c_api_version
    results.append(("(floor) empty ctypes call", host_us(lambda: version())))
    handle, launch = add._handle, add._launch
    _, _, args, config = add._buffers()
    add(a, b, c)  # fills this thread's buffers with a launch of these tensors
    results.append(("(floor) oxide_launch via ctypes, args prepacked", host_us(lambda: launch(handle, config, args, 3))))

    width = max(len(name) for name, _ in results)
    print("per-call host overhead, c = a + b on 3 CUDA tensors of %d floats (%s, torch %s):" % (
        n, torch.cuda.get_device_name(), torch.__version__))
    for name, us in results:
        print("  %-*s %7.2f us" % (width, name, us))
    main3 = [r for r in results if not r[0].startswith("(floor)")]
    best = min(main3, key=lambda r: r[1])
    print("lowest of the three: %s" % best[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
