package kernelfuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// typ is a scalar type of the generated code.
type typ int

const (
	tI32 typ = iota
	tU32
	tF32
	tBool
)

// goName is the type's name in Go.
func (t typ) goName() string { return [...]string{"int32", "uint32", "float32", "bool"}[t] }

// floatLimit bounds every float local, parameter, array element and helper
// result: sums and products of two such values are exact integers
// (|a*b| ≤ 2^24), so fused and unfused arithmetic agree.
const floatLimit = 4096

// exactLimit is the largest magnitude up to which every integer is a
// float32.
const exactLimit = 1 << 24

// inputLimit bounds the float inputs (buffers and scalars) and constants.
const inputLimit = 64

// variable is a name in scope.
type variable struct {
	name     string
	t        typ
	arrLen   int  // > 0: a local array of arrLen elements
	readOnly bool // a loop variable or a parameter that stays as passed
	used     bool
	bound    float64 // floats: the largest magnitude the variable can hold
	// uniform and walk are the walk model's (walk.go) for the value held.
	uniform bool
	walk    float64
	nest    int // the enclosing blocks where declared (gen.nest)
	trips   int // the enclosing loops where declared (len(gen.trips))
}

// buffer is a kernel's buffer parameter.
type buffer struct {
	name   string
	t      typ
	output bool // written at the thread's own slots [i*stride, i*stride+stride)
	stride int
	atomic bool // the atomics' accumulator: atomicSlots slots per operation
}

// atomicOps are the order-independent atomics; each owns atomicSlots
// consecutive slots of the accumulator.
var atomicOps = []string{"AtomicAdd", "AtomicMin", "AtomicMax", "AtomicAnd", "AtomicOr", "AtomicXor"}

const atomicSlots = 4

// expr is a generated expression.
type expr struct {
	code    string
	isConst bool
	bound   float64 // floats: the largest magnitude of the value
	// uniform is true when the value depends on constants and scalar
	// parameters only; walk estimates lavapipe's walk of it (walk.go).
	uniform bool
	walk    float64
}

// gen is the state of one program's generation.
type gen struct {
	r      *rand.Rand
	sr     *rand.Rand // the subgroup prologue's choices (subgroup.go)
	opt    Options
	scopes [][]*variable
	names  int // counter for fresh names
	// kernel is true inside a kernel (buffers and thread indices in scope).
	kernel   bool
	buffers  []buffer
	helpers  []helper // callable helpers (earlier ones only, no recursion)
	loops    int      // loops enclosing the current statement
	hash     string   // the uint32 local that collects otherwise unused values
	hashOut  string   // kernel: the statement that stores hash (before each return)
	maxDepth int
	result   typ   // a helper's result type
	nest     int   // blocks (if and loop bodies) enclosing the statement
	trips    []int // trip counts of the loops enclosing the statement
	// helperWalk is the largest walk in the helper being generated, its
	// parameters counting 1: a call multiplies its arguments' walks by it.
	helperWalk float64
}

// helper is a generated helper function.
type helper struct {
	name   string
	params []typ
	result typ
	walk   float64 // gen.helperWalk of its body
}

func (g *gen) fresh(prefix string) string {
	g.names++
	return fmt.Sprintf("%s%d", prefix, g.names)
}

func (g *gen) chance(n int) bool { return g.r.IntN(n) == 0 }

func (g *gen) push() { g.scopes = append(g.scopes, nil) }

// pop closes the innermost scope, first folding every unused variable
// declared in it into the hash (Go rejects unused locals).
func (g *gen) pop(w *writer) {
	top := g.scopes[len(g.scopes)-1]
	for _, v := range top {
		if !v.used {
			g.sink(w, v)
		}
	}
	g.scopes = g.scopes[:len(g.scopes)-1]
}

func (g *gen) declare(v *variable) {
	v.nest, v.trips = g.nest, len(g.trips)
	g.scopes[len(g.scopes)-1] = append(g.scopes[len(g.scopes)-1], v)
}

