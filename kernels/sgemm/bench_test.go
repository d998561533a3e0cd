package sgemm_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/kernels/internal/handwritten"
	"github.com/anygpu/gpu/kernels/sgemm"
)

// handwrittenSgemm compiles the CPU's former hand-tuned sgemm
// (kernels/internal/handwritten) for dev, as a Source of its own with
// sgemm's parameters.
func handwrittenSgemm(b *testing.B, dev *gpu.Device) *gpu.Kernel {
	src := gpu.Source{Name: "handwritten_sgemm", Go: map[string]backend.GoKernel{kernels.OpSgemm: handwritten.Go()[kernels.OpSgemm]},
		Params: map[string][]backend.ArgKind{kernels.OpSgemm: kernels.Params[kernels.OpSgemm]}}
	mod, err := dev.Compile(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = mod.Close() })
	kern, err := mod.Kernel(kernels.OpSgemm)
	if err != nil {
		b.Fatal(err)
	}
	return kern
}

// Environment of BenchmarkSgemm.
const (
	// envBenchBackends lists the backends timed, comma separated (default:
	// every available one), as for kernels' BenchmarkBuiltins.
	envBenchBackends = "ANYGPU_BENCH_BACKENDS"
	// envBenchSizes lists the products timed, comma separated: n for n³, or
	// m×n×k written MxNxK (default 1024,2048,4096 on a GPU, 256,512 on
	// software renderers and the CPU).
	envBenchSizes = "ANYGPU_BENCH_SGEMM"
)

// BenchmarkSgemm times sgemm C = A·B on every available backend at each
// size, launched four ways beside each other: every kernel of
// kernels.SgemmVariants with its own block and a group per tile
// (kernel=sgemm, kernel=sgemm128x64, ...), the launch kernels.ChooseSgemm
// picks for the device (chosen=NAME), and Launcher.Sgemm (launcher: the
// device's library where it has one, as cuBLASLt on CUDA, else the chosen
// kernel); on the CPU also the hand-tuned GEMM of internal/gemm that the
// CPU ran before (handwritten), the baseline of the generated sgemm:
//
//	ANYGPU_BENCH_BACKENDS=cpu ANYGPU_BENCH_SGEMM=1024,2048 go test -run '^$' -bench 'Sgemm/cpu/.*/(chosen|handwritten)' -cpu 1,2 ./kernels/sgemm
//
// Sub-benchmarks are backend/MxNxK/way; each reports the device
// time per product (device-ns/op) and GFLOP/s (2·m·n·k per product), and
// on the CPU also GFLOP per second of the process's CPU time (cpu-GFLOP/s,
// which other work on the machine disturbs less):
//
//	ANYGPU_BENCH_BACKENDS=cuda,vulkan go test -run '^$' -bench Sgemm ./kernels/sgemm
func BenchmarkSgemm(b *testing.B) {
	ctx := context.Background()
	var names []string
	if v := os.Getenv(envBenchBackends); v != "" {
		names = strings.Split(v, ",")
	} else {
		for _, st := range gpu.Probe(ctx).Backends {
			if st.State == gpu.Available {
				names = append(names, st.Name)
			}
		}
	}
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			dev, err := gpu.Open(ctx, gpu.WithBackends(name), gpu.WithFallback(false))
			if err != nil {
				b.Skipf("%s: %v", name, err)
			}
			defer dev.Close()
			sizes, err := benchSizes(dev.Info())
			if err != nil {
				b.Fatal(err)
			}
			mods := compileBoth(b, dev)
			for _, s := range sizes {
				b.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) { benchShape(b, dev, mods, s[0], s[1], s[2]) })
			}
		})
	}
}

