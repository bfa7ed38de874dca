"""A small PyTorch model whose RMSNorm is an Oxide kernel (examples/python/kernels.cpp), checked
against the same model with PyTorch's own RMSNorm. On CUDA tensors the kernel runs on the GPU on
torch.cuda.current_stream(); on CPU tensors, on Oxide's CPU simulator.

    oxcc build --shared examples/python/kernels.cpp -o libkernels.so
    OXIDE_KERNELS=./libkernels.so PYTHONPATH=python python3 examples/python/torch_rmsnorm.py [--device cuda]

Prints PASS.
"""

import argparse
import os
import sys

import torch

import oxide

kernels = oxide.load(os.environ.get("OXIDE_KERNELS", "libkernels.so"))


class OxideRMSNorm(torch.nn.Module):
    """RMSNorm over the last dimension, computed by the Oxide kernel `rmsnorm`."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        rows = x.numel() // x.shape[-1]
        cols = x.shape[-1]
        x = x.contiguous()
        out = torch.empty_like(x)
        # One warp per row; the arguments' shapes are checked against the kernel's contract.
        kernels.rmsnorm(x, self.weight, out.view(rows, cols), rows, cols, self.eps, threads=rows * 32)
        return out


class TorchRMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Block(torch.nn.Module):
    """x -> norm -> Linear -> GELU -> Linear, with a residual: a transformer MLP block."""

    def __init__(self, dim, norm):
        super().__init__()
        self.norm = norm
        self.up = torch.nn.Linear(dim, 4 * dim)
        self.down = torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    torch.manual_seed(0)
    batch, tokens, dim = (8, 128, 768) if device.type == "cuda" else (2, 16, 96)

    reference = Block(dim, TorchRMSNorm(dim)).to(device)
    model = Block(dim, OxideRMSNorm(dim)).to(device)
    model.load_state_dict(reference.state_dict())
    with torch.no_grad():
        for p in (reference.norm.weight, model.norm.weight):
            p.copy_(torch.linspace(0.5, 1.5, dim))
    x = torch.randn(batch, tokens, dim, device=device) * 2 + 0.5

    with torch.no_grad():
        expected = reference(x)
        got = model(x)
        norm_expected = reference.norm(x)
        norm_got = model.norm(x)
    if device.type == "cuda":
        torch.cuda.synchronize()
    torch.testing.assert_close(norm_got, norm_expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4)
    print("torch_rmsnorm: %s, %s: max |difference| %.3g" % (
        device, "GPU" if device.type == "cuda" else "CPU simulator", (got - expected).abs().max().item()))
    print("PASS")


if __name__ == "__main__":
    sys.exit(main())
