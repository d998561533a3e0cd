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
//
// Fast paths. unary and binary move 16 bytes per load and store when every
// operand is contiguous (or, for binary, a row repeated over the output's
// rows) from a 16-byte boundary (vector.go); the row kernels read a
// contiguous row of whole words a word per thread at a time, rowUnroll
// loads in flight, and reduce in two barriers (rowfast.go); a norm or softmax of rows
// short enough for a group's registers loads each once and reduces through
// subgroups (rowsLean, rowlean.go). Everything else takes the general
// path, one element at a time through offset6.
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

// rank6 is the rank of a view padded to sizes s0..s5 (ones in front): 6
// less the leading sizes of 1, at least 1.
func rank6(s0, s1, s2, s3, s4 uint32) uint32 {
	if s0 != 1 {
		return 6
	} else if s1 != 1 {
		return 5
	} else if s2 != 1 {
		return 4
	} else if s3 != 1 {
		return 3
	} else if s4 != 1 {
		return 2
	}
	return 1
}

// offset6 is the element offset, from the view's start, of the i-th element
// (row-major) of a view of rank r (rank6), sizes s1..s5 (the outermost size
// is not needed) and strides t0..t5: a division per dimension but the
// outermost, none for rank 1. Host code merges the dimensions a view lays
// out as one, so contiguous views have rank 1.
func offset6(i, r, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5 uint32) uint32 {
	if r <= 1 {
		return i * t5
	}
	o := (i % s5) * t5
	i = i / s5
	if r == 2 {
		return o + i*t4
	}
	o += (i % s4) * t4
	i = i / s4
	if r == 3 {
		return o + i*t3
	}
	o += (i % s3) * t3
	i = i / s3
	if r == 4 {
		return o + i*t2
	}
	o += (i % s2) * t2
	i = i / s2
	if r == 5 {
		return o + i*t1
	}
	o += (i % s1) * t1
	i = i / s1
	return o + i*t0
}
