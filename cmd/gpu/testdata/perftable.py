#!/usr/bin/env python3
"""One markdown table from one run on the GPU machine (README's performance section).

usage: python3 perftable.py all.json peers.json [c_launch.json] [pipeline.json] [launch_vs_c.json] [c_launch_after.json]

all.json:      gpu bench --backend all --json (every backend; "results" lists them)
peers.json:    cmd/gpu/peers.py (PyTorch / CuPy on the same GPU; gpu bench --peers-script prints it)
c_launch.json: testdata/launch_loop.c's output (cuLaunchKernel from C)
pipeline.json: go run ./examples/pipeline -json
launch_vs_c.json: backend/cuda's TestLaunchVsC (the C loop and gpu.Stream.Launch
               in one process, alternating rounds)
c_launch_after.json: launch_loop.c run again after gpu bench

Columns: each metric for anygpu's CUDA backend, the peer, ours vs the peer
(above 1 = we are ahead: peer/ours for times), then every other backend with
its ratio to CUDA (above 1 = faster than CUDA).
"""
import json, sys

allres = json.load(open(sys.argv[1]))
peers = json.load(open(sys.argv[2]))
claunch = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
pipe = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else {}
samep = json.load(open(sys.argv[5])) if len(sys.argv) > 5 else {}
cafter = json.load(open(sys.argv[6])) if len(sys.argv) > 6 else {}

results = allres.get("results") or [allres]
by = {r["backend"]: r for r in results}
cuda = by.get("cuda", results[0])
others = [r for r in results if r is not cuda]
metrics = ["h2d_pinned_gbps", "d2h_pinned_gbps", "h2d_pageable_gbps", "d2h_pageable_gbps", "d2d_gbps",
           "launch_us", "saxpy_gbps", "reduce_gbps", "sgemm_tflops", "alloc_free_us", "alloc_free_us_pool",
           "compile_cold_ms", "compile_warm_ms", "matmul_bf16_tflops", "matmul_f32_tflops"]
lower = ("_us", "_ms", "_us_pool")


def better_ratio(k, ours, ref):
    if not isinstance(ours, (int, float)) or not isinstance(ref, (int, float)) or not ours or not ref:
        return "–"
    r = ref / ours if k.endswith(lower) else ours / ref
    return f"{r:.2f}"


def fmt(v):
    if not isinstance(v, (int, float)):
        return "–" if v is None else str(v)
    a = abs(v)
    return f"{v:.0f}" if a >= 1000 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 1 else f"{v:.3f}"


peer_name = {"launch_us": "CuPy RawKernel", "alloc_free_us": "CuPy (cudaMalloc+Free)",
             "alloc_free_us_pool": "CuPy pool", "compile_cold_ms": "CuPy RawModule",
             "compile_warm_ms": "CuPy RawModule"}
head = ["metric", f"anygpu {cuda['backend']}", "PyTorch/CuPy", "ours vs peer"]
for r in others:
    head += [r["backend"], f"{r['backend']}/{cuda['backend']}"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for k in metrics:
    row = [k, fmt(cuda.get(k)), fmt(peers.get(k)), better_ratio(k, cuda.get(k), peers.get(k))]
    for r in others:
        row += [fmt(r.get(k)), better_ratio(k, r.get(k), cuda.get(k))]
    print("| " + " | ".join(row) + " |")
if "sgemm_tf32_tflops" in peers:
    print(f"| sgemm_tflops, PyTorch TF32 on | | {fmt(peers['sgemm_tf32_tflops'])} | | " + " | " * (2 * len(others)))
if claunch:
    cs = [c["c_launch_us"] for c in (claunch, cafter) if c.get("c_launch_us")]
    mean = sum(cs) / len(cs)
    label = "C loop of cuLaunchKernel, separate processes" + (" before / after gpu bench (ratio to their mean)" if len(cs) > 1 else "")
    print(f"| launch_us, {label} | {fmt(cuda.get('launch_us'))} | "
          f"{' / '.join(fmt(c) for c in cs)} | {better_ratio('launch_us', cuda.get('launch_us'), mean)} |"
          + " |" * (2 * len(others)))
if samep:
    print(f"| launch_us, same process: C loop vs gpu.Stream.Launch, {samep['rounds']} alternating rounds | "
          f"{fmt(samep.get('go_launch_us'))} | {fmt(samep.get('c_launch_us'))} | "
          f"{better_ratio('launch_us', samep.get('go_launch_us'), samep.get('c_launch_us'))} |" + " |" * (2 * len(others)))
print()
print(f"anygpu: {cuda.get('device')} ({cuda.get('device_name')}), {cuda.get('timing')}; "
      f"sizes: {cuda.get('transfer_bytes', 0) >> 20} MiB transfers, {cuda.get('saxpy_n', 0) >> 20} Mi-element saxpy/reduce, "
      f"sgemm {cuda.get('sgemm_n')}³")
for r in others:
    if r.get("errors") or r.get("error"):
        print(f"{r['backend']}: errors: {r.get('errors') or r.get('error')}")
    if r.get("sgemm_n") != cuda.get("sgemm_n"):
        print(f"{r['backend']}: sgemm {r.get('sgemm_n')}³")
if samep:
    print(f"launch in one process (TestLaunchVsC): C {samep['c_launch_us']:.3f} µs, bare cu.Lib call {samep['bare_launch_us']:.3f}, "
          f"the backend's Launch {samep['backend_launch_us']:.3f}, gpu.Stream.Launch {samep['go_launch_us']:.3f} "
          f"(paired rounds {samep['go_vs_c_paired_median']:.3f}× C, {samep['go_vs_c_paired_min']:.3f}-{samep['go_vs_c_paired_max']:.3f})")
if pipe:
    print(f"pipeline: {pipe['streams']} streams, {pipe['slots']} slots, {pipe['batches']} × {pipe['batch_bytes'] >> 20} MiB: "
          f"{pipe['pipeline_gbps']:.1f} GB/s in+out vs bidirectional bound {pipe['bidirectional_gbps']:.1f} "
          f"(H2D {pipe['h2d_pinned_gbps']:.1f}, D2H {pipe['d2h_pinned_gbps']:.1f}) = {pipe['pipeline_over_bound']:.2f}×; "
          f"trace: H2D∥D2H {100 * pipe.get('trace_copy_overlap', 0):.0f}% of the traced span")