// visible lists the scalar variables of type t in scope (arrays when arrays).
func (g *gen) visible(t typ, arrays bool) []*variable {
	var out []*variable
	for _, s := range g.scopes {
		for _, v := range s {
			if v.t == t && (v.arrLen > 0) == arrays {
				out = append(out, v)
			}
		}
	}
	return out
}

// sink folds v into the hash.
func (g *gen) sink(w *writer, v *variable) {
	v.used = true
	if v.arrLen > 0 {
		k := g.fresh("k")
		w.line("for %s := range uint32(%d) {", k, v.arrLen)
		w.line("\t%s = %s*31 + %s", g.hash, g.hash, toU32(v.t, fmt.Sprintf("%s[%s]", v.name, k)))
		w.line("}")
		return
	}
	if v.t == tBool {
		w.line("if %s {", v.name)
		w.line("\t%s++", g.hash)
		w.line("}")
		return
	}
	w.line("%s = %s*31 + %s", g.hash, g.hash, toU32(v.t, v.name))
}

// toU32 converts a value of type t (not bool) to uint32 for the hash.
func toU32(t typ, code string) string {
	switch t {
	case tI32:
		return "uint32(" + code + ")"
	case tF32:
		return "uint32(int32(" + code + "))"
	}
	return code
}

// constant is a random typed constant of t.
func (g *gen) constant(t typ) expr {
	switch t {
	case tI32:
		edges := []int64{0, 1, -1, 2, 3, 7, -7, 31, 32, 100, 255, 65535, -65536, math.MaxInt32, math.MinInt32}
		v := int64(g.r.IntN(201) - 100)
		if g.chance(3) {
			v = edges[g.r.IntN(len(edges))]
		} else if g.chance(4) {
			v = int64(int32(g.r.Uint32()))
		}
		return expr{code: fmt.Sprintf("int32(%d)", v), isConst: true, uniform: true, walk: 1}
	case tU32:
		edges := []uint64{0, 1, 2, 3, 7, 31, 32, 33, 255, 0xffff, 0x80000000, math.MaxUint32}
		v := uint64(g.r.IntN(200))
		if g.chance(3) {
			v = edges[g.r.IntN(len(edges))]
		} else if g.chance(4) {
			v = uint64(g.r.Uint32())
		}
		return expr{code: fmt.Sprintf("uint32(%d)", v), isConst: true, uniform: true, walk: 1}
	case tF32:
		v := g.r.IntN(2*inputLimit+1) - inputLimit
		return expr{code: fmt.Sprintf("float32(%d)", v), isConst: true, bound: math.Abs(float64(v)), uniform: true, walk: 1}
	}
	if g.chance(2) {
		return expr{code: "true", isConst: true, uniform: true, walk: 1}
	}
	return expr{code: "false", isConst: true, uniform: true, walk: 1}
}

// nonZeroConstant is a constant divisor.
func (g *gen) nonZeroConstant(t typ) expr {
	for {
		c := g.constant(t)
		if c.code != "int32(0)" && c.code != "uint32(0)" {
			return c
		}
	}
}

// index is an in-range index expression into n elements, where n is the
// code of a uint32 value ≥ 1 (a constant or the kernel's parameter n).
func (g *gen) index(n string, nConst int) expr {
	if nConst > 0 && g.chance(3) {
		return uniformLeaf(fmt.Sprint(g.r.IntN(nConst)))
	}
	if g.kernel && g.chance(3) {
		return op(fmt.Sprintf("(i + %s) %% %s", g.nonConst(tU32, 1).code, n), once(varyingLeaf("i")))
	}
	e := g.nonConst(tU32, 1)
	return op(fmt.Sprintf("%s %% %s", e.code, n), reads(e, readsDivRem))
}

