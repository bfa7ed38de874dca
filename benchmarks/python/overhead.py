"""Per-call host overhead from Python of c = a + b on three CUDA tensors: an Oxide kernel (the
`add` of examples/python/kernels.cpp through python/oxide, by its compiled extension and by its
ctypes path), a Triton kernel, and PyTorch's own torch.add(a, b, out=c), in the same run. Each is
timed on the host only: rounds of calls few enough that the GPU's launch queue never fills, the
best round's time per call; the GPU work is 4096 elements, a few microseconds. Also floors: an
empty ctypes call, oxide_launch with its arguments packed once, and a bare cuLaunchKernel of a
hand-written PTX add through ctypes.

Then, on any machine (the only part without a GPU, or with --no-launch): the Python side alone,
each binding's call with a launch that does nothing (the extension's no-op in place of
oxide_launch), on CPU tensors, and on CUDA tensors when there are some.

    OXIDE_KERNELS=./libkernels.so PYTHONPATH=python:build/python python3 benchmarks/python/overhead.py
"""

import ctypes
import os
import sys
import time

import torch

import oxide

CALLS = 400
ROUNDS = 30


def host_us(fn, gpu=True):
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    best = float("inf")
    for _ in range(ROUNDS):
        sync()
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed / CALLS * 1e6)
    sync()
    return best


def extension_calls(fn):
    """fn's time per call, checking that each call was launched by the extension itself."""
    before = oxide._fastcall.counters()[0]
    us = host_us(fn, gpu=torch.cuda.is_available())
    launched = oxide._fastcall.counters()[0] - before
    if launched != CALLS * ROUNDS:
        raise RuntimeError("%d of %d calls took the extension's path" % (launched, CALLS * ROUNDS))
    return us


def python_side(path, devices):
    """Each binding's call with a launch that does nothing: the time of the Python side alone."""
    if not oxide.HAVE_EXTENSION:
        print("python side: the compiled extension is not loaded (%s); its no-op launch is needed" %
              oxide.EXTENSION_ERROR)
        return
    noop = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_size_t)(oxide._fastcall.NOOP_LAUNCH)
    results = []
    for device in devices:
        a, b = torch.randn(4096, device=device), torch.randn(4096, device=device)
        c = torch.empty_like(a)
        fast, slow = oxide.load(path, extension=True).add, oxide.load(path, extension=False).add
        fast(a, b, c)
        slow(a, b, c)
        # The GIL kept, as for a GPU launch, on both.
        fast._bind_extension(oxide._fastcall.NOOP_LAUNCH, simulator_keeps_gil=True)
        slow._launch = slow._launch_gpu = noop
        results.append(("extension, %s tensors" % device, extension_calls(lambda: fast(a, b, c))))
        results.append(("ctypes, %s tensors" % device, host_us(lambda: slow(a, b, c), gpu=False)))
    results.append(("(floor) the no-op through ctypes", host_us(lambda: noop(0, 0, 0, 0), gpu=False)))
    width = max(len(name) for name, _ in results)
    print("python side of add(a, b, c), a no-op in place of oxide_launch (torch %s, Python %d.%d):" % (
        torch.__version__, *sys.version_info[:2]))
    for name, us in results:
        print("  %-*s %7.2f us" % (width, name, us))


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


