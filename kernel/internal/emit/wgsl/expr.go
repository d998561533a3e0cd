package wgsl

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// typ is t's WGSL spelling.
func (c *fctx) typ(t ir.Type, pos ir.Pos) string { return c.typeOf(t, false, pos) }

// typeOf spells t; atomic makes the scalar at its bottom atomic<T>.
func (c *fctx) typeOf(t ir.Type, atomic bool, pos ir.Pos) string {
	switch t := t.(type) {
	case ir.Scalar:
		var s string
		switch t {
		case ir.Bool:
			s = "bool"
		case ir.I32:
			s = "i32"
		case ir.U32:
			s = "u32"
		case ir.F32:
			s = "f32"
		default:
			c.fail(pos, "type %s has no WGSL form", t)
			return "ag_invalid"
		}
		if atomic {
			if t != ir.I32 && t != ir.U32 {
				c.fail(pos, "an atomic on %s; WGSL atomics take int32 and uint32", t)
			}
			return "atomic<" + s + ">"
		}
		return s
	case *ir.Vec:
		if t.N < 2 || t.N > 4 {
			c.fail(pos, "a vector of %d lanes has no WGSL form", t.N)
		}
		return fmt.Sprintf("vec%d<%s>", t.N, c.typ(t.Elem, pos))
	case *ir.Array:
		return fmt.Sprintf("array<%s, %d>", c.typeOf(t.Elem, atomic, pos), t.Len)
	case *ir.Slice:
		return fmt.Sprintf("array<%s>", c.typeOf(t.Elem, atomic, pos))
	}
	c.fail(pos, "type %T has no WGSL form", t)
	return "ag_invalid"
}

// isAtomic reports whether an Index reaches an array declared atomic.
func (c *fctx) isAtomic(e *ir.Index) bool {
	return c.plan != nil && c.plan.use.atomic[rootVar(e)]
}

// place is e as a reference: a variable, an element or a lane.
func (c *fctx) place(e ir.Expr) string {
	switch e := e.(type) {
	case *ir.Ref:
		return c.name(e.Var)
	case *ir.Index:
		if e.X == nil || e.Index == nil {
			c.fail(e.Pos, "an index without its array or index")
			return "ag_invalid"
		}
		if r, ok := e.X.(*ir.Ref); ok && c.plan != nil && c.plan.vec4[r.Var] {
			return c.vec4Element(c.name(r.Var), e.Index)
		}
		return c.place(e.X) + "[" + c.expr(e.Index) + "]"
	case *ir.Lane:
		if e.N < 0 || e.N > 3 {
			c.fail(e.Pos, "lane %d of a vector", e.N)
			return "ag_invalid"
		}
		return c.place(e.X) + "." + "xyzw"[e.N:e.N+1]
	case nil:
		c.fail(c.f.Pos, "a nil place")
		return "ag_invalid"
	}
	c.fail(e.ExprPos(), "%T is not a place to store to", e)
	return "ag_invalid"
}

// vec4Element is element i of buffer g declared array<vec4<T>>: lane i%4
// of vector i/4 (computed here for a constant i).
func (c *fctx) vec4Element(g string, i ir.Expr) string {
	if k, ok := i.(*ir.Const); ok && (k.Type == ir.U32 || k.Type == ir.I32 && k.Int >= 0) {
		n := k.Uint
		if k.Type == ir.I32 {
			n = uint64(k.Int)
		}
		return fmt.Sprintf("%s[%du][%du]", g, uint32(n)/4, uint32(n)%4)
	}
	// Every expression's text is a primary expression or parenthesized:
	// an operand of >> and & as it is.
	x := c.asU32(i)
	return g + "[" + x + " >> 2u][" + x + " & 3u]"
}

