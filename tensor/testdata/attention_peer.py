"""PyTorch's figures for tensor's BenchmarkAttention, on the same shape.

    python3 tensor/testdata/attention_peer.py [--heads 32 --dim 128 --seq 4096] [--dtype bfloat16]

Times F.scaled_dot_product_attention(is_causal=True) on CUDA as
BenchmarkAttention's "prefill 4096 causal" runs attention in Go: one op,
then torch.cuda.synchronize(), per iteration, the output freed after it.
Tensors are [batch 1, heads, seq, dim]. FLOPs are counted as the benchmark
counts them (4·heads·dim·seq²/2, causal), so the TFLOP/s columns compare
directly. Prints the backend PyTorch chose where it says.
"""
import argparse
import time

import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--seq", type=int, default=4096)
    p.add_argument("--dtype", default="bfloat16", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--iters", type=int, default=50)
    a = p.parse_args()
    dt = getattr(torch, a.dtype)
    h, d, t = a.heads, a.dim, a.seq
    q, k, v = (torch.randn(1, h, t, d, device="cuda", dtype=dt) for _ in range(3))
    flops = 4 * h * d * t * t / 2
    print(f"torch {torch.__version__} {torch.cuda.get_device_name()} {a.dtype} heads {h} dim {d} seq {t}")
    for _ in range(5):
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(a.iters):
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        torch.cuda.synchronize()
        del y
    sec = (time.perf_counter() - start) / a.iters
    print(f"{'sdpa causal':28s} {sec * 1e3:9.3f} ms {flops / sec / 1e12:9.2f} TFLOP/s")


if __name__ == "__main__":
    main()
