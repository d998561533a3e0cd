// Package kernels holds anygpu's built-in portable kernels: the operations every
// backend ships, the conformance workload that checks each backend against a
// host reference, and the kernels the benchmarks time.
//
// # Operations
//
// All arrays are float32, sizes are u32. Buffers come first, in the order
// listed, then scalars, following the portable argument ABI every backend
// binds (buffers bind at 0..b-1, scalars are packed into one params block):
//
//	op          arguments                                        result
//	fill        y buf, n u32, value f32                          y[i] = value
//	copy        y buf, x buf, n u32                              y[i] = x[i]
//	scale       y buf, x buf, n u32, a f32                       y[i] = a*x[i]
//	axpy        y buf, x buf, n u32, a f32                       y[i] = a*x[i] + y[i]
//	add         z buf, x buf, y buf, n u32                       z[i] = x[i] + y[i]
//	mul         z buf, x buf, y buf, n u32                       z[i] = x[i] * y[i]
//	reduce_sum  out buf, x buf, n u32                            out[g] = partial sum of group g
//	dot         out buf, x buf, y buf, n u32                     out[g] = partial sum of x[i]*y[i]
//	transpose   out buf, in buf, rows u32, cols u32              out[c*rows+r] = in[r*cols+c]
//	sgemm       c buf, a buf, b buf, m, n, k u32, alpha, beta f32  C = alpha*A·B + beta*C
//
// The element-wise ops (fill to mul) touch element i of each buffer only for
// element i, so any of their buffers may be the same buffer (scale in place:
// y = x). Params holds these signatures; Source returns the kernels as one
// backend.Source named "builtin" whose entry points are the op names.
//
// # Work distribution
//
// Every op is correct for any block size and any grid size, larger or smaller
// than the data: each work item loops grid-stride. The element ops, reduce_sum
// and dot are one-dimensional and use the x dimension only: with G = grid.X
// groups of B = block.X threads, thread t of group g handles the elements
//
//	i = c*G*B + g*B + t,  c = 0, 1, 2, ...  while i < n
//
// and work items whose y or z index (of the thread or of the group) is not
// zero do nothing. transpose and sgemm are two-dimensional: thread x is a
// column (c of in, j of C), thread y a row (r of in, i of C), each striding by
// grid.X*block.X columns and grid.Y*block.Y rows; work items whose z index is
// not zero do nothing.
//
// # Reductions
//
// reduce_sum and dot reduce in two passes. The first pass runs with G groups
// and writes one partial sum per group, out[g] (out holds at least G floats);
// the second runs reduce_sum over those G partials with a grid of one group,
// which leaves the total in its out[0]:
//
//	reduce_sum(partials, x, n)        grid G   -> partials[0..G)
//	reduce_sum(total, partials, G)    grid 1   -> total[0]
//
// dot's first pass is the same with x[i]*y[i]; its second pass is reduce_sum.
// With a grid of one group, out may be the input buffer itself. A group with
// no elements writes 0. Summation order differs between backends (and from the
// reference), so results are compared with ReductionTolerance.
//
// # sgemm
//
// sgemm computes row-major C(m×n) = alpha·A(m×k)·B(k×n) + beta·C. When beta is
// 0, C is not read (as in BLAS), so NaN or garbage in C does not reach the
// result. With k = 0, C = beta·C.
//
// Beside OpSgemm's own 128×128 tiles, five variants with its parameters and
// results tile C differently (OpSgemm128x64, OpSgemm64x64, OpSgemm32x32,
// OpSgemm64MMA, OpSgemmFrom, in a Source of their own, SgemmSource):
// ChooseSgemm picks the entry point and geometry of a launch from the
// device's DeviceInfo and the matrix shape. On the CPU, OpSgemm's Go is
// OpSgemmFrom's (see Source).
// Package kernels/sgemm launches that choice, or the device's matrix library
// where it has one.
//
// # Bad arguments
//
// CheckLaunch does the checks of a launch that need the op's semantics: that
// every buffer holds what the sizes imply. Kernels cannot check it
// themselves (CUDA and Metal pass no buffer lengths), so on a GPU backend a
// launch with buffers too small for its sizes reads and writes out of range
// (WebGPU clamps such accesses, other APIs may drop them or fault) and may
// write part of a buffer: call CheckLaunch first where the sizes come from
// outside. The Go
// kernels the CPU backend runs are guarded instead: a group of a launch with
// the wrong argument count or kinds, a buffer that is not host memory, a
// buffer too small for its sizes (as CheckLaunch sees them), an empty block,
// or a reduction group whose index lies beyond out, does nothing, writes
// nothing and does not panic.
//
// # Dialects
//
// Source is the ops written once, as Go kernels in the kernel language
// (package kernel), in kernels/internal/ops: `go generate ./kernels/...`
// translates them with `gpu kernels` into every dialect and the compiled Go
// the CPU backend runs (the CPU's sgemm, reduce_sum and dot are hand-tuned
// exceptions; see Source). The kernel language does not accept the names
// copy, dot and transpose for a function, so those three are written as
// copyOp, dotOp and transposeOp and Source renames them. The host
// references (RefAxpy, RefSgemm, ...) define what every dialect must
// compute. The comparison helpers (CompareF32, AlmostEqual, ULPDiff,
// ReductionTolerance) absorb the differences that are allowed: FMA
// contraction and summation order.
package kernels