// expr is e's value.
func (c *fctx) expr(e ir.Expr) string {
	switch e := e.(type) {
	case *ir.Const:
		return c.constant(e)
	case *ir.Ref:
		if e.Var == nil {
			c.fail(e.Pos, "a reference to no variable")
			return "ag_invalid"
		}
		return c.name(e.Var)
	case *ir.Index:
		p := c.place(e)
		if c.isAtomic(e) {
			return "atomicLoad(&" + p + ")"
		}
		return p
	case *ir.Lane:
		if e.N < 0 || e.N > 3 || e.X == nil {
			c.fail(e.Pos, "lane %d of a vector", e.N)
			return "ag_invalid"
		}
		x := c.expr(e.X)
		switch e.X.(type) {
		case *ir.Ref, *ir.Index, *ir.Call, *ir.CallBuiltin, *ir.MakeVec:
		default:
			x = "(" + x + ")"
		}
		return x + "." + "xyzw"[e.N:e.N+1]
	case *ir.MakeVec:
		if e.Type == nil {
			c.fail(e.Pos, "a vector of no type")
			return "ag_invalid"
		}
		return c.typ(e.Type, e.Pos) + "(" + c.list(e.Elems) + ")"
	case *ir.Unary:
		return c.unary(e)
	case *ir.Binary:
		return c.binary(e)
	case *ir.Convert:
		return c.convert(e)
	case *ir.Call:
		if e.Func == nil {
			c.fail(e.Pos, "a call of no function")
			return "ag_invalid"
		}
		if e.Func.Kernel {
			c.fail(e.Pos, "a call of kernel %s; move its body into a helper function and call that", e.Func.Name)
		}
		return c.e.funcNames[e.Func] + "(" + c.list(e.Args) + ")"
	case *ir.CallBuiltin:
		return c.builtin(e)
	case *ir.Atomic:
		return c.atomic(e)
	case nil:
		c.fail(c.f.Pos, "a nil expression")
		return "ag_invalid"
	}
	c.fail(e.ExprPos(), "expression %T has no WGSL form", e)
	return "ag_invalid"
}

func (c *fctx) list(es []ir.Expr) string {
	var parts []string
	for _, x := range es {
		parts = append(parts, c.expr(x))
	}
	return strings.Join(parts, ", ")
}

// constant spells a constant exactly: integers with their suffix (the most
// negative int32 as an expression, as WGSL has no negative literals),
// float32 values as the shortest decimal that reads back as the same
// float64 (so as the same float32, whichever way a compiler rounds), and
// infinities and NaNs by their bits.
func (c *fctx) constant(k *ir.Const) string {
	switch k.Type {
	case ir.Bool:
		return strconv.FormatBool(k.Bool)
	case ir.I32:
		v := int32(k.Int)
		switch {
		case v == math.MinInt32:
			return "(-2147483647i - 1i)"
		case v < 0:
			return fmt.Sprintf("(%di)", v)
		}
		return fmt.Sprintf("%di", v)
	case ir.U32:
		return fmt.Sprintf("%du", uint32(k.Uint))
	case ir.F32:
		return float32Text(float32(k.Float))
	}
	c.fail(k.Pos, "a constant of type %s has no WGSL form", k.Type)
	return "ag_invalid"
}

// float32Text spells f as a WGSL f32 expression of exactly its value.
func float32Text(f float32) string {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return fmt.Sprintf("bitcast<f32>(0x%08xu)", math.Float32bits(f))
	}
	s := strconv.FormatFloat(float64(f), 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	if math.Signbit(float64(f)) {
		return "(" + s + "f)"
	}
	return s + "f"
}

func (c *fctx) unary(e *ir.Unary) string {
	if e.X == nil {
		c.fail(e.Pos, "%s of nothing", e.Op)
		return "ag_invalid"
	}
	x := c.expr(e.X)
	t := e.X.ExprType()
	switch e.Op {
	case ir.Neg:
		if t == ir.U32 {
			return "(0u - " + x + ")"
		}
		return "(-" + x + ")"
	case ir.Not:
		return "(!" + x + ")"
	case ir.BitNot:
		return "(~" + x + ")"
	}
	c.fail(e.Pos, "unary operator %s has no WGSL form", e.Op)
	return "ag_invalid"
}

