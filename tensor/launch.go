package tensor

import (
	"math/bits"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/profiling"
)

// elementBlock is the largest block the element-wise kernels are launched
// with; rowBlock that of the row kernels (the size of their shared arrays,
// ops.rowGroup).
const (
	elementBlock = 256
	rowBlock     = 64
)

// blockSize is the block kernel k (named name) runs with: at most limit
// threads and what the device allows, the occupancy calculator's choice
// where the backend reports the kernel's registers (CUDA), rounded down to
// a power of two. It is chosen once per kernel and device.
func (ds *deviceState) blockSize(name string, k *gpu.Kernel, limit int) int {
	ds.mu.Lock()
	b, ok := ds.geometry[name]
	ds.mu.Unlock()
	if ok {
		return b
	}
	info := ds.info()
	b = limit
	if m := info.MaxThreadsPerBlock; m > 0 {
		b = min(b, m)
	}
	if m := info.MaxBlockDim.X; m > 0 {
		b = min(b, m)
	}
	if attrs, err := k.Attributes(); err == nil {
		if _, s, err := profiling.SuggestBlockSize(profiling.LimitsFrom(info), profiling.AttrsFrom(attrs), nil, b); err == nil && s > 0 {
			b = s
		}
	}
	b = 1 << (bits.Len(uint(max(b, 1))) - 1)
	ds.mu.Lock()
	ds.geometry[name] = b
	ds.mu.Unlock()
	return b
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
	k, err := ds.kernel(name)
	if err != nil {
		return err
	}
	var grid, block int
	if rows {
		block = ds.blockSize(name, k, rowBlock)
		grid = ds.gridSize(work*block, block)
	} else {
		block = ds.blockSize(name, k, elementBlock)
		grid = ds.gridSize(work, block)
	}
	epoch := ds.nextEpoch()
	for _, s := range uses {
		s.touch(epoch)
	}
	return wrap(ds.dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), args...), "launch "+name)
}

// viewArgs is a view's offset, sizes and strides padded to rank 6 (sizes 1
// and strides 0 in front), as the kernels take them: offset, s0..s5, t0..t5.
func viewArgs(offset int, shape, strides []int) []gpu.Arg {
	args := []gpu.Arg{gpu.U32(uint32(offset))}
	pad := MaxRank - len(shape)
	for i := range MaxRank {
		s := 1
		if i >= pad {
			s = shape[i-pad]
		}
		args = append(args, gpu.U32(uint32(s)))
	}
	for i := range MaxRank {
		s := 0
		if i >= pad {
			s = strides[i-pad]
		}
		args = append(args, gpu.U32(uint32(s)))
	}
	return args
}

// rowArgs are the row kernels' view of t along its last dimension: offset,
// the outer sizes s0..s4 and strides t0..t4 (padded in front), and the
// column stride.
func rowArgs(offset int, shape, strides []int) []gpu.Arg {
	r := len(shape)
	outer, os := coalesce(shape[:r-1], strides[:r-1])
	ostr := os[0]
	args := []gpu.Arg{gpu.U32(uint32(offset))}
	pad := MaxRank - 1 - len(outer)
	for i := range MaxRank - 1 {
		s := 1
		if i >= pad {
			s = outer[i-pad]
		}
		args = append(args, gpu.U32(uint32(s)))
	}
	for i := range MaxRank - 1 {
		s := 0
		if i >= pad {
			s = ostr[i-pad]
		}
		args = append(args, gpu.U32(uint32(s)))
	}
	return append(args, gpu.U32(uint32(strides[r-1])))
}

// launchGroups enqueues kernel name with exactly block threads per group (a
// kernel whose tiling assumes its group size) over groups work groups (the
// grid as gridSize bounds it: the kernel strides over the rest). A device
// or a compiled kernel that cannot run such a group is a NotSupported error.
func (ds *deviceState) launchGroups(name string, block, groups int, uses []*storage, args ...gpu.Arg) error {
	if groups == 0 {
		return nil
	}
	k, err := ds.kernel(name)
	if err != nil {
		return err
	}
	info := ds.info()
	limit := info.MaxThreadsPerBlock
	if m := info.MaxBlockDim.X; m > 0 && (limit <= 0 || m < limit) {
		limit = m
	}
	if attrs, err := k.Attributes(); err == nil && attrs.MaxThreadsPerBlock > 0 && (limit <= 0 || attrs.MaxThreadsPerBlock < limit) {
		limit = attrs.MaxThreadsPerBlock
	}
	if limit > 0 && limit < block {
		return notSupported("launch "+name, "", "the kernel needs groups of %d threads; the device allows %d", block, limit)
	}
	grid := ds.gridSize(groups*block, block)
	epoch := ds.nextEpoch()
	for _, s := range uses {
		s.touch(epoch)
	}
	return wrap(ds.dev.DefaultStream().Launch(k, gpu.D1(grid), gpu.D1(block), args...), "launch "+name)
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
