package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// reduceIR is a shared-memory tree reduction, a barrier inside a uniform loop:
//
//	func Reduce(in, out []float32) {
//		sh := kernel.Shared[[64]float32]()
//		tid := kernel.ThreadX()
//		sh[tid] = in[kernel.GlobalX()]
//		kernel.Barrier()
//		for s := kernel.GroupSizeX() / 2; s > 0; s >>= 1 {
//			if tid < s {
//				sh[tid] += sh[tid+s]
//			}
//			kernel.Barrier()
//		}
//		if tid != 0 {
//			return
//		}
//		out[kernel.GroupX()] = sh[0]
//	}
func reduceIR() *ir.Func {
	f32s := &ir.Slice{Elem: ir.F32}
	in, out := param("in", f32s, 0), param("out", f32s, 1)
	sh := &ir.Var{Name: "sh", Type: &ir.Array{Elem: ir.F32, Len: 64}, Class: ir.Shared}
	tid, s := local("tid", ir.U32), local("s", ir.U32)
	f := kernelFunc("Reduce", []*ir.Var{in, out},
		decl(tid, idb(ir.ThreadX)),
		set(at(ref(sh), ref(tid)), at(ref(in), idb(ir.GlobalX))),
		&ir.Barrier{},
		&ir.For{
			Init: decl(s, bin(ir.Div, idb(ir.GroupSizeX), cU32(2))),
			Cond: bin(ir.Gt, ref(s), cU32(0)),
			Post: set(ref(s), bin(ir.Shr, ref(s), cU32(1))),
			Body: []ir.Stmt{
				&ir.If{Cond: bin(ir.Lt, ref(tid), ref(s)), Then: []ir.Stmt{
					addTo(at(ref(sh), ref(tid)), at(ref(sh), bin(ir.Add, ref(tid), ref(s)))),
				}},
				&ir.Barrier{},
			},
		},
		&ir.If{Cond: bin(ir.Ne, ref(tid), cU32(0)), Then: []ir.Stmt{&ir.Return{}}},
		set(at(ref(out), idb(ir.GroupX)), at(ref(sh), cU32(0))),
	)
	f.Shared, f.Barriers = []*ir.Var{sh}, true
	return f
}

func TestSharedReductionWithBarriers(t *testing.T) {
	k := compileOne(t, reduceIR())
	for _, block := range []int{64, 32, 8, 1} {
		groups := 13
		in := make([]float32, groups*block)
		for i := range in {
			in[i] = float32(i%17) - 3 // small integers: every order of summing is exact
		}
		out := make([]float32, groups)
		require.NoError(t, launch(k, backend.Dim3{X: groups}, backend.Dim3{X: block}, buf(in), buf(out)))
		for g := range groups {
			var want float32
			for _, v := range in[g*block : (g+1)*block] {
				want += v
			}
			assert.Equal(t, want, out[g], "block %d group %d", block, g)
		}
	}
}

// TestBarrierPhasesSeeEachOthersWrites: each thread writes its id to shared
// memory, and after the barrier reads its neighbour's; a run thread by
// thread without the split would read zeros.
//
//	sh[t] = t*t; Barrier(); out[g] = sh[(t+1) % GroupSizeX()]
func TestBarrierPhasesSeeEachOthersWrites(t *testing.T) {
	out := param("out", &ir.Slice{Elem: ir.U32}, 0)
	sh := &ir.Var{Name: "sh", Type: &ir.Array{Elem: ir.U32, Len: 16}, Class: ir.Shared}
	tid := local("t", ir.U32)
	f := kernelFunc("Neighbour", []*ir.Var{out},
		decl(tid, idb(ir.ThreadIndex)),
		set(at(ref(sh), ref(tid)), bin(ir.Mul, ref(tid), ref(tid))),
		&ir.Block{Body: []ir.Stmt{&ir.Barrier{}}},
		set(at(ref(out), idb(ir.GlobalX)), at(ref(sh), bin(ir.Rem, bin(ir.Add, ref(tid), cU32(1)), idb(ir.GroupSizeX)))),
	)
	f.Shared, f.Barriers = []*ir.Var{sh}, true
	k := compileOne(t, f)
	got := make([]uint32, 32)
	require.NoError(t, launch(k, backend.Dim3{X: 2}, backend.Dim3{X: 16}, buf(got)))
	for i := range got {
		n := uint32((i%16 + 1) % 16)
		assert.Equal(t, n*n, got[i], "thread %d", i)
	}
}