_ADD_PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry bare_add(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn) {
  .reg .pred p;
  .reg .b32 r<5>;
  .reg .b64 rd<8>;
  .reg .f32 f<4>;
  ld.param.u64 rd1, [pa];
  ld.param.u64 rd2, [pb];
  ld.param.u64 rd3, [pc];
  ld.param.u32 r1, [pn];
  mov.u32 r2, %ctaid.x;
  mov.u32 r3, %ntid.x;
  mov.u32 r4, %tid.x;
  mad.lo.s32 r2, r2, r3, r4;
  setp.ge.u32 p, r2, r1;
  @p bra DONE;
  mul.wide.u32 rd4, r2, 4;
  add.s64 rd5, rd1, rd4;
  ld.global.f32 f1, [rd5];
  add.s64 rd6, rd2, rd4;
  ld.global.f32 f2, [rd6];
  add.f32 f3, f1, f2;
  add.s64 rd7, rd3, rd4;
  st.global.f32 [rd7], f3;
DONE:
  ret;
}
"""


def bare_launch(a, b, c):
    """A bare cuLaunchKernel through ctypes of a hand-written PTX add, with its parameters
    packed once: the floor of any Python binding that launches through the driver."""
    try:
        cuda = ctypes.PyDLL("libcuda.so.1")  # keeps the GIL, as a binding in C would
    except OSError:
        return None
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    if cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(_ADD_PTX + b"\0")) != 0:
        return None
    if cuda.cuModuleGetFunction(ctypes.byref(function), module, b"bare_add") != 0:
        return None
    n = c.numel()
    values = [ctypes.c_uint64(a.data_ptr()), ctypes.c_uint64(b.data_ptr()), ctypes.c_uint64(c.data_ptr()),
              ctypes.c_uint32(n)]
    params = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in values])
    launch = cuda.cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    stream = torch.cuda.current_stream().cuda_stream
    blocks = (n + 255) // 256
    params_address = ctypes.addressof(params)

    def run():
        status = launch(function, blocks, 1, 1, 256, 1, 1, 0, stream, params_address, None)
        if status:
            raise RuntimeError("cuLaunchKernel: %d" % status)

    run.keep = (values, params, module)
    return run


def main():
    path = os.environ.get("OXIDE_KERNELS", "libkernels.so")
    if not torch.cuda.is_available() or "--no-launch" in sys.argv:
        python_side(path, ["cpu"])
        return 0
    n = 4096
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty_like(a)
    results = []

    if oxide.HAVE_EXTENSION:
        kernels = oxide.load(path, extension=True)
        add = kernels.add
        c.zero_()
        add(a, b, c)
        torch.cuda.synchronize()
        assert torch.equal(c, a + b)
        results.append(("oxide (python/oxide, extension)", extension_calls(lambda: add(a, b, c))))
    else:
        print("oxide (extension): not loaded: %s" % oxide.EXTENSION_ERROR)
    kernels = oxide.load(path, extension=False)
    add = kernels.add
    c.zero_()
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
    handle, launch = add._handle, add._launch_gpu
    _, _, args, config = add._buffers()
    oxide.Kernel.__call__(add, a, b, c)  # the general path fills this thread's buffers with these tensors
    if launch(handle, config, args, 3) != 0:
        raise RuntimeError("the prepacked oxide_launch fails: %s" % kernels._dll.oxide_last_error())

    def prepacked():
        if launch(handle, config, args, 3):
            raise RuntimeError("oxide_launch failed")

    results.append(("(floor) oxide_launch via ctypes, args prepacked", host_us(prepacked)))

    try:
        bare = bare_launch(a, b, c)
        if bare is not None:
            c.zero_()
            bare()
            torch.cuda.synchronize()
            assert torch.equal(c, a + b)
            results.append(("(floor) bare cuLaunchKernel via ctypes", host_us(bare)))
        else:
            print("bare cuLaunchKernel: the PTX did not load")
    except Exception as e:  # the floor is a reference only: report it and go on
        print("bare cuLaunchKernel: %s" % e)
        bare = None

    width = max(len(name) for name, _ in results)
    print("per-call host overhead, c = a + b on 3 CUDA tensors of %d floats (%s, torch %s):" % (
        n, torch.cuda.get_device_name(), torch.__version__))
    for name, us in results:
        print("  %-*s %7.2f us" % (width, name, us))
    # The three: Oxide (its faster binding), Triton, torch.add.
    times = dict(results)
    oxide_best = min((r for r in results if r[0].startswith("oxide")), key=lambda r: r[1])
    three = [oxide_best] + [r for r in results if r[0] in ("triton", "torch.add(a, b, out=c)")]
    best = min(three, key=lambda r: r[1])
    print("lowest of the three (oxide, triton, torch.add): %s" % best[0])
    if bare is not None:
        for name, _ in results:
            if name.startswith("oxide"):
                print("%s over a bare cuLaunchKernel from Python: %.2f us" % (
                    name, times[name] - times["(floor) bare cuLaunchKernel via ctypes"]))
    print()
    python_side(path, ["cpu", "cuda"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
