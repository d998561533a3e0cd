package tensor

import (
	"slices"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// matrixView is a rank 2 or 3 tensor seen as a batch of matrices: the batch
// size and its stride (0 for a rank 2 tensor), rows, columns and their
// strides.
type matrixView struct {
	batch, bstride int
	rows, rstride  int
	cols, cstride  int
	offset         int
}

func matrixOf(t *Tensor) matrixView {
	s, st := t.shape, t.strides
	v := matrixView{batch: 1, offset: t.offset}
	if len(s) == 3 {
		v.batch, v.bstride = s[0], st[0]
		s, st = s[1:], st[1:]
	}
	v.rows, v.rstride, v.cols, v.cstride = s[0], st[0], s[1], st[1]
	if v.batch == 1 {
		v.bstride = 0
	}
	return v
}

// MatMul returns the matrix product a·b of tensors of rank 2 or 3 and one
// dtype (Float32, Float16 or BFloat16; the sums are float32, the result of
// the operands' dtype):
// [m k]·[k n] is [m n]; with a batch dimension on either side ([B m k] or
// [B k n], a batch of 1 or a rank 2 operand broadcasting) the result is
// [B m n]. Any view works without a copy (b.Transpose(0, 1) multiplies by
// bᵀ), which is how a PyTorch Linear weight [out in] is used. Where the
// device has a matrix library (gpu.Stream.MatMul: cuBLASLt on CUDA, with
// tensor cores) and the operands' layout suits it, the product is the
// library's; otherwise it is the package's own kernel.
func MatMul(a, b *Tensor) (*Tensor, error) { return matmul("matmul", a, b, nil) }

// Linear returns x·w + bias for x of shape [..., in], w of shape [in out]
// (Hugging Face's Conv1D layout; pass a PyTorch Linear weight [out in] as
// w.Transpose(0, 1), no copy made) and bias of shape [out] or nil: a tensor
// of shape [..., out], of x's dtype. The bias is added in the product's
// kernel, by the matrix library (as the C it adds to), or after the
// product when it goes to the built-in sgemm (64 rows or more).
func Linear(x, w, bias *Tensor) (*Tensor, error) {
	y, _, err := linear("linear", x, w, bias, nil, gpu.MatMulNoActivation)
	return y, err
}

// LinearAdd returns r + x·w + bias: Linear followed by adding r, a tensor of
// the result's shape [..., out] and x's dtype (any view): a residual
// connection. Where the product goes to the device's matrix library, r and
// the bias are added first and the library adds the product to their sum,
// one op fewer than Add(r, Linear(x, w, bias)), whose result it equals but
// for rounding: the sum r + bias is rounded to the dtype before the product
// is added to it, where Add rounds the product plus the bias first.
// Otherwise it is Add(r, Linear(x, w, bias)).
func LinearAdd(x, w, bias, r *Tensor) (*Tensor, error) {
	const op = "linear add"
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	if err := needFloat(op, w, x); err != nil {
		return nil, err
	}
	if err := needFloat(op, r, x); err != nil {
		return nil, err
	}
	if err := sameDevice(op, x, w, r); err != nil {
		return nil, err
	}
	if len(x.shape) == 0 || len(w.shape) != 2 {
		return nil, invalid(op+" "+shapeString(x.shape)+"·"+shapeString(w.shape), "x of shape [..., in] and w of shape [in out]")
	}
	if len(r.shape) != len(x.shape) || !slices.Equal(r.shape[:len(r.shape)-1], x.shape[:len(x.shape)-1]) || r.shape[len(r.shape)-1] != w.shape[1] {
		return nil, invalid(op+" "+shapeString(x.shape)+"·"+shapeString(w.shape), "r of shape %s; want the result's, x's with the last size %d", shapeString(r.shape), w.shape[1])
	}
	y, _, err := linear(op, x, w, bias, r, gpu.MatMulNoActivation)
	return y, err
}

// LinearGELU returns GELU(Linear(x, w, bias)), GELU in its tanh form as GELU
// computes it (GPT-2's MLP up projection). Where the product goes to the
// device's matrix library (cuBLASLt on CUDA), the library applies GELU as it
// stores the result (gpu.MatMulGELU: no launch of its own, no second pass
// over the [..., out] result); otherwise, or when the library has no GELU
// for the product, it is GELU(Linear(x, w, bias)). For Float32 the two
// agree to float32 rounding; for Float16 and BFloat16 they differ by a
// rounding: GELU after Linear rounds the product plus the bias to the dtype
// and then its GELU, where the library computes GELU of the float32 sum and
// rounds only its result (cuBLASLt may round the product before it adds the
// bias, as in Linear). The results may differ by an ulp of the dtype and a
// little more: the first rounding's error times GELU's slope, at most 1.13.
func LinearGELU(x, w, bias *Tensor) (*Tensor, error) {
	const op = "linear gelu"
	y, activated, err := linear(op, x, w, bias, nil, gpu.MatMulGELU)
	if err != nil || activated {
		return y, err
	}
	defer y.Close()
	return unaryOp(op, y, ops.UnaryGELUTanh, 0)
}

// linear is Linear, plus r (checked, of the result's shape) when not nil,
// with act applied by the matrix library when the product goes to it, which
// it then reports; the caller applies act otherwise. act is
// gpu.MatMulNoActivation when r is not nil (the library would apply it to
// the sum with r).
func linear(op string, x, w, bias, r *Tensor, act gpu.MatMulActivation) (*Tensor, bool, error) {
	if err := needFloat(op, x, nil); err != nil {
		return nil, false, err
	}
	if len(x.shape) == 0 {
		return nil, false, invalid(op+" "+shapeString(x.shape), "a scalar has no last dimension")
	}
	if len(x.shape) == 2 { // already the matrix the product takes
		var done fused
		y, err := matmulOf(op, x, w, bias, r, act, &done)
		if err != nil || r == nil || done.added {
			return y, done.activated, err
		}
		defer y.Close()
		sum, err := binaryOp(op, r, y, ops.BinaryAdd)
		return sum, false, err
	}
	in := x.shape[len(x.shape)-1]
	rows := numel(x.shape[:len(x.shape)-1])
	x2, err := x.Reshape(rows, in)
	if err != nil { // a view no strides flatten: copy it
		c, cerr := x.Contiguous()
		if cerr != nil {
			return nil, false, cerr
		}
		defer c.Close()
		if x2, err = c.Reshape(rows, in); err != nil {
			return nil, false, err
		}
	}
	defer x2.Close()
	var r2 *Tensor // r as the product's [rows out], when a view makes it so
	if r != nil {
		if r2, err = r.Reshape(rows, r.shape[len(r.shape)-1]); err == nil {
			defer r2.Close()
		}
	}
	var done fused
	y, err := matmulOf(op, x2, w, bias, r2, act, &done)
	if err != nil {
		return nil, false, err
	}
	defer y.Close()
	out := append(append([]int{}, x.shape[:len(x.shape)-1]...), y.shape[1])
	y2, err := y.Reshape(out...)
	if err != nil || r == nil || done.added {
		return y2, done.activated, err
	}
	defer y2.Close()
	sum, err := binaryOp(op, r, y2, ops.BinaryAdd)
	return sum, false, err
}

// matmul is MatMul with an optional bias of shape [n].
func matmul(op string, a, b, bias *Tensor) (*Tensor, error) {
	return matmulOf(op, a, b, bias, nil, gpu.MatMulNoActivation, &fused{})
}

// fused is what the matrix library did to a product beyond the bias.
type fused struct {
	added     bool // it added r
	activated bool // it applied the activation
}

// matmulOf is matmul that, when the product goes to the matrix library, has
// it add r too when r is not nil (a view of the result's shape [m n], a and
// b of rank 2, checked by the caller) and apply act (gpu.MatMulNoActivation
// when r is not nil), and reports what it did in *done. When the library
// refuses act, the product still goes to it without act where it can.
func matmulOf(op string, a, b, bias, r *Tensor, act gpu.MatMulActivation, done *fused) (*Tensor, error) {
	if err := needFloat(op, a, nil); err != nil {
		return nil, err
	}
	if err := needFloat(op, b, a); err != nil {
		return nil, err
	}
	if err := sameDevice(op, a, b, bias); err != nil {
		return nil, err
	}
	shapes := func() string { return op + " " + shapeString(a.shape) + "·" + shapeString(b.shape) } // for errors
	if len(a.shape) < 2 || len(a.shape) > 3 || len(b.shape) < 2 || len(b.shape) > 3 {
		return nil, invalid(shapes(), "operands of rank 2 or 3")
	}
	av, bv := matrixOf(a), matrixOf(b)
	if av.cols != bv.rows {
		return nil, invalid(shapes(), "inner dimensions %d and %d differ", av.cols, bv.rows)
	}
	batch := max(av.batch, bv.batch)
	if (av.batch != 1 && av.batch != batch) || (bv.batch != 1 && bv.batch != batch) {
		return nil, invalid(shapes(), "batches %d and %d do not broadcast", av.batch, bv.batch)
	}
	m, n, k := av.rows, bv.cols, av.cols
	dims := [3]int{batch, m, n}
	shape := dims[1:]
	if len(a.shape) == 3 || len(b.shape) == 3 {
		shape = dims[:]
	}
	ds := a.st.ds
	var bp *Tensor
	flags := uint32(0)
	if bias != nil {
		if err := needFloat(op, bias, a); err != nil {
			return nil, err
		}
		if len(bias.shape) != 1 || bias.shape[0] != n {
			return nil, invalid(shapes(), "bias of shape %s; want [%d]", shapeString(bias.shape), n)
		}
		var err error
		if bp, err = bias.packed(op); err != nil {
			return nil, err
		}
		defer bias.closeCopy(bp)
		flags |= ops.MatmulBias
	}
	out, err := empty(ds, op, a.dtype, shape)
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return out, nil
	}
	if k == 0 { // an empty sum: zeros, plus the bias
		_ = out.Close()
		return zerosPlusBias(op, a, bp, shape)
	}
	tries, ntries := [2]gpu.MatMulActivation{act, gpu.MatMulNoActivation}, 1
	if act != gpu.MatMulNoActivation {
		ntries = 2 // then the product alone: the caller applies act
	}
	for _, try := range tries[:ntries] {
		ok, err := ds.libraryProduct(op, out, a, b, bp, r, try, av, bv, batch, m, n, k)
		if err != nil {
			_ = out.Close()
			return nil, err
		}
		if ok {
			done.added, done.activated = r != nil, try != gpu.MatMulNoActivation
			return out, nil
		}
	}
	if a.dtype == Float32 && useSgemm(av, bv, batch, m, n) {
		return ds.sgemmProduct(op, out, a, b, bp, m, n, k)
	}
	biasBuf := out.st.buf // not read without the flag
	if bp != nil {
		biasBuf = bp.st.buf
	}
	kernelName := "matmul"
	tile := ops.MatmulTile
	tiles := batch * ((m + tile - 1) / tile) * ((n + tile - 1) / tile)
	if m == 1 { // a row: matvec, columns 64 or 8 to a group
		kernelName = "matvec"
		cols := 8
		if bv.cstride == 1 {
			cols = 64
		}
		tiles = batch * ((n + cols - 1) / cols)
	}
	splits, kchunk := ds.kSplits(tiles, k)
	dst := out
	cdt := a.dtype
	if splits > 1 { // partial sums first, added by sumSplits
		cdt = Float32
		if dst, err = empty(ds, op, Float32, []int{splits, batch, m, n}); err != nil {
			_ = out.Close()
			return nil, err
		}
		defer dst.Close()
	}
	u := func(v int) gpu.Arg { return gpu.U32(uint32(v)) }
	mflags := flags
	if splits > 1 {
		mflags = 0
	}
	args := []gpu.Arg{gpu.Buf(dst.st.buf), gpu.Buf(a.st.buf), gpu.Buf(b.st.buf), gpu.Buf(biasBuf),
		u(int(a.dtype)), u(int(cdt)), u(batch), u(m), u(n), u(k), gpu.U32(mflags),
		u(av.offset), u(av.bstride), u(av.rstride), u(av.cstride),
		u(bv.offset), u(bv.bstride), u(bv.rstride), u(bv.cstride), u(kchunk), u(splits)}
	if kernelName == "matvec" { // no m, no row stride of A
		args = append(append(args[:7:7], args[8:13]...), args[14:]...)
	}
	var ubuf [5]*storage
	uses := append(ubuf[:0], dst.st, a.st, b.st)
	if bp != nil {
		uses = append(uses, bp.st)
	}
	if err := ds.launchGroups(kernelName, ops.MatmulThreads, tiles*splits, uses, args...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	if splits > 1 {
		count := batch * m * n
		args := []gpu.Arg{gpu.Buf(out.st.buf), gpu.Buf(dst.st.buf), gpu.Buf(biasBuf), u(int(a.dtype)), u(count), u(splits), u(n), gpu.U32(flags)}
		if err := ds.launch("sumSplits", false, words(a.dtype, count), append(uses, out.st), args...); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
	}
	return out, nil
}

// sgemmMinRows is the fewest rows of A for which a product goes to the
// built-in sgemm: its 128-row tiles waste most of their work below.
const sgemmMinRows = 64

// useSgemm reports whether a product is the built-in sgemm's: one pair of
// matrices, both row-major from the start of their buffers (what a Linear
// layer multiplies in a prefill: fresh activations by uploaded weights), A
// of at least sgemmMinRows rows, sizes within 2³¹ elements.
func useSgemm(a, b matrixView, batch, m, n int) bool {
	return batch == 1 && m >= sgemmMinRows &&
		a.offset == 0 && a.cstride == 1 && a.rstride == a.cols &&
		b.offset == 0 && b.cstride == 1 && b.rstride == b.cols &&
		m*max(n, a.cols) < 1<<31
}

// sgemmProduct computes out = a·b (+ bias) with the built-in sgemm.
func (ds *deviceState) sgemmProduct(op string, out, a, b, bias *Tensor, m, n, k int) (*Tensor, error) {
	fail := func(err error) (*Tensor, error) {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	kern, err := ds.sgemm()
	if err != nil {
		return fail(err)
	}
	info := ds.info()
	side := 16 // 256 threads: sgemm's tiled path
	if info.MaxThreadsPerBlock > 0 && info.MaxThreadsPerBlock < side*side {
		side = 8 // its simple path
	}
	tile := 128
	if side != 16 {
		tile = side
	}
	gx, gy := (n+tile-1)/tile, (m+tile-1)/tile
	if g := info.MaxGridDim; g.X > 0 && g.Y > 0 {
		gx, gy = min(gx, g.X), min(gy, g.Y) // sgemm strides over the rest
	}
	epoch := ds.nextEpoch()
	for _, s := range []*storage{out.st, a.st, b.st} {
		s.touch(epoch)
	}
	u := func(v int) gpu.Arg { return gpu.U32(uint32(v)) }
	if err := ds.dev.DefaultStream().Launch(kern, gpu.D2(gx, gy), gpu.D2(side, side),
		gpu.Buf(out.st.buf), gpu.Buf(a.st.buf), gpu.Buf(b.st.buf), u(m), u(n), u(k), gpu.F32(1), gpu.F32(0)); err != nil {
		return fail(err)
	}
	if bias == nil {
		return out, nil
	}
	defer out.Close()
	return Add(out, bias)
}

// kSplits is how many ranges of k a product of tiles C tiles is cut into,
// and their length (a multiple of the kernel's depth): 1 and k when the
// tiles alone give every compute unit of the device a few groups, else
// enough ranges to, none shorter than four of the kernel's slices.
func (ds *deviceState) kSplits(tiles, k int) (splits, kchunk int) {
	units := max(1, ds.info().Units)
	want := 2 * units // groups
	if tiles >= want || k <= 4*ops.MatmulDepth {
		return 1, k
	}
	splits = min((want+tiles-1)/tiles, k/(4*ops.MatmulDepth))
	depth := ops.MatmulDepth
	kchunk = ((k+splits-1)/splits + depth - 1) / depth * depth
	splits = (k + kchunk - 1) / kchunk
	return splits, kchunk
}

// zerosPlusBias is the product with an empty inner dimension: zeros of
// shape, plus the bias (packed) when there is one.
func zerosPlusBias(op string, like, bias *Tensor, shape []int) (*Tensor, error) {
	st, err := alloc(like.st.ds, op, like.dtype, numel(shape))
	if err != nil {
		return nil, err
	}
	z := newTensor(st, like.dtype, shape, rowMajor(shape), 0)
	st.touch(st.ds.nextEpoch())
	if err := st.ds.dev.DefaultStream().Fill(st.buf, 0, st.size, 0); err != nil {
		_ = z.Close()
		return nil, wrap(err, op)
	}
	if bias == nil {
		return z, nil
	}
	defer z.Close()
	return Add(z, bias)
}
