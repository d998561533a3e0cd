package kernels_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/kernels"
)

// envBenchBackends lists the backends BenchmarkBuiltins times, comma
// separated (default: every available one).
const envBenchBackends = "ANYGPU_BENCH_BACKENDS"

// BenchmarkBuiltins times every built-in op (kernels.Source) on every
// available backend, and on the CPU two more sets beside it: handwritten
// (the hand-written Go kernels the generated ones replaced, package
// kernels/internal/handwritten) and generated-untuned (the generated set
// without its hand-tuned sgemm, reduce_sum and dot). The ops are launched as
// gpu bench launches saxpy, reduce and sgemm: 1-D ops over 4 Mi elements in
// blocks of 256, a thread per 4 elements (reductions: 1024 groups),
// transpose of 2048×2048 and sgemm of 512³ in blocks of 16×16, a group per
// 16×16 of the output. Each sub-benchmark is backend/op/set; the op's device time per run is ns/op, and GB/s (the
// bytes the op must move) or GFLOP/s its rate:
//
//	ANYGPU_BENCH_BACKENDS=vulkan go test -run '^$' -bench Builtins ./kernels
func BenchmarkBuiltins(b *testing.B) {
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
			benchBuiltins(b, dev)
		})
	}
}

// builtinLaunch is one timed launch of an op: its grid, block and
// arguments, and what one run moves (bytes) or computes (flops).
type builtinLaunch struct {
	op           string
	grid, block  gpu.Dim3
	args         []gpu.Arg
	bytes, flops float64
}

func benchBuiltins(b *testing.B, dev *gpu.Device) {
	ctx := context.Background()
	const n, side, mm = 4 << 20, 2048, 512
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
	x, y, z := alloc(n), alloc(n), alloc(n)
	partial := alloc(1024)
	tin, tout := alloc(side*side), alloc(side*side)
	ma, mb, mc := alloc(mm*mm), alloc(mm*mm), alloc(mm*mm)
	g1, gr, b1 := gpu.D1(n/1024), gpu.D1(1024), gpu.D1(256)
	nn := gpu.U32(n)
	launches := []builtinLaunch{
		{op: kernels.OpFill, grid: g1, block: b1, args: []gpu.Arg{gpu.Buf(z), nn, gpu.F32(1)}, bytes: 4 * n},
		{op: kernels.OpCopy, grid: g1, block: b1, args: []gpu.Arg{gpu.Buf(z), gpu.Buf(x), nn}, bytes: 8 * n},
		{op: kernels.OpScale, grid: g1, block: b1, args: []gpu.Arg{gpu.Buf(z), gpu.Buf(x), nn, gpu.F32(1)}, bytes: 8 * n},
		{op: kernels.OpAxpy, grid: g1, block: b1, args: []gpu.Arg{gpu.Buf(y), gpu.Buf(x), nn, gpu.F32(0)}, bytes: 12 * n},
		{op: kernels.OpAdd, grid: g1, block: b1, args: []gpu.Arg{gpu.Buf(z), gpu.Buf(x), gpu.Buf(y), nn}, bytes: 12 * n},
		{op: kernels.OpMul, grid: g1, block: b1, args: []gpu.Arg{gpu.Buf(z), gpu.Buf(x), gpu.Buf(y), nn}, bytes: 12 * n},
		{op: kernels.OpReduceSum, grid: gr, block: b1, args: []gpu.Arg{gpu.Buf(partial), gpu.Buf(x), nn}, bytes: 4 * n},
		{op: kernels.OpDot, grid: gr, block: b1, args: []gpu.Arg{gpu.Buf(partial), gpu.Buf(x), gpu.Buf(y), nn}, bytes: 8 * n},
		{op: kernels.OpTranspose, grid: gpu.D2(side/16, side/16), block: gpu.D2(16, 16),
			args: []gpu.Arg{gpu.Buf(tout), gpu.Buf(tin), gpu.U32(side), gpu.U32(side)}, bytes: 8 * side * side},
		{op: kernels.OpSgemm, grid: gpu.D2(mm/16, mm/16), block: gpu.D2(16, 16),
			args:  []gpu.Arg{gpu.Buf(mc), gpu.Buf(ma), gpu.Buf(mb), gpu.U32(mm), gpu.U32(mm), gpu.U32(mm), gpu.F32(1), gpu.F32(0)},
			flops: 2 * mm * mm * mm},
	}
	type set struct {
		name string
		src  gpu.Source
	}
	sets := []set{{"generated", kernels.Source()}}
	if dev.Info().Type == backend.TypeCPU {
		// The hand-written Go the generated kernels replaced; and, as the
		// generated set's CPU sgemm, reduce_sum and dot are hand-tuned, the
		// generated Go ones too (kernels.Source says why).
		sets = append(sets, set{"handwritten", kernels.HandwrittenGo()}, set{"generated-untuned", kernels.GeneratedUntuned()})
	}
	mods := make([]*gpu.Module, len(sets))
	for i, s := range sets {
		mod, err := dev.Compile(ctx, s.src)
		if err != nil {
			b.Fatalf("compile the %s built-ins: %v", s.name, err)
		}
		defer mod.Close()
		mods[i] = mod
	}
	st := dev.DefaultStream()
	for _, l := range launches {
		for i, s := range sets {
			b.Run(fmt.Sprintf("%s/%s", l.op, s.name), func(b *testing.B) {
				k, err := mods[i].Kernel(l.op)
				if err != nil {
					b.Fatal(err)
				}
				run := func() error { return st.Launch(k, l.grid, l.block, l.args...) }
				if err := run(); err != nil { // warm up: pipelines, caches
					b.Fatal(err)
				}
				if err := st.Synchronize(ctx); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				var device float64
				for range b.N {
					device += backendtest.DeviceTime(b, st, run).Seconds()
				}
				b.StopTimer()
				b.ReportMetric(device/float64(b.N)*1e9, "device-ns/op")
				if l.bytes > 0 {
					b.ReportMetric(l.bytes*float64(b.N)/device/1e9, "GB/s")
				}
				if l.flops > 0 {
					b.ReportMetric(l.flops*float64(b.N)/device/1e9, "GFLOP/s")
				}
			})
		}
	}
}
