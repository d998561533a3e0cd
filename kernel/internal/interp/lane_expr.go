package interp

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// lexpr compiles e in the lane model. A uniform e is compiled by the scalar
// compiler and runs once per evaluation; a varying one computes its value
// into a lane-frame slot (dst when given, for the root operation) with one
// loop over the active lanes per operation. What the lane model has no loop
// for (helper calls, atomics, math, vectors, local arrays, && and ||, which
// must not evaluate their right operand in lanes that short-circuit) runs
// the scalar compiler's closure lane by lane.
func (c *compiler) lexpr(e ir.Expr, dst uintptr) (lval, error) {
	if e == nil {
		return lval{}, fmt.Errorf("missing expression")
	}
	k, err := kindOf(e.ExprType())
	if err != nil {
		return lval{}, errorf(e.ExprPos(), "%v", err)
	}
	if c.uni.expr(e) {
		v, err := c.expr(e)
		return lval{k: k, uni: v}, err
	}
	switch e := e.(type) {
	case *ir.Ref:
		if off, ok := c.vars[e.Var]; ok {
			return lval{k: k, off: off}, nil
		}
	case *ir.CallBuiltin:
		if e.Builtin.IsID() && len(e.Args) == 0 {
			return lval{k: kU32, off: c.laneID(e.Builtin)}, nil
		}
	case *ir.Binary:
		if v, ok, err := c.lbinary(e, k, dst); ok || err != nil {
			return v, err
		}
	case *ir.Convert:
		if v, ok, err := c.lconvert(e, k, dst); ok || err != nil {
			return v, err
		}
	case *ir.Index:
		if v, ok, err := c.lload(e, k, dst); ok || err != nil {
			return v, err
		}
	}
	v, err := c.expr(e)
	if err != nil {
		return lval{}, err
	}
	d := c.dst(k, dst)
	return lval{k: k, off: d, code: perLaneVal(k, v, d, c.stride())}, nil
}

// varying returns v as a varying value: a uniform one is broadcast into a
// temporary.
func (c *compiler) varyingVal(v lval) lval {
	if !v.uniform() {
		return v
	}
	off := c.alloc(v.k.size())
	return lval{k: v.k, off: off, code: broadcast(v.k, off, v.uni, c.stride())}
}

// lbinary compiles the arithmetic and comparisons of integers and floats.
func (c *compiler) lbinary(e *ir.Binary, rk kind, dst uintptr) (lval, bool, error) {
	xk, err := kindOf(e.X.ExprType())
	if err != nil || xk == kBool || xk == kVec4 {
		return lval{}, false, nil
	}
	switch e.Op {
	case ir.LAnd, ir.LOr, ir.Shl, ir.Shr:
		return lval{}, false, nil
	}
	x, err := c.lexpr(e.X, noDst)
	if err != nil {
		return lval{}, false, err
	}
	y, err := c.lexpr(e.Y, noDst)
	if err != nil {
		return lval{}, false, err
	}
	if y.k != xk {
		return lval{}, false, errorf(e.Pos, "operands of %s of types %v and %v", e.Op, e.X.ExprType(), e.Y.ExprType())
	}
	d := c.dst(rk, dst)
	if x.uniform() {
		if sw, ok := swapped(e.Op); ok {
			x, y = y, x
			e = &ir.Binary{Op: sw, X: e.Y, Y: e.X, Type: e.Type, Pos: e.Pos}
		} else {
			x = c.varyingVal(x)
		}
	}
	var code lcode
	switch xk {
	case kI32:
		code = binCode(vvInt[int32](e.Op), vuInt[int32](e.Op), x, y, d, c.stride())
	case kU32:
		code = binCode(vvInt[uint32](e.Op), vuInt[uint32](e.Op), x, y, d, c.stride())
	case kI64:
		code = binCode(vvInt[int64](e.Op), vuInt[int64](e.Op), x, y, d, c.stride())
	case kU64:
		code = binCode(vvInt[uint64](e.Op), vuInt[uint64](e.Op), x, y, d, c.stride())
	case kF32:
		code = binCode(vvFloat[float32](e.Op), vuFloat[float32](e.Op), x, y, d, c.stride())
	case kF64:
		code = binCode(vvFloat[float64](e.Op), vuFloat[float64](e.Op), x, y, d, c.stride())
	}
	if code == nil {
		return lval{}, false, errorf(e.Pos, "operator %s on %v is not supported by the CPU interpreter", e.Op, e.X.ExprType())
	}
	return lval{k: rk, off: d, code: code}, true, nil
}

