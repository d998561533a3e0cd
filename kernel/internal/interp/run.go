package interp

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// kernelProg is a compiled kernel: its frame layout and its code.
type kernelProg struct {
	name          string
	params        []paramSlot
	nbufs         int
	bufKinds      []kind
	body          stmt  // a kernel without barriers: run thread by thread
	group         gnode // a kernel with barriers
	size          uintptr
	inits         []func(p unsafe.Pointer)
	ids           [ir.GlobalZ + 1]uintptr
	usedIDs       uint32
	sharedSize    uintptr
	paramsWritten bool
	pool          sync.Pool // *groupState
}

// groupState is what one group call needs, reused across calls.
type groupState struct {
	threads []*thread
	bufs    []view
	shared  []uint64
}

// thread returns the i-th thread of s, with a frame, creating it if needed.
func (k *kernelProg) thread(s *groupState, i int) *thread {
	for len(s.threads) <= i {
		f := newFrame(k.size, k.inits)
		s.threads = append(s.threads, &thread{frame: f, mem: unsafe.Pointer(&f[0])})
	}
	return s.threads[i]
}

// run is the backend.GoKernel: it runs the group g. A wrong argument list or
// an index out of range panics with an error, which the CPU backend
// recovers into the launch's error.
func (k *kernelProg) run(g backend.Group, args []backend.Arg) {
	s, _ := k.pool.Get().(*groupState)
	if s == nil {
		s = &groupState{}
	}
	defer k.pool.Put(s)
	k.bind(s, args)
	size := g.Size.Norm()
	n := size.X * size.Y * size.Z
	if size.X <= 0 || size.Y <= 0 || size.Z <= 0 {
		return
	}
	var sh unsafe.Pointer
	if k.sharedSize > 0 {
		words := int((k.sharedSize + 7) / 8)
		if cap(s.shared) < words {
			s.shared = make([]uint64, words)
		}
		s.shared = s.shared[:words]
		clear(s.shared) // shared memory starts undefined: zero keeps runs repeatable
		sh = unsafe.Pointer(&s.shared[0])
	}
	if k.body != nil {
		t := k.thread(s, 0)
		t.bufs, t.sh = s.bufs, sh
		k.setGroup(t, g, args)
		body := k.body
		for z := range size.Z {
			for y := range size.Y {
				for x := range size.X {
					if k.paramsWritten {
						k.setParams(t, args)
					}
					k.setThread(t, g, x, y, z)
					body(t)
				}
			}
		}
		return
	}
	act := make([]*thread, 0, n)
	i := 0
	for z := range size.Z {
		for y := range size.Y {
			for x := range size.X {
				t := k.thread(s, i)
				t.bufs, t.sh, t.ctl = s.bufs, sh, ctlNone
				k.setGroup(t, g, args)
				k.setThread(t, g, x, y, z)
				act = append(act, t)
				i++
			}
		}
	}
	k.group(act)
}

// bind views the buffer arguments and checks the argument list.
func (k *kernelProg) bind(s *groupState, args []backend.Arg) {
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

// setParams writes the scalar arguments into t's frame.
func (k *kernelProg) setParams(t *thread, args []backend.Arg) {
	for _, p := range k.params {
		if p.buf >= 0 {
			continue
		}
		if p.kind.size() == 4 {
			st(t, p.off, uint32(args[p.arg].Bits))
		} else {
			st(t, p.off, args[p.arg].Bits)
		}
	}
}

// setGroup writes the parameters and the group's ids into t's frame.
func (k *kernelProg) setGroup(t *thread, g backend.Group, args []backend.Arg) {
	k.setParams(t, args)
	size, grid := g.Size.Norm(), g.Grid.Norm()
	set := func(b ir.Builtin, v int) {
		if k.usedIDs&(1<<b) != 0 {
			st(t, k.ids[b], uint32(v))
		}
	}
	set(ir.GroupX, g.ID.X)
	set(ir.GroupY, g.ID.Y)
	set(ir.GroupZ, g.ID.Z)
	set(ir.GroupSizeX, size.X)
	set(ir.GroupSizeY, size.Y)
	set(ir.GroupSizeZ, size.Z)
	set(ir.GridX, grid.X)
	set(ir.GridY, grid.Y)
	set(ir.GridZ, grid.Z)
}

// perThreadIDs are the built-ins that differ between the threads of a group.
const perThreadIDs = 1<<ir.ThreadX | 1<<ir.ThreadY | 1<<ir.ThreadZ | 1<<ir.ThreadIndex |
	1<<ir.GlobalX | 1<<ir.GlobalY | 1<<ir.GlobalZ

// setThread writes thread (x, y, z)'s ids into t's frame.
func (k *kernelProg) setThread(t *thread, g backend.Group, x, y, z int) {
	u := k.usedIDs
	if u&perThreadIDs == 0 {
		return
	}
	if u&(1<<ir.GlobalX) != 0 {
		st(t, k.ids[ir.GlobalX], uint32(g.ID.X*g.Size.X+x))
	}
	if u&^(1<<ir.GlobalX)&perThreadIDs == 0 {
		return
	}
	size := g.Size.Norm()
	ids := [...]struct {
		b ir.Builtin
		v int
	}{
		{ir.ThreadX, x}, {ir.ThreadY, y}, {ir.ThreadZ, z},
		{ir.ThreadIndex, x + size.X*(y+size.Y*z)},
		{ir.GlobalY, g.ID.Y*size.Y + y}, {ir.GlobalZ, g.ID.Z*size.Z + z},
	}
	for _, id := range ids {
		if u&(1<<id.b) != 0 {
			st(t, k.ids[id.b], uint32(id.v))
		}
	}
}
