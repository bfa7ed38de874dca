#!/usr/bin/env python3
"""The library side of the attention pair: PyTorch's scaled_dot_product_attention with its cuDNN
and FlashAttention (FA2) backends, on attention_oxide.cpp's shapes, bf16 [B, H, S, D], causal and
not. Timed as the C++ sides are (bench_common.hpp): CUDA events around each call after 3 warm-ups,
the median of BENCH_REPS (default 20); each backend's output checked against the math backend in
float32 on one head. Prints RESULT lines; a backend this PyTorch lacks prints nothing for it (the
summary then shows its row missing)."""
import os
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

SHAPES = [(4, 32, 4096, 128, False), (4, 32, 4096, 128, True), (16, 16, 1024, 64, False),
          (16, 16, 1024, 64, True)]
BACKENDS = [("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION), ("sdpa_flash", SDPBackend.FLASH_ATTENTION)]


def median_ms(call, reps):
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def main():
    reps = int(os.environ.get("BENCH_REPS", "20"))
    torch.manual_seed(0)
    for b, h, s, d, causal in SHAPES:
        q, k, v = (torch.rand(b, h, s, d, device="cuda", dtype=torch.bfloat16) * 2 - 1 for _ in range(3))
        with sdpa_kernel(SDPBackend.MATH):
            want = F.scaled_dot_product_attention(q[:1, :1].float(), k[:1, :1].float(), v[:1, :1].float(),
                                                  is_causal=causal)
        flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
        for name, backend in BACKENDS:
            try:
                with sdpa_kernel(backend):
                    out = torch.full_like(q, float("nan"))
                    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    ok = bool((out[:1, :1].float() - want).abs().max() <= 1 / 64)
                    ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), reps)
            except RuntimeError as error:
                print(f"attention_cuda: {name} unavailable: {str(error).splitlines()[0]}", file=sys.stderr)
                continue
            kernel = f"{name}_d{d}" + ("_causal" if causal else "")
            print(f"RESULT {kernel} {b}x{h}x{s}x{d} flops {flops:.0f} {ms:.5f} {'ok' if ok else 'FAIL'} cuda",
                  flush=True)


if __name__ == "__main__":
    main()
