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

// compiler holds the state of one kernel's compilation: the layouts of its
// lane frame, uniform frame and shared memory.
type compiler struct {
	kernel     *ir.Func
	size       uintptr                  // lane-frame bytes so far
	usize      uintptr                  // uniform-frame bytes so far
	inits      []func(p unsafe.Pointer) // writes the constants into a new lane frame
	consts     map[constKey]uintptr
	vars       map[*ir.Var]uintptr // lane-frame offsets of varying locals and parameters
	uvars      map[*ir.Var]uintptr // uniform-frame offsets of uniform ones
	varying    map[*ir.Var]bool    // varyingVars of the kernel
	uni        *uniformity
	bufs       map[*ir.Var]int // buffer parameters: their index among buffers
	bufNames   []string
	bufKinds   []kind
	shared     map[*ir.Var]uintptr // shared arrays: their offsets in shared memory
	sharedSize uintptr
	laneIDs    [ir.GlobalZ + 1]uintptr // lane-frame offsets of the per-thread ids
	uniIDs     [ir.GlobalZ + 1]uintptr // uniform-frame offsets of the group-level ids
	usedIDs    uint32                  // bit b set: built-in b is read
	helper     *helperCtx              // the helper being inlined, if any
	assigned   map[*ir.Var]bool        // variables written by an Assign (assignedVars)
	nlists     int                     // active-lane lists of the constructs
	strideRef  *strideRef              // the lane-frame stride, set when done
	depth      int
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

// ualloc reserves n bytes of the uniform frame, 8-byte aligned.
func (c *compiler) ualloc(n uintptr) uintptr {
	off := (c.usize + 7) &^ 7
	c.usize = off + max(n, 1)
	return off
}

// laneID is the lane-frame slot of the per-thread id b.
func (c *compiler) laneID(b ir.Builtin) uintptr {
	if c.usedIDs&(1<<b) == 0 {
		c.usedIDs |= 1 << b
		c.laneIDs[b] = c.alloc(4)
	}
	return c.laneIDs[b]
}

// uniID is the uniform-frame slot of the group-level id b.
func (c *compiler) uniID(b ir.Builtin) uintptr {
	if c.usedIDs&(1<<b) == 0 {
		c.usedIDs |= 1 << b
		c.uniIDs[b] = c.ualloc(4)
	}
	return c.uniIDs[b]
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

// compileKernel lays out f's frames and compiles its body in the lane model.
func compileKernel(f *ir.Func, assigned map[*ir.Var]bool) (backend.GoKernel, error) {
	c := &compiler{
		kernel:    f,
		assigned:  assigned,
		consts:    map[constKey]uintptr{},
		vars:      map[*ir.Var]uintptr{},
		uvars:     map[*ir.Var]uintptr{},
		bufs:      map[*ir.Var]int{},
		shared:    map[*ir.Var]uintptr{},
		strideRef: &strideRef{},
	}
	c.varying = varyingVars(f)
	c.uni = &uniformity{varying: c.varying}
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
		ps := paramSlot{arg: i, buf: -1, kind: k}
		if c.varying[p] {
			ps.off, ps.lane = c.alloc(k.size()), true
			c.vars[p] = ps.off
		} else {
			ps.off = c.ualloc(k.size())
			c.uvars[p] = ps.off
		}
		params = append(params, ps)
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
	body, err := c.lstmts(f.Body)
	if err != nil {
		return nil, err
	}
	c.strideRef.v = max((c.size+7)&^7, 8)
	k := &kernelProg{name: f.Name, params: params, nbufs: len(c.bufNames), body: body,
		stride: c.strideRef.v, usize: c.usize, inits: c.inits, laneIDs: c.laneIDs, uniIDs: c.uniIDs,
		usedIDs: c.usedIDs, sharedSize: c.sharedSize, nlists: c.nlists}
	if dense := planDense(f, assigned); dense != nil {
		return func(g backend.Group, args []backend.Arg) {
			if !dense.run(g, args) {
				k.run(g, args)
			}
		}, nil
	}
	return k.run, nil
}

// paramSlot is where a kernel argument goes: a buffer index, or a slot of
// the uniform frame or (for a parameter the kernel assigns per thread) of
// every lane frame.
type paramSlot struct {
	arg  int
	buf  int // -1 for a scalar
	kind kind
	off  uintptr
	lane bool
}
