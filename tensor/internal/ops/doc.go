// Package ops is the one source of package tensor's device ops: Go functions
// in the kernel language (package kernel), translated by `gpu kernels` into
// every dialect (ops_kernels_gen.go).
//
// Layout. A tensor's elements are addressed in elements of its dtype from the
// start of its buffer: element (i0, ..., i5) of a view is at
// off + i0·t0 + ... + i5·t5. Host code pads every view to rank 6 (sizes 1 in
// front) and passes sizes and strides as scalars, so no metadata buffer (and
// no transfer) is needed. Outputs are contiguous, row-major.
//
// Work distribution. Element-wise kernels take the elements grid-stride: a
// thread of group g takes i = g·B + t, then i + G·B, ... (B threads per
// group, G groups), so any launch covers any n. Row kernels (reductions,
// softmax, norms) give each group whole rows, grid-stride over rows, their
// threads striding over a row's columns and meeting in a shared-memory tree;
// they are launched with at most rowGroup threads per group.
package ops

//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels --name tensor

// rowGroup is the most threads a row kernel's group may have: the size of its
// shared arrays. It is small because the naga-derived dialects clear every
// shared array when a group starts (kernels/internal/ops says the cost).
const rowGroup = 64

// last reports whether i is the last index a grid-stride loop takes: the next,
// step further, lies at or beyond n. It does not overflow near 2³².
func last(i, step, n uint32) bool {
	return n-i <= step
}

// offset6 is the element offset, from the view's start, of the i-th element
// (row-major) of a view of sizes s0..s5 and strides t0..t5.
func offset6(i, s0, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5 uint32) uint32 {
	c5 := i % s5
	i = i / s5
	c4 := i % s4
	i = i / s4
	c3 := i % s3
	i = i / s3
	c2 := i % s2
	i = i / s2
	c1 := i % s1
	i = i / s1
	return i*t0 + c1*t1 + c2*t2 + c3*t3 + c4*t4 + c5*t5
}

// offset5 is offset6 for a view of rank 5 (the outer dimensions of a row
// kernel's input).
func offset5(i, s0, s1, s2, s3, s4, t0, t1, t2, t3, t4 uint32) uint32 {
	c4 := i % s4
	i = i / s4
	c3 := i % s3
	i = i / s3
	c2 := i % s2
	i = i / s2
	c1 := i % s1
	i = i / s1
	return i*t0 + c1*t1 + c2*t2 + c3*t3 + c4*t4
}