// swapped is the operator that gives the same result with its operands
// swapped, if there is one.
func swapped(op ir.Op) (ir.Op, bool) {
	switch op {
	case ir.Add, ir.Mul, ir.And, ir.Or, ir.Xor, ir.Eq, ir.Ne:
		return op, true
	case ir.Lt:
		return ir.Gt, true
	case ir.Gt:
		return ir.Lt, true
	case ir.Le:
		return ir.Ge, true
	case ir.Ge:
		return ir.Le, true
	}
	return op, false
}

// binCode runs x op y for a varying x (y varying or uniform) into d.
func binCode[T any](vv vvFn, vu vuFn[T], x, y lval, d uintptr, stride *strideRef) lcode {
	if vv == nil || vu == nil {
		return nil
	}
	xc, xo := x.code, x.off
	if !y.uniform() {
		yc, yo := y.code, y.off
		return func(g *grp, act []int32) {
			if xc != nil {
				xc(g, act)
			}
			if yc != nil {
				yc(g, act)
			}
			vv(g.mem, act, stride.v, d, xo, yo)
		}
	}
	yf := y.uni.(val[T]).get()
	return func(g *grp, act []int32) {
		if xc != nil {
			xc(g, act)
		}
		vu(g.mem, act, stride.v, d, xo, yf(&g.t))
	}
}

// lconvert compiles a conversion between numeric types.
func (c *compiler) lconvert(e *ir.Convert, to kind, dst uintptr) (lval, bool, error) {
	from, err := kindOf(e.X.ExprType())
	if err != nil || from == kBool || from == kVec4 || to == kBool || to == kVec4 {
		return lval{}, false, nil
	}
	if from == to {
		v, err := c.lexpr(e.X, dst)
		return v, true, err
	}
	x, err := c.lexpr(e.X, noDst)
	if err != nil {
		return lval{}, false, err
	}
	x = c.varyingVal(x)
	var f convFn
	switch from {
	case kI32:
		f = convFrom[int32](to)
	case kU32:
		f = convFrom[uint32](to)
	case kI64:
		f = convFrom[int64](to)
	case kU64:
		f = convFrom[uint64](to)
	case kF32:
		f = convFloat[float32](to)
	case kF64:
		f = convFloat[float64](to)
	}
	if f == nil {
		return lval{}, false, nil
	}
	d := c.dst(to, dst)
	xc, xo, stride := x.code, x.off, c.stride()
	return lval{k: to, off: d, code: func(g *grp, act []int32) {
		if xc != nil {
			xc(g, act)
		}
		f(g.mem, act, stride.v, d, xo)
	}}, true, nil
}

// convFn converts x to d in every active lane.
type convFn func(m unsafe.Pointer, act []int32, stride, d, x uintptr)

func convFrom[F number](to kind) convFn {
	switch to {
	case kI32:
		return convLanes[F, int32]
	case kU32:
		return convLanes[F, uint32]
	case kI64:
		return convLanes[F, int64]
	case kU64:
		return convLanes[F, uint64]
	case kF32:
		return convLanes[F, float32]
	case kF64:
		return convLanes[F, float64]
	}
	return nil
}

