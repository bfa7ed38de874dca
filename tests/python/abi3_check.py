"""The compiled extension (oxide._fastcall, one .abi3.so) on any CPython 3.8 or newer, with nothing
else installed: tests/python/run.sh runs this with each Python it finds, since the module built
here with one Python's headers must load and launch in the others (the GPU machine's among them).

Without torch, a small tensor type over ctypes arrays stands in: it has what the extension reads
of a torch tensor (dtype, get_device(), data_ptr(), shape, stride()) and, for the ctypes path, an
__array_interface__. Checks results, that the extension's path ran, that both bindings raise the
same exceptions, and that calls leak no memory.

    OXIDE_TEST_LIBRARY=libkernels.so PYTHONPATH=python:build/python python3.12 tests/python/abi3_check.py
"""

import ctypes
import os
import struct
import sys
import tracemalloc

os.environ["OXIDE_EXTENSION"] = "1"  # the extension must load
import oxide  # noqa: E402

_CTYPES = {"float32": (ctypes.c_float, "<f4"), "int32": (ctypes.c_int32, "<i4")}


class DType:
    """Stands for torch.float32...: an object of its own (its references are counted below)."""

    def __init__(self, name):
        self.name = name


DTYPES = {name: DType(name) for name in _CTYPES}


class HostTensor:
    """Host memory with torch.Tensor's accessors (so on the simulator)."""

    def __init__(self, values, dtype="float32", shape=None, strides=None, base=None, offset=0):
        ctype, self.typestr = _CTYPES[dtype]
        self.dtype = DTYPES[dtype]
        self.base = base if base is not None else (ctype * len(values))(*values)
        self.itemsize = ctypes.sizeof(ctype)
        self.offset = offset
        self.shape = tuple(shape) if shape is not None else (len(values),)
        self._strides = tuple(strides) if strides is not None else None

    def view(self, start, stop):
        return HostTensor(None, self.dtype.name, (stop - start,), base=self.base, offset=self.offset + start)

    def get_device(self):
        return -1

    def data_ptr(self):
        return ctypes.addressof(self.base) + self.offset * self.itemsize

    def stride(self):
        if self._strides is not None:
            return self._strides
        strides, step = [], 1
        for extent in reversed(self.shape):
            strides.append(step)
            step *= extent
        return tuple(reversed(strides))

    @property
    def __array_interface__(self):
        strides = None if self._strides is None else tuple(s * self.itemsize for s in self._strides)
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.data_ptr(), False),
                "strides": strides, "version": 3}

    def tolist(self):
        count = 1
        for extent in self.shape:
            count *= extent
        return [self.base[self.offset + i] for i in range(count)]


class DeviceTensor(HostTensor):
    """As if on CUDA device 0 (only given to a launch that records and does nothing)."""

    def get_device(self):
        return 0


