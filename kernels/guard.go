package kernels

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend"
)

// guardGo wraps the generated Go kernel k of op for the CPU backend: a group
// whose launch is malformed (argument count or kinds not Params[op], a buffer
// that is not host memory, a buffer too small for the sizes, as CheckLaunch
// sees them) or that has nothing to write (a reduction group beyond out, an
// empty block) returns at once, writing nothing, where the generated Go
// would index out of range and panic. The check costs a few comparisons per
// group: the op's check is chosen once, here, not per group.
//
// The groups of a launch share its arguments, and most ops' check does not
// depend on the group: the last arguments that passed the check are
// remembered (an immutable copy behind an atomic pointer, so that the
// groups running in parallel share it), and a group whose arguments equal
// them (the same buffers, kinds and scalars) skips the buffer lengths. A
// reduction's check also reads the group's index (out must hold its
// partial): with the arguments the length of out is remembered, and a group
// with the same arguments compares its index with it.
func guardGo(op string, k backend.GoKernel) backend.GoKernel {
	kinds, _ := paramsOf(op)
	fits := launchFits(op)
	reduction := op == OpReduceSum || op == OpDot
	var passed atomic.Pointer[passedArgs]
	return func(g backend.Group, args []backend.Arg) {
		if g.Size.X <= 0 || g.Size.Y < 0 || g.Size.Z < 0 || g.ID.X < 0 || len(args) != len(kinds) {
			return
		}
		if p := passed.Load(); p != nil && sameArgs(p.args, args) {
			if !reduction || g.ID.X < p.outLen {
				k(g, args)
			}
			return
		}
		for i, kind := range kinds {
			if args[i].Kind != kind {
				return
			}
		}
		if !fits(g, args) {
			return
		}
		remembered := passedArgs{args: slices.Clone(args)}
		if reduction {
			remembered.outLen = len(args[0].Float32s())
		}
		passed.Store(&remembered)
		k(g, args)
	}
}

// passedArgs is a launch's arguments that passed guardGo's check, and for a
// reduction the float32s its out holds.
type passedArgs struct {
	args   []backend.Arg
	outLen int
}

// launchFits returns op's check that every buffer of a well-typed launch
// holds the float32s its sizes imply, and that group g's partial sum (for a
// reduction) has its slot in out. Each buffer's length is read once: the
// check runs for every group, so it must stay cheap next to a group's work.
// An op it does not know never fits.
func launchFits(op string) func(g backend.Group, args []backend.Arg) bool {
	u := func(args []backend.Arg, i int) uint64 { return uint64(args[i].U32()) }
	switch op {
	case OpFill:
		return func(_ backend.Group, args []backend.Arg) bool { return holds(args[0], 1, u(args, 1)) }
	case OpCopy, OpScale, OpAxpy:
		return func(_ backend.Group, args []backend.Arg) bool {
			n := u(args, 2)
			return holds(args[0], 1, n) && holds(args[1], 1, n)
		}
	case OpAdd, OpMul:
		return func(_ backend.Group, args []backend.Arg) bool {
			n := u(args, 3)
			return holds(args[0], 1, n) && holds(args[1], 1, n) && holds(args[2], 1, n)
		}
	case OpReduceSum:
		return func(g backend.Group, args []backend.Arg) bool {
			return holds(args[0], 1, uint64(g.ID.X)+1) && holds(args[1], 1, u(args, 2))
		}
	case OpDot:
		return func(g backend.Group, args []backend.Arg) bool {
			n := u(args, 3)
			return holds(args[0], 1, uint64(g.ID.X)+1) && holds(args[1], 1, n) && holds(args[2], 1, n)
		}
	case OpTranspose:
		return func(_ backend.Group, args []backend.Arg) bool {
			return holds(args[0], u(args, 3), u(args, 2)) && holds(args[1], u(args, 2), u(args, 3))
		}
	case OpSgemm, OpSgemm128x64, OpSgemm64x64, OpSgemm32x32, OpSgemm64MMA, OpSgemmFrom:
		return func(_ backend.Group, args []backend.Arg) bool {
			m, n, k := u(args, 3), u(args, 4), u(args, 5)
			return holds(args[0], m, n) && holds(args[1], m, k) && holds(args[2], k, n)
		}
	}
	return func(backend.Group, []backend.Arg) bool { return false }
}

// holds reports whether buffer argument a is host memory holding r×c
// float32s (an empty r×c needs no buffer at all).
func holds(a backend.Arg, r, c uint64) bool {
	if r*c == 0 {
		return true
	}
	f := a.Float32s()
	return f != nil && c <= uint64(len(f))/r
}

// sameArgs reports whether a and b are the same arguments: the same kinds
// and scalars, and the very same buffers (the interface values' words equal:
// no comparison of the values, which a buffer type need not allow; a holds
// its buffers, so equal words are the same live buffer).
func sameArgs(a, b []backend.Arg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].Bits != b[i].Bits ||
			*(*[2]uintptr)(unsafe.Pointer(&a[i].Buffer)) != *(*[2]uintptr)(unsafe.Pointer(&b[i].Buffer)) {
			return false
		}
	}
	return true
}