// leaf is a variable, a load, a thread index or a constant of type t.
func (g *gen) leaf(t typ) expr {
	for {
		switch g.r.IntN(6) {
		case 0:
			if t != tBool {
				return g.constant(t)
			}
		case 1, 2:
			if vs := g.visible(t, false); len(vs) > 0 {
				v := vs[g.r.IntN(len(vs))]
				v.used = true
				return expr{code: v.name, bound: v.bound, uniform: v.uniform, walk: v.walk}
			}
		case 3:
			if vs := g.visible(t, true); len(vs) > 0 {
				v := vs[g.r.IntN(len(vs))]
				v.used = true
				// An indexed local array becomes a chain of selects over
				// its elements, each reading the index.
				ix := g.index(fmt.Sprintf("uint32(%d)", v.arrLen), v.arrLen)
				e := op(fmt.Sprintf("%s[%s]", v.name, ix.code),
					once(expr{uniform: v.uniform, walk: v.walk}), reads(ix, float64(v.arrLen)))
				e.bound = v.bound
				return e
			}
		case 4:
			if g.kernel {
				var ins []buffer
				for _, b := range g.buffers {
					if !b.output && !b.atomic && b.t == t {
						ins = append(ins, b)
					}
				}
				if len(ins) > 0 {
					b := ins[g.r.IntN(len(ins))]
					e := varyingLeaf(fmt.Sprintf("%s[%s]", b.name, g.index("n", 0).code))
					e.bound = inputLimit
					return e
				}
			}
		case 5:
			if t == tU32 && g.kernel {
				ids := []string{"i", "i", "kernel.GlobalX()", "kernel.ThreadX()", "kernel.GroupX()",
					"kernel.GridX()", "kernel.ThreadIndex()", "n"}
				if g.opt.GroupSize {
					ids = append(ids, "kernel.GroupSizeX()")
				}
				id := ids[g.r.IntN(len(ids))]
				if id == "n" || id == "kernel.GridX()" || id == "kernel.GroupSizeX()" {
					return uniformLeaf(id)
				}
				return varyingLeaf(id)
			}
			if t == tBool {
				return g.compare(0)
			}
		}
	}
}

// nonConst is an expression of type t that is not a Go constant.
func (g *gen) nonConst(t typ, depth int) expr {
	for range 8 {
		if e := g.expr(t, depth); !e.isConst {
			return e
		}
	}
	for {
		if e := g.leaf(t); !e.isConst {
			return e
		}
	}
}

// expr is a random expression of type t at most depth operators deep.
func (g *gen) expr(t typ, depth int) expr {
	if depth <= 0 || g.chance(4) {
		return g.leaf(t)
	}
	switch t {
	case tI32, tU32:
		return g.intExpr(t, depth)
	case tF32:
		return g.floatExpr(depth)
	}
	return g.boolExpr(depth)
}

// pair is two operands of t that are not both constants.
func (g *gen) pair(t typ, depth int) (expr, expr) {
	a, b := g.expr(t, depth-1), g.expr(t, depth-1)
	if a.isConst && b.isConst {
		if g.chance(2) {
			a = g.nonConst(t, depth-1)
		} else {
			b = g.nonConst(t, depth-1)
		}
	}
	return a, b
}

