// Command gpu reports the GPUs anygpu can use on this machine and benchmarks
// them with the same metrics as the peer libraries (PyTorch, CuPy).
//
// Usage:
//
//	gpu info [--json]
//	gpu watch [--interval D] [--count N] [--json]
//	gpu bench [--backend NAME[,NAME...]|all] [--json] [--quick]
//	gpu version (or gpu --version)
//	gpu help [COMMAND]
//
// # info
//
// gpu info probes every backend (cuda, metal, vulkan, webgpu, opengl, cpu and
// any simulated ones from ANYGPU_FAKE) and prints each backend's state — available,
// no devices, unavailable, not compiled — with the reason and a hint, then every
// device's capabilities grouped as identity, compute, memory, features and
// extra (fields a backend does not know are left out). A missing GPU backend is
// a state, not an error: info exits 0 unless it is used wrongly. Under the
// table it says which device gpu.Open would pick (ANYGPU_BACKEND and
// ANYGPU_DEVICE apply) and which software renderers (lavapipe, llvmpipe) it
// passes over, slower as they are than the CPU backend. Where NVML loads
// (package health: the NVIDIA driver's libnvidia-ml.so.1, or
// ANYGPU_NVML_LIBRARY), each NVIDIA GPU gets a "health" group of live
// figures: utilisation, memory used, temperature, power and its limit, clocks,
// throttle reasons and ECC errors; otherwise one "nvml" line says why not.
// With --json it prints gpu.Report as JSON (field names are the json tags of
// gpu.Report, gpu.BackendStatus and gpu.DeviceInfo; reasons and hints are
// strings) with "open" (the choice) and "health" (a health.Sample per GPU)
// added.
//
//	$ gpu info
//	$ gpu info --json | jq '.backends[] | select(.state == "available") | .name'
//
// # watch
//
// gpu watch samples every NVIDIA GPU through NVML each --interval (1s), like
// nvidia-smi dmon: one line per GPU with sm% and mem% utilisation, memory used
// and total (MiB), temperature, power draw and limit (W), SM and memory clocks
// (MHz) and the throttle reasons; "-" marks a figure the GPU does not report.
// It stops after --count rounds or on Ctrl-C; --json prints one health.Sample
// per line instead.
//
// The command sets XDG_RUNTIME_DIR to a private empty directory when it is
// unset or invalid, so Mesa's drivers do not print a warning per probe.
//
// # bench
//
// gpu bench measures, on each chosen backend, these metrics:
//
//	h2d_pinned_gbps   host buffer (AllocHost) -> device, Stream.WriteHost, 256 MiB, GB/s (1e9 B/s)
//	d2h_pinned_gbps   device -> host buffer, Stream.ReadHost, 256 MiB
//	h2d_pageable_gbps Go []byte -> device, Stream.Write + Synchronize, 256 MiB, wall clock
//	d2h_pageable_gbps device -> Go []byte, Stream.Read + Synchronize, 256 MiB, wall clock
//	d2d_gbps          Stream.Copy within the device, 256 MiB; bytes copied / time
//	launch_us         back-to-back launches of the smallest built-in launch (fill,
//	                  n=1, grid 1, block 1): wall time from the first Launch to the
//	                  end of the Synchronize after the last, divided by the count
//	                  (after a warm-up round of as many launches; compare with
//	                  cmd/gpu/testdata/launch_loop.c, the same loop in C)
//	saxpy_gbps        axpy over 64 Mi float32: 12 bytes per element / kernel time;
//	                  on GPUs one group of 256 per 1024 elements (a float4 per thread)
//	                  (one group per 256 elements where the unit count is unknown:
//	                  WebGPU reports 1)
//	reduce_gbps       two-pass reduce_sum over 64 Mi float32: 4 bytes per element / time of both passes
//	sgemm_tflops      sgemm n×n×n, alpha 1, beta 0, as package kernels/sgemm runs it (the
//	                  device's matrix library where Stream.MatMul has one: cuBLASLt in
//	                  exact FP32 on CUDA, internal/gemm over every core on the CPU;
//	                  else the built-in kernel and geometry that
//	                  kernels.ChooseSgemm picks): 2·n³ / device time;
//	                  n = 4096, or 2048 on CPU, software and simulated devices
//	                  (4096³ would take minutes there); the n used is reported
//	alloc_free_us     Device.Alloc(1 MiB) + Buffer.Close + Pool().Trim(): every
//	                  allocation misses the pool and reaches the backend's allocator
//	                  (compare with a raw cudaMalloc + cudaFree), wall clock per pair
//	alloc_free_us_pool  the same without the Trim, after warm-up: the pool's hit path
//	compile_cold_ms   Device.Compile(kernels.Source()) with a define unique to the run
//	                  (so no kernel cache can answer) + Module.Kernel, wall clock
//	compile_warm_ms   the same compile again (kernel caches may answer), median
//	matmul_bf16_tflops  Stream.MatMul (the backend's matrix library: cuBLASLt's
//	                  tensor cores on CUDA; the CPU's has float32 only) of two
//	                  bfloat16 n×n matrices, n = 2·the
//	                  sgemm n (8192, 1024 with --quick), float32 accumulation:
//	                  2·n³ / time; the peer is torch.matmul in bfloat16
//	matmul_f32_tflops the same in float32 at the sgemm n (4096), exact FP32 (no
//	                  TF32); the peer is torch.mm with TF32 off
//	                  (both measured only where the backend has a matrix library;
//	                  elsewhere left out, neither a number nor an error)
//
// Device work (pinned transfers, D2D, kernels) is timed with events recorded
// on the stream before and after (Event.Elapsed); where a backend has no events,
// with the wall clock around the work and a Synchronize. Each metric runs once
// to warm up, then several times (10, or 3 with --quick and for sgemm on
// CPU-class devices), and the median is reported (launch_us and alloc_free_us:
// the median of 5 rounds, 3 with --quick). 1-D kernels run in groups of 256
// threads, one thread per element; the reduction's first pass uses at most
// 1024 groups. Kernel results are checked against the kernels package's host
// references (and transfers against the data written), so a backend that is fast
// but wrong posts an error for that metric instead of a number; the other metrics
// still run. The two allocation metrics carry the names the peer benchmark uses
// for CuPy's unpooled and pooled allocation.
//
// --backend picks the backends: a name, a comma-separated list, or "all" (every
// available backend). By default it benchmarks the device gpu.Open picks, which
// honours ANYGPU_BACKEND and ANYGPU_DEVICE. --quick uses much smaller sizes
// (16 MiB transfers, 4 Mi elements, 512³ sgemm, fewer repetitions) and finishes
// in seconds. On a terminal a progress line is drawn on stderr.
//
// The human output is a table of metric × backend with the sizes used and,
// when cuda is among the backends, a ratio-to-cuda column per other backend
// (above 1 means faster than cuda).
//
// --peers then runs peers.py (built into the tool: --peers-script prints it)
// with the same sizes and prints every metric beside the peer's: PyTorch and
// CuPy on the same GPU for the GPU backends, NumPy (its BLAS for sgemm) for the
// CPU backend; $ANYGPU_PYTHON names the interpreter. A peer whose library is
// missing is reported and left out. --baseline FILE compares the run with an
// earlier --json output and exits 1 when a metric is more than --tolerance
// percent (default 5) worse, listing each.
//
// --json prints one flat JSON object with the metric names as keys, the shape
// of peers.py's output (compare.py in testdata lines two such files up), so
// that
//
//	$ gpu bench --json > ours.json
//	$ gpu bench --peers-script > peers.py && python3 peers.py > peers.json
//	$ python3 cmd/gpu/testdata/compare.py ours.json peers.json
//
// lines the two up. The object holds:
//
//	"tool": "anygpu", "version", "backend", "device" (the model),
//	"device_name" ("cuda:0"), "device_type", "simulated" (only when true),
//	"quick", "timing" ("events, median of 10"), "elapsed_s",
//	"transfer_bytes", "saxpy_n", "reduce_n", "sgemm_n", "alloc_bytes",
//	"launch_count", "reps", "sgemm_reps"      the sizes actually used
//	the fifteen metrics                       numbers, or null when failed
//	                                          or not measurable there
//	"errors": {metric: message}               only when a metric failed
//	"error": message                          instead of the device fields,
//	                                          when the device did not open
//
// With several backends the top level holds the first one's results (cuda
// when present) and "results" lists every backend's object. --peers adds
// "peers" (peers.py's object) and --baseline adds "baseline" (the file, the
// tolerance, how many metrics were compared and the regressions).
//
// A metric whose error leaves the device unusable (a sticky CUDA fault, a lost
// device) fails alone: the device is reopened for the metrics after it (at most
// three times).
//
// The exit status is 0 on success, 1 when a device could not be opened or a
// metric failed, and 2 on a usage error.
package main