// histogramIR counts values into bins with atomics, first in a shared
// histogram per group, then into the global one:
//
//	func Hist(in []uint32, hist []uint32, n uint32) {
//		local := kernel.Shared[[8]uint32]()
//		if kernel.ThreadX() < 8 { local[kernel.ThreadX()] = 0 }
//		kernel.Barrier()
//		for i := kernel.GlobalX(); i < n; i += kernel.GridX() * kernel.GroupSizeX() {
//			kernel.AtomicAdd(&local[in[i]%8], 1)
//		}
//		kernel.Barrier()
//		if kernel.ThreadX() < 8 { kernel.AtomicAdd(&hist[kernel.ThreadX()], local[kernel.ThreadX()]) }
//		kernel.AtomicMax(&hist[8], in[kernel.GlobalX() % n]) // the largest value seen
//	}
func histogramIR() *ir.Func {
	u32s := &ir.Slice{Elem: ir.U32}
	in, hist, n := param("in", u32s, 0), param("hist", u32s, 1), param("n", ir.U32, 2)
	sh := &ir.Var{Name: "local", Type: &ir.Array{Elem: ir.U32, Len: 8}, Class: ir.Shared}
	i := local("i", ir.U32)
	tx := idb(ir.ThreadX)
	f := kernelFunc("Hist", []*ir.Var{in, hist, n},
		&ir.If{Cond: bin(ir.Lt, tx, cU32(8)), Then: []ir.Stmt{set(at(ref(sh), tx), cU32(0))}},
		&ir.Barrier{},
		&ir.For{
			Init: decl(i, idb(ir.GlobalX)),
			Cond: bin(ir.Lt, ref(i), ref(n)),
			Post: addTo(ref(i), bin(ir.Mul, idb(ir.GridX), idb(ir.GroupSizeX))),
			Body: []ir.Stmt{&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd,
				Place: at(ref(sh), bin(ir.Rem, at(ref(in), ref(i)), cU32(8))), Args: []ir.Expr{cU32(1)}}}},
		},
		&ir.Barrier{},
		&ir.If{Cond: bin(ir.Lt, tx, cU32(8)), Then: []ir.Stmt{&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd,
			Place: at(ref(hist), tx), Args: []ir.Expr{at(ref(sh), tx)}}}}},
		&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicMax, Place: at(ref(hist), cU32(8)),
			Args: []ir.Expr{at(ref(in), bin(ir.Rem, idb(ir.GlobalX), ref(n)))}}},
	)
	f.Shared, f.Barriers = []*ir.Var{sh}, true
	return f
}

func TestAtomicHistogramAcrossGroups(t *testing.T) {
	k := compileOne(t, histogramIR())
	const n = 100_003
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*7919) % 1000
	}
	hist := make([]uint32, 9)
	// 64 groups of 32 threads, run in parallel goroutines: every bin is
	// contended by every group.
	require.NoError(t, launch(k, backend.Dim3{X: 64}, backend.Dim3{X: 32}, buf(in), buf(hist), argU32(n)))
	want := make([]uint32, 9)
	for _, v := range in {
		want[v%8]++
	}
	for g := range 64 * 32 {
		want[8] = max(want[8], in[g%n])
	}
	assert.Equal(t, want, hist)
}

func TestAtomicOps(t *testing.T) {
	i32s := &ir.Slice{Elem: ir.I32}
	f32s := &ir.Slice{Elem: ir.F32}
	tests := []struct {
		name string
		op   ir.AtomicOp
		arg  func(tid ir.Expr) []ir.Expr
		init int32
		want func(threads int) int32
	}{
		{"add", ir.AtomicAdd, func(tid ir.Expr) []ir.Expr { return []ir.Expr{tid} }, 5,
			func(n int) int32 { return 5 + int32(n*(n-1)/2) }},
		{"min", ir.AtomicMin, func(tid ir.Expr) []ir.Expr { return []ir.Expr{bin(ir.Sub, cI32(10), tid)} }, 0,
			func(n int) int32 { return min(0, 10-int32(n-1)) }},
		{"or", ir.AtomicOr, func(tid ir.Expr) []ir.Expr { return []ir.Expr{bin(ir.Shl, cI32(1), bin(ir.Rem, tid, cI32(31)))} }, 0,
			func(n int) int32 {
				v := int32(0)
				for i := range n {
					v |= 1 << (i % 31)
				}
				return v
			}},
		{"xor", ir.AtomicXor, func(tid ir.Expr) []ir.Expr { return []ir.Expr{tid} }, 0,
			func(n int) int32 {
				v := int32(0)
				for i := range n {
					v ^= int32(i)
				}
				return v
			}},
		{"compare exchange increments", ir.AtomicCompareExchange, nil, 0, func(int) int32 { return 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, fl := param("p", i32s, 0), param("f", f32s, 1)
			tid := &ir.Convert{To: ir.I32, X: idb(ir.GlobalX)}
			args := []ir.Expr{cI32(0), cI32(1)}
			if tt.arg != nil {
				args = tt.arg(tid)
			}
			f := kernelFunc("A", []*ir.Var{p, fl},
				&ir.ExprStmt{X: &ir.Atomic{Op: tt.op, Place: at(ref(p), cU32(0)), Args: args}},
				&ir.ExprStmt{X: &ir.Atomic{Op: ir.AtomicAdd, Place: at(ref(fl), cU32(0)), Args: []ir.Expr{cF32(0.5)}}},
			)
			k := compileOne(t, f)
			v, fv := []int32{tt.init}, []float32{0}
			require.NoError(t, launch(k, backend.Dim3{X: 40}, backend.Dim3{X: 25}, buf(v), buf(fv)))
			assert.Equal(t, tt.want(1000), v[0])
			assert.Equal(t, float32(500), fv[0])
		})
	}
}
