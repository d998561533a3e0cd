package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// region is the memory an indexed place lives in.
type region uint8

const (
	inFrame  region = iota // a local array
	inShared               // a shared array
	inBuffer               // a buffer parameter
)

// place is a compiled Index: an element of a buffer, a local array or a
// shared array.
type place struct {
	reg  region
	elem kind
	pos  ir.Pos
	name string
	// For a buffer: which one, and the index (a val of idxKind).
	buf     int
	idx     any
	idxKind kind
	// For an array: the element's byte offset in its region, base plus
	// dyn's (nil when every index is constant).
	base uintptr
	dyn  func(*thread) uintptr
}

// place compiles the Index e.
func (c *compiler) place(e *ir.Index) (*place, error) {
	ek, err := kindOf(e.Type)
	if err != nil {
		if _, isArr := e.Type.(*ir.Array); !isArr {
			return nil, errorf(e.Pos, "%v", err)
		}
	}
	p := &place{elem: ek, pos: e.Pos}
	if r, ok := e.X.(*ir.Ref); ok {
		if b, isBuf := c.bufs[r.Var]; isBuf {
			p.reg, p.buf, p.name = inBuffer, b, r.Var.Name
			p.idx, p.idxKind, err = c.exprKind(e.Index)
			if err != nil {
				return nil, err
			}
			if !isIntKind(p.idxKind) {
				return nil, errorf(e.Pos, "index of %s is not an integer", r.Var.Name)
			}
			return p, nil
		}
	}
	arr, err := c.arrayPlace(e.X)
	if err != nil {
		return nil, err
	}
	at, ok := arrayType(e.X.ExprType())
	if !ok {
		return nil, errorf(e.Pos, "indexing a %v", e.X.ExprType())
	}
	stride, err := sizeOfType(at.Elem)
	if err != nil {
		return nil, errorf(e.Pos, "%v", err)
	}
	*p = place{reg: arr.reg, elem: ek, pos: e.Pos, name: arr.name, base: arr.base, dyn: arr.dyn}
	if ci, ok := e.Index.(*ir.Const); ok {
		i := ci.Int
		if ci.Type == ir.U32 || ci.Type == ir.U64 {
			i = int64(ci.Uint)
		}
		if i < 0 || i >= int64(at.Len) {
			return nil, errorf(e.Pos, "index %d out of range [0:%d) of %s", i, at.Len, arr.name)
		}
		p.base += uintptr(i) * stride
		return p, nil
	}
	idx, ik, err := c.exprKind(e.Index)
	if err != nil {
		return nil, err
	}
	switch ik {
	case kI32:
		p.dyn = arrayIndex(p.dyn, idx.(val[int32]), at.Len, stride, e.Pos, arr.name)
	case kU32:
		p.dyn = arrayIndex(p.dyn, idx.(val[uint32]), at.Len, stride, e.Pos, arr.name)
	case kI64:
		p.dyn = arrayIndex(p.dyn, idx.(val[int64]), at.Len, stride, e.Pos, arr.name)
	case kU64:
		p.dyn = arrayIndex(p.dyn, idx.(val[uint64]), at.Len, stride, e.Pos, arr.name)
	default:
		return nil, errorf(e.Pos, "index of %s is not an integer", arr.name)
	}
	return p, nil
}

// arrayPlace is the place of an array: a Ref to a local or shared array, or
// an Index of a multi-dimensional one.
func (c *compiler) arrayPlace(x ir.Expr) (*place, error) {
	switch x := x.(type) {
	case *ir.Ref:
		if off, ok := c.shared[x.Var]; ok {
			return &place{reg: inShared, base: off, name: x.Var.Name, pos: x.Pos}, nil
		}
		if off, ok := c.vars[x.Var]; ok {
			return &place{reg: inFrame, base: off, name: x.Var.Name, pos: x.Pos}, nil
		}
		return nil, errorf(x.Pos, "%s is not an array here", x.Var.Name)
	case *ir.Index:
		return c.place(x)
	}
	return nil, errorf(x.ExprPos(), "indexing %T is not supported by the CPU interpreter", x)
}

