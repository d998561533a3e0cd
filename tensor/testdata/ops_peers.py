"""PyTorch's figures for tensor's BenchmarkOps, on the same shapes.

    python3 tensor/testdata/ops_peers.py [--rows 1024 --cols 1024] [--dtype float32]

Each op runs on CUDA as BenchmarkOps runs it in Go: one op, then a device
synchronisation, per iteration, with the op's output freed after it. Bytes
per op are BenchmarkOps' (what the op must read and write), so the GB/s
columns compare directly. Prints one line per op: name, microseconds per op,
GB/s.
"""
import argparse
import time

import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1024)
    p.add_argument("--cols", type=int, default=1024)
    p.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--iters", type=int, default=200)
    a = p.parse_args()
    dt = getattr(torch, a.dtype)
    size = torch.tensor([], dtype=dt).element_size()
    r, c = a.rows, a.cols
    x = torch.zeros(r, c, device="cuda", dtype=dt)
    row = torch.zeros(c, device="cuda", dtype=dt)
    xt = x.t()
    n = r * c
    # name, bytes per op (BenchmarkOps' formula, scaled to the element size), op
    ops = [
        ("add", 3 * n * size, lambda: x + x),
        ("add row broadcast", 2 * n * size, lambda: x + row),
        ("gelu", 2 * n * size, lambda: F.gelu(x, approximate="tanh")),
        ("contiguous of transposed", 2 * n * size, lambda: xt.contiguous()),
        ("softmax", 2 * n * size, lambda: torch.softmax(x, dim=-1)),
        ("layer norm", 2 * n * size, lambda: F.layer_norm(x, (c,), row, row, 1e-5)),
        ("sum rows", n * size, lambda: x.sum(dim=1)),
    ]
    print(f"torch {torch.__version__} {torch.cuda.get_device_name()} {a.dtype} {r}x{c}")
    for name, nbytes, f in ops:
        for _ in range(10):
            y = f()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(a.iters):
            y = f()
            torch.cuda.synchronize()
            del y
        sec = (time.perf_counter() - start) / a.iters
        print(f"{name:28s} {sec * 1e6:9.2f} us {nbytes / sec / 1e9:9.2f} GB/s")


if __name__ == "__main__":
    main()
