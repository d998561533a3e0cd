package opt

import "github.com/anygpu/gpu/kernel/internal/ir"

// withoutContinue is a loop body with its continue statements (of that
// loop: none inside an inner loop) written as structure, so that one copy
// per iteration can be unrolled: the statements after an If one of whose
// branches continues move into its other branch,
//
//	if r >= m { continue }; rest   →   if r >= m {} else { rest }
//
// It reports false where that would copy statements (both branches of an If
// may go on to the rest), where a Break leaves the loop, or where a
// continue is inside something other than Ifs and Blocks. list is not
// changed: the result shares its statements and builds new lists and Ifs.
func withoutContinue(list []ir.Stmt) ([]ir.Stmt, bool) {
	for i, s := range list {
		if !jumps([]ir.Stmt{s}) {
			continue
		}
		head := append([]ir.Stmt(nil), list[:i]...)
		rest := list[i+1:]
		switch s := s.(type) {
		case *ir.Continue:
			return head, true // what follows is never run
		case *ir.Block:
			body, ok := withoutContinue(concat(s.Body, rest))
			if !ok {
				return nil, false
			}
			return append(head, &ir.Block{Body: body, Pos: s.Pos}), true
		case *ir.If:
			branches := [2][]ir.Stmt{s.Then, s.Else}
			onward := 0 // the branches that may go on to rest
			for _, b := range branches {
				if !continues(b) {
					onward++
				}
			}
			if onward > 1 && len(rest) > 0 {
				return nil, false
			}
			for k, b := range branches {
				if !continues(b) {
					b = concat(b, rest)
				}
				var ok bool
				if branches[k], ok = withoutContinue(b); !ok {
					return nil, false
				}
			}
			return append(head, &ir.If{Cond: s.Cond, Then: branches[0], Else: branches[1], Pos: s.Pos}), true
		default:
			return nil, false // a Break
		}
	}
	return list, true
}

// continues reports whether list always ends in a continue: its last
// statement is one, or a Block that always continues, or an If both of
// whose branches do.
func continues(list []ir.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	switch s := list[len(list)-1].(type) {
	case *ir.Continue:
		return true
	case *ir.Block:
		return continues(s.Body)
	case *ir.If:
		return continues(s.Then) && continues(s.Else)
	}
	return false
}

// concat is a new list of a's statements then b's.
func concat(a, b []ir.Stmt) []ir.Stmt {
	out := make([]ir.Stmt, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}
