package interp

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// kernelProg is a compiled kernel: its frame layouts and its code.
type kernelProg struct {
	name       string
	params     []paramSlot
	nbufs      int
	body       lstmt
	stride     uintptr // bytes of a lane frame
	usize      uintptr // bytes of the uniform frame
	inits      []func(p unsafe.Pointer)
	laneIDs    [ir.GlobalZ + 1]uintptr
	uniIDs     [ir.GlobalZ + 1]uintptr
	usedIDs    uint32
	sharedSize uintptr
	nlists     int
	pool       sync.Pool // *grp
}

// newGroup allocates the state of a group of the given size: n+1 lane
// frames with the constants written, the uniform frame, the lists and the
// shared memory, and the lanes' thread ids.
func (k *kernelProg) newGroup(size backend.Dim3) *grp {
	n := size.X * size.Y * size.Z
	g := &grp{n: n, size: [3]int{size.X, size.Y, size.Z}}
	words := int(k.stride / 8)
	g.frames = make([]uint64, words*(n+1))
	g.mem = unsafe.Pointer(&g.frames[0])
	for i := range n + 1 {
		p := unsafe.Pointer(&g.frames[i*words])
		for _, in := range k.inits {
			in(p)
		}
	}
	g.uframe = make([]uint64, k.usize/8+1)
	g.t.u = unsafe.Pointer(&g.uframe[0])
	g.t.mem = unsafe.Pointer(&g.frames[n*words])
	g.lane.u = g.t.u
	g.ctl = make([]ctl, n)
	g.lists = make([][]int32, k.nlists)
	for i := range g.lists {
		g.lists[i] = make([]int32, n)
	}
	g.all = make([]int32, n)
	for i := range g.all {
		g.all[i] = int32(i)
	}
	g.shared = make([]uint64, (k.sharedSize+7)/8)
	if len(g.shared) > 0 {
		g.t.sh = unsafe.Pointer(&g.shared[0])
		g.lane.sh = g.t.sh
	}
	i := 0
	for z := range size.Z {
		for y := range size.Y {
			for x := range size.X {
				k.setLane(g, i, ir.ThreadX, x)
				k.setLane(g, i, ir.ThreadY, y)
				k.setLane(g, i, ir.ThreadZ, z)
				k.setLane(g, i, ir.ThreadIndex, i)
				i++
			}
		}
	}
	return g
}

// setLane writes v as the id b of lane i, if the kernel reads it.
func (k *kernelProg) setLane(g *grp, i int, b ir.Builtin, v int) {
	if k.usedIDs&(1<<b) != 0 {
		*(*uint32)(unsafe.Add(g.mem, uintptr(i)*k.stride+k.laneIDs[b])) = uint32(v)
	}
}

