package kernelfuzz

import (
	"fmt"
	"strings"
)

// writer collects indented lines of Go source.
type writer struct {
	b      strings.Builder
	indent int
}

func (w *writer) line(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	for _, l := range strings.Split(text, "\n") {
		w.b.WriteString(strings.Repeat("\t", w.indent))
		w.b.WriteString(l)
		w.b.WriteByte('\n')
	}
}

// block writes a nested block's statements one level deeper, in a new
// scope.
func (g *gen) block(w *writer, depth int, vars ...*variable) {
	w.indent++
	g.nest++
	g.push()
	for _, v := range vars {
		g.declare(v)
	}
	for range 1 + g.r.IntN(3) {
		g.stmt(w, depth)
	}
	g.pop(w)
	g.nest--
	w.indent--
}

// condition is a non-constant condition within the walk limit (walk.go).
func (g *gen) condition() expr {
	return g.bounded(func() expr { return g.nonConst(tBool, g.maxDepth) }, walkOf)
}

// assignable lists the scalar variables statements may assign.
func (g *gen) assignable() []*variable {
	var out []*variable
	for _, s := range g.scopes {
		for _, v := range s {
			if !v.readOnly && v.arrLen == 0 {
				out = append(out, v)
			}
		}
	}
	return out
}

// scalarTypes are the types a generated local may have.
func (g *gen) scalarTypes() []typ {
	if g.opt.Floats {
		return []typ{tI32, tU32, tF32, tBool}
	}
	return []typ{tI32, tU32, tBool}
}

// value is an expression fit to store in a variable of type t: floats
// within ±floatLimit.
func (g *gen) value(t typ, depth int) expr {
	e := g.expr(t, depth)
	if t == tF32 {
		e = clampFloat(e)
	}
	return e
}

