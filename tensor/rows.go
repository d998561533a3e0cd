package tensor

import (
	"math"
	"os"
	"slices"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// alongLast is the view of x with dimension ax moved last, the outer shape
// (the others, in order) and the row length.
func alongLast(x *Tensor, ax int) (shape, strides, outer []int, cols int) {
	r := len(x.shape)
	for i := range r {
		if i != ax {
			shape = append(shape, x.shape[i])
			strides = append(strides, x.strides[i])
		}
	}
	outer = slices.Clone(shape)
	shape = append(shape, x.shape[ax])
	strides = append(strides, x.strides[ax])
	return shape, strides, outer, x.shape[ax]
}

// reduce is Sum, Mean or Max (code) along axis.
func reduce(op string, x *Tensor, ax int, code uint32) (*Tensor, error) {
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	a, err := normAxis(op, ax, len(x.shape), x.shape)
	if err != nil {
		return nil, err
	}
	shape, strides, outer, cols := alongLast(x, a)
	ds := x.st.ds
	out, err := empty(ds, op, x.dtype, outer)
	if err != nil {
		return nil, err
	}
	rows := out.Len()
	if rows > 0 && cols == 0 {
		// An empty row: the sum is 0, the mean NaN, the maximum undefined.
		if code == ops.ReduceMax {
			_ = out.Close()
			return nil, invalid(op+" "+shapeString(x.shape), "dimension %d is empty: no maximum", ax)
		}
		fill := uint32(0)
		if code == ops.ReduceMean {
			fill = nanWord(x.dtype)
		}
		out.st.touch(ds.nextEpoch())
		if err := ds.dev.DefaultStream().Fill(out.st.buf, 0, out.st.size, fill); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
		return out, nil
	}
	uses := []*storage{out.st, x.st}
	if l, ok := ds.reduceVecChoice(x, a, cols); ok {
		var args argList
		args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf))
		args.u32(rows, l.length, int(x.dtype), int(code), l.off, l.stride)
		if err := ds.launchLean(l, rows, uses, args.args()...); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
		return out, nil
	}
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf))
	args.u32(rows, cols, int(x.dtype), int(code))
	args.rows(x.offset, shape, strides)
	if err := ds.launch("reduceRows", true, rows, uses, args.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// Sum returns the sums along dimension axis (negative counts from the end),
// which the result drops: [2 3 4] summed along 1 is [2 4]. Reshape the
// result to keep it as size 1.
func Sum(x *Tensor, axis int) (*Tensor, error) { return reduce("sum", x, axis, ops.ReduceSum) }

// Mean returns the means along dimension axis, which the result drops (NaN
// for an empty dimension).
func Mean(x *Tensor, axis int) (*Tensor, error) { return reduce("mean", x, axis, ops.ReduceMean) }

// Max returns the maxima along dimension axis, which the result drops; an
// empty dimension is an InvalidArgument error. NaNs are not propagated
// reliably on every backend.
func Max(x *Tensor, axis int) (*Tensor, error) { return reduce("max", x, axis, ops.ReduceMax) }

// ArgMax returns, as an Int32 tensor, the index of the largest element along
// dimension axis (the first of equal ones), which the result drops; an
// empty dimension is an InvalidArgument error.
func ArgMax(x *Tensor, axis int) (*Tensor, error) {
	const op = "argmax"
	outer, err := checkArgMax(op, x, axis)
	if err != nil {
		return nil, err
	}
	out, err := empty(x.st.ds, op, Int32, outer)
	if err != nil {
		return nil, err
	}
	if err := argmax(op, out, x, axis); err != nil {
		_ = out.Close()
		return nil, err
	}
	return out, nil
}

// checkArgMax is nil when x and axis suit ArgMax, and returns the result's
// shape.
func checkArgMax(op string, x *Tensor, axis int) ([]int, error) {
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	a, err := normAxis(op, axis, len(x.shape), x.shape)
	if err != nil {
		return nil, err
	}
	_, _, outer, cols := alongLast(x, a)
	if numel(outer) > 0 && cols == 0 {
		return nil, invalid(op+" "+shapeString(x.shape), "dimension %d is empty: no maximum", axis)
	}
	return outer, nil
}

// argmax writes ArgMax of the checked x along axis into out, a contiguous
// Int32 tensor from the start of its buffer of the result's shape. Its
// launches depend on the shape of x alone.
func argmax(op string, out, x *Tensor, axis int) error {
	a, err := normAxis(op, axis, len(x.shape), x.shape)
	if err != nil {
		return err
	}
	shape, strides, _, cols := alongLast(x, a)
	ds := x.st.ds
	rows := out.Len()
	if chunks := ds.argmaxChunks(rows, cols); chunks > 1 {
		return wrap(ds.argmaxSplit(out, x, shape, strides, rows, cols, chunks), op)
	}
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf))
	args.u32(rows, cols, int(x.dtype))
	args.rows(x.offset, shape, strides)
	return wrap(ds.launch("argmaxRows", true, rows, []*storage{out.st, x.st}, args.args()...), op)
}