func (g *gen) intExpr(t typ, depth int) expr {
	for {
		switch g.r.IntN(10) {
		case 0, 1, 2:
			ops := []string{"+", "-", "*", "&", "|", "^", "&^"}
			a, b := g.pair(t, depth)
			return op(fmt.Sprintf("(%s %s %s)", a.code, ops[g.r.IntN(len(ops))], b.code), once(a), once(b))
		case 3:
			if g.opt.DivRem {
				a, b := g.expr(t, depth-1), g.expr(t, depth-1)
				if b.isConst {
					b = g.nonZeroConstant(t)
					if a.isConst {
						a = g.nonConst(t, depth-1)
					}
				}
				divOp := "/"
				if g.chance(2) && (t != tI32 || !b.isConst || g.opt.SignedRemByConstant) {
					divOp = "%"
				}
				return op(fmt.Sprintf("(%s %s %s)", a.code, divOp, b.code), reads(a, readsDivRem), reads(b, readsDivRem))
			}
		case 4:
			if g.opt.Shifts {
				a := g.expr(t, depth-1)
				var count expr
				switch {
				case !a.isConst && g.chance(2):
					count = uniformLeaf(fmt.Sprintf("uint32(%d)", g.r.IntN(41)))
				case g.chance(2):
					c := g.nonConst(tU32, depth-1)
					count = op(fmt.Sprintf("(%s %% 40)", c.code), reads(c, readsDivRem))
				default:
					count = g.nonConst(tU32, depth-1)
				}
				shift := "<<"
				if g.chance(2) {
					shift = ">>"
				}
				return op(fmt.Sprintf("(%s %s %s)", a.code, shift, count.code), once(a), reads(count, readsShiftCount))
			}
		case 5:
			a := g.nonConst(t, depth-1)
			if t == tI32 && g.chance(2) {
				return op("(-"+a.code+")", once(a))
			}
			return op("(^"+a.code+")", once(a))
		case 6:
			if g.opt.Conversions {
				from := []typ{tI32, tU32, tF32}[g.r.IntN(3)]
				if from == t || (from == tF32 && !g.opt.Floats) {
					continue
				}
				a := g.nonConst(from, depth-1)
				n := 1.0
				if from == tF32 {
					n = readsFloatToInt
				}
				return op(fmt.Sprintf("%s(%s)", t.goName(), a.code), reads(a, n))
			}
		case 7:
			if g.opt.MathCalls {
				switch g.r.IntN(3) {
				case 0:
					a, b := g.pair(t, depth)
					fn := "min"
					if g.chance(2) {
						fn = "max"
					}
					return op(fmt.Sprintf("%s(%s, %s)", fn, a.code, b.code), once(a), once(b))
				case 1:
					lo, hi := g.constant(t), g.constant(t)
					if g.less(t, hi.code, lo.code) {
						lo, hi = hi, lo
					}
					a := g.nonConst(t, depth-1)
					return op(fmt.Sprintf("kernel.Clamp(%s, %s, %s)", a.code, lo.code, hi.code), once(a))
				default:
					if t == tU32 && !g.opt.AbsUint32 {
						continue
					}
					a := g.nonConst(t, depth-1)
					return op(fmt.Sprintf("kernel.Abs(%s)", a.code), once(a))
				}
			}
		case 8:
			if e, ok := g.call(t, depth); ok {
				return e
			}
		case 9:
			return g.leaf(t)
		}
	}
}

// less compares two constants of t by their code.
func (g *gen) less(t typ, a, b string) bool {
	var x, y int64
	var ux, uy uint64
	switch t {
	case tI32:
		fmt.Sscanf(a, "int32(%d)", &x)
		fmt.Sscanf(b, "int32(%d)", &y)
		return x < y
	case tU32:
		fmt.Sscanf(a, "uint32(%d)", &ux)
		fmt.Sscanf(b, "uint32(%d)", &uy)
		return ux < uy
	}
	fmt.Sscanf(a, "float32(%d)", &x)
	fmt.Sscanf(b, "float32(%d)", &y)
	return x < y
}

// clampFloat keeps e within ±floatLimit.
func clampFloat(e expr) expr {
	if e.bound <= floatLimit {
		return e
	}
	c := op(fmt.Sprintf("kernel.Clamp(%s, -%d, %d)", e.code, floatLimit, floatLimit), reads(e, readsFloatClamp))
	c.bound = floatLimit
	return c
}