// stmt writes one random statement.
func (g *gen) stmt(w *writer, depth int) {
	for {
		switch g.r.IntN(14) {
		case 0, 1:
			ts := g.scalarTypes()
			t := ts[g.r.IntN(len(ts))]
			e := g.bounded(func() expr { return g.value(t, g.maxDepth) }, walkOf)
			v := &variable{name: g.fresh("v"), t: t, bound: floatLimit, uniform: e.uniform, walk: e.walk}
			if t == tBool || e.isConst {
				w.line("var %s %s = %s", v.name, t.goName(), e.code)
			} else {
				w.line("%s := %s", v.name, e.code)
			}
			g.declare(v)
			return
		case 2, 3:
			vs := g.assignable()
			if len(vs) == 0 {
				continue
			}
			v := vs[g.r.IntN(len(vs))]
			old := expr{code: v.name, uniform: v.uniform, walk: v.walk}
			var line string
			// value is what v holds after the statement, for the walk.
			value, fits, drop := g.tryBounded(func() expr {
				switch {
				case v.t == tI32 || v.t == tU32:
					switch g.r.IntN(4) {
					case 0:
						line = v.name + "++"
						return op(v.name+" + 1", once(old))
					case 1:
						ops := []string{"+=", "-=", "*=", "&=", "|=", "^=", "&^="}
						e := g.expr(v.t, g.maxDepth)
						line = fmt.Sprintf("%s %s %s", v.name, ops[g.r.IntN(len(ops))], e.code)
						return op(v.name+" op "+e.code, once(old), once(e))
					default:
						e := g.expr(v.t, g.maxDepth)
						line = fmt.Sprintf("%s = %s", v.name, e.code)
						return e
					}
				default:
					e := g.value(v.t, g.maxDepth)
					line = fmt.Sprintf("%s = %s", v.name, e.code)
					return e
				}
			}, func(e expr) float64 { _, walk := g.assignedWalk(v, e); return walk })
			if !fits {
				drop()
				continue // every try fed v into itself past the limit
			}
			w.line("%s", line)
			g.assign(v, value)
			return
		case 4:
			if !g.opt.Arrays {
				continue
			}
			if vs := g.visible(g.scalarTypes()[g.r.IntN(len(g.scalarTypes())-1)], true); len(vs) > 0 && g.chance(2) {
				v := vs[g.r.IntN(len(vs))]
				// The array's walk is its elements' together.
				e := g.bounded(func() expr { return g.value(v.t, g.maxDepth) }, func(e expr) float64 { return v.walk + e.walk })
				w.line("%s[%s] = %s", v.name, g.index(fmt.Sprintf("uint32(%d)", v.arrLen), v.arrLen).code, e.code)
				v.uniform, v.walk = v.uniform && e.uniform, v.walk+e.walk
				return
			}
			ts := g.scalarTypes()
			t := ts[g.r.IntN(len(ts)-1)] // no bool arrays
			v := &variable{name: g.fresh("a"), t: t, arrLen: 1 + g.r.IntN(8), bound: floatLimit, uniform: true, walk: 1}
			w.line("var %s [%d]%s", v.name, v.arrLen, t.goName())
			if g.chance(2) {
				k := g.fresh("k")
				w.line("for %s := range uint32(%d) {", k, v.arrLen)
				w.indent++
				g.push()
				g.declare(&variable{name: k, t: tU32, readOnly: true, used: true, uniform: true, walk: 1})
				n := float64(v.arrLen)
				e := g.bounded(func() expr { return g.value(t, g.maxDepth-1) }, func(e expr) float64 { return n * e.walk })
				w.line("%s[%s] = %s", v.name, k, e.code)
				v.uniform, v.walk = e.uniform, n*e.walk
				g.pop(w)
				w.indent--
				w.line("}")
			}
			g.declare(v)
			return
		case 5, 6:
			if depth <= 0 {
				continue
			}
			w.line("if %s {", g.condition().code)
			g.block(w, depth-1)
			if g.chance(2) {
				if g.chance(3) {
					w.line("} else if %s {", g.condition().code)
					g.block(w, depth-1)
				}
				w.line("} else {")
				g.block(w, depth-1)
			}
			w.line("}")
			return
		case 7:
			if depth <= 0 || !g.opt.Loops || g.loops >= 2 {
				continue
			}
			g.loop(w, depth)
			return
		case 8:
			if g.loops == 0 {
				continue
			}
			kw := "break"
			if g.chance(2) {
				kw = "continue"
			}
			w.line("if %s {", g.condition().code)
			w.line("\t%s", kw)
			w.line("}")
			return
		case 9, 10:
			if !g.kernel {
				continue
			}
			var outs []buffer
			for _, b := range g.buffers {
				if b.output {
					outs = append(outs, b)
				}
			}
			b := outs[g.r.IntN(len(outs))]
			w.line("%s[i*%d+%d] = %s", b.name, b.stride, g.r.IntN(b.stride), g.value(b.t, g.maxDepth).code)
			return
		case 11:
			if !g.kernel || !g.opt.EarlyReturn || !g.chance(3) {
				continue
			}
			w.line("if %s {", g.condition().code)
			w.line("\t%s", g.hashOut)
			w.line("\treturn")
			w.line("}")
			return
		case 12:
			if !g.kernel || !g.opt.Atomics {
				continue
			}
			var accs []buffer
			for _, b := range g.buffers {
				if b.atomic {
					accs = append(accs, b)
				}
			}
			b := accs[g.r.IntN(len(accs))]
			op := g.r.IntN(len(atomicOps))
			slot := fmt.Sprint(op*atomicSlots + g.r.IntN(atomicSlots))
			if g.chance(2) {
				slot = fmt.Sprintf("%d+%s%%%d", op*atomicSlots, g.nonConst(tU32, 1).code, atomicSlots)
			}
			w.line("kernel.%s(&%s[%s], %s)", atomicOps[op], b.name, slot, g.expr(b.t, g.maxDepth).code)
			return
		case 13:
			if g.kernel || !g.opt.EarlyReturn || !g.chance(2) {
				continue
			}
			w.line("if %s {", g.condition().code)
			w.line("\treturn %s", g.bounded(func() expr { return g.value(g.result, g.maxDepth) }, walkOf).code)
			w.line("}")
			return
		}
	}
}

// loop writes a loop of a random form with a constant trip count.
func (g *gen) loop(w *writer, depth int) {
	trips := g.r.IntN(6)
	t := tI32
	if g.chance(2) {
		t = tU32
	}
	v := &variable{name: g.fresh("j"), t: t, readOnly: true, used: true, uniform: true, walk: 1}
	// The forms that increment the counter before the body keep it out of
	// the body: Mesa 22.3 (llvmpipe, lavapipe) takes an exit whose test
	// reads the incremented counter as if it read the value before the
	// increment (testdata/mesa-loopexit-29613666.go.txt), so such kernels
	// would report the driver's bug, not ours, on every CI run that reaches
	// one.
	inBody := []*variable{v}
	switch g.r.IntN(4) {
	case 0:
		w.line("for %s := %s(0); %s < %d; %s++ {", v.name, t.goName(), v.name, trips, v.name)
	case 1:
		v.used = false // Go wants a range variable read in the body
		w.line("for %s := range %s(%d) {", v.name, t.goName(), trips)
	case 2:
		w.line("%s := %s(0)", v.name, t.goName())
		w.line("for %s < %d {", v.name, trips)
		w.line("\t%s++", v.name)
		inBody = nil
	default:
		w.line("%s := %s(0)", v.name, t.goName())
		w.line("for {")
		w.line("\t%s++", v.name)
		w.line("\tif %s > %d {", v.name, trips)
		w.line("\t\tbreak")
		w.line("\t}")
		inBody = nil
	}
	g.loops++
	g.trips = append(g.trips, trips+1) // unrolled: at most trips+1 passes
	g.block(w, depth-1, inBody...)
	g.trips = g.trips[:len(g.trips)-1]
	g.loops--
	w.line("}")
}
