#!/usr/bin/env python3
"""Reference figures from the libraries a user would pick instead of anygpu, with the metric names
of `gpu bench --json`, so the two line up in one run. `gpu bench --peers` runs this file (it is
embedded in the gpu tool) right after its own measurements and prints the ratios.

usage: python3 peers.py [--quick] [--transfer-bytes N] [--elements N] [--sgemm-n N] [--cpu-sgemm-n N] > peers.json

GPU peers (needs torch and cupy with CUDA): PyTorch for transfers, saxpy, reduce and torch.mm FP32
(TF32 off; sgemm_tf32_tflops with it on; also matmul_f32_tflops), torch.matmul in bfloat16 at twice
the sgemm size (matmul_bf16_tflops), CuPy for launches, allocations and NVRTC compiles. Their
metrics are the top-level keys. CPU peer (needs numpy): NumPy's float32 matmul (its BLAS: OpenBLAS
on Debian and in the wheels), x.sum() and np.copyto, under the key "numpy", the peer of anygpu's
CPU backend. A peer that cannot be imported is left out, and "errors" says why; the exit status is 1
only when neither could be measured.
"""
import json, os, platform, sys, time

MiB = 1 << 20


def arg(name, default):
    if name in sys.argv:
        return int(sys.argv[sys.argv.index(name) + 1])
    return default


quick = "--quick" in sys.argv
transfer = arg("--transfer-bytes", (64 if quick else 256) * MiB)
elements = arg("--elements", (16 if quick else 64) * MiB)
sgemm_n = arg("--sgemm-n", 2048 if quick else 4096)
cpu_sgemm_n = arg("--cpu-sgemm-n", 512 if quick else 2048)
reps = 5 if quick else 10
res = {"tool": "peers", "quick": quick}
errors = {}


def timed(fn, reps, sync):
    fn(); sync()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t) / reps


