package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/memview"
)

// hostBuf is a fake device buffer over 64-byte aligned host memory, like the
// CPU backend's.
type hostBuf struct{ mem []byte }

var (
	_ backend.Buffer     = (*hostBuf)(nil)
	_ backend.HostMemory = (*hostBuf)(nil)
)

func (b *hostBuf) Size() int64   { return int64(len(b.mem)) }
func (b *hostBuf) Bytes() []byte { return b.mem }
func (b *hostBuf) Close() error  { return nil }

// guard is how many float32s past the logical end every test buffer holds;
// they are set to sentinel and must be left alone by the kernels.
const guard = 16

// sentinel is finite and unlike any test data, so arithmetic on it (y[n] +=
// a*x[n]) changes it, which a NaN would not.
var sentinel = float32(-12345.678)

// newBuf returns a buffer holding data followed by guard sentinels, and the
// float32 view of all of it.
func newBuf(data []float32) (*hostBuf, []float32) {
	b := &hostBuf{mem: memview.Aligned(4*(len(data)+guard), 64)}
	f := memview.As[float32](b.mem)
	copy(f, data)
	for i := len(data); i < len(f); i++ {
		f[i] = sentinel
	}
	return b, f
}

// guardIntact reports the first guard element that was overwritten, or -1.
func guardIntact(f []float32, n int) int {
	for i := n; i < len(f); i++ {
		if math.Float32bits(f[i]) != math.Float32bits(sentinel) {
			return i
		}
	}
	return -1
}

func bufArg(b backend.Buffer) backend.Arg { return backend.Arg{Kind: backend.ArgBuffer, Buffer: b} }
func u32Arg(v int) backend.Arg            { return backend.Arg{Kind: backend.ArgU32, Bits: uint64(uint32(v))} }
func f32Arg(v float32) backend.Arg {
	return backend.Arg{Kind: backend.ArgF32, Bits: uint64(math.Float32bits(v))}
}

// groups lists every group of a launch, x fastest.
func groups(grid, block backend.Dim3) []backend.Group {
	grid, block = grid.Norm(), block.Norm()
	var gs []backend.Group
	for z := 0; z < grid.Z; z++ {
		for y := 0; y < grid.Y; y++ {
			for x := 0; x < grid.X; x++ {
				gs = append(gs, backend.Group{ID: backend.Dim3{X: x, Y: y, Z: z}, Size: block, Grid: grid})
			}
		}
	}
	return gs
}

// launch runs k over every group of grid, one after another or, with
// parallel, on GOMAXPROCS goroutines that take groups in a shuffled order (so
// the race detector sees groups overlap in time and in any order).
func launch(k backend.GoKernel, grid, block backend.Dim3, args []backend.Arg, parallel bool) {
	gs := groups(grid, block)
	if !parallel {
		for _, g := range gs {
			k(g, args)
		}
		return
	}
	rng := rand.New(rand.NewPCG(uint64(len(gs)), 7))
	rng.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < max(runtime.GOMAXPROCS(0), 2); w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(gs) {
					return
				}
				k(gs[i], args)
			}
		})
	}
	wg.Wait()
}

// parallelFor runs fn(lo, hi) over [0, n) in chunks of chunk on workers
// goroutines, handing out chunks in order from a shared counter (the way the
// CPU backend hands out groups).
func parallelFor(n, chunk, workers int, fn func(lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(lo, min(lo+chunk, n))
			}
		})
	}
	wg.Wait()
}

// randF32 returns n pseudo-random float32s in [lo, hi).
func randF32(rng *rand.Rand, n int, lo, hi float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = lo + (hi-lo)*rng.Float32()
	}
	return x
}

// randInts returns n pseudo-random small integers in [lo, hi] as float32s:
// sums and products of those are exact in float32, so results must match
// bit for bit whatever the order of operations.
func randInts(rng *rand.Rand, n, lo, hi int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(lo + rng.IntN(hi-lo+1))
	}
	return x
}
