"""The Python package (python/oxide) on the CPU simulator: kernels of examples/python/kernels.cpp,
built with `oxcc build --shared`, called on NumPy arrays, CPU torch tensors and DLPack objects,
results checked, and every contract, aliasing and argument error raised as a Python exception
that names the kernel, the parameter and the relation.

The package calls kernels through its compiled extension (oxide._fastcall) when it loads, else
through ctypes: tests/python/run.sh runs this file once with each (OXIDE_EXTENSION=1, then 0),
and Bindings compares the two on the same calls, results and exceptions alike.

    OXIDE_TEST_LIBRARY=libkernels.so python3 -m unittest tests/python/test_interop.py
"""

import ctypes
import ctypes.util
import enum
import os
import unittest

import numpy as np

import oxide

try:
    import torch
except ImportError:  # the NumPy half still runs
    torch = None

LIBRARY = os.environ.get("OXIDE_TEST_LIBRARY", "libkernels.so")


def setUpModule():
    global lib
    lib = oxide.load(LIBRARY)


class DLPackOnly:
    """An array that offers nothing but DLPack, as JAX arrays do."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class Metadata(unittest.TestCase):
    def test_kernels_and_parameters(self):
        self.assertEqual(sorted(lib.kernels),
                         ["add", "axpy_f32", "axpy_f64", "axpy_i32", "axpy_inplace_f16", "coordinates_3d",
                          "gather_first", "histogram", "rmsnorm", "scale_2d"])
        rms = lib.rmsnorm
        self.assertEqual([p.name for p in rms.params], ["x", "weight", "out", "rows", "cols", "eps"])
        self.assertEqual([p.kind for p in rms.params], ["i", "i", "2", "u", "u", "x"])
        self.assertEqual([p.dtype for p in rms.params], ["float32"] * 3 + ["uint32"] * 2 + ["float32"])
        self.assertEqual([p.rank for p in rms.params], [1, 1, 2, 0, 0, 0])
        self.assertEqual([p.writable for p in rms.params], [False, False, True, False, False, False])
        self.assertEqual(rms.domain, 1)
        self.assertEqual(rms.block, (256, 1, 1))
        self.assertIn("requires", rms.contract)
        self.assertEqual(lib.scale_2d.domain, 2)
        self.assertEqual(lib["axpy_i32"].params[0].dtype, "int32")
        self.assertIn("add(a, b, c)", repr(lib.add))

    def test_binding(self):
        # OXIDE_EXTENSION=1: the extension must load and be used; =0: the ctypes path.
        setting = os.environ.get("OXIDE_EXTENSION")
        if setting == "1":
            self.assertTrue(oxide.HAVE_EXTENSION)
            self.assertEqual(lib.add.binding, "extension")
        elif setting == "0":
            self.assertFalse(oxide.HAVE_EXTENSION)
            self.assertIn("OXIDE_EXTENSION=0", oxide.EXTENSION_ERROR)
            self.assertEqual(lib.add.binding, "ctypes")
            with self.assertRaisesRegex(oxide.OxideError, "compiled extension is not available"):
                oxide.load(LIBRARY, extension=True)
        self.assertEqual(oxide.load(LIBRARY, extension=False).add.binding, "ctypes")
        self.assertIs(lib.add, lib["add"])  # an instance attribute, not a __getattr__ call each time
        self.assertIs(lib.add, lib.kernels["add"])

    def test_unknown_kernel(self):
        with self.assertRaisesRegex(AttributeError, "no kernel named 'nope'.*it exports 'add'"):
            lib.nope
        with self.assertRaises(oxide.OxideError) as caught:
            lib["nope"]
        self.assertEqual(caught.exception.kind, "NotAKernel")

    def test_not_a_library(self):
        with self.assertRaisesRegex(oxide.OxideError, "cannot load"):
            oxide.load("/nonexistent/libnothing.so")
        libc = ctypes.util.find_library("m")
        if libc:
            with self.assertRaisesRegex(oxide.OxideError, "not an Oxide library"):
                oxide.load(libc)

    def test_c_abi_status_names(self):
        dll = lib._dll
        self.assertEqual(dll.oxide_status_name(0), b"Ok")
        self.assertEqual(dll.oxide_status_name(100000), b"Unknown")
        status = dll.oxide_launch(None, None, None, 0)
        self.assertEqual(dll.oxide_status_name(status), b"NotAKernel")
        self.assertIn(b"null oxide_kernel", dll.oxide_last_error())


class Header(unittest.TestCase):
    def test_generated_header(self):
        import oxide.header
        text = oxide.header.generate(lib, "k_")
        self.assertIn("static inline int k_rmsnorm(const float *x, int64_t x_size, const float *weight, "
                      "int64_t weight_size, float *out, int64_t out_height, int64_t out_width, uint32_t rows, "
                      "uint32_t cols, float eps, const oxide_launch_config *config)", text)
        self.assertIn("k_axpy_inplace_f16(float a, const uint16_t *x", text)

    def test_bad_library(self):
        import io
        import contextlib
        import oxide.header
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(oxide.header.main(["/nonexistent/libnothing.so"]), 1)
        self.assertIn("oxide.header: error: oxide: cannot load", err.getvalue())


class CAbi(unittest.TestCase):
    """The C entry points with bad input, called through ctypes as a C caller would: each
    returns a status and a message, none crashes."""

    def launch(self, config=None, args=None, count=None, kernel=None):
        dll = lib._dll
        handle = lib.add._handle if kernel is None else kernel
        return dll.oxide_launch(handle, config, args, len(args or ()) // oxide._ARG.size if count is None else count)

    def config(self, device=oxide.SIMULATOR, stream=0, grid=(0, 0, 0), block=(0, 0, 0), threads=(0, 0, 0)):
        return oxide._CONFIG.pack(device, 0, stream, *grid, *block, *threads)

    def tensor(self, array, ndim=None, shape=None, strides=None, dtype=oxide._dtype(2, 32)):
        shape = list(array.shape if shape is None else shape)
        ndim = len(shape) if ndim is None else ndim
        strides = list(strides if strides is not None else [1] * len(shape))
        shape += [0] * (4 - len(shape))
        strides += [0] * (4 - len(strides))
        return oxide._ARG.pack(0, dtype, array.__array_interface__["data"][0], ndim, 0, *shape[:4], *strides[:4])

    def expect(self, status, kind, text):
        dll = lib._dll
        self.assertEqual(dll.oxide_status_name(status).decode(), kind)
        self.assertIn(text, dll.oxide_last_error().decode())

    def setUp(self):
        self.a = np.ones(8, dtype=np.float32)
        self.c = np.zeros(8, dtype=np.float32)
        self.args = self.tensor(self.a) + self.tensor(self.a) + self.tensor(self.c)

    def test_good_launch_then_message_cleared(self):
        self.assertEqual(self.launch(self.config(), self.args), 0)
        self.assertEqual(lib._dll.oxide_last_error(), b"")
        self.assertEqual(self.c.tolist(), [2.0] * 8)

    def test_null_configuration_and_arguments(self):
        self.expect(self.launch(None, self.args), "ArgumentMismatch", "a null launch configuration")
        self.expect(self.launch(self.config(), None, 3), "ArgumentMismatch", "takes 3 arguments (a, b, c) but was given 0")
        self.expect(self.launch(self.config(), self.args, 2), "ArgumentMismatch", "but was given 2")

    def test_bad_devices_and_streams(self):
        self.expect(self.launch(self.config(device=-7), self.args), "NoDevice", "device -7")
        self.expect(self.launch(self.config(stream=0x1234), self.args), "UnsupportedOnSimulator", "no CUstreams")
        if not (torch is not None and torch.cuda.is_available()):
            status = self.launch(self.config(device=0), self.args)
            self.assertIn(lib._dll.oxide_status_name(status).decode(), ("NoDevice", "Driver"))

    def test_bad_tensors(self):
        a, c = self.a, self.c
        bad_ndim = self.tensor(a, ndim=5) + self.tensor(a) + self.tensor(c)
        self.expect(self.launch(self.config(), bad_ndim), "ArgumentMismatch", "tensor of 5 dimensions")
        negative = self.tensor(a, shape=[-8]) + self.tensor(a) + self.tensor(c)
        self.expect(self.launch(self.config(), negative), "ArgumentMismatch", "shape (-8,)")
        huge = self.tensor(a, shape=[1 << 40, 1 << 40], strides=[1 << 40, 1]) + self.tensor(a) + self.tensor(c)
        self.expect(self.launch(self.config(), huge), "ArgumentMismatch", "gets a tensor of shape")
        null = oxide._ARG.pack(0, oxide._dtype(2, 32), 0, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0)
        self.expect(self.launch(self.config(), null + self.tensor(a) + self.tensor(c)), "MisalignedArgument",
                    "gets a null pointer")
        scalar = oxide._ARG.pack(1, oxide._I64, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        self.expect(self.launch(self.config(), scalar + self.tensor(a) + self.tensor(c)), "ArgumentMismatch",
                    "pass a tensor, not a scalar")

    def test_bad_scalars(self):
        x, y, out = np.ones(4, np.float32), np.ones(4, np.float32), np.zeros(4, np.float32)
        tail = self.tensor(x) + self.tensor(y) + self.tensor(out)
        kernel = lib.axpy_f32._handle
        odd = oxide._ARG.pack(1, oxide._dtype(2, 16), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        self.expect(self.launch(self.config(), odd + tail, kernel=kernel), "ArgumentMismatch",
                    "scalars are passed as int64, uint64, float64 or bool")
        tensor = self.tensor(x)
        self.expect(self.launch(self.config(), tensor + tail, kernel=kernel), "ArgumentMismatch",
                    "pass a number, not a tensor")

    def test_queries_with_bad_input(self):
        dll = lib._dll
        self.assertEqual(dll.oxide_kernel_name(None), b"")
        self.assertEqual(dll.oxide_kernel_param_count(None), 0)
        self.assertEqual(dll.oxide_kernel_at(1000), None)
        info = oxide._ParamInfo()
        self.expect(dll.oxide_kernel_param(lib.add._handle, 3, ctypes.byref(info)), "ArgumentMismatch",
                    "there is no parameter 3")
        self.expect(dll.oxide_kernel_param(None, 0, ctypes.byref(info)), "NotAKernel", "null oxide_kernel")
        self.expect(dll.oxide_kernel_shape(None, None, None), "NotAKernel", "null oxide_kernel")
        self.assertEqual(dll.oxide_kernel_shape(lib.add._handle, None, None), 0)
        self.assertEqual(dll.oxide_kernel_contract(None), b"")
        self.assertIsNone(dll.oxide_find_kernel(None))
        self.assertIn(b"a null name", dll.oxide_last_error())


class NumPy(unittest.TestCase):
    def test_add(self):
        a = np.arange(1000, dtype=np.float32)
        b = np.full(1000, 0.5, dtype=np.float32)
        c = np.zeros_like(a)
        lib.add(a, b, c)
        np.testing.assert_array_equal(c, a + b)

    def test_keywords_and_templates(self):
        x = np.linspace(0, 1, 777)
        y = np.ones(777)
        out = np.empty(777)
        lib.axpy_f64(out=out, alpha=2.5, x=x, y=y)
        np.testing.assert_allclose(out, 2.5 * x + y)
        xi = np.arange(100, dtype=np.int32)
        outi = np.empty_like(xi)
        lib.axpy_i32(-3, xi, xi, outi)  # inputs may alias each other
        np.testing.assert_array_equal(outi, -3 * xi + xi)

    def test_numpy_scalar_arguments(self):
        x = np.ones(10, dtype=np.float32)
        out = np.empty_like(x)
        lib.axpy_f32(np.float32(2), x, x, out)
        np.testing.assert_array_equal(out, np.full(10, 3, dtype=np.float32))

    def test_2d_domain(self):
        x = np.random.rand(37, 53).astype(np.float32)
        out = np.zeros_like(x)
        lib.scale_2d(x, 3.0, out)  # the grid covers out's 53 x 37 in 16 x 16 blocks
        np.testing.assert_allclose(out, x * 3.0, rtol=1e-6)

    def test_3d_domain(self):
        out = np.zeros((5, 6, 7), dtype=np.float32)  # depth, height, width
        lib.coordinates_3d(0.5, out)  # the grid covers 7 x 6 x 5 in 8 x 8 x 4 blocks
        z, y, x = np.meshgrid(np.arange(5), np.arange(6), np.arange(7), indexing="ij")
        np.testing.assert_array_equal(out, (x + 10 * y + 100 * z + 0.5).astype(np.float32))
        self.assertEqual(lib.coordinates_3d.params[1].kind, "3")
        with self.assertRaisesRegex(oxide.ArgumentError, "DisjointSpan3D, which needs a tensor of 3 dimensions"):
            lib.coordinates_3d(0.0, out.reshape(30, 7))

    def test_atomic_span(self):
        values = np.random.randint(0, 1000, size=5000).astype(np.uint32)
        counts = np.zeros(16, dtype=np.uint32)
        self.assertEqual(lib.histogram.params[1].kind, "a")
        self.assertTrue(lib.histogram.params[1].writable)
        with self.assertRaisesRegex(oxide.OxideError, "no DisjointSpan output to size its grid by") as caught:
            lib.histogram(values, counts)  # an AtomicSpan does not size the grid
        self.assertEqual(caught.exception.kind, "GridInvalid")
        lib.histogram(values, counts, threads=1024)
        np.testing.assert_array_equal(counts, np.bincount(values % 16, minlength=16).astype(np.uint32))
        with self.assertRaises(oxide.AliasingError):
            lib.histogram(counts, counts, threads=16)  # the atomic output is also read

    def test_half(self):
        x = np.linspace(-1, 1, 300).astype(np.float16)
        y = np.ones(300, dtype=np.float16)
        expected = (np.float16(2.5) * x + y).astype(np.float16)
        lib.axpy_inplace_f16(2.5, x, y)
        np.testing.assert_allclose(y.astype(np.float32), expected.astype(np.float32), rtol=2e-3, atol=2e-3)
        self.assertEqual(lib.axpy_inplace_f16.params[0].dtype, "float16")
        with self.assertRaises(oxide.ContractError) as caught:
            lib.axpy_inplace_f16(1e6, x, y)  # beyond half's 65504
        self.assertEqual(caught.exception.kind, "ArgumentOutOfRange")
        with self.assertRaisesRegex(oxide.ArgumentError, "span of float16 but gets a tensor of float32"):
            lib.axpy_inplace_f16(1.0, x.astype(np.float32), y)

    def test_flattened_contiguous_tensor(self):
        a = np.random.rand(2, 3, 4, 5, 6).astype(np.float32)  # 5 dimensions, contiguous
        c = np.empty_like(a)
        lib.add(a, a, c)
        np.testing.assert_array_equal(c, a + a)

    def test_empty(self):
        e = np.zeros(0, dtype=np.float32)
        lib.add(e, e.copy(), e.copy())

    def test_dlpack_only_objects(self):
        a = np.arange(64, dtype=np.float32)
        c = np.zeros_like(a)
        lib.add(DLPackOnly(a), DLPackOnly(a), c)
        np.testing.assert_array_equal(c, 2 * a)

    def test_explicit_grid(self):
        a = np.ones(1000, dtype=np.float32)
        c = np.zeros_like(a)
        lib.add(a, a, c, grid=1, block=128)  # 128 threads: only the first 128 elements
        self.assertEqual(c[:128].tolist(), [2.0] * 128)
        self.assertEqual(c[128:].tolist(), [0.0] * 872)
        c[:] = 0
        lib.add(a, a, c, threads=500)
        self.assertEqual(int((c == 2).sum()), 512)  # two blocks of 256


class Errors(unittest.TestCase):
    def setUp(self):
        self.a = np.arange(100, dtype=np.float32)
        self.b = np.ones(100, dtype=np.float32)
        self.c = np.zeros(100, dtype=np.float32)

    def test_requires_violated(self):
        with self.assertRaises(oxide.ContractError) as caught:
            lib.add(self.a, self.b[:50], self.c)
        e = caught.exception
        self.assertEqual(e.kind, "RequiresViolated")
        self.assertEqual(e.kernel, "add")
        self.assertIn("'add' violates its contract: requires b.size() == c.size(), but b.size() = 50 and "
                      "c.size() = 100", str(e))
        self.assertIsInstance(e, ValueError)
        self.assertTrue((self.c == 0).all(), "nothing ran")

    def test_output_aliases_input(self):
        with self.assertRaises(oxide.AliasingError) as caught:
            lib.add(self.a, self.b, self.a)
        self.assertEqual(caught.exception.kind, "OverlappingArguments")
        self.assertIn("argument 1 (a) and argument 3 (c)", str(caught.exception))

    def test_overlapping_views(self):
        buf = np.zeros(150, dtype=np.float32)
        with self.assertRaises(oxide.AliasingError):
            lib.add(buf[0:100], self.b, buf[50:150])
        lib.add(buf[0:50], buf[0:50], buf[100:150])  # disjoint parts of one allocation

    def test_dtype(self):
        with self.assertRaises(oxide.ArgumentError) as caught:
            lib.add(self.a.astype(np.float64), self.b, self.c)
        e = caught.exception
        self.assertEqual(e.kind, "DtypeMismatch")
        self.assertIn("parameter 1 (a) is a span of float32 but gets a tensor of float64", str(e))
        self.assertIsInstance(e, TypeError)

    def test_strides(self):
        with self.assertRaises(oxide.ArgumentError) as caught:
            lib.add(np.arange(200, dtype=np.float32)[::2], self.b, self.c)
        self.assertEqual(caught.exception.kind, "UnsupportedStrides")
        self.assertIn("contiguous", str(caught.exception))

    def test_misaligned(self):
        raw = np.zeros(404, dtype=np.uint8)
        skewed = raw[2:402].view(np.float32)  # 100 floats 2 bytes past an aligned address
        if skewed.__array_interface__["data"][0] % 4 == 0:
            skewed = raw[1:401].view(np.float32)
        with self.assertRaises(oxide.ArgumentError) as caught:
            lib.add(skewed, self.b, self.c)
        self.assertEqual(caught.exception.kind, "MisalignedArgument")

    def test_rank_of_2d_output(self):
        with self.assertRaises(oxide.ArgumentError) as caught:
            lib.rmsnorm(self.a, self.b[:10], self.c, 10, 10, 1e-6)
        self.assertIn("parameter 3 (out) is a DisjointSpan2D", str(caught.exception))

    def test_scalar_out_of_range(self):
        out = np.zeros((10, 10), dtype=np.float32)
        with self.assertRaises(oxide.ContractError) as caught:
            lib.rmsnorm(self.a, self.b[:10], out, -1, 10, 1e-6)
        self.assertEqual(caught.exception.kind, "ArgumentOutOfRange")
        self.assertIn("rows", str(caught.exception))
        with self.assertRaises(oxide.ContractError):
            lib.rmsnorm(self.a, self.b[:10], out, 10, 10, 1e300)  # beyond a float
        with self.assertRaises(oxide.ContractError):
            lib.rmsnorm(self.a, self.b[:10], out, 1 << 70, 10, 1e-6)

    def test_argument_sorts(self):
        out = np.zeros((10, 10), dtype=np.float32)
        with self.assertRaisesRegex(oxide.ArgumentError, "takes 3 arguments \\(a, b, c\\) but was given 2"):
            lib.add(self.a, self.b)
        with self.assertRaisesRegex(oxide.ArgumentError, "parameter 1 \\(a\\) is a span of float32 but gets a float"):
            lib.add(1.0, self.b, self.c)
        with self.assertRaisesRegex(oxide.ArgumentError, "parameter 4 \\(rows\\) is a scalar"):
            lib.rmsnorm(self.a, self.b[:10], out, self.a, 10, 1e-6)
        with self.assertRaisesRegex(oxide.ArgumentError, "parameter 6 \\(eps\\) is a scalar \\(float32\\): pass a number, not a str"):
            lib.rmsnorm(self.a, self.b[:10], out, 10, 10, "1e-6")
        with self.assertRaisesRegex(oxide.ArgumentError, "no parameter 'z'"):
            lib.add(self.a, self.b, z=self.c)
        with self.assertRaisesRegex(oxide.ArgumentError, "missing arguments c"):
            lib.add(self.a, b=self.b)

    def test_read_only_output(self):
        frozen = np.zeros(100, dtype=np.float32)
        frozen.setflags(write=False)
        with self.assertRaisesRegex(oxide.ArgumentError, "parameter 3 \\(c\\) is written by the kernel"):
            lib.add(self.a, self.b, frozen)

    def test_kernel_fault(self):
        with self.assertRaises(oxide.KernelFault) as caught:
            lib.gather_first(self.a, 50, self.c)  # reads a[50 + i] for i < 100
        self.assertIn("gather_first", str(caught.exception))
        lib.gather_first(self.a, 0, self.c)  # the simulator carries on after a fault
        np.testing.assert_array_equal(self.c, self.a)

    def test_empty_output_launches_nothing(self):
        lib.gather_first(self.a, 1000, self.c[:0])  # no thread: nothing reads past the end
        lib.gather_first(self.a, 0, self.c, threads=100)
        np.testing.assert_array_equal(self.c, self.a)

    def test_bad_launch_settings(self):
        with self.assertRaisesRegex(oxide.OxideError, "block"):
            lib.add(self.a, self.b, self.c, block=2048)
        with self.assertRaisesRegex(ValueError, "1 to 3 extents"):
            lib.add(self.a, self.b, self.c, grid=(1, 1, 1, 1))
        with self.assertRaises(oxide.ContractError) as caught:
            lib.rmsnorm(self.a, self.b[:10], np.zeros((10, 10), np.float32), 10, 10, 1e-6, block=128)
        self.assertEqual(caught.exception.kind, "BlockMismatch")


@unittest.skipIf(torch is None, "torch is not installed")
class TorchCpu(unittest.TestCase):
    def test_add(self):
        a, b = torch.randn(4097), torch.randn(4097)
        c = torch.empty_like(a)
        lib.add(a, b, c)
        torch.testing.assert_close(c, a + b)

    def test_rmsnorm_against_torch(self):
        x = torch.randn(48, 770) * 3 + 1
        w = torch.rand(770) + 0.5
        out = torch.empty_like(x)
        lib.rmsnorm(x, w, out, 48, 770, 1e-6, threads=48 * 32)
        expected = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)

    def test_fast_path(self):
        # Calls without launch settings on torch tensors and Python numbers take the generated
        # fast path; the same errors come out of it.
        x = torch.randn(48, 770)
        w = torch.rand(770) + 0.5
        out = torch.empty_like(x)
        lib.rmsnorm(x, w, out, 48, 770, 1e-6)  # the grid from out's 770 x 48 elements
        torch.testing.assert_close(out, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
                                   rtol=1e-5, atol=1e-5)
        xi = torch.arange(100, dtype=torch.int32)
        outi = torch.empty_like(xi)
        lib.axpy_i32(-3, xi, xi, outi)
        self.assertTrue(torch.equal(outi, -3 * xi + xi))
        xf = torch.rand(64)
        outf = torch.empty_like(xf)
        lib.axpy_f32(2, xf, xf, outf)  # an int for a float parameter
        torch.testing.assert_close(outf, 3 * xf)
        with self.assertRaises(oxide.AliasingError):
            lib.add(xf, xf, xf)
        with self.assertRaises(oxide.ContractError):
            lib.add(xf, xf[:10], outf)
        with self.assertRaises(oxide.ContractError) as caught:
            lib.rmsnorm(x, w, out, -1, 770, 1e-6)
        self.assertEqual(caught.exception.kind, "ArgumentOutOfRange")
        with self.assertRaises(oxide.ContractError):
            lib.rmsnorm(x, w, out, 1 << 64, 770, 1e-6)  # beyond the fast path's int64: the general path
        with self.assertRaises(oxide.ArgumentError):
            lib.rmsnorm(x, w, out, 48, 770, "eps")
        with self.assertRaises(oxide.ArgumentError):
            lib.rmsnorm(x, w, out.view(-1), 48, 770, 1e-6)  # a 1-D tensor for the 2-D output

    def test_views_and_errors(self):
        x = torch.randn(10, 20)
        out = torch.empty(200)
        with self.assertRaises(oxide.ArgumentError) as caught:
            lib.add(x.t(), x.t(), out)  # transposed: not contiguous
        self.assertEqual(caught.exception.kind, "UnsupportedStrides")
        lib.add(x.t().contiguous(), x.t().contiguous(), out)
        torch.testing.assert_close(out, (2 * x.t()).reshape(-1))
        with self.assertRaises(oxide.ArgumentError) as caught:
            lib.add(x.half(), x.half(), out.half())
        self.assertIn("float16", str(caught.exception))
        with self.assertRaises(oxide.AliasingError):
            lib.add(x.view(-1), x.view(-1), x.view(-1))

    def test_dlpack_of_torch(self):
        a = torch.arange(32, dtype=torch.float32)
        c = torch.zeros(32)
        lib.add(DLPackOnly(a), a, c)
        torch.testing.assert_close(c, 2 * a)


class Fill(unittest.TestCase):
    """oxide.fill: every element of a tensor set to one value through the C ABI's oxide_fill, on
    the simulator for host memory; values converted to the dtype with a range check."""

    def test_numpy_dtypes(self):
        for dtype, value in [(np.float32, 2.5), (np.float64, -1.25), (np.int32, -7), (np.uint8, 255),
                             (np.int64, -(1 << 40)), (np.uint16, 513), (np.float16, 0.5), (np.bool_, True),
                             (np.int8, -128)]:
            a = np.zeros(37, dtype=dtype)
            oxide.fill(a, value)
            self.assertEqual(a.tolist(), [dtype(value).item()] * 37, dtype)
        # A 2-D array is filled whole, and an empty one is nothing to do.
        b = np.zeros((3, 5), dtype=np.float32)
        lib.fill(b, 7)
        self.assertTrue((b == 7.0).all())
        oxide.fill(np.zeros(0, dtype=np.float32), 1.0)

    def test_only_the_view(self):
        # A contiguous slice of a larger array: its neighbours stay as they were.
        a = np.zeros(10, dtype=np.int32)
        oxide.fill(a[2:6], 9)
        self.assertEqual(a.tolist(), [0, 0, 9, 9, 9, 9, 0, 0, 0, 0])

    def test_dlpack_only_objects(self):
        a = np.zeros(6, dtype=np.float32)
        oxide.fill(DLPackOnly(a), 4.0)
        self.assertEqual(a.tolist(), [4.0] * 6)

    def test_refusals(self):
        with self.assertRaises(oxide.ContractError) as caught:
            oxide.fill(np.zeros(4, dtype=np.uint8), 256)
        self.assertEqual(caught.exception.kind, "ArgumentOutOfRange")
        self.assertIn("cannot hold 256 (uint8)", str(caught.exception))
        with self.assertRaises(oxide.ContractError):
            oxide.fill(np.zeros(4, dtype=np.int32), 1.5)
        with self.assertRaises(oxide.ContractError):
            oxide.fill(np.zeros(4, dtype=np.float16), 1e6)
        with self.assertRaises(oxide.ContractError):
            oxide.fill(np.zeros(4, dtype=np.bool_), 2)
        with self.assertRaises(oxide.ArgumentError) as caught:
            oxide.fill(np.zeros((4, 4), dtype=np.float32)[:, 1], 1.0)
        self.assertEqual(caught.exception.kind, "UnsupportedStrides")
        self.assertIn("fill takes a contiguous tensor", str(caught.exception))
        frozen = np.zeros(4, dtype=np.float32)
        frozen.flags.writeable = False
        with self.assertRaisesRegex(oxide.ArgumentError, "is read-only"):
            oxide.fill(frozen, 1.0)
        with self.assertRaisesRegex(oxide.ArgumentError, "not an array"):
            oxide.fill([1.0, 2.0], 1.0)

    def test_c_entry_point(self):
        # What a C caller gets: the bytes of one element, stored into each.
        dll = lib._dll
        a = np.zeros(5, dtype=np.uint32)
        value = (0x01020304).to_bytes(4, "little")
        data = a.__array_interface__["data"][0]
        self.assertEqual(dll.oxide_fill(oxide.SIMULATOR, None, data, 5, 4, value), 0)
        self.assertEqual(a.tolist(), [0x01020304] * 5)
        # An element of 12 bytes that does not repeat: strided stores of each word.
        triples = np.zeros((4, 3), dtype=np.int32)
        element = np.array([1, -2, 3], dtype=np.int32).tobytes()
        self.assertEqual(dll.oxide_fill(oxide.SIMULATOR, None, triples.__array_interface__["data"][0], 4, 12,
                                        element), 0)
        self.assertEqual(triples.tolist(), [[1, -2, 3]] * 4)
        for args, kind, text in [
            ((oxide.SIMULATOR, None, data, 5, 4, None), "ArgumentMismatch", "oxide_fill: a null value"),
            ((oxide.SIMULATOR, None, data, 5, 0, value), "ArgumentMismatch", "an element size of 0 bytes"),
            ((oxide.SIMULATOR, None, 0, 5, 4, value), "MisalignedArgument", "a null pointer for 5 elements"),
            ((oxide.SIMULATOR, None, data, 1 << 62, 8, value), "ArgumentMismatch", "past the end of the address"),
            ((-5, None, data, 5, 4, value), "NoDevice", "neither a CUDA ordinal nor OXIDE_DEVICE_SIMULATOR"),
        ]:
            status = dll.oxide_fill(*args)
            self.assertEqual(dll.oxide_status_name(status).decode(), kind, args)
            self.assertIn(text, dll.oxide_last_error().decode())
        self.assertEqual(a.tolist(), [0x01020304] * 5)  # refusals store nothing
        self.assertEqual(dll.oxide_fill(oxide.SIMULATOR, None, 0, 0, 4, value), 0)  # nothing to fill

    @unittest.skipIf(torch is None, "torch is not installed")
    def test_torch_cpu(self):
        for dtype, value in [(torch.float32, 3.5), (torch.int64, -3), (torch.float16, 0.25),
                             (torch.bfloat16, 1.5), (torch.bfloat16, 3.140625), (torch.bool, True)]:
            t = torch.zeros(9, dtype=dtype)
            oxide.fill(t, value)
            self.assertTrue(torch.equal(t, torch.full((9,), value, dtype=dtype)), (dtype, value))
        t = torch.zeros(4, 6)
        with self.assertRaises(oxide.ArgumentError):
            oxide.fill(t.t(), 1.0)
        oxide.fill(t[1], 2.0)  # a contiguous row of it
        self.assertEqual(t.sum().item(), 12.0)
        with self.assertRaises(oxide.ContractError):
            oxide.fill(torch.zeros(2, dtype=torch.bfloat16), 1e39)


class Flag(enum.IntEnum):
    TEN = 10


def _binding_cases():
    """(name, expected path of the extension's call, kernel, arguments factory). Each factory makes
    fresh, seeded arguments; the outputs compared are the tensors and arrays among them.
    "extension": the extension launches it (and the runtime's refusals come from that launch);
    "python": it hands the call to the Python path."""
    t = torch
    g = lambda n: t.randn(n, generator=t.Generator().manual_seed(n))  # noqa: E731
    out2d = lambda: t.zeros(48, 770)  # noqa: E731
    cases = [
        ("add", "extension", "add", lambda: (g(4097), g(4097), t.zeros(4097)), {}),
        ("add of 2-D tensors", "extension", "add", lambda: (g(600).view(20, 30), g(600).view(20, 30), t.zeros(600)), {}),
        ("add of 0-d tensors", "extension", "add", lambda: (t.tensor(1.5), t.tensor(2.0), t.tensor(0.0)), {}),
        ("add of empty tensors", "extension", "add", lambda: (t.zeros(0), t.zeros(0), t.zeros(0)), {}),
        ("add of 5-D tensors", "python", "add", lambda: (g(720).view(2, 3, 4, 5, 6), g(720).view(2, 3, 4, 5, 6),
                                                        t.zeros(2, 3, 4, 5, 6)), {}),
        ("add of tensors needing grad", "extension", "add",
         lambda: (g(64).requires_grad_(), g(64), t.zeros(64)), {}),
        ("add of parameters", "extension", "add",
         lambda: (t.nn.Parameter(g(64)), g(64), t.nn.Parameter(t.zeros(64), requires_grad=False)), {}),
        ("output aliases an input", "extension", "add", lambda: (lambda x: (x, x, x))(g(100)), {}),
        ("overlapping views", "extension", "add", lambda: (lambda buf: (buf[0:100], g(100), buf[50:150]))(g(150)), {}),
        ("requires violated", "extension", "add", lambda: (g(100), g(100)[:10], t.zeros(100)), {}),
        ("dtype mismatch", "extension", "add", lambda: (g(100).double(), g(100), t.zeros(100)), {}),
        ("integer tensor for a float span", "extension", "add", lambda: (t.arange(100), g(100), t.zeros(100)), {}),
        ("bool tensor", "extension", "add", lambda: (g(100) > 0, g(100), t.zeros(100)), {}),
        ("a dtype Oxide does not take", "python", "add",
         lambda: (g(100).to(t.complex64), g(100), t.zeros(100)), {}),
        ("not contiguous", "extension", "add", lambda: (g(200).view(10, 20).t(), g(200), t.zeros(200)), {}),
        ("half tensors", "extension", "axpy_inplace_f16", lambda: (2.5, g(300).half(), g(300).half()), {}),
        ("half out of range", "extension", "axpy_inplace_f16", lambda: (1e6, g(300).half(), g(300).half()), {}),
        ("rmsnorm", "extension", "rmsnorm", lambda: (g(48 * 770).view(48, 770), g(770).abs() + 0.5, out2d(),
                                                     48, 770, 1e-6), {}),
        ("1-D tensor for a 2-D output", "extension", "rmsnorm",
         lambda: (g(48 * 770), g(770), t.zeros(48 * 770), 48, 770, 1e-6), {}),
        ("-1 for a uint32", "extension", "rmsnorm", lambda: (g(48 * 770), g(770), out2d(), -1, 770, 1e-6), {}),
        ("2^64 - 1 for a uint32", "extension", "rmsnorm",
         lambda: (g(48 * 770), g(770), out2d(), (1 << 64) - 1, 770, 1e-6), {}),
        ("2^64 for a uint32", "python", "rmsnorm", lambda: (g(48 * 770), g(770), out2d(), 1 << 64, 770, 1e-6), {}),
        ("-2^70 for a uint32", "python", "rmsnorm", lambda: (g(48 * 770), g(770), out2d(), -(1 << 70), 770, 1e-6), {}),
        ("1e300 for a float", "extension", "rmsnorm", lambda: (g(48 * 770), g(770), out2d(), 48, 770, 1e300), {}),
        ("a string for a float", "python", "rmsnorm", lambda: (g(48 * 770), g(770), out2d(), 48, 770, "eps"), {}),
        ("a tensor for a scalar", "python", "rmsnorm", lambda: (g(48 * 770), g(770), out2d(), g(1), 770, 1e-6), {}),
        ("a number for a tensor", "python", "add", lambda: (1.0, g(100), t.zeros(100)), {}),
        ("too few arguments", "python", "add", lambda: (g(100), g(100)), {}),
        ("keywords", "python", "axpy_f32", lambda: (), {"alpha": 2.0, "x": g(64), "y": g(64), "out": t.zeros(64)}),
        ("an unknown keyword", "python", "add", lambda: (g(10), g(10)), {"z": t.zeros(10)}),
        ("launch settings", "python", "add", lambda: (g(1000), g(1000), t.zeros(1000)), {"threads": 500}),
        ("ints, bools, enums for scalars", "extension", "axpy_i32",
         lambda: (Flag.TEN, t.arange(100, dtype=t.int32), t.arange(100, dtype=t.int32), t.zeros(100, dtype=t.int32)),
         {}),
        ("an int for a float", "extension", "axpy_f32", lambda: (2, g(64), g(64), t.zeros(64)), {}),
        ("a bool for a float", "extension", "axpy_f32", lambda: (True, g(64), g(64), t.zeros(64)), {}),
        ("a NumPy scalar", "python", "axpy_f32", lambda: (np.float32(2), g(64), g(64), t.zeros(64)), {}),
        ("a float for an int", "extension", "axpy_i32",
         lambda: (2.5, t.arange(10, dtype=t.int32), t.arange(10, dtype=t.int32), t.zeros(10, dtype=t.int32)), {}),
        ("3-D output", "extension", "coordinates_3d", lambda: (0.5, t.zeros(5, 6, 7)), {}),
        ("2-D tensor for a 3-D output", "extension", "coordinates_3d", lambda: (0.5, t.zeros(30, 7)), {}),
        ("a kernel fault", "extension", "gather_first", lambda: (g(100), 50, t.zeros(100)), {}),
        ("no threads: nothing runs", "extension", "gather_first", lambda: (g(100), 1000, t.zeros(0)), {}),
        ("NumPy arrays", "python", "add", lambda: (g(100).numpy(), g(100).numpy(), np.zeros(100, np.float32)), {}),
        ("NumPy and torch", "python", "add", lambda: (g(100).numpy(), g(100), t.zeros(100)), {}),
        ("a read-only output", "python", "add",
         lambda: (g(100).numpy(), g(100).numpy(), np.frombuffer(bytes(400), np.float32)), {}),
        ("DLPack only", "python", "add", lambda: (DLPackOnly(g(64)), g(64), t.zeros(64)), {}),
    ]
    return cases


def _outcome(library, kernel, make, named):
    args = make()
    before = oxide._fastcall.counters()
    try:
        library[kernel](*args, **named)
        raised = None
    except Exception as e:  # compared by the caller, whatever it is
        raised = (type(e), getattr(e, "kind", None), getattr(e, "kernel", None), str(e))
    after = oxide._fastcall.counters()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    outputs = [np.array(a.detach().cpu() if torch.is_tensor(a) else a)
               for a in list(args) + list(named.values()) if torch.is_tensor(a) or isinstance(a, np.ndarray)]
    return raised, outputs, (after[0] - before[0], after[1] - before[1])


def compare_bindings(test, ext, ctypes_lib, cases):
    """Runs each case through both bindings on fresh arguments; the same outputs and exceptions,
    the extension's call on the expected path. Returns how many were refusals."""
    errors = 0
    for name, path, kernel, make, named in cases:
        with test.subTest(name):
            # The named arguments' tensors are made afresh for each binding as well.
            fresh = lambda: {k: (v.clone() if torch.is_tensor(v) else v) for k, v in named.items()}  # noqa: E731
            raised_c, outputs_c, counted_c = _outcome(ctypes_lib, kernel, make, fresh())
            raised_e, outputs_e, counted_e = _outcome(ext, kernel, make, fresh())
            test.assertEqual(counted_c, (0, 0), "the ctypes binding does not use the extension")
            test.assertEqual(counted_e, (1, 0) if path == "extension" else (0, 1), "the extension's path")
            test.assertEqual(raised_e, raised_c)
            test.assertEqual(len(outputs_e), len(outputs_c))
            for x, y in zip(outputs_e, outputs_c):
                np.testing.assert_array_equal(x, y)
            errors += raised_c is not None
    return errors


@unittest.skipIf(torch is None, "torch is not installed")
@unittest.skipIf(not oxide.HAVE_EXTENSION, "the compiled extension is not loaded (%s)" % oxide.EXTENSION_ERROR)
class Bindings(unittest.TestCase):
    """The extension's calls and the ctypes path's on the same arguments: the same outputs, and
    the same exception (class, kind, kernel and message), whichever of its paths the extension
    took; and the extension takes the calls it should."""

    @classmethod
    def setUpClass(cls):
        cls.ext = oxide.load(LIBRARY, extension=True)
        cls.ctypes = oxide.load(LIBRARY, extension=False)

    def test_same_outcomes(self):
        self.assertEqual(self.ext.add.binding, "extension")
        self.assertEqual(self.ctypes.add.binding, "ctypes")
        errors = compare_bindings(self, self.ext, self.ctypes, _binding_cases())
        self.assertGreater(errors, 20)  # most cases are refusals: each must come out the same
        # And what they are, from the extension's own launches: kernel, parameters, relation.
        x, out = torch.zeros(100), torch.zeros(100)
        with self.assertRaises(oxide.ContractError) as caught:
            self.ext.add(x, x[:50], out)
        self.assertEqual((caught.exception.kind, caught.exception.kernel), ("RequiresViolated", "add"))
        self.assertIn("'add' violates its contract: requires b.size() == c.size(), but b.size() = 50 and "
                      "c.size() = 100", str(caught.exception))
        with self.assertRaises(oxide.AliasingError) as caught:
            self.ext.add(x, out, x)
        self.assertIn("kernel 'add': argument 1 (a) and argument 3 (c) refer to overlapping", str(caught.exception))
        with self.assertRaises(oxide.ArgumentError) as caught:
            self.ext.add(x.double(), x, out)
        self.assertIn("parameter 1 (a) is a span of float32 but gets a tensor of float64", str(caught.exception))

    def test_noop_launch(self):
        # The benchmark's no-op launch (benchmarks/python/overhead.py): the extension's call
        # reaches it, and nothing runs.
        k = oxide.load(LIBRARY, extension=True).add
        k._bind_extension(oxide._fastcall.NOOP_LAUNCH, simulator_keeps_gil=True)
        a, c = torch.ones(10), torch.zeros(10)
        k(a, a, c)
        self.assertTrue(bool((c == 0).all()))
        k(a, a, a)  # not checked either: the runtime's checks are in the launch
        k._bind_extension()
        with self.assertRaises(oxide.AliasingError):
            k(a, a, a)
        k(a, a, c)
        self.assertTrue(bool((c == 2).all()))

    def test_no_leak(self):
        # The extension's torch path (methods called directly) and its refusals hold no memory.
        import sys
        import tracemalloc
        a, b, c = torch.randn(64), torch.randn(64), torch.empty(64)
        k = self.ext.add

        def calls(n):
            for _ in range(n):
                k(a, b, c)
                try:
                    k(a, b, a)
                except oxide.AliasingError:
                    pass
        calls(100)
        counts = sys.getrefcount(a), sys.getrefcount(b), sys.getrefcount(c)
        tracemalloc.start()
        calls(100)
        first = tracemalloc.get_traced_memory()[0]
        calls(3000)
        grown = tracemalloc.get_traced_memory()[0] - first
        tracemalloc.stop()
        self.assertLess(grown, 64 * 1024)
        self.assertEqual((sys.getrefcount(a), sys.getrefcount(b), sys.getrefcount(c)), counts)

    def test_threads(self):
        # Simulator launches release the GIL in the extension as through ctypes; concurrent calls
        # of one kernel from several threads each get their own arguments.
        import threading
        k = self.ext.axpy_f32
        results, failures = {}, []

        def work(index):
            try:
                x = torch.full((5000,), float(index))
                out = torch.zeros(5000)
                for _ in range(20):
                    k(2.0, x, x, out)
                results[index] = out
            except Exception as e:  # reported below
                failures.append(e)
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        before = oxide._fastcall.counters()[0]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertEqual(oxide._fastcall.counters()[0] - before, 80)
        for index, out in results.items():
            self.assertTrue(bool((out == 3.0 * index).all()), index)

    def test_torch_imported_late(self):
        # The extension learns torch's types when the package first sees torch; a subprocess
        # that imports oxide first, then torch, still takes the extension's path.
        import subprocess
        import sys
        code = ("import oxide; lib = oxide.load(%r); import torch; a = torch.ones(8); c = torch.zeros(8); "
                "lib.add(a, a, c); lib.add(a, a, c); assert c.tolist() == [2.0] * 8; "
                "print(oxide._fastcall.counters())") % LIBRARY
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ, OXIDE_EXTENSION="1"))
        self.assertEqual(out.stdout.strip(), "(1, 1)")  # the first call configured it


