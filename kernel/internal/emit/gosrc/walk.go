package gosrc

import "github.com/anygpu/gpu/kernel/internal/ir"

// hasBarrier reports whether s is or holds a Barrier.
func hasBarrier(s ir.Stmt) bool {
	found := false
	ir.WalkStmt(s, func(s ir.Stmt) {
		if _, ok := s.(*ir.Barrier); ok {
			found = true
		}
	}, nil)
	return found
}