// benchSizes reads envBenchSizes, or the default for the device.
func benchSizes(info gpu.DeviceInfo) ([][3]int, error) {
	spec := os.Getenv(envBenchSizes)
	if spec == "" {
		spec = "1024,2048,4096"
		if info.Type == backend.TypeSoftware || info.Type == backend.TypeCPU {
			spec = "256,512"
		}
	}
	var sizes [][3]int
	for _, f := range strings.Split(spec, ",") {
		parts := strings.Split(strings.TrimSpace(f), "x")
		if len(parts) == 1 {
			parts = []string{parts[0], parts[0], parts[0]}
		}
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s=%q: %q is neither n nor MxNxK", envBenchSizes, spec, f)
		}
		var s [3]int
		for i, p := range parts {
			v, err := strconv.Atoi(p)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("%s=%q: %q is not a positive size", envBenchSizes, spec, p)
			}
			s[i] = v
		}
		sizes = append(sizes, s)
	}
	return sizes, nil
}

// benchShape times every way of one m×n×k product on dev.
func benchShape(b *testing.B, dev *gpu.Device, mods modules, m, n, k int) {
	ctx := context.Background()
	alloc := func(count int) *gpu.Buffer {
		buf, err := gpu.AllocSlice[float32](dev, count)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = buf.Close() })
		if err := dev.DefaultStream().Fill(buf, 0, 4*int64(count), 0x3f800000); err != nil { // 1.0
			b.Fatal(err)
		}
		return buf
	}
	a, bb, c := alloc(m*k), alloc(k*n), alloc(m*n)
	st := dev.DefaultStream()
	args := []gpu.Arg{gpu.Buf(c), gpu.Buf(a), gpu.Buf(bb), gpu.U32(uint32(m)), gpu.U32(uint32(n)), gpu.U32(uint32(k)), gpu.F32(1), gpu.F32(0)}
	launch := func(l kernels.SgemmLaunch) func() error {
		kern, err := mods.kernel(l.Kernel)
		if err != nil {
			b.Fatal(err)
		}
		return func() error { return st.Launch(kern, l.Grid, l.Block, args...) }
	}
	type way struct {
		name string
		run  func() error
	}
	var ways []way
	for _, v := range kernels.SgemmVariants() {
		l := kernels.SgemmLaunch{Kernel: v.Kernel, Block: v.Block,
			Grid: gpu.D2((n+v.TileN-1)/v.TileN, (m+v.TileM-1)/v.TileM)}
		ways = append(ways, way{"kernel=" + v.Kernel, launch(l)})
	}
	chosen := kernels.ChooseSgemm(dev.Info(), m, n, k)
	ways = append(ways, way{"chosen=" + chosen.Kernel, launch(chosen)})
	if dev.Info().Type == backend.TypeCPU {
		// The hand-tuned GEMM the CPU ran before the generated sgemm, in
		// the geometry it was launched with (a group per 128×128 of C).
		kern := handwrittenSgemm(b, dev)
		grid := gpu.D2((n+127)/128, (m+127)/128)
		ways = append(ways, way{"handwritten", func() error { return st.Launch(kern, grid, gpu.D2(16, 16), args...) }})
	}
	l, err := sgemm.New(dev, mods.builtins)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = l.Close() })
	ways = append(ways, way{"launcher", func() error { return l.Sgemm(st, c, a, bb, m, n, k, 1, 0) }})
	flops := 2 * float64(m) * float64(n) * float64(k)
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			if err := w.run(); err != nil { // warm up: pipelines, caches, the library's plan
				b.Fatal(err)
			}
			if err := st.Synchronize(ctx); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var device float64
			cpu0, cpuOK := processCPUTime()
			for range b.N {
				device += backendtest.DeviceTime(b, st, w.run).Seconds()
			}
			b.StopTimer()
			b.ReportMetric(device/float64(b.N)*1e9, "device-ns/op")
			b.ReportMetric(flops*float64(b.N)/device/1e9, "GFLOP/s")
			if cpu1, ok := processCPUTime(); cpuOK && ok && dev.Info().Type == backend.TypeCPU {
				// The CPU time of the whole process (every core): what a
				// product costs on a machine that other work shares.
				b.ReportMetric(flops*float64(b.N)/(cpu1-cpu0).Seconds()/1e9, "cpu-GFLOP/s")
			}
		})
	}
}
