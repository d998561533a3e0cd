package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// hasBarrier reports whether s is or holds a Barrier or a MatMulAdd (which
// runs once per group, between phases, as a barrier would split them).
func hasBarrier(s ir.Stmt) bool {
	found := false
	ir.WalkStmt(s, func(s ir.Stmt) {
		switch s.(type) {
		case *ir.Barrier, *ir.MatMulAdd:
			found = true
		}
	}, nil)
	return found
}
