package tensor

import (
	"math/bits"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/profiling"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// elementBlock is the largest block the element-wise kernels are launched
// with; rowBlock that of the row kernels (the size of their shared arrays,
// ops.rowGroup).
const (
	elementBlock = 256
	rowBlock     = 64
)

// dtypeKernels names a kernel of package ops and its //gpu:variant copies
// that fix its dtype: each copy holds only its dtype's path (fewer
// instructions and registers), so an op launches the one of its dtype.
type dtypeKernels struct{ any, f32, bf16, f16 string }

// of is the kernel for dtype d: its variant, or the generic kernel.
func (k dtypeKernels) of(d DType) string {
	switch d {
	case Float32:
		return k.f32
	case BFloat16:
		return k.bf16
	case Float16:
		return k.f16
	}
	return k.any
}

// The kernels with dtype variants; leanKernels by rowsLean's kind
// (ops.NormLayer, ops.NormRMS, ops.LeanSoftmax).
var (
	unaryKernels  = dtypeKernels{"unary", "unaryF32", "unaryBF16", "unaryF16"}
	geluKernels   = dtypeKernels{"unary", "unaryGELUF32", "unaryGELUBF16", "unaryGELUF16"}
	binaryKernels = dtypeKernels{"binary", "binaryF32", "binaryBF16", "binaryF16"}
	leanKernels   = [...]dtypeKernels{
		ops.NormLayer:   {"rowsLean", "rowsLeanLayerF32", "rowsLeanLayerBF16", "rowsLeanLayerF16"},
		ops.NormRMS:     {"rowsLean", "rowsLeanRMSF32", "rowsLeanRMSBF16", "rowsLeanRMSF16"},
		ops.LeanSoftmax: {"rowsLean", "rowsLeanSoftmaxF32", "rowsLeanSoftmaxBF16", "rowsLeanSoftmaxF16"},
	}
)

// blockSize is the block kernel e runs with: at most limit threads and what
// the device allows, the occupancy calculator's choice where the backend
// reports the kernel's registers (CUDA), rounded down to a power of two. It
// is chosen once per kernel and device.
func (ds *deviceState) blockSize(e *kernelEntry, limit int) int {
	if b := e.block.Load(); b > 0 {
		return int(b)
	}
	info := ds.info()
	b := limit
	if m := info.MaxThreadsPerBlock; m > 0 {
		b = min(b, m)
	}
	if m := info.MaxBlockDim.X; m > 0 {
		b = min(b, m)
	}
	if attrs, err := e.k.Attributes(); err == nil {
		if _, s, err := profiling.SuggestBlockSize(profiling.LimitsFrom(info), profiling.AttrsFrom(attrs), nil, b); err == nil && s > 0 {
			b = s
		}
	}
	b = 1 << (bits.Len(uint(max(b, 1))) - 1)
	e.block.CompareAndSwap(0, int64(b))
	return int(e.block.Load())
}

// gridSize is the number of groups for work items at block threads each:
// enough to cover them, at most what keeps every compute unit busy (the
// kernels stride over the rest), within the device's grid limit.
func (ds *deviceState) gridSize(work, block int) int {
	info := ds.info()
	g := (work + block - 1) / block
	perUnit := 4
	if info.MaxThreadsPerUnit > 0 {
		perUnit = max(perUnit, 2*info.MaxThreadsPerUnit/block)
	}
	g = min(g, max(1, info.Units)*perUnit)
	if m := info.MaxGridDim.X; m > 0 {
		g = min(g, m)
	}
	return max(g, 1)
}

// launch enqueues kernel name over work items (threads for element kernels,
// groups' rows for row kernels: rows) on the device's default stream, marks
// the storages it uses, and returns the launch's error.
func (ds *deviceState) launch(name string, rows bool, work int, uses []*storage, args ...gpu.Arg) error {
	if work == 0 {
		return nil
	}
	e, err := ds.entry(name)
	if err != nil {
		return err
	}
	var grid, block int
	if rows {
		block = ds.blockSize(e, rowBlock)
		grid = ds.gridSize(work*block, block)
	} else {
		block = ds.blockSize(e, elementBlock)
		grid = ds.gridSize(work, block)
	}
	ds.touch(uses)
	if err := ds.dev.DefaultStream().Launch(e.k, gpu.D1(grid), gpu.D1(block), args...); err != nil {
		return wrap(err, "launch "+name)
	}
	return nil
}

// touch marks the storages an op about to be enqueued uses with the op's
// sequence number.
func (ds *deviceState) touch(uses []*storage) {
	epoch := ds.nextEpoch()
	for _, s := range uses {
		s.touch(epoch)
	}
}

// maxArgs bounds the arguments of the package's kernels.
const maxArgs = 48

// argList is a launch's arguments, collected in place (no allocation). One
// past maxArgs, it holds none: the launch fails its argument count check.
type argList struct {
	n    int
	list [maxArgs]gpu.Arg
}

// args is the arguments collected.
func (l *argList) args() []gpu.Arg {
	if l.n > maxArgs {
		return nil
	}
	return l.list[:l.n]
}

// add appends arguments.
func (l *argList) add(a ...gpu.Arg) {
	if l.n+len(a) > maxArgs {
		l.n = maxArgs + 1
		return
	}
	l.n += copy(l.list[l.n:], a)
}

// u32 appends each value as a U32.
func (l *argList) u32(vs ...int) {
	if l.n+len(vs) > maxArgs {
		l.n = maxArgs + 1
		return
	}
	for _, v := range vs {
		l.list[l.n] = gpu.U32(uint32(v))
		l.n++
	}
}

// padded appends v padded in front to n values with fill, as U32s.
func (l *argList) padded(v []int, n, fill int) {
	if len(v) > n || l.n+n > maxArgs {
		l.n = maxArgs + 1
		return
	}
	pad := n - len(v)
	for i := range n {
		x := fill
		if i >= pad {
			x = v[i-pad]
		}
		l.list[l.n] = gpu.U32(uint32(x))
		l.n++
	}
}

// view appends a view's offset, sizes and strides padded to rank 6 (sizes 1
// and strides 0 in front), as the kernels take them: offset, s0..s5,
// t0..t5.
func (l *argList) view(offset int, shape, strides []int) {
	l.u32(offset)
	l.padded(shape, MaxRank, 1)
	l.padded(strides, MaxRank, 0)
}

// rows appends the row kernels' view of t along its last dimension: offset,
// the outer sizes s0..s4 and strides t0..t4 (padded in front), and the
// column stride.
func (l *argList) rows(offset int, shape, strides []int) {
	r := len(shape)
	outer := coalesced(shape[:r-1], strides[:r-1])
	l.u32(offset)
	l.padded(outer.shape[:outer.rank], MaxRank-1, 1)
	l.padded(outer.strides[0][:outer.rank], MaxRank-1, 0)
	l.u32(strides[r-1])
}

// launchGroups enqueues kernel name with exactly block threads per group (a
// kernel whose tiling assumes its group size) over groups work groups (the
// grid as gridSize bounds it: the kernel strides over the rest). A device
// or a compiled kernel that cannot run such a group is a NotSupported error.
func (ds *deviceState) launchGroups(name string, block, groups int, uses []*storage, args ...gpu.Arg) error {
	if groups == 0 {
		return nil
	}
	e, err := ds.entry(name)
	if err != nil {
		return err
	}
	if limit := ds.groupLimit(e); limit > 0 && limit < block {
		return notSupported("launch "+name, "", "the kernel needs groups of %d threads; the device allows %d", block, limit)
	}
	grid := ds.gridSize(groups*block, block)
	ds.touch(uses)
	if err := ds.dev.DefaultStream().Launch(e.k, gpu.D1(grid), gpu.D1(block), args...); err != nil {
		return wrap(err, "launch "+name)
	}
	return nil
}

// groupLimit is the most threads a group of kernel e may have on the
// device (what the device and the compiled kernel allow; -1 for no limit),
// found once per kernel and device.
func (ds *deviceState) groupLimit(e *kernelEntry) int {
	if l := e.groupLimit.Load(); l != 0 {
		return int(l)
	}
	info := ds.info()
	limit := info.MaxThreadsPerBlock
	if m := info.MaxBlockDim.X; m > 0 && (limit <= 0 || m < limit) {
		limit = m
	}
	if attrs, err := e.k.Attributes(); err == nil && attrs.MaxThreadsPerBlock > 0 && (limit <= 0 || attrs.MaxThreadsPerBlock < limit) {
		limit = attrs.MaxThreadsPerBlock
	}
	if limit <= 0 {
		limit = -1
	}
	e.groupLimit.CompareAndSwap(0, int64(limit))
	return int(e.groupLimit.Load())
}

// sameDevice is nil when every tensor is on x's device.
func sameDevice(op string, x *Tensor, others ...*Tensor) error {
	for _, o := range others {
		if o != nil && o.Device() != x.Device() {
			return invalidHint(op, "CopyTo one device first", "tensors on %s and %s", x.Device().Name(), o.Device().Name())
		}
	}
	return nil
}
