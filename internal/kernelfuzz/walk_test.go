package kernelfuzz

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWalkModel checks the walk estimate against what lavapipe was measured
// to do: a condition on a scalar parameter clamped 5 times in a row took 3 s
// and 6 times minutes (4 times compiled at once: the model, conservative,
// allows 3); the same chains on a buffer element, where the walk stops,
// compiled at once.
func TestWalkModel(t *testing.T) {
	chain := func(leaf expr, clamps int) expr {
		e := leaf
		for range clamps {
			e = op(fmt.Sprintf("kernel.Clamp(%s+1, -4096, 4096)", e.code), reads(op(e.code+"+1", once(e), once(uniformLeaf("1"))), readsFloatClamp))
		}
		return op(fmt.Sprintf("(%s > 3)", e.code), once(e), once(uniformLeaf("3")))
	}
	tests := []struct {
		name   string
		cond   expr
		within bool
	}{
		{"scalar clamped 3 times", chain(uniformLeaf("s"), 3), true},
		{"scalar clamped 5 times", chain(uniformLeaf("s"), 5), false},
		{"scalar clamped 6 times", chain(uniformLeaf("s"), 6), false},
		{"buffer element clamped 8 times", chain(varyingLeaf("in[i]"), 8), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.within, tt.cond.walk <= walkLimit, "walk %g, limit %g", tt.cond.walk, walkLimit)
		})
	}
}

// TestAssignedWalkInLoops checks that a variable fed into itself in an
// unrolled loop grows per trip, and one assigned a fresh value does not.
func TestAssignedWalkInLoops(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	g.push()
	v := &variable{name: "v", t: tF32, uniform: true, walk: 1}
	g.declare(v)
	g.trips = append(g.trips, 5)
	g.nest++
	selfFed := op("kernel.Clamp(v+1, -4096, 4096)", reads(op("v+1", once(expr{code: "v", uniform: true, walk: 1})), readsFloatClamp))
	fresh := op("kernel.Clamp(s+1, -4096, 4096)", reads(uniformLeaf("s"), readsFloatClamp))
	_, selfWalk := g.assignedWalk(v, selfFed)
	_, freshWalk := g.assignedWalk(v, fresh)
	assert.Greater(t, selfWalk, float64(walkLimit), "v = kernel.Clamp(v+1, ...) five times")
	assert.LessOrEqual(t, freshWalk, float64(walkLimit), "v = kernel.Clamp(s+1, ...) five times")
}

// TestGeneratedWalksAreBounded checks that the statements of generated
// programs keep their conditions within the limit: every variable's walk
// stays bounded over many seeds.
func TestGeneratedWalksAreBounded(t *testing.T) {
	worst := 0.0
	for seed := range uint64(300) {
		g := &gen{r: rand.New(rand.NewPCG(seed, 7)), opt: Default(), maxDepth: 3}
		w := &writer{}
		g.push()
		for j, t := range []typ{tI32, tU32, tF32} { // one of each, as a helper's parameters
			g.declare(&variable{name: fmt.Sprint("p", j), t: t, uniform: true, walk: 1, used: true})
		}
		g.hash = "h"
		for range 12 {
			g.stmt(w, 3)
		}
		for _, v := range g.allVariables() {
			worst = max(worst, v.walk)
		}
	}
	assert.LessOrEqual(t, worst, 4*walkLimit, "the largest walk of a variable")
}

// TestRepros: every shrunk kernel in testdata is found, named with its seed.
func TestRepros(t *testing.T) {
	repros, err := Repros()
	require.NoError(t, err)
	require.NotEmpty(t, repros)
	for _, r := range repros {
		assert.NotZero(t, r.Seed, r.Name)
		assert.Contains(t, r.Source, "//gpu:kernel", r.Name)
		assert.True(t, strings.HasSuffix(r.Name, "-"+strconv.FormatUint(r.Seed, 10)), r.Name)
	}
}

// TestReproDriverBugs: a repro's "// Driver bug on:" line names devices by
// substring, case-insensitively; repros without the line name none.
func TestReproDriverBugs(t *testing.T) {
	r := Repro{DriverBugOn: driverBugOn("// what\n// Driver bug on: LLVMpipe, Some GPU \npackage fuzz\n")}
	assert.Equal(t, []string{"llvmpipe", "some gpu"}, r.DriverBugOn)
	assert.True(t, r.DriverBug("llvmpipe (LLVM 15.0.6, 256 bits)"))
	assert.True(t, r.DriverBug("Some GPU 9000"))
	assert.False(t, r.DriverBug("NVIDIA H200"))
	assert.Empty(t, driverBugOn("package fuzz\n"))
	repros, err := Repros()
	require.NoError(t, err)
	found := false
	for _, r := range repros {
		if r.Name == "mesa-loopexit-29613666" {
			found = true
			assert.True(t, r.DriverBug("llvmpipe (LLVM 15.0.6, 256 bits)"))
		} else {
			assert.False(t, r.DriverBug("llvmpipe (LLVM 15.0.6, 256 bits)"), r.Name)
		}
	}
	assert.True(t, found, "the Mesa loop-exit repro")
}

// TestHelperCallsCountAsUniform: a float helper's walk counts the clamp of
// its result (readsFloatClamp reads of the sum), and a call counts every
// argument as uniform-only, since the helper may read only its uniform
// ones: three nested calls of such a helper on a scalar parameter, its
// other argument varying, are past the limit (seed 914841016 spun lavapipe
// with them); one is within it.
func TestHelperCallsCountAsUniform(t *testing.T) {
	var h helper
	for seed := uint64(0); h.result != tF32; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(seed, 4)), opt: Default(), maxDepth: 1}
		g.helper(&writer{})
		h = g.helpers[0]
	}
	require.GreaterOrEqual(t, h.walk, float64(readsFloatClamp))
	call := func(arg expr) expr { return callOf(h, []expr{varyingLeaf("in[i]"), arg}) }
	one := call(uniformLeaf("s"))
	three := call(call(call(uniformLeaf("s"))))
	assert.True(t, three.uniform)
	assert.LessOrEqual(t, one.walk, float64(walkLimit))
	assert.Greater(t, three.walk, float64(walkLimit))
}