import (
	"slices"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// SourceName is the name of the backend.Source that Source returns.
const SourceName = "builtin"

// The entry-point names of the built-in ops, as Source and Params use them.
const (
	OpFill      = "fill"       // fill(y buf, n u32, value f32)
	OpCopy      = "copy"       // copy(y buf, x buf, n u32)
	OpScale     = "scale"      // scale(y buf, x buf, n u32, a f32)
	OpAxpy      = "axpy"       // axpy(y buf, x buf, n u32, a f32)
	OpAdd       = "add"        // add(z buf, x buf, y buf, n u32)
	OpMul       = "mul"        // mul(z buf, x buf, y buf, n u32)
	OpReduceSum = "reduce_sum" // reduce_sum(out buf, x buf, n u32)
	OpDot       = "dot"        // dot(out buf, x buf, y buf, n u32)
	OpTranspose = "transpose"  // transpose(out buf, in buf, rows u32, cols u32)
	OpSgemm     = "sgemm"      // sgemm(c buf, a buf, b buf, m u32, n u32, k u32, alpha f32, beta f32)
)

const (
	buf = backend.ArgBuffer
	u32 = backend.ArgU32
	f32 = backend.ArgF32
)

// Params declares each built-in op's parameters in order: the signature every
// dialect implements and that launches are checked against. Treat it as
// read-only; Source hands out a copy. (sgemm's variants, in SgemmSource,
// take OpSgemm's.)
var Params = map[string][]backend.ArgKind{
	OpFill:      {buf, u32, f32},
	OpCopy:      {buf, buf, u32},
	OpScale:     {buf, buf, u32, f32},
	OpAxpy:      {buf, buf, u32, f32},
	OpAdd:       {buf, buf, buf, u32},
	OpMul:       {buf, buf, buf, u32},
	OpReduceSum: {buf, buf, u32},
	OpDot:       {buf, buf, buf, u32},
	OpTranspose: {buf, buf, u32, u32},
	OpSgemm:     {buf, buf, buf, u32, u32, u32, f32, f32},
}

var opOrder = []string{
	OpFill, OpCopy, OpScale, OpAxpy, OpAdd, OpMul, OpReduceSum, OpDot, OpTranspose, OpSgemm,
}

// Ops returns the names of the built-in ops, in the order of the table in the
// package documentation.
func Ops() []string { return slices.Clone(opOrder) }

// CheckLaunch reports whether args is a valid argument list for the built-in
// op (or sgemm variant) launched over grid: the count and kinds match Params,
// no buffer is nil, and every buffer holds the float32s the sizes imply (a
// reduction's out holds one per group of grid.X). It returns nil or an error of category
// InvalidArgument that says what is wrong.
func CheckLaunch(op string, grid backend.Dim3, args []backend.Arg) error {
	bad := func(format string, a ...any) error {
		return errors.E(errors.InvalidArgument, "", "kernels."+op, format, a...)
	}
	kinds, ok := paramsOf(op)
	if !ok {
		return errors.E(errors.InvalidArgument, "", "kernels", "unknown built-in op %q", op)
	}
	if len(args) != len(kinds) {
		return bad("%d arguments, want %d (%s)", len(args), len(kinds), signature(op))
	}
	for i, k := range kinds {
		if args[i].Kind != k {
			return bad("argument %d is %v, want %v (%s)", i, args[i].Kind, k, signature(op))
		}
		if k == backend.ArgBuffer && args[i].Buffer == nil {
			return bad("argument %d is a nil buffer", i)
		}
	}
	// need checks that buffer argument i holds at least r*c float32s.
	need := func(i int, name string, r, c uint64) error {
		have := uint64(max(args[i].Buffer.Size(), 0)) / 4
		if r != 0 && c > have/r {
			return bad("buffer %s holds %d float32s, need %d×%d", name, have, r, c)
		}
		return nil
	}
	u := func(i int) uint64 { return uint64(args[i].U32()) }
	var errs []error
	switch op {
	case OpFill:
		errs = append(errs, need(0, "y", 1, u(1)))
	case OpCopy, OpScale, OpAxpy:
		errs = append(errs, need(0, "y", 1, u(2)), need(1, "x", 1, u(2)))
	case OpAdd, OpMul:
		errs = append(errs, need(0, "z", 1, u(3)), need(1, "x", 1, u(3)), need(2, "y", 1, u(3)))
	case OpReduceSum:
		errs = append(errs, need(0, "out", 1, uint64(max(grid.X, 0))), need(1, "x", 1, u(2)))
	case OpDot:
		errs = append(errs, need(0, "out", 1, uint64(max(grid.X, 0))), need(1, "x", 1, u(3)), need(2, "y", 1, u(3)))
	case OpTranspose:
		errs = append(errs, need(0, "out", u(3), u(2)), need(1, "in", u(2), u(3)))
	case OpSgemm, OpSgemm128x64, OpSgemm64x64, OpSgemm32x32, OpSgemm64MMA, OpSgemmFrom:
		m, n, k := u(3), u(4), u(5)
		errs = append(errs, need(0, "c", m, n), need(1, "a", m, k), need(2, "b", k, n))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// paramsOf returns the parameters of a built-in op or sgemm variant (which
// takes OpSgemm's), and whether op is one.
func paramsOf(op string) ([]backend.ArgKind, bool) {
	if isSgemmVariant(op) {
		op = OpSgemm
	}
	kinds, ok := Params[op]
	return kinds, ok
}

// signature formats op's parameter list: "axpy(buffer, buffer, u32, f32)".
func signature(op string) string {
	s := op + "("
	kinds, _ := paramsOf(op)
	for i, k := range kinds {
		if i > 0 {
			s += ", "
		}
		s += k.String()
	}
	return s + ")"
}