// argmaxChunks is how many pieces ArgMax cuts each row into: 1 (one group
// per row) when there are rows enough to fill the device, else enough
// pieces of at least one group's threads each to give the device's units
// a few groups, at most a thousand per row. A decode step's one row of
// 50257 logits read by one group took 232 µs on an H200, its threads
// waiting on one load after another; cut 197 ways it is a few µs.
func (ds *deviceState) argmaxChunks(rows, cols int) int {
	units := max(1, ds.info().Units)
	if rows >= 2*units || cols < 2*rowBlock {
		return 1
	}
	return max(1, min((cols+rowBlock-1)/rowBlock, 4*units/max(rows, 1), 1024))
}

// argmaxSplit runs ArgMax in two passes: argmaxSplit's groups take a chunk
// of a row each and write its largest element and index, argmaxJoin picks
// each row's first largest.
func (ds *deviceState) argmaxSplit(out, x *Tensor, shape, strides []int, rows, cols, chunks int) error {
	chunk := (cols + chunks - 1) / chunks
	chunks = (cols + chunk - 1) / chunk
	part, err := empty(ds, "argmax", Int32, []int{rows * chunks * 2})
	if err != nil {
		return err
	}
	defer part.Close()
	var args argList
	args.add(gpu.Buf(part.st.buf), gpu.Buf(x.st.buf))
	args.u32(rows, cols, chunk, chunks, int(x.dtype))
	args.rows(x.offset, shape, strides)
	if err := ds.launch("argmaxSplit", true, rows*chunks, []*storage{part.st, x.st}, args.args()...); err != nil {
		return err
	}
	return ds.launch("argmaxJoin", true, rows, []*storage{out.st, part.st},
		gpu.Buf(out.st.buf), gpu.Buf(part.st.buf), gpu.U32(uint32(rows)), gpu.U32(uint32(chunks)))
}

// rowsOf checks that x has a last dimension and returns the row count and
// length.
func rowsOf(op string, x *Tensor) (rows, cols int, err error) {
	if len(x.shape) == 0 {
		return 0, 0, invalid(op+" "+shapeString(x.shape), "a scalar has no last dimension")
	}
	cols = x.shape[len(x.shape)-1]
	return numel(x.shape[:len(x.shape)-1]), cols, nil
}