func arrayType(t ir.Type) (*ir.Array, bool) {
	a, ok := t.(*ir.Array)
	return a, ok
}

func isIntKind(k kind) bool { return k == kI32 || k == kU32 || k == kI64 || k == kU64 }

// arrayIndex adds idx*stride, checked against n, to the dynamic offset prev.
func arrayIndex[I integer](prev func(*thread) uintptr, idx val[I], n int, stride uintptr, pos ir.Pos, name string) func(*thread) uintptr {
	x := idx.get()
	if prev == nil {
		return func(t *thread) uintptr {
			i := uint64(x(t))
			if i >= uint64(n) {
				outOfRange(pos, name, i, n)
			}
			return uintptr(i) * stride
		}
	}
	return func(t *thread) uintptr {
		i := uint64(x(t))
		if i >= uint64(n) {
			outOfRange(pos, name, i, n)
		}
		return prev(t) + uintptr(i)*stride
	}
}

// load reads the element e.
func (c *compiler) load(e *ir.Index) (any, error) {
	p, err := c.place(e)
	if err != nil {
		return nil, err
	}
	if p.elem == kInvalid {
		return nil, errorf(e.Pos, "reading a whole array is not supported; index it")
	}
	switch p.elem {
	case kBool:
		return loadT[bool](p), nil
	case kI32:
		return loadT[int32](p), nil
	case kU32:
		return loadT[uint32](p), nil
	case kF32:
		return loadT[float32](p), nil
	case kI64:
		return loadT[int64](p), nil
	case kU64:
		return loadT[uint64](p), nil
	case kF64:
		return loadT[float64](p), nil
	case kVec4:
		return loadT[vec4](p), nil
	}
	return nil, errorf(e.Pos, "cannot load a %v", e.Type)
}

func loadT[T any](p *place) val[T] {
	switch p.reg {
	case inBuffer:
		switch p.idxKind {
		case kI32:
			return bufLoad[T](p, p.idx.(val[int32]))
		case kU32:
			return bufLoad[T](p, p.idx.(val[uint32]))
		case kI64:
			return bufLoad[T](p, p.idx.(val[int64]))
		default:
			return bufLoad[T](p, p.idx.(val[uint64]))
		}
	case inFrame:
		if p.dyn == nil {
			return slotVal[T](p.base)
		}
		base, dyn := p.base, p.dyn
		return fnVal(func(t *thread) T { return ld[T](t, base+dyn(t)) })
	default:
		base, dyn := p.base, p.dyn
		if dyn == nil {
			return fnVal(func(t *thread) T { return *(*T)(unsafe.Add(t.sh, base)) })
		}
		return fnVal(func(t *thread) T { return *(*T)(unsafe.Add(t.sh, base+dyn(t))) })
	}
}

func bufLoad[T any, I integer](p *place, idx val[I]) val[T] {
	k, size, pos, name := p.buf, sizeOf[T](), p.pos, p.name
	if idx.slot {
		off := idx.off
		return fnVal(func(t *thread) T {
			i := uint64(ld[I](t, off))
			b := &t.bufs[k]
			if i >= uint64(b.n) {
				outOfRange(pos, name, i, b.n)
			}
			return *(*T)(unsafe.Add(b.p, uintptr(i)*size))
		})
	}
	x := idx.fn
	return fnVal(func(t *thread) T {
		i := uint64(x(t))
		b := &t.bufs[k]
		if i >= uint64(b.n) {
			outOfRange(pos, name, i, b.n)
		}
		return *(*T)(unsafe.Add(b.p, uintptr(i)*size))
	})
}

// store writes v (a val of p.elem's Go type) to the element p.
func (c *compiler) store(p *place, v any) stmt {
	switch p.elem {
	case kBool:
		return storeT(p, v.(val[bool]))
	case kI32:
		return storeT(p, v.(val[int32]))
	case kU32:
		return storeT(p, v.(val[uint32]))
	case kF32:
		return storeT(p, v.(val[float32]))
	case kI64:
		return storeT(p, v.(val[int64]))
	case kU64:
		return storeT(p, v.(val[uint64]))
	case kF64:
		return storeT(p, v.(val[float64]))
	case kVec4:
		return storeT(p, v.(val[vec4]))
	}
	return nil
}