// run is the backend.GoKernel: it runs the group gr, all its threads in
// step as the lanes of one grp. A wrong argument list or an index out of
// range panics with an error, which the CPU backend recovers into the
// launch's error.
func (k *kernelProg) run(gr backend.Group, args []backend.Arg) {
	size, grid := gr.Size.Norm(), gr.Grid.Norm()
	if size.X <= 0 || size.Y <= 0 || size.Z <= 0 {
		return
	}
	g, _ := k.pool.Get().(*grp)
	if g == nil || g.size != [3]int{size.X, size.Y, size.Z} {
		g = k.newGroup(size)
	}
	defer k.pool.Put(g)
	k.bind(g, args)
	g.t.bufs, g.lane.bufs = g.bufs, g.bufs
	for _, p := range k.params {
		if p.buf >= 0 {
			continue
		}
		bits := args[p.arg].Bits
		if !p.lane {
			k.setBits(g.t.u, p.off, p.kind, bits)
			continue
		}
		for i := range g.n {
			k.setBits(unsafe.Add(g.mem, uintptr(i)*k.stride), p.off, p.kind, bits)
		}
	}
	ids := [...]struct {
		b ir.Builtin
		v int
	}{
		{ir.GroupX, gr.ID.X}, {ir.GroupY, gr.ID.Y}, {ir.GroupZ, gr.ID.Z},
		{ir.GroupSizeX, size.X}, {ir.GroupSizeY, size.Y}, {ir.GroupSizeZ, size.Z},
		{ir.GridX, grid.X}, {ir.GridY, grid.Y}, {ir.GridZ, grid.Z},
	}
	for _, id := range ids {
		if k.usedIDs&(1<<id.b) != 0 {
			*(*uint32)(unsafe.Add(g.t.u, k.uniIDs[id.b])) = uint32(id.v)
		}
	}
	if k.usedIDs&(1<<ir.GlobalX|1<<ir.GlobalY|1<<ir.GlobalZ) == 1<<ir.GlobalX && size.Y == 1 && size.Z == 1 {
		p, base := unsafe.Add(g.mem, k.laneIDs[ir.GlobalX]), uint32(gr.ID.X*size.X)
		for x := range uint32(size.X) {
			*(*uint32)(p) = base + x
			p = unsafe.Add(p, k.stride)
		}
	} else if k.usedIDs&(1<<ir.GlobalX|1<<ir.GlobalY|1<<ir.GlobalZ) != 0 {
		i := 0
		for z := range size.Z {
			for y := range size.Y {
				for x := range size.X {
					k.setLane(g, i, ir.GlobalX, gr.ID.X*size.X+x)
					k.setLane(g, i, ir.GlobalY, gr.ID.Y*size.Y+y)
					k.setLane(g, i, ir.GlobalZ, gr.ID.Z*size.Z+z)
					i++
				}
			}
		}
	}
	g.affOK = 1 << ir.ThreadIndex
	if size.Y == 1 && size.Z == 1 {
		g.affOK |= 1 << ir.ThreadX
		if base := uint64(gr.ID.X) * uint64(size.X); gr.ID.X >= 0 && base+uint64(size.X) <= 1<<32 {
			g.affOK |= 1 << ir.GlobalX
			g.affBase[ir.GlobalX] = uint32(base)
		}
	}
	clear(g.ctl)
	clear(g.shared) // shared memory starts undefined: zero keeps runs repeatable
	k.body(g, g.all)
}

// setBits writes a scalar argument's bits at off of the frame p.
func (k *kernelProg) setBits(p unsafe.Pointer, off uintptr, kd kind, bits uint64) {
	if kd.size() == 4 {
		*(*uint32)(unsafe.Add(p, off)) = uint32(bits)
	} else {
		*(*uint64)(unsafe.Add(p, off)) = bits
	}
}

// bind views the buffer arguments and checks the argument list.
func (k *kernelProg) bind(s *grp, args []backend.Arg) {
	if cap(s.bufs) < k.nbufs {
		s.bufs = make([]view, k.nbufs)
	}
	s.bufs = s.bufs[:k.nbufs]
	for _, p := range k.params {
		if p.arg >= len(args) {
			panic(fmt.Errorf("kernel %s: %d arguments, want %d", k.name, len(args), len(k.params)))
		}
		a := args[p.arg]
		if p.buf < 0 {
			if a.Kind != argKind(p.kind) {
				panic(fmt.Errorf("kernel %s: argument %d is a %v, want %v", k.name, p.arg, a.Kind, argKind(p.kind)))
			}
			continue
		}
		if a.Kind != backend.ArgBuffer {
			panic(fmt.Errorf("kernel %s: argument %d is a %v, want a buffer", k.name, p.arg, a.Kind))
		}
		b := a.Bytes()
		n := len(b) / int(p.kind.size())
		if n == 0 {
			s.bufs[p.buf] = view{}
			continue
		}
		s.bufs[p.buf] = view{p: unsafe.Pointer(&b[0]), n: n}
	}
}

// argKind is the ABI kind of a scalar parameter of kind k.
func argKind(k kind) backend.ArgKind {
	switch k {
	case kI32:
		return backend.ArgI32
	case kU32:
		return backend.ArgU32
	case kF32:
		return backend.ArgF32
	case kI64:
		return backend.ArgI64
	case kU64:
		return backend.ArgU64
	case kF64:
		return backend.ArgF64
	}
	return 0
}

// perThreadIDs are the built-ins that differ between the threads of a group.
const perThreadIDs = 1<<ir.ThreadX | 1<<ir.ThreadY | 1<<ir.ThreadZ | 1<<ir.ThreadIndex |
	1<<ir.GlobalX | 1<<ir.GlobalY | 1<<ir.GlobalZ