// Softmax returns the softmax of x along its last dimension:
// e^(x-max)/Σe^(x-max) per row.
func Softmax(x *Tensor) (*Tensor, error) {
	const op = "softmax"
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	rows, cols, err := rowsOf(op, x)
	if err != nil {
		return nil, err
	}
	ds := x.st.ds
	out, err := empty(ds, op, x.dtype, x.shape)
	if err != nil {
		return nil, err
	}
	if rows*cols == 0 {
		return out, nil
	}
	if l, ok := ds.leanChoice(x, cols, ops.LeanSoftmax, rowsVecOff()); ok {
		// The lean kernels' gamma and beta are not read for softmax.
		if err := ds.runLean(l, out, x, rows, ops.LeanSoftmax, 0, x.st.buf, x.st.buf, 0, []*storage{out.st, x.st}); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
		return out, nil
	}
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf))
	args.u32(rows, cols, int(x.dtype))
	args.rows(x.offset, x.shape, x.strides)
	if err := ds.launch("softmaxRows", true, rows, []*storage{out.st, x.st}, args.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// affineParam is p, contiguous (p.packed: close it with p.closeCopy),
// checked to be a vector of cols elements on x's device (nil stays nil).
func affineParam(op, name string, x, p *Tensor, cols int) (*Tensor, error) {
	if p == nil {
		return nil, nil
	}
	if err := needFloat(op, p, x); err != nil {
		return nil, err
	}
	if p.Device() != x.Device() {
		return nil, invalidHint(op, "CopyTo one device first", "%s on %s, x on %s", name, p.Device().Name(), x.Device().Name())
	}
	if len(p.shape) != 1 || p.shape[0] != cols {
		return nil, invalid(op+" "+shapeString(x.shape), "%s of shape %s; want [%d]", name, shapeString(p.shape), cols)
	}
	return p.packed(op)
}

// norm is LayerNorm and RMSNorm (kind).
func norm(op string, x, gamma, beta *Tensor, eps float32, kind uint32) (*Tensor, error) {
	if err := needFloat(op, x, nil); err != nil {
		return nil, err
	}
	rows, cols, err := rowsOf(op, x)
	if err != nil {
		return nil, err
	}
	g, err := affineParam(op, "gamma", x, gamma, cols)
	if err != nil {
		return nil, err
	}
	defer gamma.closeCopy(g)
	b, err := affineParam(op, "beta", x, beta, cols)
	if err != nil {
		return nil, err
	}
	defer beta.closeCopy(b)
	ds := x.st.ds
	out, err := empty(ds, op, x.dtype, x.shape)
	if err != nil {
		return nil, err
	}
	if rows*cols == 0 {
		return out, nil
	}
	var flags uint32
	gb, bb := x.st.buf, x.st.buf // not read when their flag is off
	var ubuf [4]*storage
	uses := append(ubuf[:0], out.st, x.st)
	if g != nil {
		flags |= ops.NormGamma
		gb = g.st.buf
		uses = append(uses, g.st)
	}
	if b != nil {
		flags |= ops.NormBeta
		bb = b.st.buf
		uses = append(uses, b.st)
	}
	if l, ok := ds.leanChoice(x, cols, kind, rowsVecOff()); ok {
		if err := ds.runLean(l, out, x, rows, kind, flags, gb, bb, eps, uses); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
		return out, nil
	}
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf), gpu.Buf(gb), gpu.Buf(bb))
	args.u32(rows, cols, int(x.dtype), int(kind), int(flags))
	args.rows(x.offset, x.shape, x.strides)
	args.add(gpu.F32(eps))
	if err := ds.launch("normRows", true, rows, uses, args.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	return out, nil
}

// LayerNorm normalises x along its last dimension to mean 0 and variance 1
// (the biased variance, as PyTorch's layer_norm), (x-mean)/√(var+eps), then
// multiplies by gamma and adds beta, vectors of the last dimension's size
// (either may be nil: no scale, no shift).
func LayerNorm(x, gamma, beta *Tensor, eps float32) (*Tensor, error) {
	return norm("layer norm", x, gamma, beta, eps, ops.NormLayer)
}

// RMSNorm normalises x along its last dimension by its root mean square,
// x/√(mean(x²)+eps), then multiplies by gamma (nil: no scale).
func RMSNorm(x, gamma *Tensor, eps float32) (*Tensor, error) {
	return norm("rms norm", x, gamma, nil, eps, ops.NormRMS)
}

