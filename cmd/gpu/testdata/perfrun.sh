#!/usr/bin/env bash
# perfrun.sh: every figure of README's performance section, in one run on the
# GPU machine (see README "Performance" for how to build what it needs).
#
# Here, from the project root:
#   the devbundle tool (the GPU machine has no Go): ./backend/cuda ./backend/cpu ./kernels
#   mkdir -p .devbundle/extra
#   go build -ldflags='-s -w' -o .devbundle/extra/pipeline ./examples/pipeline && gzip -f .devbundle/extra/pipeline
#   gcc -O2 -o .devbundle/extra/launch_loop cmd/gpu/testdata/launch_loop.c -ldl   # fallback if the GPU machine has no gcc
# There, from the project root (carrying .devbundle):
#   bash cmd/gpu/testdata/perfrun.sh          # PERF_SWEEPS=1 also runs the staging/ReadFrom/kernel sweeps
# Everything lands in $OUT/perf.tgz; the summary (the table last) goes to stdout.
set -u
B=.devbundle
X=$B/extra
FINAL=${OUT:-$B/out}
O=/tmp/perf-out
rm -rf "$O"; mkdir -p "$O" /tmp/devbundle-bin "$FINAL"
export OUT=$O
save() { tar czf "$FINAL/perf.tgz" -C "$O" . 2>/dev/null; }
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
	lscpu | grep -E 'Model name|^CPU\(s\)|Thread|NUMA node\(s\)|L3'
	free -g | head -2
	uname -r
} > "$O/env.txt" 2>&1
if gcc -O2 -o /tmp/launch_loop cmd/gpu/testdata/launch_loop.c -ldl 2>> "$O/env.txt"; then
	echo "launch_loop built here with $(gcc --version | head -1)" >> "$O/env.txt"
else
	cp "$X/launch_loop" /tmp/launch_loop && echo "launch_loop: carried binary (no gcc here)" >> "$O/env.txt"
fi
cat "$O/env.txt"

# Test binaries: the CUDA sweeps and launch benchmarks, the CPU backend's
# saxpy vs copy(), the Go sgemm vs the naive loop. run.sh also unpacks the
# Vulkan/EGL loaders the other backends need.
if [ -n "${PERF_SWEEPS:-}" ]; then
	ANYGPU_STAGING_SWEEP=1 ONLY=backend_cuda timeout 150 bash $B/run.sh -test.run 'TestStagingSweep|TestReadFromSweep|TestKernelSweep|TestPageableSizes|TestStagingProtocol' \
		-test.bench 'LaunchThreading' -test.benchtime 20000x
else
	ANYGPU_STAGING_SWEEP=1 ONLY=backend_cuda timeout 150 bash $B/run.sh -test.run 'TestReadFromSweep|TestPageableSizes' -test.bench 'LaunchThreading' -test.benchtime 20000x
fi
save
# The C loop and gpu.Stream.Launch in one process, alternating rounds.
mkdir -p "$O/launch"
ANYGPU_LAUNCH_VS_C=1 OUT=$O/launch ONLY=backend_cuda timeout 60 bash $B/run.sh -test.run 'TestLaunchVsC'
cp "$O/launch/launch_vs_c.json" "$O/" 2>/dev/null
ONLY=backend_cpu timeout 60 bash $B/run.sh -test.run '^$' -test.bench 'SaxpyVsCopy' -test.benchtime 5x
ONLY=kernels timeout 60 bash $B/run.sh -test.run '^$' -test.bench 'Sgemm(Go|Naive)' -test.benchtime 3x
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ] && export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json

gunzip -c $B/bin/gpu.gz > /tmp/devbundle-bin/gpu && chmod +x /tmp/devbundle-bin/gpu
gunzip -c $X/pipeline.gz > /tmp/devbundle-bin/pipeline && chmod +x /tmp/devbundle-bin/pipeline
/tmp/launch_loop > "$O/c_launch.json" 2>&1
timeout 240 /tmp/devbundle-bin/gpu bench --backend all --json > "$O/all.json" 2> "$O/all.err"
echo "gpu bench exit $?"; save
/tmp/launch_loop > "$O/c_launch_after.json" 2>&1
(cd "$O" && timeout 60 /tmp/devbundle-bin/pipeline -json -trace pipeline_trace.json > pipeline.json 2> pipeline.err)
echo "pipeline exit $?"; save
PYTHONUNBUFFERED=1 timeout 120 python3 cmd/gpu/peers.py > "$O/peers.json" 2> "$O/peers.err"
echo "peers exit $?"
python3 cmd/gpu/testdata/compare.py "$O/all.json" "$O/peers.json" > "$O/compare.txt" 2>&1

save
echo "=== logs"
for f in "$O"/backend_cuda.log "$O"/backend_cpu.log "$O"/kernels.log; do
	grep -E '^(Benchmark|---|ok|FAIL|panic)|GB/s|×|mode|KiB|pinned|GOMAXPROCS|axpy' "$f" | grep -v '^=== ' | head -80
done
cat "$O"/*_sweep.txt 2>/dev/null
echo "=== c launch"; cat "$O/c_launch.json" "$O/c_launch_after.json" "$O/launch_vs_c.json"
echo "=== pipeline"; cat "$O/pipeline.json" "$O/pipeline.err"
echo "=== errors"; tail -n 5 "$O/all.err" "$O/peers.err"
# Last, so that nothing it does can disturb the figures: the CUDA
# conformance suite (every built-in kernel against the CPU reference).
if [ -n "${PERF_CONFORMANCE:-}" ]; then
	mkdir -p "$O/conformance"
	OUT=$O/conformance ONLY=backend_cuda timeout 120 bash $B/run.sh -test.run 'TestConformance$|TestHammer|TestBuiltinAttributes'
	save
fi
echo "=== table"
python3 cmd/gpu/testdata/perftable.py "$O/all.json" "$O/peers.json" "$O/c_launch.json" "$O/pipeline.json" "$O/launch_vs_c.json" "$O/c_launch_after.json" | tee "$FINAL/table.md"