def recorded(kernel, *args):
    """The configuration and arguments that `kernel`'s call passes to its launch, recorded by the
    extension's RECORD_LAUNCH put in place of oxide_launch."""
    if kernel.binding == "extension":
        kernel._bind_extension(oxide._fastcall.RECORD_LAUNCH)
    else:
        launch = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_size_t)(oxide._fastcall.RECORD_LAUNCH)
        kernel._launch = kernel._launch_gpu = launch
    kernel(*args)
    config, packed = oxide._fastcall.last_launch()
    return oxide._CONFIG.unpack(config), [oxide._ARG.unpack_from(packed, i * oxide._ARG.size)
                                          for i in range(len(packed) // oxide._ARG.size)]


def outcome(kernel, *args):
    try:
        kernel(*args)
        return None
    except oxide.OxideError as e:
        return type(e).__name__, e.kind, e.kernel, str(e)


def main():
    library = os.environ.get("OXIDE_TEST_LIBRARY", "libkernels.so")
    assert oxide.HAVE_EXTENSION, oxide.EXTENSION_ERROR
    oxide._fastcall.configure(tensor_type=HostTensor,
                              dtype_codes={DTYPES["float32"]: oxide._dtype(2, 32), DTYPES["int32"]: oxide._dtype(0, 32)},
                              current_stream=None, sample=None)
    fast, slow = oxide.load(library, extension=True), oxide.load(library, extension=False)
    assert fast.add.binding == "extension" and slow.add.binding == "ctypes"

    a = HostTensor([float(i) for i in range(1000)])
    b = HostTensor([0.5] * 1000)
    for lib in (fast, slow):
        c = HostTensor([0.0] * 1000)
        before = oxide._fastcall.counters()
        lib.add(a, b, c)
        after = oxide._fastcall.counters()
        assert c.tolist() == [i + 0.5 for i in range(1000)], lib.add.binding
        expected = (1, 0) if lib is fast else (0, 0)
        assert (after[0] - before[0], after[1] - before[1]) == expected, (lib.add.binding, before, after)
    xi = HostTensor(list(range(100)), "int32")
    out = HostTensor([0] * 100, "int32")
    fast.axpy_i32(-3, xi, xi, out)  # a negative int scalar, GIL released for the simulator
    assert out.tolist() == [-2 * i for i in range(100)]

    # Refusals: the runtime's (from the extension's own launch) and the Python path's, the same
    # from both bindings.
    buf = HostTensor([1.0] * 150)
    c = HostTensor([0.0] * 1000)
    cases = [
        ("add", a, b, a),                                          # the output aliases an input
        ("add", buf.view(0, 100), buf.view(0, 100), buf.view(50, 150)),  # overlapping views
        ("add", a, b.view(0, 10), c),                              # requires b.size() == c.size()
        ("add", xi, xi, out),                                      # int32 for float32
        ("add", HostTensor([1.0] * 1000, strides=(2,), base=(ctypes.c_float * 2000)()), b, c),  # strides
        ("axpy_i32", 1 << 40, xi, xi, out),                        # beyond int32
        ("axpy_i32", 1 << 64, xi, xi, out),                        # beyond 64 bits: the Python path
        ("axpy_i32", "3", xi, xi, out),                            # not a number
        ("add", a, b),                                             # too few arguments
        ("gather_first", a, 990, c),                               # a kernel fault on the simulator
    ]
    for name, *args in cases:
        got, want = outcome(fast[name], *args), outcome(slow[name], *args)
        assert got is not None and got == want, (name, got, want)

    # What each binding passes to oxide_launch: the same descriptors, byte for byte.
    m = HostTensor([1.0] * 12, shape=(3, 4))
    for name, *args in [("add", a, b, c), ("add", m, m, HostTensor([0.0] * 12, shape=(3, 4))),
                        ("axpy_i32", -3, xi, xi, out), ("axpy_i32", (1 << 64) - 1, xi, xi, out),
                        ("axpy_f32", 2.5, a, b, c), ("axpy_f32", True, a, b, c)]:
        ours = recorded(oxide.load(library, extension=True)[name], *args)
        theirs = recorded(oxide.load(library, extension=False)[name], *args)
        assert ours == theirs, (name, ours, theirs)
    # A GPU tensor's launch: on its device, on the framework's current stream of that device.
    oxide._fastcall.configure(current_stream=lambda device: 0xAB00 + device)
    on_gpu = [DeviceTensor([1.0] * 8), DeviceTensor([2.0] * 8), DeviceTensor([0.0] * 8)]
    config, descriptors = recorded(oxide.load(library, extension=True).add, *on_gpu)
    assert config == (0, 0, 0xAB00) + (0,) * 9, config
    assert descriptors == [(0, oxide._dtype(2, 32), t.data_ptr(), 1, 0, 8, 0, 0, 0, 1, 0, 0, 0) for t in on_gpu], \
        descriptors

    # No leak: many calls (each makes ints, tuples and, on failure, an exception) hold no memory.
    counts = sys.getrefcount(a), sys.getrefcount(a.dtype), sys.getrefcount(c)
    tracemalloc.start()
    for _ in range(200):
        fast.add(a, b, c)
        outcome(fast.add, a, b, a)
    first = tracemalloc.get_traced_memory()[0]
    for _ in range(5000):
        fast.add(a, b, c)
        outcome(fast.add, a, b, a)
    grown = tracemalloc.get_traced_memory()[0] - first
    tracemalloc.stop()
    assert grown < 64 * 1024, "%d bytes held after 10000 calls" % grown
    assert (sys.getrefcount(a), sys.getrefcount(a.dtype), sys.getrefcount(c)) == counts
    print("abi3 extension on Python %d.%d (%s): PASS" % (sys.version_info[0], sys.version_info[1],
                                                         struct.calcsize("P") * 8))
    return 0


if __name__ == "__main__":
    sys.exit(main())