func (c *fctx) binary(e *ir.Binary) string {
	if e.X == nil || e.Y == nil {
		c.fail(e.Pos, "%s without both operands", e.Op)
		return "ag_invalid"
	}
	x, y := c.expr(e.X), c.expr(e.Y)
	t := e.X.ExprType()
	_, isVec := t.(*ir.Vec)
	if e.Op == ir.Rem && t == ir.I32 && safeDivisor(ir.Div, e.Y) && !evalOnce(e.X) {
		// A signed remainder by a constant (not 0, not -1) from the
		// division, which every dialect truncates: GLSL leaves % of a
		// negative operand undefined.
		return "(" + x + " - (" + x + " / " + y + ") * " + y + ")"
	}
	if (e.Op == ir.Div || e.Op == ir.Rem) && (t == ir.I32 || t == ir.U32) && !safeDivisor(e.Op, e.Y) {
		// Go's x/0 == x, x%0 == 0 and MinInt32/-1 wrapping, written out:
		// naga's GLSL and MSL write / and % bare, where those cases (and %
		// of negative operands, in GLSL) are undefined.
		name := map[ir.Op]string{ir.Div: "ag_div_", ir.Rem: "ag_rem_"}[e.Op] + map[ir.Scalar]string{ir.I32: "i32", ir.U32: "u32"}[t.(ir.Scalar)]
		c.need(name)
		return name + "(" + x + ", " + y + ")"
	}
	switch e.Op {
	case ir.Add, ir.Sub, ir.Mul, ir.Div, ir.And, ir.Or, ir.Xor, ir.Lt, ir.Le, ir.Gt, ir.Ge, ir.LAnd, ir.LOr:
		if e.Op == ir.Div && isVec && ir.ElemScalar(t).IsInt() {
			c.fail(e.Pos, "integer vector division has no WGSL form here; divide the lanes")
		}
		return "(" + x + " " + e.Op.String() + " " + y + ")"
	case ir.Rem:
		if ir.ElemScalar(t).IsFloat() {
			c.fail(e.Pos, "%% of floats; use a math function")
		}
		return "(" + x + " % " + y + ")"
	case ir.Eq, ir.Ne:
		if isVec {
			if e.Op == ir.Eq {
				return "all(" + x + " == " + y + ")"
			}
			return "any(" + x + " != " + y + ")"
		}
		return "(" + x + " " + e.Op.String() + " " + y + ")"
	case ir.AndNot:
		return "(" + x + " & ~" + y + ")"
	case ir.Shl, ir.Shr:
		return c.shift(e, x, t)
	}
	c.fail(e.Pos, "binary operator %s has no WGSL form", e.Op)
	return "ag_invalid"
}

// safeDivisor reports whether op by y is defined the same in every dialect
// the WGSL reaches: a constant divisor other than 0 (and -1, and any signed
// remainder).
func safeDivisor(op ir.Op, y ir.Expr) bool {
	k, ok := y.(*ir.Const)
	if !ok {
		return false
	}
	switch k.Type {
	case ir.I32:
		// GLSL leaves % of negative operands undefined: a signed % is always
		// written out.
		return op == ir.Div && k.Int != 0 && k.Int != -1
	case ir.U32:
		return k.Uint != 0
	}
	return false
}

// shift keeps Go's shifts: WGSL takes a u32 count below the width.
func (c *fctx) shift(e *ir.Binary, x string, t ir.Type) string {
	if t != ir.I32 && t != ir.U32 {
		c.fail(e.Pos, "a shift of %v; shift int32 or uint32 values", t)
		return "ag_invalid"
	}
	op := map[ir.Op]string{ir.Shl: "<<", ir.Shr: ">>"}[e.Op]
	if k, ok := e.Y.(*ir.Const); ok {
		var n uint64
		switch k.Type {
		case ir.I32, ir.I64:
			n = uint64(k.Int)
			if k.Int < 0 {
				n = math.MaxUint64
			}
		default:
			n = k.Uint
		}
		if n < 32 {
			return fmt.Sprintf("(%s %s %du)", x, op, n)
		}
	}
	s := c.asU32(e.Y)
	name := "ag_shl_"
	if e.Op == ir.Shr {
		name = "ag_shr_"
	}
	name += map[ir.Type]string{ir.I32: "i32", ir.U32: "u32"}[t]
	c.need(name)
	return name + "(" + x + ", " + s + ")"
}

// asU32 is an integer expression as a u32 (its bits, for an int32).
func (c *fctx) asU32(e ir.Expr) string {
	x := c.expr(e)
	switch e.ExprType() {
	case ir.U32:
		return x
	case ir.I32:
		return "u32(" + x + ")"
	}
	c.fail(e.ExprPos(), "an index or count of type %v; use int32 or uint32", e.ExprType())
	return "ag_invalid"
}