// nanWord is a 32-bit word of quiet NaNs of float dtype d: one float32, or
// two 16-bit ones.
func nanWord(d DType) uint32 {
	switch d {
	case Float16:
		return 0x7e007e00
	case BFloat16:
		return 0x7fc07fc0
	}
	return math.Float32bits(float32(math.NaN()))
}

// wordElems is how many elements of float dtype d fill a 32-bit word.
func wordElems(d DType) int { return 4 / d.Size() }

// leanRows reports whether the rows of x (cols elements each) suit
// rowsLean: each row contiguous and of whole words, the rows at one
// word stride (x's outer dimensions lay out as one); xoff is the first
// row's first word and xrow the stride, in words.
func leanRows(x *Tensor, cols int) (xoff, xrow int, ok bool) {
	r := len(x.shape)
	if r == 0 || (x.strides[r-1] != 1 && cols > 1) {
		return 0, 0, false
	}
	outer := coalesced(x.shape[:r-1], x.strides[:r-1])
	if outer.rank > 1 {
		return 0, 0, false
	}
	row := 0
	if outer.rank == 1 {
		row = outer.strides[0][0]
	}
	per := wordElems(x.dtype)
	if x.offset%per != 0 || cols%per != 0 || row%per != 0 || row < 0 {
		return 0, 0, false
	}
	return x.offset / per, row / per, true
}

// leanRowsPerGroup bounds the rows one group of rowsLean strides over:
// llvmpipe's OpenGL, made to run the kernel, left rows unwritten past about
// 120 of them per group (TestNorms' 2000 rows of 3 on 8 groups of 256:
// rows 1008 on were 0; of 128: rows 1920 on), which the other row kernels
// do not meet. The bound costs nothing where groups are many (GPUs).
const leanRowsPerGroup = 64

// runLean enqueues l's kernel over the rows rows of x into out for kind,
// with affine's flags (ops.NormGamma, ops.NormBeta), gamma's and beta's
// buffers gb and bb (any buffer where affine does not read them) and eps;
// uses are the storages it reads and writes.
func (ds *deviceState) runLean(l leanLaunch, out, x *Tensor, rows int, kind, affine uint32, gb, bb *gpu.Buffer, eps float32, uses []*storage) error {
	var args argList
	args.add(gpu.Buf(out.st.buf), gpu.Buf(x.st.buf), gpu.Buf(gb), gpu.Buf(bb))
	args.u32(rows, l.length, int(x.dtype), int(kind), int(affine), l.off, l.stride)
	args.add(gpu.F32(eps))
	return ds.launchLean(l, rows, uses, args.args()...)
}

// launchLean enqueues l's kernel with groups of l.block threads over rows:
// as many groups as launch gives the row kernels, or more where each would
// take over leanRowsPerGroup rows.
func (ds *deviceState) launchLean(l leanLaunch, rows int, uses []*storage, args ...gpu.Arg) error {
	e, err := ds.entry(l.kernel)
	if err != nil {
		return err
	}
	grid := max(ds.gridSize(rows*l.block, l.block), (rows+leanRowsPerGroup-1)/leanRowsPerGroup)
	if m := ds.info().MaxGridDim.X; m > 0 {
		grid = min(grid, m)
	}
	ds.touch(uses)
	if err := ds.dev.DefaultStream().Launch(e.k, gpu.D1(grid), gpu.D1(l.block), args...); err != nil {
		return wrap(err, "launch "+l.kernel)
	}
	return nil
}

// leanBlock is the group size rowsLean runs rows of words words with on the
// device: the smaller of 256 and 512 threads (ops.LeanGroup)
// that holds the row in ops.LeanWords registers each, where the device has
// SIMD lanes (DeviceInfo.WarpSize above 1) and runs such groups, else 0
// (normRows or softmaxRows takes the rows).
func (ds *deviceState) leanBlock(kind uint32, d DType, words int) int {
	if words > ops.LeanWords*ops.LeanGroup || ds.info().WarpSize <= 1 {
		// A device without SIMD lanes (the CPU) runs a group's threads one
		// after another: there normRows' 64 threads striding over a row
		// cost less than 256 holding it.
		return 0
	}
	block := leanMinGroup
	for block*ops.LeanWords < words {
		block *= 2
	}
	e, err := ds.entry(leanKernels[kind].of(d))
	if err != nil {
		return 0
	}
	if limit := ds.groupLimit(e); limit > 0 && limit < block {
		return 0
	}
	return block
}

