"""The Oxide kernels of examples/python/kernels.cpp on CuPy arrays (__cuda_array_interface__, on
CuPy's current stream) and on JAX arrays (DLPack), checked against each framework's own result.
Needs a CUDA GPU, CuPy and JAX; prints PASS, or "skipped: ..." without them.

    OXIDE_KERNELS=./libkernels.so PYTHONPATH=python python3 examples/python/cupy_jax.py
"""

import os
import sys

import numpy as np

import oxide


def skip(why):
    print("skipped: %s" % why)
    return 0


def main():
    try:
        import cupy
    except ImportError:
        return skip("CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return skip("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        return skip("no CUDA device")
    kernels = oxide.load(os.environ.get("OXIDE_KERNELS", "libkernels.so"))

    # CuPy: on a stream of CuPy's own, which the kernel launches on (cupy.cuda.get_current_stream()).
    n = 1 << 20
    a = cupy.random.rand(n, dtype=cupy.float32)
    b = cupy.random.rand(n, dtype=cupy.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        c = cupy.empty_like(a)
        kernels.add(a, b, c)
        rows, cols = 512, 1000
        x = cupy.random.randn(rows, cols, dtype=cupy.float32)
        w = cupy.random.rand(cols, dtype=cupy.float32) + 0.5
        out = cupy.empty_like(x)
        kernels.rmsnorm(x, w, out, rows, cols, 1e-6, threads=rows * 32)
        y = cupy.empty((300, 200), dtype=cupy.float32)
        kernels.scale_2d(x.reshape(-1)[: 300 * 200], 0.5, y)
    stream.synchronize()
    cupy.testing.assert_array_equal(c, a + b)
    expected = x * (1.0 / cupy.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)) * w
    cupy.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    cupy.testing.assert_allclose(y, x.reshape(-1)[: 300 * 200].reshape(300, 200) * 0.5, rtol=1e-6)
    try:
        kernels.add(a, b, a)
        raise AssertionError("an output that aliases an input was launched")
    except oxide.AliasingError as e:
        print("cupy: aliasing refused: %s" % e)
    print("cupy: add, rmsnorm, scale_2d match")

    # JAX: inputs through DLPack (JAX arrays are immutable, so the output is a CuPy array that
    # JAX then takes back, without a copy, through DLPack).
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax: skipped: JAX is not installed")
        print("PASS")
        return 0
    if not any(d.platform == "gpu" for d in jax.devices()):
        print("jax: skipped: JAX has no GPU backend")
        print("PASS")
        return 0
    key = jax.random.PRNGKey(0)
    ja = jax.random.normal(key, (n,), dtype=jnp.float32)
    jb = jnp.arange(n, dtype=jnp.float32) / n
    jax.block_until_ready((ja, jb))
    jc = cupy.empty(n, dtype=cupy.float32)
    kernels.add(ja, jb, jc)  # ja, jb via __dlpack__; jc on CuPy's current (default) stream
    cupy.cuda.get_current_stream().synchronize()
    result = jnp.from_dlpack(jc)
    np.testing.assert_allclose(np.asarray(result), np.asarray(ja + jb), rtol=1e-6)
    print("jax: add on JAX arrays through DLPack matches")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
