package tensor

import (
	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// matMulLibrary enqueues a product through the device's matrix library. It
// is (*gpu.Stream).MatMul; tests replace it to see what the package asks
// for and to stand in for a device that has a library.
var matMulLibrary = (*gpu.Stream).MatMul

// libraryType is the gpu.MatMulType of float dtype d.
func libraryType(d DType) gpu.MatMulType {
	switch d {
	case Float16:
		return gpu.MatMulFloat16
	case BFloat16:
		return gpu.MatMulBFloat16
	}
	return gpu.MatMulFloat32
}

// libraryOperand is how the library takes a matrix view: its leading
// dimension and whether it is stored transposed, ok false when neither
// layout describes it (no unit stride, or rows that overlap).
func libraryOperand(v matrixView) (ld int, trans, ok bool) {
	switch {
	case v.cstride == 1 && (v.rows <= 1 || v.rstride >= max(v.cols, 1)):
		ld = v.cols
		if v.rows > 1 {
			ld = v.rstride
		}
		return max(ld, 1), false, true
	case v.rstride == 1 && (v.cols <= 1 || v.cstride >= max(v.rows, 1)):
		ld = v.rows
		if v.cols > 1 {
			ld = v.cstride
		}
		return max(ld, 1), true, true
	}
	return 0, false, false
}

// libraryKey is a kind of product the matrix library may take or refuse
// as a whole: a dtype, the operands' layouts, batched or not.
type libraryKey struct {
	dtype          DType
	transA, transB bool
	batched        bool
	bias           bool                 // the library adds the bias (MatMul.Bias)
	act            gpu.MatMulActivation // the library applies it (MatMul.Activation)
}

// libraryProduct computes out = act(a·b (+ bias, packed, of a's dtype)) (+
// r, a view of out's shape of a's dtype, when not nil; act is then none)
// through the device's matrix library when it has one for a's dtype and the
// operands' layout suits it, and reports whether it did. The library adds
// the bias (MatMul.Bias), applies act (MatMul.Activation) and reads a
// contiguous r in place (MatMul.D): no launch of their own. A NotSupported
// answer is remembered for the device and the kind of product (libraryKey,
// act included: no later product of that kind asks again) and is no error:
// the caller falls back to the package's kernels. out is contiguous
// [batch m n] (or [m n]); k > 0.
func (ds *deviceState) libraryProduct(op string, out, a, b, bias, r *Tensor, act gpu.MatMulActivation, av, bv matrixView, batch, m, n, k int) (bool, error) {
	lda, transA, okA := libraryOperand(av)
	ldb, transB, okB := libraryOperand(bv)
	if !okA || !okB {
		return false, nil
	}
	key := libraryKey{dtype: a.dtype, transA: transA, transB: transB, batched: batch > 1, bias: bias != nil, act: act}
	ds.mu.Lock()
	absent := ds.noLibrary[key]
	ds.mu.Unlock()
	if absent {
		return false, nil
	}
	size := int64(a.dtype.Size())
	mm := gpu.MatMul{
		M: m, N: n, K: k,
		A: a.st.buf, B: b.st.buf, C: out.st.buf,
		AOffset: int64(av.offset) * size, BOffset: int64(bv.offset) * size,
		LDA: lda, LDB: ldb, LDC: max(n, 1),
		TransA: transA, TransB: transB,
		In: libraryType(a.dtype), Out: libraryType(a.dtype),
		Alpha: 1,
		Batch: batch, StrideA: int64(av.bstride), StrideB: int64(bv.bstride), StrideC: int64(m) * int64(n),
		Activation: act,
	}
	var ubuf [5]*storage
	uses := append(ubuf[:0], out.st, a.st, b.st)
	if bias != nil { // packed, of the product's dtype: the library adds it as it writes C
		mm.Bias, mm.BiasOffset = bias.st.buf, int64(bias.offset)*size
		uses = append(uses, bias.st)
	}
	if r != nil { // out = a·b (+ the bias) + r: C is r, read in place (MatMul.D), or r copied into out
		if r.IsContiguous() {
			mm.C, mm.COffset, mm.D = r.st.buf, int64(r.offset)*size, out.st.buf
		} else if err := r.gatherInto(op, out); err != nil {
			return false, wrap(err, op)
		}
		mm.Beta = 1
		uses = append(uses, r.st)
	}
	ds.touch(uses)
	err := matMulLibrary(ds.dev.DefaultStream(), mm)
	if err == nil {
		return true, nil
	}
	if errors.CategoryOf(err) != errors.NotSupported {
		return false, wrap(err, op)
	}
	ds.mu.Lock()
	if ds.noLibrary == nil {
		ds.noLibrary = map[libraryKey]bool{}
	}
	ds.noLibrary[key] = true
	ds.mu.Unlock()
	return false, nil
}
