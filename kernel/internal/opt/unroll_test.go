package opt

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/interp"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// header starts every test kernel's file.
const header = "package p\n\nimport \"github.com/anygpu/gpu/kernel\"\n\nvar _ = kernel.Barrier\n\n"

// kernelOf wraps body as kernel K(out []int32, n uint32).
func kernelOf(body string) string {
	return header + "//gpu:kernel\nfunc K(out []int32, n uint32) {\n" + body + "\n}\n"
}

// TestUnroll checks, for each kernel, how many loops the pass leaves and
// that the kernel computes the same before and after (run by the CPU's
// closure compiler, one thread, n = 3).
func TestUnroll(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		loops int // For statements left; -1: not checked
	}{
		{"range over a constant", `for i := range 4 { out[i] = int32(i * i) }`, 0},
		{"three-clause loop with a step", `for i := 1; i < 12; i += 3 { out[i/3] = int32(i) }`, 0},
		{"counting down", `for i := int32(5); i >= 0; i-- { out[i] = 10 - i }`, 0},
		{"nested register tile", `
			var acc [4][4]int32
			var av, bv [4]int32
			for i := 0; i < 4; i++ {
				av[i] = int32(i) + 1
				bv[i] = int32(2 * i)
			}
			for i := 0; i < 4; i++ {
				for j := 0; j < 4; j++ {
					acc[i][j] += av[i] * bv[j]
				}
			}
			for i := 0; i < 4; i++ {
				for j := 0; j < 4; j++ {
					out[4*i+j] = acc[i][j]
				}
			}`, 0},
		{"triangular nest: the inner bound is the outer variable", `
			for i := 0; i < 4; i++ {
				for j := 0; j < i; j++ {
					out[i*4+j] = int32(i - j)
				}
			}`, 0},
		{"shadowing the loop variable in the body", `
			i := int32(10)
			for i := 0; i < 3; i++ {
				i := i * 2
				out[i] = int32(i) + 1
			}
			out[15] = i`, 0},
		{"a body variable is new in each iteration", `
			for i := 0; i < 3; i++ {
				var x int32
				x += int32(i) + 1
				y := x * 2
				out[i] = x + y
			}`, 0},
		{"uint32 wraps around", `
			k := 0
			for i := uint32(0xfffffffe); i != 1; i++ {
				out[k] = int32(i)
				k++
			}`, 0},
		{"int32 wraps around", `
			k := 0
			for i := int32(2147483646); i > 0; i++ {
				out[k] = i
				k++
			}
			out[5] = int32(k)`, 0},
		{"continue is written as structure", `
			for i := 0; i < 6; i++ {
				if i%2 == 1 {
					continue
				}
				v := int32(i) * 3
				out[i] = v
			}`, 0},
		{"continue in both branches", `
			for i := 0; i < 6; i++ {
				if i < 2 {
					out[i] = 1
					continue
				} else {
					out[i] = 2
					continue
				}
			}`, 0},
		{"continue in an inner loop", `
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					if j == i {
						continue
					}
					out[i*3+j] = int32(i + j)
				}
			}`, 0},
		{"break is left alone", `
			for i := 0; i < 4; i++ {
				if i == 2 {
					break
				}
				out[i] = 1
			}`, 1},
		{"continue of an outer loop", `
		outer:
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					if j == i {
						continue outer
					}
					out[i*3+j] = 1
				}
				out[12+i] = 2
			}`, -1},
		{"return in an unrolled loop", `
			for i := 0; i < 4; i++ {
				if i == 2 {
					return
				}
				out[i] = 1
			}`, 0},
		{"a bound that is not constant", `for i := uint32(0); i < n; i++ { out[i] = 1 }`, 1},
		{"the body assigns the variable", `for i := 0; i < 8; i++ { out[i] = 1; i++ }`, 1},
		{"range whose key the body assigns", `
			for i := range 3 {
				out[i] = 1
				i = 7
				out[3] += int32(i)
			}`, 0},
		{"over the limit", `for i := 0; i < 5000; i++ { out[i%16] += 1 }`, 1},
		{"no iterations", `for i := 0; i < 0; i++ { out[i] = 1 }`, 0},
		{"len of an array as the bound", `
			var a [5]int32
			for i := 0; i < len(a); i++ { a[i] = int32(i) }
			for i := range len(a) { out[i] = a[i] }`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := kernelOf(tt.body)
			plain, err := front.Load([]front.File{{Name: "t.go", Src: src}})
			require.NoError(t, err)
			opt, err := front.Load([]front.File{{Name: "t.go", Src: src}})
			require.NoError(t, err)
			Module(opt)
			if tt.loops >= 0 {
				assert.Equal(t, tt.loops, countLoops(opt.Funcs[0].Body))
			}
			assert.Equal(t, run(t, plain), run(t, opt))
		})
	}
}

