package interp

import (
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// gnode runs a part of a kernel with barriers over the group's threads that
// are still running it (those whose ctl is ctlNone; the others have
// returned, or left the enclosing loop or iteration). A barrier is the
// boundary between two gnodes: every thread finishes the one before it
// before any starts the one after.
type gnode func(act []*thread)

// hasBarrier reports whether list holds a Barrier, at any depth.
func hasBarrier(list []ir.Stmt) bool {
	for _, s := range list {
		if stmtHasBarrier(s) {
			return true
		}
	}
	return false
}

func stmtHasBarrier(s ir.Stmt) bool {
	switch s := s.(type) {
	case *ir.Barrier:
		return true
	case *ir.Block:
		return hasBarrier(s.Body)
	case *ir.If:
		return hasBarrier(s.Then) || hasBarrier(s.Else)
	case *ir.For:
		return hasBarrier(s.Body)
	}
	return false
}

// groupStmts splits list at its barriers: the statements between two
// barriers run thread by thread; an If, For or Block holding a barrier runs
// at group level (its condition is uniform: the front end checks it) with
// its body split the same way.
func (c *compiler) groupStmts(list []ir.Stmt) (gnode, error) {
	var nodes []gnode
	var run []ir.Stmt
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		s, err := c.stmts(run)
		run = nil
		if err != nil {
			return err
		}
		nodes = append(nodes, perThread(s))
		return nil
	}
	for _, s := range list {
		if !stmtHasBarrier(s) {
			run = append(run, s)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		var n gnode
		var err error
		switch s := s.(type) {
		case *ir.Barrier:
			continue
		case *ir.Block:
			n, err = c.groupStmts(s.Body)
		case *ir.If:
			n, err = c.groupIf(s)
		case *ir.For:
			n, err = c.groupFor(s)
		}
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return gseq(nodes), nil
}

// perThread runs s on each running thread in turn.
func perThread(s stmt) gnode {
	return func(act []*thread) {
		for _, t := range act {
			if t.ctl == ctlNone {
				t.ctl = s(t)
			}
		}
	}
}

func gseq(nodes []gnode) gnode {
	if len(nodes) == 1 {
		return nodes[0]
	}
	return func(act []*thread) {
		for _, n := range nodes {
			n(act)
		}
	}
}

// running returns the threads of act that are running, in a new slice.
func running(act []*thread) []*thread {
	out := make([]*thread, 0, len(act))
	for _, t := range act {
		if t.ctl == ctlNone {
			out = append(out, t)
		}
	}
	return out
}

// groupIf runs the threads whose condition holds through Then, then the
// others through Else (the condition is uniform, so one of them is empty).
func (c *compiler) groupIf(s *ir.If) (gnode, error) {
	cond, err := exprAs[bool](c, s.Cond)
	if err != nil {
		return nil, err
	}
	then, err := c.groupStmts(s.Then)
	if err != nil {
		return nil, err
	}
	els, err := c.groupStmts(s.Else)
	if err != nil {
		return nil, err
	}
	cf := cond.get()
	return func(act []*thread) {
		var yes, no []*thread
		for _, t := range act {
			if t.ctl != ctlNone {
				continue
			}
			if cf(t) {
				yes = append(yes, t)
			} else {
				no = append(no, t)
			}
		}
		if len(yes) > 0 {
			then(yes)
		}
		if len(no) > 0 {
			els(no)
		}
	}, nil
}

// groupFor runs a loop over the threads still in it: each iteration runs
// the body (split at its barriers) over them; a thread leaves when its
// condition fails, or it breaks or returns.
func (c *compiler) groupFor(s *ir.For) (gnode, error) {
	init, cond, post, err := c.forParts(s)
	if err != nil {
		return nil, err
	}
	body, err := c.groupStmts(s.Body)
	if err != nil {
		return nil, err
	}
	return func(act []*thread) {
		live := running(act)
		for _, t := range live {
			init(t)
		}
		for {
			if cond != nil {
				n := 0
				for _, t := range live {
					if cond(t) {
						live[n] = t
						n++
					}
				}
				live = live[:n]
			}
			if len(live) == 0 {
				return
			}
			body(live)
			n := 0
			for _, t := range live {
				switch t.ctl {
				case ctlNone:
				case ctlContinue:
					t.ctl = ctlNone
				case ctlBreak:
					t.ctl = ctlNone
					continue
				default: // returned
					continue
				}
				live[n] = t
				n++
			}
			live = live[:n]
			for _, t := range live {
				post(t)
			}
		}
	}, nil
}