// convert keeps Go's conversions: integers keep their bits, float to
// integer truncates and saturates (NaN to 0).
func (c *fctx) convert(e *ir.Convert) string {
	if e.X == nil {
		c.fail(e.Pos, "a conversion of nothing")
		return "ag_invalid"
	}
	x := c.expr(e.X)
	from, ok := e.X.ExprType().(ir.Scalar)
	if !ok {
		c.fail(e.Pos, "a conversion of a %T; convert scalars", e.X.ExprType())
		return "ag_invalid"
	}
	if from == e.To {
		return x
	}
	if from == ir.Bool || e.To == ir.Bool {
		c.fail(e.Pos, "a conversion between bool and %s; compare or select instead", map[bool]ir.Scalar{true: e.To, false: from}[from == ir.Bool])
		return "ag_invalid"
	}
	if from == ir.F32 && e.To.IsInt() {
		name := "ag_f32_to_" + c.typ(e.To, e.Pos)
		c.need(name)
		return name + "(" + x + ")"
	}
	return c.typ(e.To, e.Pos) + "(" + x + ")"
}

// idNames are the WGSL values of the thread and group indices: the entry
// point's locals, and in helpers the private copies.
func (c *fctx) id(b ir.Builtin) string {
	pre := "ag_"
	if c.plan == nil {
		pre = "ag_priv_"
		c.priv = true
	}
	switch b {
	case ir.ThreadX, ir.ThreadY, ir.ThreadZ:
		return pre + "lid." + "xyz"[b-ir.ThreadX:b-ir.ThreadX+1]
	case ir.ThreadIndex:
		return pre + "lidx"
	case ir.GroupX, ir.GroupY, ir.GroupZ:
		return pre + "grp." + "xyz"[b-ir.GroupX:b-ir.GroupX+1]
	case ir.GroupSizeX, ir.GroupSizeY, ir.GroupSizeZ:
		return pre + "bs." + "xyz"[b-ir.GroupSizeX:b-ir.GroupSizeX+1]
	case ir.GridX, ir.GridY, ir.GridZ:
		return pre + "grid." + "xyz"[b-ir.GridX:b-ir.GridX+1]
	case ir.GlobalX, ir.GlobalY, ir.GlobalZ:
		d := "xyz"[b-ir.GlobalX : b-ir.GlobalX+1]
		return fmt.Sprintf("(%sgrp.%s * %sbs.%s + %slid.%s)", pre, d, pre, d, pre, d)
	}
	return "ag_invalid"
}

// mathNames are the WGSL built-ins of the math functions.
var mathNames = map[ir.Builtin]string{
	ir.Sqrt: "sqrt", ir.Rsqrt: "inverseSqrt", ir.Exp: "exp", ir.Exp2: "exp2", ir.Log: "log", ir.Log2: "log2",
	ir.Sin: "sin", ir.Cos: "cos", ir.Tanh: "tanh", ir.Pow: "pow", ir.Floor: "floor", ir.Ceil: "ceil",
	ir.Trunc: "trunc", ir.Fma: "fma", ir.Abs: "abs",
}

