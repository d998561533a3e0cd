package interp

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Compile turns every kernel of m into a GoKernel the CPU backend runs, one
// work group per call. The kernels are compiled once, here, into nested Go
// closures; a call only runs them.
func Compile(m *ir.Module) (map[string]backend.GoKernel, error) {
	if m == nil {
		return nil, fmt.Errorf("interp: nil module")
	}
	out := make(map[string]backend.GoKernel)
	assigned := assignedVars(m)
	for _, f := range m.Kernels() {
		k, err := compileKernel(f, assigned)
		if err != nil {
			return nil, err
		}
		out[f.Name] = k
	}
	return out, nil
}

// maxInlineDepth bounds the nesting of helper calls, each inlined at its
// call site (helpers do not recurse, so this only guards a runaway module).
const maxInlineDepth = 64

// compiler holds the state of one kernel's compilation: the layout of its
// frame and shared memory.
type compiler struct {
	kernel     *ir.Func
	size       uintptr                  // frame bytes so far
	inits      []func(p unsafe.Pointer) // writes the constants into a new frame
	consts     map[constKey]uintptr
	vars       map[*ir.Var]uintptr // frame offsets of locals and scalar parameters
	bufs       map[*ir.Var]int     // buffer parameters: their index among buffers
	bufNames   []string
	bufKinds   []kind
	shared     map[*ir.Var]uintptr // shared arrays: their offsets in shared memory
	sharedSize uintptr
	ids        [ir.GlobalZ + 1]uintptr // frame offsets of the id built-ins
	usedIDs    uint32                  // bit b set: built-in b is read
	helper     *helperCtx              // the helper being inlined, if any
	assigned   map[*ir.Var]bool        // variables written by an Assign (assignedVars)
	// paramsWritten reports an assignment to a kernel's scalar parameter.
	paramsWritten bool
	depth         int
}

// helperCtx is an inlined helper call: where its result goes.
type helperCtx struct {
	kind kind
	res  uintptr
	has  bool
}

type constKey struct {
	k    kind
	bits uint64
}

// alloc reserves n bytes of the frame, 8-byte aligned, and returns their offset.
func (c *compiler) alloc(n uintptr) uintptr {
	off := (c.size + 7) &^ 7
	if n == 0 {
		n = 1
	}
	c.size = off + n
	return off
}

// errorf is a compile error at pos.
func errorf(pos ir.Pos, format string, args ...any) error {
	return fmt.Errorf("%s: %s", pos, fmt.Sprintf(format, args...))
}

// constant returns the frame slot holding e's value, shared by equal constants.
func (c *compiler) constant(e *ir.Const) (any, error) {
	k, err := kindOf(e.Type)
	if err != nil {
		return nil, errorf(e.Pos, "%v", err)
	}
	var bits uint64
	switch k {
	case kBool:
		if e.Bool {
			bits = 1
		}
	case kI32, kI64:
		bits = uint64(e.Int)
	case kU32, kU64:
		bits = e.Uint
	case kF32:
		bits = uint64(math.Float32bits(float32(e.Float)))
	case kF64:
		bits = math.Float64bits(e.Float)
	}
	key := constKey{k, bits}
	if off, ok := c.consts[key]; ok {
		return slotOf(k, off), nil
	}
	off := c.alloc(k.size())
	c.consts[key] = off
	c.inits = append(c.inits, func(p unsafe.Pointer) {
		q := unsafe.Add(p, off)
		switch k {
		case kBool:
			*(*bool)(q) = bits != 0
		case kI32, kU32, kF32:
			*(*uint32)(q) = uint32(bits)
		default:
			*(*uint64)(q) = bits
		}
	})
	return slotOf(k, off), nil
}

// compileKernel lays out f's frame and compiles its body.
func compileKernel(f *ir.Func, assigned map[*ir.Var]bool) (backend.GoKernel, error) {
	c := &compiler{
		kernel:   f,
		assigned: assigned,
		consts:   map[constKey]uintptr{},
		vars:     map[*ir.Var]uintptr{},
		bufs:     map[*ir.Var]int{},
		shared:   map[*ir.Var]uintptr{},
	}
	for b := ir.ThreadX; b <= ir.GlobalZ; b++ {
		c.ids[b] = c.alloc(4)
	}
	var params []paramSlot
	for i, p := range f.Params {
		if s, ok := p.Type.(*ir.Slice); ok {
			k, err := kindOf(s.Elem)
			if err != nil || k == kBool {
				return nil, errorf(p.Pos, "buffer %s of %s is not supported by the CPU interpreter", p.Name, s.Elem)
			}
			c.bufs[p] = len(c.bufNames)
			c.bufNames = append(c.bufNames, p.Name)
			c.bufKinds = append(c.bufKinds, k)
			params = append(params, paramSlot{arg: i, buf: c.bufs[p], kind: k})
			continue
		}
		k, err := kindOf(p.Type)
		if err != nil || k == kBool || k == kVec4 {
			return nil, errorf(p.Pos, "parameter %s of type %v is not supported by the CPU interpreter", p.Name, p.Type)
		}
		off := c.alloc(k.size())
		c.vars[p] = off
		params = append(params, paramSlot{arg: i, buf: -1, kind: k, off: off})
	}
	for _, v := range f.Shared {
		n, err := sizeOfType(v.Type)
		if err != nil {
			return nil, errorf(v.Pos, "shared array %s: %v", v.Name, err)
		}
		c.sharedSize = (c.sharedSize + 7) &^ 7
		c.shared[v] = c.sharedSize
		c.sharedSize += n
	}
	k := &kernelProg{name: f.Name, params: params, nbufs: len(c.bufNames)}
	if hasBarrier(f.Body) {
		root, err := c.groupStmts(f.Body)
		if err != nil {
			return nil, err
		}
		k.group = root
	} else {
		body, err := c.stmts(f.Body)
		if err != nil {
			return nil, err
		}
		k.body = body
	}
	k.size, k.inits, k.ids, k.usedIDs, k.sharedSize = c.size, c.inits, c.ids, c.usedIDs, c.sharedSize
	k.bufKinds, k.paramsWritten = c.bufKinds, c.paramsWritten
	return k.run, nil
}

// paramSlot is where a kernel argument goes: a buffer index, or a frame slot.
type paramSlot struct {
	arg  int
	buf  int // -1 for a scalar
	kind kind
	off  uintptr
}
