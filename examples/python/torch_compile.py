"""Oxide kernels as PyTorch custom operators inside torch.compile: the compiled function calls
the RMSNorm and add kernels of examples/python/kernels.cpp through torch.ops, and matches the
eager PyTorch computation. Needs PyTorch 2.4 or newer; runs on CUDA tensors when there is a GPU,
else on CPU tensors (the simulator). Prints PASS, or "skipped: ..." on an older PyTorch.

    OXIDE_KERNELS=./libkernels.so PYTHONPATH=python python3 examples/python/torch_compile.py
"""

import os
import sys

import torch

import oxide
import oxide.torch_ops


def main():
    if not hasattr(torch.library, "custom_op"):
        print("skipped: torch.library.custom_op needs PyTorch 2.4 or newer (this is %s)" % torch.__version__)
        return 0
    device = "cuda" if torch.cuda.is_available() else "cpu"
    lib = oxide.load(os.environ.get("OXIDE_KERNELS", "libkernels.so"))
    ops = oxide.torch_ops.register(lib, namespace="oxide_examples")
    rows, cols = (256, 1024) if device == "cuda" else (8, 64)

    def block(x, w):
        normed = torch.empty_like(x)
        ops.rmsnorm(x, w, normed, x.shape[0], x.shape[1], 1e-6)
        out = torch.empty_like(x)
        torch.ops.oxide_examples.add(normed, x, out)  # the same operator, by its torch.ops name
        return torch.nn.functional.gelu(out)

    def reference(x, w):
        return torch.nn.functional.gelu(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w + x)

    compiled = torch.compile(block, fullgraph=True)  # fullgraph: no graph break at the Oxide calls
    x = torch.randn(rows, cols, device=device)
    w = torch.rand(cols, device=device) + 0.5
    for _ in range(3):
        torch.testing.assert_close(compiled(x, w), reference(x, w), rtol=1e-4, atol=1e-4)
        x = torch.randn(rows, cols, device=device)
    print("torch_compile: %s, fullgraph compile through torch.ops.oxide_examples.{rmsnorm,add} matches" % device)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
