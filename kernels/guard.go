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
	kinds, _ := paramsOf(op)
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
// reduction) has its slot in out. Each buffer's length is read once: the
// check runs for every group, so it must stay cheap next to a group's work.
func launchFits(op string, g backend.Group, args []backend.Arg) bool {
	var b launchBuffers
	for i := 0; i < len(args) && i < len(b.n); i++ {
		if args[i].Kind == backend.ArgBuffer && args[i].Buffer != nil {
			if f := args[i].Float32s(); f != nil {
				b.host[i], b.n[i] = true, uint64(len(f))
			}
		}
	}
	u := func(i int) uint64 { return uint64(args[i].U32()) }
	switch op {
	case OpFill:
		return b.holds(0, 1, u(1))
	case OpCopy, OpScale, OpAxpy:
		n := u(2)
		return b.holds(0, 1, n) && b.holds(1, 1, n)
	case OpAdd, OpMul:
		n := u(3)
		return b.holds(0, 1, n) && b.holds(1, 1, n) && b.holds(2, 1, n)
	case OpReduceSum:
		return b.holds(0, 1, uint64(g.ID.X)+1) && b.holds(1, 1, u(2))
	case OpDot:
		n := u(3)
		return b.holds(0, 1, uint64(g.ID.X)+1) && b.holds(1, 1, n) && b.holds(2, 1, n)
	case OpTranspose:
		return b.holds(0, u(3), u(2)) && b.holds(1, u(2), u(3))
	case OpSgemm, OpSgemm128x64, OpSgemm64x64, OpSgemm32x32, OpSgemm64MMA, OpSgemmFrom:
		m, n, k := u(3), u(4), u(5)
		return b.holds(0, m, n) && b.holds(1, m, k) && b.holds(2, k, n)
	}
	return false
}

// launchBuffers are the first three buffers of a launch: whether each is host
// memory and how many float32s it holds.
type launchBuffers struct {
	host [3]bool
	n    [3]uint64
}

// holds reports whether buffer i holds r×c float32s.
func (b *launchBuffers) holds(i int, r, c uint64) bool {
	return r*c == 0 || (b.host[i] && c <= b.n[i]/r)
}