// convFloat converts floats: to floats with Go's rounding, to integers
// saturating, NaN giving 0.
func convFloat[F float](to kind) convFn {
	switch to {
	case kI32:
		return func(m unsafe.Pointer, act []int32, stride, d, x uintptr) {
			satLanes[F, int32](m, act, stride, d, x, -(1 << 31), 1<<31, math.MinInt32, math.MaxInt32)
		}
	case kU32:
		return func(m unsafe.Pointer, act []int32, stride, d, x uintptr) {
			satLanes[F, uint32](m, act, stride, d, x, 0, 1<<32, 0, math.MaxUint32)
		}
	case kI64:
		return func(m unsafe.Pointer, act []int32, stride, d, x uintptr) {
			satLanes[F, int64](m, act, stride, d, x, -(1 << 63), 1<<63, math.MinInt64, math.MaxInt64)
		}
	case kU64:
		return func(m unsafe.Pointer, act []int32, stride, d, x uintptr) {
			satLanes[F, uint64](m, act, stride, d, x, 0, 1<<64, 0, math.MaxUint64)
		}
	}
	return convFrom[F](to)
}

func convLanes[F, T number](m unsafe.Pointer, act []int32, stride, d, x uintptr) {
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = T(*(*F)(unsafe.Add(p, x)))
	}
}

// satLanes converts to an integer type whose range is [lo, hi) as float64s,
// clamping below and above to minT and maxT, NaN to 0.
func satLanes[F float, T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, lo, hi float64, minT, maxT T) {
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		v := float64(*(*F)(unsafe.Add(p, x)))
		var r T
		switch {
		case v != v:
		case v < lo:
			r = minT
		case v >= hi:
			r = maxT
		default:
			r = T(v)
		}
		*(*T)(unsafe.Add(p, d)) = r
	}
}

// memRef is the memory of an element place of the lane model: a buffer or
// a one-dimensional shared array of scalars, and its index.
type memRef struct {
	where func(g *grp) view // the memory and its length in elements
	name  string
	idx   lval
	elem  kind
	aff   int // the lane id idx is, if it may be affine (affineIDs), else -1
}

// affineIDs are the per-thread ids that can be base+lane in a group
// (grp.affOK says whether they are in the running one): an element place
// indexed by one of them reads or writes consecutive elements for
// consecutive lanes.
var affineIDs = [...]ir.Builtin{ir.ThreadIndex, ir.ThreadX, ir.GlobalX}

// affineID returns the id of affineIDs that v is (a plain read of its lane
// slot), or -1.
func (c *compiler) affineID(v lval) int {
	if v.uniform() || v.code != nil {
		return -1
	}
	for _, b := range affineIDs {
		if c.usedIDs&(1<<b) != 0 && c.laneIDs[b] == v.off {
			return int(b)
		}
	}
	return -1
}

// affineRun returns, when act is a run of consecutive lanes and idx (the
// affine id aff, or -1) is base+lane in g, the index of act's first lane,
// if the n elements from there are in b; ok is false otherwise.
func affineRun(g *grp, aff int, act []int32, b view) (uintptr, bool) {
	n := len(act)
	if aff < 0 || g.affOK&(1<<aff) == 0 || n == 0 || int(act[n-1]-act[0]) != n-1 {
		return 0, false
	}
	j := uint64(g.affBase[aff]) + uint64(act[0])
	if j+uint64(n) > uint64(b.n) {
		return 0, false
	}
	return uintptr(j), true
}

