package kernelfuzz

import (
	"math"
	"regexp"
)

// The generator bounds a cost that only one driver has: lavapipe (Mesa
// 22.3, Debian 12's, which CI installs) spends minutes creating the
// pipeline of some valid kernels (seeds 275202356 and 1000323 of the
// unbounded generator, on Vulkan and on WebGPU, which runs on lavapipe too).
// At pipeline creation lavapipe looks for uniforms worth inlining: for every
// if condition and loop terminator it walks the expression back to its
// leaves, to see whether it depends on push constants or uniform-buffer
// values (our scalar parameters) and constants only. That walk follows the
// expression DAG as a tree, without remembering what it has visited, so it
// takes time exponential in the depth of a chain of values each used more
// than once (later Mesa remembers visited instructions). The walk stops at
// the first leaf that is not a uniform (a buffer load, a thread index, a phi),
// so only uniform-only chains are costly.
//
// Our translation reads an operand several times wherever Go's semantics
// need more than the native instruction: float min and max (NaN and signed
// zeros: about 9 reads after inlining, measured: kernel.Clamp chains cost
// ×80 each), float-to-int conversions (saturation), / and % (by zero, by
// -1) and variable shifts. A condition on a scalar parameter clamped 5 times
// in a row (v = kernel.Clamp(v+1, -4096, 4096), five times) took lavapipe
// 3 s, 6 times over 5 minutes; real GPU compilers walk such code in linear
// time. The generator clamps floats at every step to keep them exact, so it
// built such chains often (one seed in a few hundred).
//
// So each expression carries an estimate of that walk (expr.walk): leaves
// cost 1; an operation costs 1 plus, for each uniform-only operand, its walk
// times the number of reads the translation makes of it, plus the largest
// walk of its other operands (the walk ends inside the first of them).
// Variables carry the walk of what they hold; an assignment under an if or
// in a loop adds to it, and a loop that feeds a variable into itself
// multiplies it per trip (loops of constant trip count are unrolled). A
// helper's walk is the largest in its body, its result's clamp included; a
// call multiplies every argument's walk by it and counts as uniform-only,
// since the helper may read only its uniform arguments (seed 914841016:
// three nested calls of a float helper that read one scalar parameter).
// Statements retry their expressions until the walk is under walkLimit.
// This is the lavapipe bug's model, not a property of the kernel language:
// the CPU, CUDA, llvmpipe (OpenGL) and other drivers are not affected.

// walkLimit bounds the estimated walk of every generated expression and
// variable: 10^7 units took lavapipe well under 50 ms.
const walkLimit = 1e7

// Reads of an operand in the translation of an operation (see above).
const (
	readsFloatMinMax = 9  // Go's float min and max
	readsFloatClamp  = 81 // kernel.Clamp of a float: max, then min
	readsFloatToInt  = 9  // a saturating float-to-int conversion
	readsDivRem      = 4  // / and % (by zero, MinInt / -1)
	readsShiftCount  = 2  // a variable shift count (counts ≥ the width)
)

// operand is an operand of an operation and how often its translation
// reads it.
type operand struct {
	e     expr
	reads float64
}

// op is the expr of code, an operation on ops: uniform when every operand
// is, with the walk estimated as described above.
func op(code string, ops ...operand) expr {
	uniform, sum, worst := true, 1.0, 0.0
	for _, o := range ops {
		if o.e.uniform {
			sum += o.reads * math.Max(o.e.walk, 1)
		} else {
			uniform = false
			worst = math.Max(worst, o.e.walk)
		}
	}
	return expr{code: code, uniform: uniform, walk: sum + worst}
}

// once is an operand read once.
func once(e expr) operand { return operand{e: e, reads: 1} }

// reads is an operand read n times.
func reads(e expr, n float64) operand { return operand{e: e, reads: n} }

// uniformLeaf is a constant or a scalar parameter's expr.
func uniformLeaf(code string) expr { return expr{code: code, uniform: true, walk: 1} }

// varyingLeaf is a value lavapipe's walk stops at (a buffer element, a
// thread index).
func varyingLeaf(code string) expr { return expr{code: code, walk: 1} }

// bounded returns the first expression make builds whose walk (as cost
// reports it) is within walkLimit, making up to 16 tries; the tries it
// drops leave no variable marked used. If none fits it returns the last.
func (g *gen) bounded(make func() expr, cost func(expr) float64) expr {
	e, _, _ := g.tryBounded(make, cost)
	if g.helperWalk < cost(e) {
		g.helperWalk = cost(e)
	}
	return e
}

// tryBounded is bounded that reports whether an expression fitted; when
// none did, the last try's marks stay and drop clears them, so that the
// caller can drop the statement instead.
func (g *gen) tryBounded(make func() expr, cost func(expr) float64) (e expr, fits bool, drop func()) {
	var used []bool
	vars := g.allVariables()
	for _, v := range vars {
		used = append(used, v.used)
	}
	restore := func() {
		for j, v := range vars {
			v.used = used[j]
		}
	}
	for try := range 16 {
		if try > 0 {
			restore()
		}
		e = make()
		if cost(e) <= walkLimit {
			return e, true, restore
		}
	}
	return e, false, restore
}

// walkOf is the walk of e itself.
func walkOf(e expr) float64 { return e.walk }

// allVariables lists every variable in scope.
func (g *gen) allVariables() []*variable {
	var out []*variable
	for _, s := range g.scopes {
		out = append(out, s...)
	}
	return out
}

// assignedWalk is what v's walk becomes when the statement at hand assigns
// it e: e's walk on straight-line code, plus v's when under an if or in a
// loop that v is declared outside of, multiplied per trip of those loops
// when e reads v.
func (g *gen) assignedWalk(v *variable, e expr) (uniform bool, walk float64) {
	uniform, walk = e.uniform, e.walk
	if g.nest == v.nest {
		return uniform, walk
	}
	uniform = uniform && v.uniform
	trips := 1.0
	for _, n := range g.trips[v.trips:] {
		trips *= float64(max(n, 1))
	}
	if trips > 1 && regexp.MustCompile(`\b`+v.name+`\b`).MatchString(e.code) {
		growth := math.Max(walk/math.Max(v.walk, 1), 1)
		walk *= math.Pow(growth, trips-1)
	}
	return uniform, walk + v.walk
}

// assign records that the statement at hand assigns e to v.
func (g *gen) assign(v *variable, e expr) {
	v.uniform, v.walk = g.assignedWalk(v, e)
	if g.helperWalk < v.walk {
		g.helperWalk = v.walk
	}
}