// leanMinGroup is the smallest group rowsLean is launched with: enough
// subgroups to hide a row's loads.
const leanMinGroup = 256

// EnvRowsVec set to "off" leaves rows of whole 16-byte vectors to rowsLean,
// normRows and softmaxRows, as before the vector lean kernel
// (rowsLeanVec), and their sums, means and maxima to reduceRows instead of
// reduceRowsVec, for comparison: the vector kernels are the default
// wherever the device has SIMD lanes (DeviceInfo.WarpSize above 1).
const EnvRowsVec = "ANYGPU_TENSOR_ROWS_VEC"

// rowsVecOff reports whether EnvRowsVec turns rowsLeanVec off.
func rowsVecOff() bool { return os.Getenv(EnvRowsVec) == "off" }

// leanVecKernels are rowsLeanVec's variants by kind (ops.NormLayer,
// ops.NormRMS, ops.LeanSoftmax), as leanKernels are rowsLean's.
var leanVecKernels = [...]dtypeKernels{
	ops.NormLayer:   {"rowsLeanVec", "rowsLeanVecLayerF32", "rowsLeanVecLayerBF16", "rowsLeanVecLayerF16"},
	ops.NormRMS:     {"rowsLeanVec", "rowsLeanVecRMSF32", "rowsLeanVecRMSBF16", "rowsLeanVecRMSF16"},
	ops.LeanSoftmax: {"rowsLeanVec", "rowsLeanVecSoftmaxF32", "rowsLeanVecSoftmaxBF16", "rowsLeanVecSoftmaxF16"},
}

// vecWords is the words of a 16-byte vector, rowsLeanVec's unit.
const vecWords = 4

// leanLaunch is how a lean row kernel takes a tensor's rows: the kernel (a
// variant of rowsLean or rowsLeanVec), its group size, and the rows in the
// kernel's units (words for rowsLean, vectors for rowsLeanVec): the first
// row's first unit, the rows' stride and a row's length.
type leanLaunch struct {
	kernel              string
	block               int
	off, stride, length int
}

// leanChoice is the lean kernel that takes the rows of x (cols elements
// each) for kind: rowsLeanVec where they start, lie apart and end on whole
// vectors and fit its groups (unless vecOff), else rowsLean where they fit
// its groups; false where neither takes them (normRows or softmaxRows do).
func (ds *deviceState) leanChoice(x *Tensor, cols int, kind uint32, vecOff bool) (leanLaunch, bool) {
	xoff, xrow, ok := leanRows(x, cols)
	if !ok {
		return leanLaunch{}, false
	}
	words := cols / wordElems(x.dtype)
	if !vecOff && xoff%vecWords == 0 && xrow%vecWords == 0 && words%vecWords == 0 {
		vecs := words / vecWords
		if block := ds.leanVecBlock(kind, x.dtype, vecs); block > 0 {
			return leanLaunch{kernel: leanVecKernels[kind].of(x.dtype), block: block,
				off: xoff / vecWords, stride: xrow / vecWords, length: vecs}, true
		}
	}
	if block := ds.leanBlock(kind, x.dtype, words); block > 0 {
		return leanLaunch{kernel: leanKernels[kind].of(x.dtype), block: block, off: xoff, stride: xrow, length: words}, true
	}
	return leanLaunch{}, false
}