// lplace compiles the place of e if the lane model handles it.
func (c *compiler) lplace(e *ir.Index) (*memRef, bool, error) {
	r, ok := e.X.(*ir.Ref)
	if !ok {
		return nil, false, nil
	}
	ek, err := kindOf(e.Type)
	if err != nil || ek == kVec4 || ek == kBool {
		return nil, false, nil
	}
	m := &memRef{name: r.Var.Name, elem: ek, aff: -1}
	if b, isBuf := c.bufs[r.Var]; isBuf {
		m.where = func(g *grp) view { return g.bufs[b] }
	} else if base, isSh := c.shared[r.Var]; isSh {
		at, ok := arrayType(r.Var.Type)
		if !ok || at.Elem != e.Type {
			return nil, false, nil
		}
		n := at.Len
		m.where = func(g *grp) view { return view{p: unsafe.Add(g.t.sh, base), n: n} }
	} else {
		return nil, false, nil
	}
	ik, err := kindOf(e.Index.ExprType())
	if err != nil || !isIntKind(ik) {
		return nil, false, errorf(e.Pos, "index of %s is not an integer", r.Var.Name)
	}
	if m.idx, err = c.lexpr(e.Index, noDst); err != nil {
		return nil, false, err
	}
	m.idx = c.varyingVal(m.idx)
	m.aff = c.affineID(m.idx)
	return m, true, nil
}

// lload reads an element of a buffer or shared array in every active lane.
func (c *compiler) lload(e *ir.Index, k kind, dst uintptr) (lval, bool, error) {
	m, ok, err := c.lplace(e)
	if !ok || err != nil {
		return lval{}, ok, err
	}
	d := c.dst(k, dst)
	var code lcode
	switch k {
	case kI32:
		code = loadIdx[int32](m, e.Pos, d, c.stride())
	case kU32:
		code = loadIdx[uint32](m, e.Pos, d, c.stride())
	case kF32:
		code = loadIdx[float32](m, e.Pos, d, c.stride())
	case kI64:
		code = loadIdx[int64](m, e.Pos, d, c.stride())
	case kU64:
		code = loadIdx[uint64](m, e.Pos, d, c.stride())
	case kF64:
		code = loadIdx[float64](m, e.Pos, d, c.stride())
	}
	if code == nil {
		return lval{}, false, nil
	}
	return lval{k: k, off: d, code: code}, true, nil
}

func loadIdx[T any](m *memRef, pos ir.Pos, d uintptr, stride *strideRef) lcode {
	switch m.idx.k {
	case kI32:
		return loadLanes[T, int32](m, pos, d, stride)
	case kU32:
		return loadLanes[T, uint32](m, pos, d, stride)
	case kI64:
		return loadLanes[T, int64](m, pos, d, stride)
	case kU64:
		return loadLanes[T, uint64](m, pos, d, stride)
	}
	return nil
}

func loadLanes[T any, I integer](m *memRef, pos ir.Pos, d uintptr, stride *strideRef) lcode {
	where, name, ic, io, size, aff := m.where, m.name, m.idx.code, m.idx.off, sizeOf[T](), m.aff
	return func(g *grp, act []int32) {
		if ic != nil {
			ic(g, act)
		}
		b, mem, st := where(g), g.mem, stride.v
		if j, ok := affineRun(g, aff, act, b); ok {
			p, src := unsafe.Add(mem, uintptr(act[0])*st+d), unsafe.Slice((*T)(unsafe.Add(b.p, j*size)), len(act))
			for k := range src {
				*(*T)(p) = src[k]
				p = unsafe.Add(p, st)
			}
			return
		}
		if p, n, ok := dense(mem, act, st); ok {
			for range n {
				j := uint64(*(*I)(unsafe.Add(p, io)))
				if j >= uint64(b.n) {
					outOfRange(pos, name, j, b.n)
				}
				*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(b.p, uintptr(j)*size))
				p = unsafe.Add(p, st)
			}
			return
		}
		for _, i := range act {
			p := unsafe.Add(mem, uintptr(i)*st)
			j := uint64(*(*I)(unsafe.Add(p, io)))
			if j >= uint64(b.n) {
				outOfRange(pos, name, j, b.n)
			}
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(b.p, uintptr(j)*size))
		}
	}
}

