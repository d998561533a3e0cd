package gosrc

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// stmts emits thread-level (or helper) statements.
func (f *fn) stmts(body []ir.Stmt) error {
	for _, s := range body {
		if err := f.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

func (f *fn) stmt(s ir.Stmt) error {
	switch s := s.(type) {
	case *ir.Decl:
		return f.decl(s)
	case *ir.Assign:
		text, err := f.assign(s)
		if err != nil {
			return err
		}
		f.printf("%s\n", text)
	case *ir.ExprStmt:
		x, err := f.expr(s.X)
		if err != nil {
			return err
		}
		switch s.X.(type) {
		case *ir.Call, *ir.Atomic:
			f.printf("%s\n", x)
		default:
			f.printf("_ = %s\n", x)
		}
	case *ir.If:
		return f.ifStmt(s)
	case *ir.For:
		return f.forStmt(s)
	case *ir.Break:
		return f.jump(true, s.Pos)
	case *ir.Continue:
		return f.jump(false, s.Pos)
	case *ir.Return:
		return f.ret(s)
	case *ir.Barrier:
		return fmt.Errorf("%s: a Barrier in a helper or under a condition that differs between threads; call Barrier at the top level of the kernel or under uniform conditions", s.Pos)
	case *ir.Store4:
		if done, err := f.windowStore4(s); done || err != nil {
			return err
		}
		buf, err := f.expr(s.Buf)
		if err != nil {
			return err
		}
		idx, err := f.u32(s.Index)
		if err != nil {
			return err
		}
		val, err := f.expr(s.Value)
		if err != nil {
			return err
		}
		f.printf("%s(%s, %s, %s)\n", f.e.store4Helper(), buf, idx, val)
	case *ir.Block:
		f.printf("{\n")
		if err := f.stmts(s.Body); err != nil {
			return err
		}
		f.printf("}\n")
	default:
		return fmt.Errorf("%s: gosrc: unknown statement %T", s.StmtPos(), s)
	}
	return nil
}

// kind is where v lives (always plain in a helper).
func (f *fn) kind(v *ir.Var) varKind {
	if f.an == nil || !f.f.Kernel {
		return kindPlain
	}
	return f.an.kinds[v]
}

// read reports whether v is read somewhere (Go rejects unread locals).
func (f *fn) read(v *ir.Var) bool {
	if f.an == nil {
		return true
	}
	u := f.an.uses[v]
	return u != nil && u.read
}

func (f *fn) decl(s *ir.Decl) error {
	name := f.names[s.Var]
	if f.kind(s.Var) == kindUniform {
		return nil // declared before the group's threads run
	}
	if f.win != nil && f.win.fwd.has(s.Var) {
		return nil // read in place (forward.go)
	}
	var init string
	var err error
	if s.Init != nil {
		init, err = f.exprUntyped(s.Init)
	} else {
		init, err = f.e.zero(s.Var.Type, s.Pos)
	}
	if err != nil {
		return err
	}
	if f.kind(s.Var) == kindSpill {
		f.printf("%s = %s\n", f.spillRef(name), init)
		return nil
	}
	t, err := f.e.goType(s.Var.Type, s.Pos)
	if err != nil {
		return err
	}
	if s.Init == nil {
		f.printf("var %s %s\n", name, t)
	} else {
		f.printf("var %s %s = %s\n", name, t, init)
	}
	if !f.read(s.Var) || f.kind(s.Var) == kindRemat {
		f.printf("_ = %s\n", name)
	}
	return nil
}

// spillRef is a spilled variable's element for this thread, or, at group
// level, thread 0's (the same in every thread: the value is uniform).
func (f *fn) spillRef(name string) string {
	if f.inPhase && f.promoted[name] {
		return promotedName(name)
	}
	if f.inPhase {
		f.tidUsed = true
		return name + "[" + nameTid + "]"
	}
	return name + "[0]"
}

// assign is an Assign as a simple statement.
func (f *fn) assign(s *ir.Assign) (string, error) {
	val, err := f.exprUntyped(s.Value)
	if err != nil {
		return "", err
	}
	if r, ok := s.Place.(*ir.Ref); ok && !f.inPhase && f.an != nil && f.kind(r.Var) == kindSpill {
		// A uniform variable assigned at group level: every thread's copy.
		return fmt.Sprintf("%s(%s, %s)", f.e.fillHelper(), f.names[r.Var], val), nil
	}
	place, err := f.expr(s.Place)
	if err != nil {
		return "", err
	}
	return place + " = " + val, nil
}

// simpleStmt is the init or post statement of a For.
func (f *fn) simpleStmt(s ir.Stmt) (string, error) {
	switch s := s.(type) {
	case *ir.Assign:
		return f.assign(s)
	case *ir.Decl:
		name := f.names[s.Var]
		var init string
		var err error
		if s.Init != nil {
			init, err = f.expr(s.Init) // typed: := takes its type
		} else {
			init, err = f.e.zero(s.Var.Type, s.Pos)
		}
		if err != nil {
			return "", err
		}
		if f.kind(s.Var) == kindSpill {
			if f.inPhase {
				return f.spillRef(name) + " = " + init, nil
			}
			return fmt.Sprintf("%s(%s, %s)", f.e.fillHelper(), name, init), nil
		}
		if !f.read(s.Var) {
			return "", fmt.Errorf("%s: gosrc: loop variable %s is never read", s.Pos, s.Var.Name)
		}
		return name + " := " + init, nil
	}
	return "", fmt.Errorf("%s: gosrc: a For's init or post is a %T, not a Decl or an Assign", s.StmtPos(), s)
}

func (f *fn) ifStmt(s *ir.If) error {
	cond, err := f.expr(s.Cond)
	if err != nil {
		return err
	}
	f.printf("if %s {\n", cond)
	if err := f.stmts(s.Then); err != nil {
		return err
	}
	switch {
	case len(s.Else) == 1:
		if elif, ok := s.Else[0].(*ir.If); ok {
			f.printf("} else ")
			return f.ifStmt(elif)
		}
		fallthrough
	case len(s.Else) > 0:
		f.printf("} else {\n")
		if err := f.stmts(s.Else); err != nil {
			return err
		}
	}
	f.printf("}\n")
	return nil
}

func (f *fn) forStmt(s *ir.For) error {
	return f.forLoop(s, f.stmts)
}

// forLoop writes s's header and its body through body (the statements of a
// phase, or of a strip).
func (f *fn) forLoop(s *ir.For, body func([]ir.Stmt) error) error {
	init, cond, post, err := f.forClauses(s)
	if err != nil {
		return err
	}
	switch {
	case init == "" && post == "" && cond == "":
		f.printf("for {\n")
	case init == "" && post == "":
		f.printf("for %s {\n", cond)
	default:
		f.printf("for %s; %s; %s {\n", init, cond, post)
	}
	f.depth++
	err = body(s.Body)
	f.depth--
	if err != nil {
		return err
	}
	f.printf("}\n")
	return nil
}

// jump emits a Break (brk) or a Continue. In a phase, one outside every
// thread-level loop leaves the group-level loop around the phase: the thread
// sets that loop's flag and ends its share of the phase (the condition is
// uniform, so every thread does the same), and the group acts on the flag
// after the phase.
func (f *fn) jump(brk bool, pos ir.Pos) error {
	word := "continue"
	if brk {
		word = "break"
	}
	if !f.inPhase || f.depth > 0 {
		f.printf("%s\n", word)
		return nil
	}
	if len(f.loops) == 0 {
		return fmt.Errorf("%s: gosrc: %s outside a loop", pos, word)
	}
	l := f.loops[len(f.loops)-1]
	if brk {
		l.brk, f.brkUsed = true, true
		f.printf("%s = true\n", brkName(l.id))
	} else {
		l.cont, f.contUsed = true, true
		f.printf("%s = true\n", contName(l.id))
	}
	f.labelUsed = true
	f.printf("continue %s\n", f.label)
	return nil
}

// ret emits a Return: a helper's result, or the end of a kernel's thread.
func (f *fn) ret(s *ir.Return) error {
	if !f.f.Kernel {
		if s.Value == nil {
			f.printf("return\n")
			return nil
		}
		v, err := f.exprUntyped(s.Value)
		if err != nil {
			return err
		}
		f.printf("return %s\n", v)
		return nil
	}
	if !f.inPhase {
		return fmt.Errorf("%s: gosrc: a return at group level", s.Pos)
	}
	if f.an.phases > 1 {
		f.tidUsed = true
		f.printf("%s[%s] = true\n", nameDone, nameTid)
	}
	f.labelUsed = true
	f.printf("continue %s\n", f.label)
	return nil
}

// forClauses is the Go text of a For's init, condition and post ("" for
// each that is absent).
func (f *fn) forClauses(s *ir.For) (init, cond, post string, err error) {
	if s.Init != nil {
		if init, err = f.simpleStmt(s.Init); err != nil {
			return "", "", "", err
		}
	}
	if s.Cond != nil {
		if cond, err = f.expr(s.Cond); err != nil {
			return "", "", "", err
		}
	}
	if s.Post != nil {
		if post, err = f.simpleStmt(s.Post); err != nil {
			return "", "", "", err
		}
	}
	return init, cond, post, nil
}