func storeT[T any](p *place, v val[T]) stmt {
	switch p.reg {
	case inBuffer:
		switch p.idxKind {
		case kI32:
			return bufStore(p, p.idx.(val[int32]), v)
		case kU32:
			return bufStore(p, p.idx.(val[uint32]), v)
		case kI64:
			return bufStore(p, p.idx.(val[int64]), v)
		default:
			return bufStore(p, p.idx.(val[uint64]), v)
		}
	case inFrame:
		if p.dyn == nil {
			return storeSlotT(p.base, v)
		}
		base, dyn, f := p.base, p.dyn, v.get()
		return func(t *thread) ctl {
			o := base + dyn(t)
			st(t, o, f(t))
			return ctlNone
		}
	default:
		base, dyn, f := p.base, p.dyn, v.get()
		if dyn == nil {
			return func(t *thread) ctl { *(*T)(unsafe.Add(t.sh, base)) = f(t); return ctlNone }
		}
		return func(t *thread) ctl {
			o := base + dyn(t)
			*(*T)(unsafe.Add(t.sh, o)) = f(t)
			return ctlNone
		}
	}
}

// bufStore stores v at the buffer element p. The index is evaluated before
// the value, in Go's order (a slot index cannot change while the value is
// evaluated: expressions write no local of the kernel).
func bufStore[T any, I integer](p *place, idx val[I], v val[T]) stmt {
	k, size, pos, name := p.buf, sizeOf[T](), p.pos, p.name
	f := v.get()
	if idx.slot {
		off := idx.off
		return func(t *thread) ctl {
			x := f(t)
			i := uint64(ld[I](t, off))
			b := &t.bufs[k]
			if i >= uint64(b.n) {
				outOfRange(pos, name, i, b.n)
			}
			*(*T)(unsafe.Add(b.p, uintptr(i)*size)) = x
			return ctlNone
		}
	}
	xi := idx.fn
	return func(t *thread) ctl {
		i := uint64(xi(t))
		x := f(t)
		b := &t.bufs[k]
		if i >= uint64(b.n) {
			outOfRange(pos, name, i, b.n)
		}
		*(*T)(unsafe.Add(b.p, uintptr(i)*size)) = x
		return ctlNone
	}
}

// pointer returns the address of the element p (for atomics).
func pointer(p *place, size uintptr) func(*thread) unsafe.Pointer {
	switch p.reg {
	case inBuffer:
		switch p.idxKind {
		case kI32:
			return bufPtr(p, p.idx.(val[int32]), size)
		case kU32:
			return bufPtr(p, p.idx.(val[uint32]), size)
		case kI64:
			return bufPtr(p, p.idx.(val[int64]), size)
		default:
			return bufPtr(p, p.idx.(val[uint64]), size)
		}
	case inFrame:
		base, dyn := p.base, p.dyn
		if dyn == nil {
			return func(t *thread) unsafe.Pointer { return unsafe.Add(t.mem, base) }
		}
		return func(t *thread) unsafe.Pointer { return unsafe.Add(t.mem, base+dyn(t)) }
	default:
		base, dyn := p.base, p.dyn
		if dyn == nil {
			return func(t *thread) unsafe.Pointer { return unsafe.Add(t.sh, base) }
		}
		return func(t *thread) unsafe.Pointer { return unsafe.Add(t.sh, base+dyn(t)) }
	}
}

func bufPtr[I integer](p *place, idx val[I], size uintptr) func(*thread) unsafe.Pointer {
	k, pos, name, x := p.buf, p.pos, p.name, idx.get()
	return func(t *thread) unsafe.Pointer {
		i := uint64(x(t))
		b := &t.bufs[k]
		if i >= uint64(b.n) {
			outOfRange(pos, name, i, b.n)
		}
		return unsafe.Add(b.p, uintptr(i)*size)
	}
}