// lstoreElem stores value at the element e of a buffer or shared array in
// every active lane: the index first, then the value, as Go evaluates them.
// ok is false when the lane model does not handle the place.
func (c *compiler) lstoreElem(e *ir.Index, value ir.Expr) (lstmt, bool, error) {
	m, ok, err := c.lplace(e)
	if !ok || err != nil {
		return nil, ok, err
	}
	v, err := c.lexpr(value, noDst)
	if err != nil {
		return nil, false, err
	}
	if v.k != m.elem {
		return nil, false, errorf(e.Pos, "assigning a %v to an element of type %v", value.ExprType(), e.Type)
	}
	var st lstmt
	switch m.elem {
	case kI32:
		st = storeIdx[int32](m, v, e.Pos, c.stride())
	case kU32:
		st = storeIdx[uint32](m, v, e.Pos, c.stride())
	case kF32:
		st = storeIdx[float32](m, v, e.Pos, c.stride())
	case kI64:
		st = storeIdx[int64](m, v, e.Pos, c.stride())
	case kU64:
		st = storeIdx[uint64](m, v, e.Pos, c.stride())
	case kF64:
		st = storeIdx[float64](m, v, e.Pos, c.stride())
	}
	return st, st != nil, nil
}

func storeIdx[T any](m *memRef, v lval, pos ir.Pos, stride *strideRef) lstmt {
	switch m.idx.k {
	case kI32:
		return storeLanes[T, int32](m, v, pos, stride)
	case kU32:
		return storeLanes[T, uint32](m, v, pos, stride)
	case kI64:
		return storeLanes[T, int64](m, v, pos, stride)
	case kU64:
		return storeLanes[T, uint64](m, v, pos, stride)
	}
	return nil
}

func storeLanes[T any, I integer](m *memRef, v lval, pos ir.Pos, stride *strideRef) lstmt {
	where, name, ic, io, size, aff := m.where, m.name, m.idx.code, m.idx.off, sizeOf[T](), m.aff
	vc, vo := v.code, v.off
	if v.uniform() {
		vf := v.uni.(val[T]).get()
		return func(g *grp, act []int32) []int32 {
			if ic != nil {
				ic(g, act)
			}
			x := vf(&g.t)
			b, mem, st := where(g), g.mem, stride.v
			if j, ok := affineRun(g, aff, act, b); ok {
				dst := unsafe.Slice((*T)(unsafe.Add(b.p, j*size)), len(act))
				for k := range dst {
					dst[k] = x
				}
				return act
			}
			for _, i := range act {
				p := unsafe.Add(mem, uintptr(i)*st)
				j := uint64(*(*I)(unsafe.Add(p, io)))
				if j >= uint64(b.n) {
					outOfRange(pos, name, j, b.n)
				}
				*(*T)(unsafe.Add(b.p, uintptr(j)*size)) = x
			}
			return act
		}
	}
	return func(g *grp, act []int32) []int32 {
		if ic != nil {
			ic(g, act)
		}
		if vc != nil {
			vc(g, act)
		}
		b, mem, st := where(g), g.mem, stride.v
		if j, ok := affineRun(g, aff, act, b); ok {
			p, dst := unsafe.Add(mem, uintptr(act[0])*st+vo), unsafe.Slice((*T)(unsafe.Add(b.p, j*size)), len(act))
			for k := range dst {
				dst[k] = *(*T)(p)
				p = unsafe.Add(p, st)
			}
			return act
		}
		if p, n, ok := dense(mem, act, st); ok {
			for range n {
				j := uint64(*(*I)(unsafe.Add(p, io)))
				if j >= uint64(b.n) {
					outOfRange(pos, name, j, b.n)
				}
				*(*T)(unsafe.Add(b.p, uintptr(j)*size)) = *(*T)(unsafe.Add(p, vo))
				p = unsafe.Add(p, st)
			}
			return act
		}
		for _, i := range act {
			p := unsafe.Add(mem, uintptr(i)*st)
			j := uint64(*(*I)(unsafe.Add(p, io)))
			if j >= uint64(b.n) {
				outOfRange(pos, name, j, b.n)
			}
			*(*T)(unsafe.Add(b.p, uintptr(j)*size)) = *(*T)(unsafe.Add(p, vo))
		}
		return act
	}
}