func (c *fctx) builtin(e *ir.CallBuiltin) string {
	if e.Builtin.IsID() {
		return c.id(e.Builtin)
	}
	if e.Builtin.IsSubgroup() {
		return c.subgroup(e)
	}
	argc := map[ir.Builtin]int{ir.Pow: 2, ir.Fma: 3, ir.Min: 2, ir.Max: 2, ir.Clamp: 3, ir.Load4: 2}[e.Builtin]
	if argc == 0 {
		argc = 1
	}
	if len(e.Args) != argc {
		c.fail(e.Pos, "%s takes %d arguments, not %d", e.Builtin, argc, len(e.Args))
		return "ag_invalid"
	}
	for _, a := range e.Args {
		if a == nil {
			c.fail(e.Pos, "%s of nothing", e.Builtin)
			return "ag_invalid"
		}
	}
	float := ir.ElemScalar(e.Args[0].ExprType()) == ir.F32
	switch e.Builtin {
	case ir.Min, ir.Max:
		if float {
			name := map[ir.Builtin]string{ir.Min: "ag_min_f32", ir.Max: "ag_max_f32"}[e.Builtin]
			c.need(name)
			return name + "(" + c.list(e.Args) + ")"
		}
		return map[ir.Builtin]string{ir.Min: "min", ir.Max: "max"}[e.Builtin] + "(" + c.list(e.Args) + ")"
	case ir.Clamp:
		x, lo, hi := c.expr(e.Args[0]), c.expr(e.Args[1]), c.expr(e.Args[2])
		if float {
			c.need("ag_min_f32")
			c.need("ag_max_f32")
			return "ag_min_f32(ag_max_f32(" + x + ", " + lo + "), " + hi + ")"
		}
		return "min(max(" + x + ", " + lo + "), " + hi + ")"
	case ir.Float32Bits:
		return "bitcast<u32>(" + c.expr(e.Args[0]) + ")"
	case ir.Float32FromBits:
		return "bitcast<f32>(" + c.expr(e.Args[0]) + ")"
	case ir.Len:
		a, ok := e.Args[0].ExprType().(*ir.Array)
		if !ok {
			c.fail(e.Pos, "len of a %T; len takes arrays", e.Args[0].ExprType())
			return "ag_invalid"
		}
		t, _ := e.Type.(ir.Scalar)
		return c.constant(&ir.Const{Type: t, Int: int64(a.Len), Uint: uint64(a.Len), Float: float64(a.Len), Pos: e.Pos})
	case ir.Load4:
		r, ok := e.Args[0].(*ir.Ref)
		if !ok || r.Var == nil || c.plan == nil {
			c.fail(e.Pos, "Load4 of something other than a kernel's buffer")
			return "ag_invalid"
		}
		if c.plan.vec4[r.Var] {
			return c.name(r.Var) + "[" + c.expr(e.Args[1]) + "]"
		}
		return c.plan.load4[r.Var] + "(" + c.asU32(e.Args[1]) + ")"
	}
	if e.Builtin == ir.Abs && len(e.Args) == 1 && e.Args[0].ExprType() == ir.U32 {
		// |x| of an unsigned x is x; naga's GLSL and SPIR-V would write a
		// signed or float abs.
		return c.expr(e.Args[0])
	}
	if e.Builtin == ir.Abs && len(e.Args) == 1 && e.Args[0].ExprType() == ir.I32 {
		c.need("ag_abs_i32")
		return "ag_abs_i32(" + c.expr(e.Args[0]) + ")"
	}
	if name, ok := mathNames[e.Builtin]; ok {
		if e.Builtin != ir.Abs && !float {
			c.fail(e.Pos, "%s of %v; it takes float32", e.Builtin, e.Args[0].ExprType())
		}
		return name + "(" + c.list(e.Args) + ")"
	}
	c.fail(e.Pos, "built-in %s has no WGSL form", e.Builtin)
	return "ag_invalid"
}

// atomicNames are WGSL's read-modify-write atomics.
var atomicNames = map[ir.AtomicOp]string{
	ir.AtomicAdd: "atomicAdd", ir.AtomicMin: "atomicMin", ir.AtomicMax: "atomicMax", ir.AtomicAnd: "atomicAnd",
	ir.AtomicOr: "atomicOr", ir.AtomicXor: "atomicXor", ir.AtomicExchange: "atomicExchange",
}

func (c *fctx) atomic(e *ir.Atomic) string {
	if e.Place == nil || c.plan == nil {
		c.fail(e.Pos, "an atomic outside a kernel's buffer or shared array")
		return "ag_invalid"
	}
	if e.Op == ir.AtomicCompareExchange {
		if len(e.Args) != 2 {
			c.fail(e.Pos, "AtomicCompareExchange takes a compare and a new value")
			return "ag_invalid"
		}
		var idx []string
		var x ir.Expr = e.Place
		for {
			ix, ok := x.(*ir.Index)
			if !ok {
				break
			}
			idx = append([]string{c.asU32(ix.Index)}, idx...)
			x = ix.X
		}
		return c.plan.cas[rootVar(e.Place)] + "(" + strings.Join(idx, ", ") + ", " + c.list(e.Args) + ")"
	}
	name, ok := atomicNames[e.Op]
	if !ok || len(e.Args) != 1 {
		c.fail(e.Pos, "atomic operation %d has no WGSL form", e.Op)
		return "ag_invalid"
	}
	return name + "(&" + c.place(e.Place) + ", " + c.expr(e.Args[0]) + ")"
}