func (g *gen) floatExpr(depth int) expr {
	for {
		switch g.r.IntN(9) {
		case 0, 1, 2:
			a, b := g.pair(tF32, depth)
			fop := []string{"+", "-", "*"}[g.r.IntN(3)]
			bound := a.bound + b.bound
			if fop == "*" {
				bound = a.bound * b.bound
			}
			if bound > exactLimit {
				a, b = clampFloat(a), clampFloat(b)
				bound = a.bound + b.bound
				if fop == "*" {
					bound = a.bound * b.bound
				}
			}
			e := op(fmt.Sprintf("(%s %s %s)", a.code, fop, b.code), once(a), once(b))
			e.bound = bound
			return e
		case 3:
			a := g.nonConst(tF32, depth-1)
			e := op("(-"+a.code+")", once(a))
			e.bound = a.bound
			return e
		case 4:
			if g.opt.Conversions {
				from := tI32
				if g.chance(2) {
					from = tU32
				}
				a := g.nonConst(from, depth-1)
				e := op(fmt.Sprintf("float32(%s %% %s(%d))", a.code, from.goName(), floatLimit), reads(a, readsDivRem))
				e.bound = floatLimit
				return e
			}
		case 5, 6:
			if g.opt.MathCalls {
				switch g.r.IntN(4) {
				case 0:
					a, b := g.pair(tF32, depth)
					fn := "min"
					if g.chance(2) {
						fn = "max"
					}
					e := op(fmt.Sprintf("%s(%s, %s)", fn, a.code, b.code), reads(a, readsFloatMinMax), reads(b, readsFloatMinMax))
					e.bound = math.Max(a.bound, b.bound)
					return e
				case 1:
					lo, hi := g.constant(tF32), g.constant(tF32)
					if g.less(tF32, hi.code, lo.code) {
						lo, hi = hi, lo
					}
					a := g.nonConst(tF32, depth-1)
					e := op(fmt.Sprintf("kernel.Clamp(%s, %s, %s)", a.code, lo.code, hi.code), reads(a, readsFloatClamp))
					e.bound = math.Max(lo.bound, hi.bound)
					return e
				default:
					fns := []string{"kernel.Abs", "kernel.Floor", "kernel.Ceil", "kernel.Trunc"}
					a := g.nonConst(tF32, depth-1)
					e := op(fmt.Sprintf("%s(%s)", fns[g.r.IntN(len(fns))], a.code), once(a))
					e.bound = a.bound
					return e
				}
			}
		case 7:
			if e, ok := g.call(tF32, depth); ok {
				return e
			}
		case 8:
			return g.leaf(tF32)
		}
	}
}

// compare is a comparison of two values of a random numeric type.
func (g *gen) compare(depth int) expr {
	ts := []typ{tI32, tU32}
	if g.opt.Floats {
		ts = append(ts, tF32)
	}
	t := ts[g.r.IntN(len(ts))]
	var a, b expr
	if depth > 0 {
		a, b = g.pair(t, depth)
	} else {
		a, b = g.leaf(t), g.leaf(t)
		if a.isConst && b.isConst {
			a = g.nonConst(t, 0)
		}
	}
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	return op(fmt.Sprintf("(%s %s %s)", a.code, ops[g.r.IntN(len(ops))], b.code), once(a), once(b))
}

func (g *gen) boolExpr(depth int) expr {
	switch g.r.IntN(5) {
	case 0:
		a, b := g.nonConst(tBool, depth-1), g.nonConst(tBool, depth-1)
		logic := "&&"
		if g.chance(2) {
			logic = "||"
		}
		return op(fmt.Sprintf("(%s %s %s)", a.code, logic, b.code), once(a), once(b))
	case 1:
		a := g.nonConst(tBool, depth-1)
		return op("(!"+a.code+")", once(a))
	default:
		return g.compare(depth)
	}
}

// call is a call of a random helper returning t, if there is one.
func (g *gen) call(t typ, depth int) (expr, bool) {
	var hs []helper
	for _, h := range g.helpers {
		if h.result == t {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return expr{}, false
	}
	h := hs[g.r.IntN(len(hs))]
	var args []expr
	for _, p := range h.params {
		a := g.expr(p, depth-1)
		if p == tF32 {
			a = clampFloat(a)
		}
		args = append(args, a)
	}
	return callOf(h, args), true
}

// callOf is the expr of a call of h with args. It counts as uniform-only
// whatever the arguments: the helper may read only its uniform ones (seed
// 914841016's float helper read one scalar parameter of four, and three
// nested calls of it spun lavapipe), so every argument's walk counts, times
// the helper's.
func callOf(h helper, args []expr) expr {
	code := h.name + "("
	ops := make([]operand, len(args))
	for j, a := range args {
		if j > 0 {
			code += ", "
		}
		code += a.code
		a.uniform = true
		ops[j] = reads(a, h.walk)
	}
	e := op(code+")", ops...)
	e.bound = floatLimit
	return e
}
