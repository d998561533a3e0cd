package kernels

import "github.com/anygpu/gpu/backend"

// guardGo wraps the generated Go kernel k of op for the CPU backend: a group
// whose launch is malformed (argument count or kinds not Params[op], a buffer
// that is not host memory, a buffer too small for the sizes, as CheckLaunch
// sees them) or that has nothing to write (a reduction group beyond out, an
// empty block) returns at once, writing nothing, where the generated Go
// would index out of range and panic. The check costs a few comparisons per
// group.
func guardGo(op string, k backend.GoKernel) backend.GoKernel {
	kinds := Params[op]
	return func(g backend.Group, args []backend.Arg) {
		if g.Size.X <= 0 || g.Size.Y < 0 || g.Size.Z < 0 || g.ID.X < 0 || len(args) != len(kinds) {
			return
		}
		for i, kind := range kinds {
			if args[i].Kind != kind {
				return
			}
		}
		if !launchFits(op, g, args) {
			return
		}
		k(g, args)
	}
}

// launchFits reports whether every buffer of a well-typed launch of op holds
// the float32s its sizes imply, and whether group g's partial sum (for a
// reduction) has its slot in out.
func launchFits(op string, g backend.Group, args []backend.Arg) bool {
	l := func(i int) uint64 {
		if args[i].Buffer == nil {
			return 0
		}
		return uint64(len(args[i].Float32s()))
	}
	isHost := func(i int) bool { return args[i].Buffer != nil && args[i].Float32s() != nil }
	u := func(i int) uint64 { return uint64(args[i].U32()) }
	// holds reports whether buffer i holds r×c float32s.
	holds := func(i int, r, c uint64) bool { return r*c == 0 || (isHost(i) && (c <= l(i)/r)) }
	switch op {
	case OpFill:
		return holds(0, 1, u(1))
	case OpCopy, OpScale, OpAxpy:
		return holds(0, 1, u(2)) && holds(1, 1, u(2))
	case OpAdd, OpMul:
		return holds(0, 1, u(3)) && holds(1, 1, u(3)) && holds(2, 1, u(3))
	case OpReduceSum:
		return holds(0, 1, uint64(g.ID.X)+1) && holds(1, 1, u(2))
	case OpDot:
		return holds(0, 1, uint64(g.ID.X)+1) && holds(1, 1, u(3)) && holds(2, 1, u(3))
	case OpTranspose:
		return holds(0, u(3), u(2)) && holds(1, u(2), u(3))
	case OpSgemm:
		m, n, k := u(3), u(4), u(5)
		return holds(0, m, n) && holds(1, m, k) && holds(2, k, n)
	}
	return false
}