// leanVecRuns reports whether the vector row kernels (rowsLeanVec,
// reduceRowsVec) are right for dtype d on backend: not float16 on OpenGL,
// where NVIDIA's driver (580.159, H200) returned ±Inf for every float16
// layer norm rowsLeanVec ran (TestLeanNorms, TestLeanVecEveryBackend)
// while the bfloat16 and float32 variants, and rowsLean's float16 one,
// passed; rowsLean and reduceRows take those rows there.
func leanVecRuns(backend string, d DType) bool {
	return backend != "opengl" || d != Float16
}

// reduceVecKernels are reduceRowsVec's variants.
var reduceVecKernels = dtypeKernels{"reduceRowsVec", "reduceRowsVecF32", "reduceRowsVecBF16", "reduceRowsVecF16"}

// reduceVecChoice is how reduceRowsVec takes x's rows along its last
// dimension (axis ax, of cols elements): where x's rows start, lie apart and
// end on whole 16-byte vectors, and the device has SIMD lanes (unless
// EnvRowsVec is off), in the group leanVecBlock gives a row of at most
// ops.LeanVecs·ops.LeanGroup vectors (longer rows take turns in that
// group). false leaves the rows to reduceRows.
func (ds *deviceState) reduceVecChoice(x *Tensor, ax, cols int) (leanLaunch, bool) {
	if ax != len(x.shape)-1 || rowsVecOff() {
		return leanLaunch{}, false
	}
	xoff, xrow, ok := leanRows(x, cols)
	if !ok || xoff%vecWords != 0 || xrow%vecWords != 0 {
		return leanLaunch{}, false
	}
	words := cols / wordElems(x.dtype)
	if words%vecWords != 0 {
		return leanLaunch{}, false
	}
	vecs := words / vecWords
	name := reduceVecKernels.of(x.dtype)
	block := ds.vecBlock(name, x.dtype, min(vecs, ops.LeanVecs*ops.LeanGroup))
	if block == 0 {
		return leanLaunch{}, false
	}
	return leanLaunch{kernel: name, block: block, off: xoff / vecWords, stride: xrow / vecWords, length: vecs}, true
}

// leanVecBlock is the group size rowsLeanVec runs rows of vecs vectors with
// on the device: the smallest power of two, of at least leanVecSubgroups
// subgroups (DeviceInfo.WarpSize threads) and leanVecMinGroup threads, that
// holds the row in ops.LeanVecs vectors a thread, where the device has SIMD
// lanes and runs such groups (at most ops.LeanGroup threads), else 0. The
// smallest group puts the most rows in flight: a thread keeps registers for
// ops.LeanVecs vectors whether it fills them or not, so a larger group holds
// the same row in more registers (4096 bfloat16s: 128 threads, not 256).
func (ds *deviceState) leanVecBlock(kind uint32, d DType, vecs int) int {
	return ds.vecBlock(leanVecKernels[kind].of(d), d, vecs)
}

// vecBlock is leanVecBlock for the vector row kernel name (of dtype d).
func (ds *deviceState) vecBlock(name string, d DType, vecs int) int {
	info := ds.info()
	warp := info.WarpSize
	if warp <= 1 || vecs > ops.LeanVecs*ops.LeanGroup {
		return 0 // the CPU: see leanBlock
	}
	if !leanVecRuns(info.Backend, d) {
		return 0
	}
	block := leanVecMinGroup
	for block < leanVecSubgroups*warp || block*ops.LeanVecs < vecs {
		block *= 2
	}
	if block > ops.LeanGroup {
		return 0
	}
	e, err := ds.entry(name)
	if err != nil {
		return 0
	}
	if limit := ds.groupLimit(e); limit > 0 && limit < block {
		return 0
	}
	return block
}

// leanVecSubgroups is the fewest subgroups in a group of rowsLeanVec: four
// warps of 32 on NVIDIA's GPUs, so that a unit's schedulers each have one
// of every group.
const leanVecSubgroups = 4

// leanVecMinGroup is the fewest threads in a group of rowsLeanVec where the
// subgroups are narrow (a software driver's 4 or 8 lanes).
const leanVecMinGroup = 64
