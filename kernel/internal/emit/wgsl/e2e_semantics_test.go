//go:build cgo

package wgsl

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
)

// goF32ToI32 is the IR's float-to-int32 conversion: truncation,
// saturating, NaN to 0.
func goF32ToI32(f float32) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

func goF32ToU32(f float32) uint32 {
	switch {
	case f != f || f <= 0:
		return 0
	case f >= math.MaxUint32:
		return math.MaxUint32
	}
	return uint32(f)
}

// opsWant is what opsKernel computes for one case, in Go; a NaN result's
// bits are any NaN's (nan reports which), and a NaN's sign is not kept
// (unsigned reports which results hold one).
func opsWant(x, y int32, p, q float32, thread uint32) (out [opsResults]uint32, nan, unsigned [opsResults]bool) {
	s := uint32(y) & 63
	div, rem := x, int32(0)
	if y != 0 {
		div, rem = x/y, x%y
	}
	udiv, urem := uint32(x), uint32(0)
	if y != 0 {
		udiv, urem = uint32(x)/uint32(y), uint32(x)%uint32(y)
	}
	sel := [4]int32{}
	sel[x&3] = 7
	absx := x
	if x < 0 {
		absx = -x
	}
	f := func(j int, v float32) {
		out[j] = math.Float32bits(v)
		nan[j] = v != v
	}
	out[0], out[1], out[2], out[3] = uint32(div), uint32(rem), udiv, urem
	out[4], out[5], out[6], out[7] = uint32(x<<s), uint32(x>>s), uint32(x)<<s, uint32(x)>>s
	out[8], out[9] = uint32(goF32ToI32(p)), goF32ToU32(p)
	f(10, min(p, q))
	f(11, max(p, q))
	out[12], out[13] = uint32(-x), uint32(x&^y)
	f(14, min(max(p, q), 1))
	out[15] = -uint32(x)
	forty := uint(40) // a variable count: Go then shifts as the IR says
	out[16] = uint32(x<<3) ^ uint32(x>>forty)
	out[17] = uint32(x*3 + int32(thread))
	out[18] = math.Float32bits(p+0.1) ^ math.Float32bits(q*1e-20)
	out[19] = math.Float32bits(float32(math.Inf(-1))) ^ math.Float32bits(negZero()-p)
	unsigned[19] = p != p
	out[20] = uint32(absx) ^ math.Float32bits(float32(math.Abs(float64(p))))
	out[21] = uint32(sel[1] + sel[1] + 4)
	return out, nan, unsigned
}

func TestE2EOps(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, semanticsModule())
	k := kernelOf(t, mod, "Ops")
	ints := []int32{math.MinInt32, -7, -1, 0, 1, 5, 31, 32, 33, 40, 63, 64, math.MaxInt32}
	floats := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 3e9, -3e9, 5e9, 2.5, -2.5,
		-0.5, negZero(), 0, 2147483520, 2147483648, 4294967040, 4294967296, 1e-30}
	var a, b []int32
	var fs, gs []float32
	for i, x := range ints {
		for j, y := range ints {
			a, b = append(a, x), append(b, y)
			fs, gs = append(fs, floats[(i*len(ints)+j)%len(floats)]), append(gs, floats[(i+3*j)%len(floats)])
		}
	}
	for _, p := range floats {
		for _, q := range floats {
			a, b, fs, gs = append(a, 3), append(b, -2), append(fs, p), append(gs, q)
		}
	}
	n := len(a)
	for _, block := range blocks {
		t.Run(fmt.Sprintf("block%d", block), func(t *testing.T) {
			out := upload(t, dev, make([]uint32, n*opsResults))
			grid := (n + block - 1) / block
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block),
				gpu.Buf(out), gpu.Buf(upload(t, dev, a)), gpu.Buf(upload(t, dev, b)), gpu.Buf(upload(t, dev, fs)), gpu.Buf(upload(t, dev, gs)), gpu.U32(uint32(n))))
			got := download[uint32](t, out)
			for i := range n {
				want, nan, unsigned := opsWant(a[i], b[i], fs[i], gs[i], uint32(i%block))
				for j := range opsResults {
					g := got[i*opsResults+j]
					if nan[j] {
						assert.True(t, math.IsNaN(float64(math.Float32frombits(g))), "case %d (%d, %d, %g, %g) result %d: %#x, want a NaN", i, a[i], b[i], fs[i], gs[i], j, g)
						continue
					}
					if unsigned[j] {
						g, want[j] = g&0x7fffffff, want[j]&0x7fffffff
					}
					assert.Equal(t, want[j], g, "case %d (%d, %d, %g, %g) result %d: got %#x, want %#x", i, a[i], b[i], fs[i], gs[i], j, g, want[j])
				}
			}
		})
	}
}

func TestE2EVec4(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, semanticsModule())
	k := kernelOf(t, mod, "Vec4")
	const n4 = 1000
	src := randomFloats(4*n4, 8)
	dst, mix := upload(t, dev, make([]float32, 4*n4)), upload(t, dev, make([]float32, 4*n4))
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1((n4+255)/256), gpu.D1(256), gpu.Buf(dst), gpu.Buf(upload(t, dev, src)), gpu.Buf(mix), gpu.U32(n4)))
	gotDst, gotMix := download[float32](t, dst), download[float32](t, mix)
	for i := range n4 {
		v := src[4*i : 4*i+4]
		w := []float32{v[3], v[2] * 2, v[1], v[0]}
		for l := range 4 {
			require.Equal(t, v[l]+v[3-l], gotDst[4*i+l], "dst %d.%d", i, l)
		}
		w[0] += w[3]
		require.Equal(t, w, gotMix[4*i:4*i+4], "mix %d", i)
	}
}

func TestE2EAtomics(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, semanticsModule())
	k := kernelOf(t, mod, "Atomics")
	for _, block := range blocks {
		t.Run(fmt.Sprintf("block%d", block), func(t *testing.T) {
			const grid = 7
			threads := grid * block
			cell, seen, count := upload(t, dev, []int32{100}), upload(t, dev, make([]int32, threads)), upload(t, dev, make([]uint32, grid))
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), gpu.Buf(cell), gpu.Buf(seen), gpu.Buf(count)))
			assert.Equal(t, []int32{int32(100 + threads)}, download[int32](t, cell)[:1])
			got := download[int32](t, seen)
			slices.Sort(got)
			for i, v := range got {
				require.Equal(t, int32(100+i), v, "each thread replaced a different value")
			}
			for g, c := range download[uint32](t, count) {
				assert.Equal(t, uint32(block), c, "group %d", g)
			}
		})
	}
}