def median_timed(fn, reps):
    """Median of reps single runs after a warm-up: the CPU peer has no device queue to fill."""
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def gpu_peers():
    import torch
    import cupy as cp
    res["device"] = torch.cuda.get_device_name(0)
    res["torch_version"] = torch.__version__
    res["cupy_version"] = cp.__version__
    tsync = torch.cuda.synchronize
    size = transfer
    pinned = torch.empty(size, dtype=torch.uint8).pin_memory()
    pageable = torch.empty(size, dtype=torch.uint8)
    dev = torch.empty(size, dtype=torch.uint8, device="cuda")
    dev2 = torch.empty(size, dtype=torch.uint8, device="cuda")
    res["h2d_pinned_gbps"] = size / timed(lambda: dev.copy_(pinned, non_blocking=True), reps, tsync) / 1e9
    res["d2h_pinned_gbps"] = size / timed(lambda: pinned.copy_(dev, non_blocking=True), reps, tsync) / 1e9
    res["h2d_pageable_gbps"] = size / timed(lambda: dev.copy_(pageable), reps, tsync) / 1e9
    res["d2h_pageable_gbps"] = size / timed(lambda: pageable.copy_(dev), reps, tsync) / 1e9
    res["d2d_gbps"] = size / timed(lambda: dev2.copy_(dev), reps, tsync) / 1e9  # bytes copied
    del pinned, pageable, dev, dev2

    n = elements
    x = torch.rand(n, device="cuda"); y = torch.rand(n, device="cuda")
    res["saxpy_gbps"] = 12 * n / timed(lambda: y.add_(x, alpha=2.0), reps * 2, tsync) / 1e9
    res["reduce_gbps"] = 4 * n / timed(lambda: x.sum(), reps * 2, tsync) / 1e9
    del x, y
    m = sgemm_n
    a = torch.rand(m, m, device="cuda"); b = torch.rand(m, m, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    res["sgemm_tflops"] = 2 * m ** 3 / timed(lambda: torch.mm(a, b), reps, tsync) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = True
    res["sgemm_tf32_tflops"] = 2 * m ** 3 / timed(lambda: torch.mm(a, b), reps, tsync) / 1e12
    torch.backends.cuda.matmul.allow_tf32 = False
    # The library products of gpu bench (Stream.MatMul, cuBLASLt on CUDA): float32 with TF32 off is
    # the sgemm problem itself; bfloat16 is torch.matmul at twice the sgemm size (8192^3).
    res["matmul_f32_tflops"] = res["sgemm_tflops"]
    del a, b
    n = 2 * m
    a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16); b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16)
    res["matmul_bf16_tflops"] = 2 * n ** 3 / timed(lambda: torch.matmul(a, b), reps, tsync) / 1e12
    del a, b

    # CuPy: raw kernel launch, pool allocation, NVRTC compile (cold: unique source; warm: cached)
    csync = cp.cuda.Device().synchronize
    empty = cp.RawKernel(r'extern "C" __global__ void empty(int* p){}', "empty")
    argbuf = cp.zeros(1, dtype=cp.int32)
    launches = 2000 if quick else 10000
    res["launch_us"] = timed(lambda: empty((1,), (32,), (argbuf,)), launches, csync) * 1e6
    res["alloc_free_us_pool"] = timed(lambda: cp.empty(MiB, dtype=cp.uint8), 2000, csync) * 1e6
    cp.get_default_memory_pool().free_all_blocks()

    def raw_alloc():
        mem = cp.cuda.Memory(MiB)  # cudaMalloc + cudaFree, no pool
        del mem

    res["alloc_free_us"] = timed(raw_alloc, 500, csync) * 1e6
    src = r'extern "C" __global__ void k%d(float a, const float* x, float* y, unsigned long long n){' \
          r'unsigned long long i = blockIdx.x*(unsigned long long)blockDim.x + threadIdx.x; if (i < n) y[i] = a*x[i] + y[i];}'
    stamp = int(time.time() * 1e6)
    t = time.perf_counter()
    cp.RawModule(code=src % stamp, options=("--std=c++17",)).get_function("k%d" % stamp)
    res["compile_cold_ms"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    cp.RawModule(code=src % stamp, options=("--std=c++17",)).get_function("k%d" % stamp)
    res["compile_warm_ms"] = (time.perf_counter() - t) * 1e3


def cpu_peer():
    import numpy as np
    out = {"version": np.__version__, "device": platform.processor() or platform.machine(),
           "threads": os.cpu_count()}
    try:
        cfg = np.show_config(mode="dicts")
        out["blas"] = cfg.get("Build Dependencies", {}).get("blas", {}).get("name", "")
    except Exception:  # older NumPy: no dicts mode
        pass
    runs = 3 if quick else 5
    n = elements
    x = np.ones(n, dtype=np.float32)
    y = np.empty_like(x)
    out["d2d_gbps"] = 4 * n / median_timed(lambda: np.copyto(y, x), runs) / 1e9  # bytes copied
    out["reduce_gbps"] = 4 * n / median_timed(lambda: x.sum(), runs) / 1e9
    del x, y
    m = cpu_sgemm_n
    rng = np.random.default_rng(1)
    a = rng.random((m, m), dtype=np.float32)
    b = rng.random((m, m), dtype=np.float32)
    c = np.empty((m, m), dtype=np.float32)
    out["sgemm_tflops"] = 2 * m ** 3 / median_timed(lambda: np.matmul(a, b, out=c), runs) / 1e12
    out["sgemm_n"] = m
    res["numpy"] = out


for name, fn in (("gpu", gpu_peers), ("numpy", cpu_peer)):
    try:
        fn()
    except Exception as e:  # ImportError, no CUDA device, out of memory: say so and go on
        errors[name] = "%s: %s" % (type(e).__name__, e)
if errors:
    res["errors"] = errors


def rounded(v):
    if isinstance(v, float):
        return round(v, 4)
    if isinstance(v, dict):
        return {k: rounded(x) for k, x in v.items()}
    return v


json.dump(rounded(res), sys.stdout, indent=1)
print()
sys.exit(1 if "gpu" in errors and "numpy" in errors else 0)
