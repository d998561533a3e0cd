package kernelcorpus_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/kernel"
)

// loadMatricesReference is LoadMatricesWords' output by kernel.LoadMatrices4
// and 2's documented layout: lane l of unit u gives row l%8 of matrix l/8
// at rows[u·32+l] in its group's 1024 words; lane (g, t) gets word t of row
// g of matrix i, or, transposed, the halves (2t, g) and (2t+1, g).
func loadMatricesReference(words, rows []uint32, mode int) []uint32 {
	n, trans := 4, mode == 1 || mode == 3
	if mode >= 2 {
		n = 2
	}
	units := len(rows) / 32
	out := make([]uint32, units*32*4)
	for u := range units {
		tile := words[(u/2)*1024:]
		row := func(i, r int) []uint32 { at := rows[u*32+8*i+r]; return tile[at : at+4] }
		half := func(i, r, c int) uint32 { return row(i, r)[c/2] >> (16 * (c % 2)) & 0xffff }
		for l := range 32 {
			g, t := l/4, l%4
			for i := range n {
				w := row(i, g)[t]
				if trans {
					w = half(i, 2*t, g) | half(i, 2*t+1, g)<<16
				}
				out[(u*32+l)*4+i] = w
			}
		}
	}
	return out
}

// loadMatricesMMAReference is LoadMatricesMMA's C = A·B for each unit in
// float64, and the bound on the float32 sums' error.
func loadMatricesMMAReference(ab []uint32) (want, bound []float64) {
	p := kernel.PrecisionBFloat16
	units := len(ab) / 256
	want, bound = make([]float64, units*256), make([]float64, units*256)
	for u := range units {
		for i := range 16 {
			for j := range 16 {
				var s, mag float64
				for k := range 16 {
					x := wordHalf(ab, u*256+i*8+k/2, k, p) * wordHalf(ab, u*256+128+k*8+j/2, j, p)
					s += x
					mag += math.Abs(x)
				}
				want[u*256+i*16+j], bound[u*256+i*16+j] = s, mag*0x1p-16
			}
		}
	}
	return want, bound
}

// checkLoadMatricesCase checks the first buffer of a LoadMatrices or
// CopyAsync case after its run, got.
func checkLoadMatricesCase(t *testing.T, c kernelcorpus.Case, got []uint32) {
	switch c.Kernel {
	case "LoadMatricesWords":
		want := loadMatricesReference(c.Args[1].U32, c.Args[2].U32, int(c.Args[3].Scalar.Bits()))
		require.Equal(t, want, got)
	case "LoadMatricesMMA":
		want, bound := loadMatricesMMAReference(c.Args[1].U32)
		require.Len(t, got, len(want))
		bad := 0
		for i, w := range got {
			if !assert.InDelta(t, want[i], float64(math.Float32frombits(w)), bound[i]+1e-6, "element %d", i) {
				if bad++; bad > 5 {
					t.FailNow()
				}
			}
		}
	case "CopyAsyncTiles":
		want := make([]uint32, len(c.Args[1].F32))
		for i, x := range c.Args[1].F32 {
			want[i] = math.Float32bits(x)
		}
		require.Equal(t, want, got)
	case "CopyAsyncWords":
		require.Equal(t, c.Args[1].U32, got)
	default:
		t.Fatalf("no reference for %s", c.Kernel)
	}
}

// TestLoadMatricesAndCopyAsync runs the corpus's LoadMatrices and CopyAsync
// cases on every backend present (OpenGL's two APIs), from the generated
// Source and from kernel.Translate, and checks them against the documented
// layouts on the host: the loaded words bit for bit, the MMA products of
// loaded fragments against float64, the copies exactly.
func TestLoadMatricesAndCopyAsync(t *testing.T) {
	cases, translated := corpusPart(t, "ldmatrix.go", 9, "load_matrices_", "copy_async_")

	for _, backend := range []struct{ name, api string }{{"cpu", ""}, {"vulkan", ""}, {"opengl", ""}, {"opengl", "gles"},
		{"webgpu", ""}, {"cuda", ""}, {"metal", ""}} {
		name := backend.name
		if backend.api != "" {
			name += "-" + backend.api
		}
		t.Run(name, func(t *testing.T) {
			if backend.api != "" {
				t.Setenv(opengl.EnvAPI, backend.api)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dev := openBackend(t, ctx, backend.name)
			for _, from := range []struct {
				name string
				src  gpu.Source
			}{{"generated", kernelcorpus.Kernels}, {"translated", translated}} {
				mod, err := dev.Compile(ctx, from.src)
				require.NoError(t, err)
				t.Cleanup(func() { _ = mod.Close() })
				for _, c := range cases {
					t.Run(from.name+"/"+c.Name, func(t *testing.T) {
						checkLoadMatricesCase(t, c, runMMACase(t, ctx, dev, mod, c))
					})
				}
			}
		})
	}
}