// countLoops counts the For statements in list.
func countLoops(list []ir.Stmt) int {
	n := 0
	ir.WalkStmts(list, func(s ir.Stmt) {
		if _, ok := s.(*ir.For); ok {
			n++
		}
	}, nil)
	return n
}

// run runs kernel K of m on one thread with n = 3 and returns out (16
// elements, starting at -1).
func run(t *testing.T, m *ir.Module) []int32 {
	t.Helper()
	ks, err := interp.Compile(m)
	require.NoError(t, err)
	out := make([]int32, 16)
	for i := range out {
		out[i] = -1
	}
	one := backend.Dim3{X: 1, Y: 1, Z: 1}
	ks["K"](backend.Group{Size: one, Grid: one}, []backend.Arg{
		{Kind: backend.ArgBuffer, Buffer: hostBuf(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*len(out)))},
		{Kind: backend.ArgU32, Bits: 3},
	})
	return out
}

// hostBuf is a buffer in host memory.
type hostBuf []byte

func (h hostBuf) Size() int64   { return int64(len(h)) }
func (h hostBuf) Close() error  { return nil }
func (h hostBuf) Bytes() []byte { return h }

// TestUnrolledIndicesAreConstant checks that a register tile's indices are
// constants once unrolled: what lets every GPU compiler keep it in
// registers.
func TestUnrolledIndicesAreConstant(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "t.go", Src: kernelOf(`
		var acc [4][4]int32
		for i := 0; i < 4; i++ {
			for j := uint32(0); j < 4; j++ {
				acc[i][j] += int32(n) * int32(j+uint32(i)*2)
			}
		}
		out[0] = acc[1][2] + acc[3][3]`)}})
	require.NoError(t, err)
	Module(m)
	indices := 0
	ir.WalkStmts(m.Funcs[0].Body, nil, func(e ir.Expr) {
		if x, ok := e.(*ir.Index); ok {
			if r, ok := x.X.(*ir.Ref); ok && r.Var.Name == "out" {
				return
			}
			c, ok := x.Index.(*ir.Const)
			require.True(t, ok, "index %T is not a constant", x.Index)
			assert.True(t, c.Type.IsInt(), "index %v", c)
			indices++
		}
	})
	assert.GreaterOrEqual(t, indices, 16*2*2, "the 16 updates index acc twice each, at two levels")
}

// TestFreshNames checks that the copies' variables have names of their
// own, none of which another variable or a function of the module has.
func TestFreshNames(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "t.go", Src: header + `
func x_u1(a int32) int32 { return a + 1 }

//gpu:kernel
func K(out []int32, n uint32) {
	x_u2 := int32(n)
	for i := 0; i < 3; i++ {
		x := x_u1(int32(i))
		out[i] = x + x_u2
	}
}
`}})
	require.NoError(t, err)
	Module(m)
	seen := map[string]*ir.Var{}
	ir.WalkStmts(m.Funcs[len(m.Funcs)-1].Body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok {
			require.Nil(t, seen[d.Var.Name], "%s declared twice", d.Var.Name)
			require.NotEqual(t, "x_u1", d.Var.Name)
			seen[d.Var.Name] = d.Var
		}
	}, nil)
	assert.Len(t, seen, 4) // x_u2 and three copies of x
}

// TestTripsOfRolledLoops: a constant loop too large to unroll stays a loop
// with its trip count recorded (CUDA's #pragma unroll); one that unrolls is
// gone; one with a break or a variable bound has no count.
func TestTripsOfRolledLoops(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		trips int
	}{
		{"too large", `for i := 0; i < 600; i++ { out[i%16] += int32(i) * int32(n) }`, 600},
		{"variable bound", `for i := uint32(0); i < n; i++ { out[i] = 1 }`, 0},
		{"break", `for i := 0; i < 600; i++ { if uint32(i) == n { break }; out[i%16] = 1 }`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := front.Load([]front.File{{Name: "t.go", Src: kernelOf(tt.body)}})
			require.NoError(t, err)
			Module(m)
			var loops []*ir.For
			ir.WalkStmts(m.Funcs[0].Body, func(s ir.Stmt) {
				if f, ok := s.(*ir.For); ok {
					loops = append(loops, f)
				}
			}, nil)
			require.Len(t, loops, 1)
			assert.Equal(t, tt.trips, loops[0].Trips)
		})
	}
}