@unittest.skipIf(torch is None or not torch.cuda.is_available(), "skipped: no CUDA device")
class TorchCuda(unittest.TestCase):
    """On the GPU (tests/gpu/interop/run.sh runs these there): the same calls on CUDA tensors, on
    torch's current stream."""

    def test_add_and_rmsnorm(self):
        a, b = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
        c = torch.empty_like(a)
        lib.add(a, b, c)
        torch.testing.assert_close(c, a + b)
        x = torch.randn(333, 1000, device="cuda")
        w = torch.rand(1000, device="cuda")
        out = torch.empty_like(x)
        lib.rmsnorm(x, w, out, 333, 1000, 1e-6, threads=333 * 32)
        torch.testing.assert_close(out, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
                                   rtol=1e-5, atol=1e-5)

    def test_current_stream(self):
        # A slow producer on a side stream, then the kernel on that stream: ordered after it.
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            a = torch.full((1 << 22,), 3.0, device="cuda")
            for _ in range(20):
                a = a * 1.0
            c = torch.empty_like(a)
            lib.add(a, a, c)
        side.synchronize()
        self.assertTrue(bool((c == 6).all()))

    def test_fill_on_the_current_stream(self):
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            a = torch.ones(1 << 22, device="cuda")
            for _ in range(20):
                a = a * 1.0
            oxide.fill(a, 5.0)  # ordered after the multiplications, on `side`
            b = torch.empty(1000, dtype=torch.bfloat16, device="cuda")
            oxide.fill(b, 1.5)
        side.synchronize()
        self.assertTrue(bool((a == 5).all()))
        self.assertTrue(bool((b == 1.5).all()))

    def test_errors_on_the_gpu(self):
        a = torch.randn(1000, device="cuda")
        with self.assertRaises(oxide.AliasingError):
            lib.add(a, a, a)
        with self.assertRaises(oxide.ContractError):
            lib.add(a, a[:10], torch.empty(1000, device="cuda"))
        with self.assertRaises(oxide.DeviceError) as caught:
            lib.add(a, a.cpu(), torch.empty(1000, device="cuda"))
        self.assertIn("CUDA device 0", str(caught.exception))
        with self.assertRaises(oxide.ArgumentError):
            lib.add(a.double(), a, torch.empty(1000, device="cuda"))

    @unittest.skipIf(not oxide.HAVE_EXTENSION, "the compiled extension is not loaded")
    def test_bindings_on_the_gpu(self):
        # CUDA tensors through the extension and through ctypes: the same results and errors.
        t = torch
        g = lambda n: t.randn(n, device="cuda", generator=t.Generator("cuda").manual_seed(n))  # noqa: E731
        z = lambda *shape: t.zeros(*shape, device="cuda")  # noqa: E731
        side = t.cuda.Stream()
        cases = [
            ("add", "extension", "add", lambda: (g(1 << 20), g(1 << 20), z(1 << 20)), {}),
            ("output aliases an input", "extension", "add", lambda: (lambda x: (x, x, x))(g(100)), {}),
            ("requires violated", "extension", "add", lambda: (g(100), g(100)[:10], z(100)), {}),
            ("dtype mismatch", "extension", "add", lambda: (g(100).double(), g(100), z(100)), {}),
            ("not contiguous", "extension", "add", lambda: (g(200).view(10, 20).t(), g(200), z(200)), {}),
            ("a host tensor among CUDA tensors", "python", "add", lambda: (g(100), g(100).cpu(), z(100)), {}),
            ("rmsnorm", "extension", "rmsnorm", lambda: (g(333 * 1000).view(333, 1000), g(1000).abs() + 0.5,
                                                         z(333, 1000), 333, 1000, 1e-6), {}),
            ("-1 for a uint32", "extension", "rmsnorm", lambda: (g(3000), g(1000), z(3, 1000), -1, 1000, 1e-6), {}),
            ("an explicit stream", "python", "add", lambda: (g(1000), g(1000), z(1000)), {"stream": side}),
        ]
        ext, ctypes_lib = oxide.load(LIBRARY, extension=True), oxide.load(LIBRARY, extension=False)
        self.assertEqual(compare_bindings(self, ext, ctypes_lib, cases), 6)


if __name__ == "__main__":
    unittest.main()
