package cuda

import (
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// block appends stmts to b, indented by depth tabs.
func (fe *funcEmitter) block(b *strings.Builder, stmts []ir.Stmt, depth int) error {
	for _, s := range stmts {
		if err := fe.stmt(b, s, depth); err != nil {
			return err
		}
	}
	return nil
}

// line appends one indented line.
func line(b *strings.Builder, depth int, text string) {
	b.WriteString(strings.Repeat("\t", depth))
	b.WriteString(text)
	b.WriteString("\n")
}

// stmt appends s to b.
func (fe *funcEmitter) stmt(b *strings.Builder, s ir.Stmt, depth int) error {
	switch s := s.(type) {
	case *ir.Decl:
		return fe.decl(b, s, depth)
	case *ir.Assign:
		return fe.assign(b, s, depth)
	case *ir.ExprStmt:
		switch s.X.(type) {
		case *ir.Call, *ir.Atomic:
		default:
			return malformed(s.Pos, "expression statement of a %T", s.X)
		}
		x, err := fe.expr(s.X)
		if err != nil {
			return err
		}
		line(b, depth, bare(x)+";")
	case *ir.If:
		return fe.ifStmt(b, s, depth, false)
	case *ir.For:
		return fe.forStmt(b, s, depth)
	case *ir.Break:
		line(b, depth, "break;")
	case *ir.Continue:
		line(b, depth, "continue;")
	case *ir.Return:
		return fe.returnStmt(b, s, depth)
	case *ir.Barrier:
		if !fe.f.Kernel {
			return malformed(s.Pos, "barrier in helper %s", fe.f.Name)
		}
		line(b, depth, "__syncthreads();")
	case *ir.Store4:
		return fe.store4(b, s, depth)
	case *ir.MatMulAdd:
		return fe.matMul(b, s, depth)
	case *ir.MMA:
		return fe.mma(b, s, depth)
	case *ir.LoadMatrices:
		return fe.loadMatrices(b, s, depth)
	case *ir.CopyAsync:
		return fe.copyAsync(b, s, depth)
	case *ir.CopyAsyncCommit, *ir.CopyAsyncWait:
		return fe.copyAsyncSync(b, s, depth)
	case *ir.Block:
		line(b, depth, "{")
		if err := fe.block(b, s.Body, depth+1); err != nil {
			return err
		}
		line(b, depth, "}")
	case nil:
		return malformed(fe.f.Pos, "missing statement in %s", fe.f.Name)
	default:
		return malformed(s.StmtPos(), "statement %T", s)
	}
	return nil
}

// zeroValue spells the zero value of a scalar or vector type.
func zeroValue(t ir.Type, pos ir.Pos) (string, error) {
	if isFloat4(t) {
		return "make_float4(0.0f, 0.0f, 0.0f, 0.0f)", nil
	}
	s, ok := t.(ir.Scalar)
	if !ok {
		return "", malformed(pos, "zero value of a %T", t)
	}
	return constant(&ir.Const{Type: s, Pos: pos})
}

// declText spells a declaration of a scalar or vector local with its
// initial value, without the semicolon (it also serves as a for clause).
func (fe *funcEmitter) declText(s *ir.Decl) (string, error) {
	var init string
	var err error
	if s.Init == nil {
		init, err = zeroValue(s.Var.Type, s.Pos)
	} else {
		init, err = fe.expr(s.Init)
	}
	init = bare(init)
	if err != nil {
		return "", err
	}
	d, err := declare(s.Var.Type, fe.define(s.Var), s.Pos)
	if err != nil {
		return "", err
	}
	return d + " = " + init, nil
}

func (fe *funcEmitter) checkLocal(s *ir.Decl) error {
	if s.Var == nil || s.Var.Class != ir.Local {
		return malformed(s.Pos, "declaration of something that is not a local")
	}
	if _, dup := fe.names[s.Var]; dup {
		return malformed(s.Pos, "%s declared twice", s.Var.Name)
	}
	return nil
}

func (fe *funcEmitter) decl(b *strings.Builder, s *ir.Decl, depth int) error {
	if err := fe.checkLocal(s); err != nil {
		return err
	}
	if _, isArray := s.Var.Type.(*ir.Array); !isArray {
		d, err := fe.declText(s)
		if err != nil {
			return err
		}
		line(b, depth, d+";")
		return nil
	}
	if s.Init == nil {
		// The initial value is read before the name is in scope (as in Go).
		d, err := declare(s.Var.Type, fe.define(s.Var), s.Pos)
		if err != nil {
			return err
		}
		line(b, depth, d+" = {};")
		return nil
	}
	src, err := fe.expr(s.Init)
	if err != nil {
		return err
	}
	d, err := declare(s.Var.Type, fe.define(s.Var), s.Pos)
	if err != nil {
		return err
	}
	line(b, depth, d+";")
	return fe.copyArray(b, fe.names[s.Var], src, s.Var.Type.(*ir.Array), depth)
}

// copyArray copies array src to dst element by element (C++ arrays are not
// values), binding each to a reference first so that each is evaluated once.
func (fe *funcEmitter) copyArray(b *strings.Builder, dst, src string, t *ir.Array, depth int) error {
	fe.temps++
	n := itoa(fe.temps)
	d, s := helperPrefix+"dst"+n, helperPrefix+"src"+n
	// References with the array's type spelled out: NVRTC before 12 takes
	// C++03 by default, where auto is a storage class.
	sDecl, err := declare(t, "(&"+s+")", ir.Pos{})
	if err != nil {
		return err
	}
	dDecl, err := declare(t, "(&"+d+")", ir.Pos{})
	if err != nil {
		return err
	}
	line(b, depth, "{")
	line(b, depth+1, "const "+sDecl+" = "+src+";")
	line(b, depth+1, dDecl+" = "+dst+";")
	var idx strings.Builder
	level := depth + 1
	var elem ir.Type = t
	for a, ok := elem.(*ir.Array); ok; a, ok = elem.(*ir.Array) {
		i := helperPrefix + "i" + n + "_" + itoa(level-depth-1)
		line(b, level, "for (int "+i+" = 0; "+i+" < "+itoa(a.Len)+"; "+i+"++)")
		idx.WriteString("[" + i + "]")
		elem = a.Elem
		level++
	}
	line(b, level, d+idx.String()+" = "+s+idx.String()+";")
	line(b, depth, "}")
	return nil
}

// checkPlace verifies that p may be assigned to.
func checkPlace(p ir.Expr, pos ir.Pos) error {
	switch p := p.(type) {
	case *ir.Ref:
		if p.Var != nil && (p.Var.Class == ir.Local || p.Var.Class == ir.Param) {
			switch p.Var.Type.(type) {
			case ir.Scalar, *ir.Vec:
				return nil
			}
		}
	case *ir.Index:
		return nil
	case *ir.Lane:
		return checkPlace(p.X, pos)
	}
	return malformed(pos, "assignment to a %T", p)
}

// assignText spells a scalar or vector assignment without the semicolon
// (it also serves as a for clause).
func (fe *funcEmitter) assignText(s *ir.Assign) (string, error) {
	if err := checkPlace(s.Place, s.Pos); err != nil {
		return "", err
	}
	place, err := fe.expr(s.Place)
	if err != nil {
		return "", err
	}
	v, err := fe.expr(s.Value)
	if err != nil {
		return "", err
	}
	return place + " = " + bare(v), nil
}

func (fe *funcEmitter) assign(b *strings.Builder, s *ir.Assign, depth int) error {
	if s.Place == nil || s.Value == nil {
		return malformed(s.Pos, "assignment without a place or a value")
	}
	if t, isArray := s.Place.ExprType().(*ir.Array); isArray {
		if err := checkPlace(s.Place, s.Pos); err != nil {
			return err
		}
		src, err := fe.expr(s.Value)
		if err != nil {
			return err
		}
		dst, err := fe.expr(s.Place)
		if err != nil {
			return err
		}
		return fe.copyArray(b, dst, src, t, depth)
	}
	a, err := fe.assignText(s)
	if err != nil {
		return err
	}
	line(b, depth, a+";")
	return nil
}

func (fe *funcEmitter) ifStmt(b *strings.Builder, s *ir.If, depth int, elseIf bool) error {
	c, err := fe.expr(s.Cond)
	if err != nil {
		return err
	}
	if t, ok := s.Cond.ExprType().(ir.Scalar); !ok || t != ir.Bool {
		return malformed(s.Pos, "if condition of type %v", s.Cond.ExprType())
	}
	head := "if (" + bare(c) + ") {"
	if elseIf {
		b.WriteString(head + "\n")
	} else {
		line(b, depth, head)
	}
	if err := fe.block(b, s.Then, depth+1); err != nil {
		return err
	}
	switch {
	case len(s.Else) == 0:
		line(b, depth, "}")
	case len(s.Else) == 1 && isIf(s.Else[0]):
		b.WriteString(strings.Repeat("\t", depth) + "} else ")
		return fe.ifStmt(b, s.Else[0].(*ir.If), depth, true)
	default:
		line(b, depth, "} else {")
		if err := fe.block(b, s.Else, depth+1); err != nil {
			return err
		}
		line(b, depth, "}")
	}
	return nil
}

func isIf(s ir.Stmt) bool {
	_, ok := s.(*ir.If)
	return ok
}

// maxPragmaUnroll is the longest constant loop the CUDA emitter asks NVRTC
// to unroll fully: beyond it the code grows for little gain.
const maxPragmaUnroll = 64

func (fe *funcEmitter) forStmt(b *strings.Builder, s *ir.For, depth int) error {
	var init, cond, post string
	var err error
	switch i := s.Init.(type) {
	case nil:
	case *ir.Decl:
		if err := fe.checkLocal(i); err != nil {
			return err
		}
		if _, isArray := i.Var.Type.(*ir.Array); isArray {
			return malformed(i.Pos, "array declared in a for clause")
		}
		init, err = fe.declText(i)
	case *ir.Assign:
		if _, isArray := i.Place.ExprType().(*ir.Array); isArray {
			return malformed(i.Pos, "array assigned in a for clause")
		}
		init, err = fe.assignText(i)
	default:
		return malformed(s.Pos, "for init of a %T", s.Init)
	}
	if err != nil {
		return err
	}
	if s.Cond != nil {
		if t, ok := s.Cond.ExprType().(ir.Scalar); !ok || t != ir.Bool {
			return malformed(s.Pos, "for condition of type %v", s.Cond.ExprType())
		}
		if cond, err = fe.expr(s.Cond); err != nil {
			return err
		}
		cond = bare(cond)
	}
	switch p := s.Post.(type) {
	case nil:
	case *ir.Assign:
		if _, isArray := p.Place.ExprType().(*ir.Array); isArray {
			return malformed(p.Pos, "array assigned in a for clause")
		}
		if post, err = fe.assignText(p); err != nil {
			return err
		}
	default:
		return malformed(s.Pos, "for post of a %T", s.Post)
	}
	clauses := ";;"
	if init != "" || cond != "" || post != "" {
		clauses = strings.TrimRight(init+"; "+cond+"; "+post, " ")
	}
	if s.Trips > 0 && s.Trips <= maxPragmaUnroll {
		// A constant trip count the optimizer left rolled (a loop around
		// a register tile): NVRTC unrolls it fully on request.
		line(b, depth, "#pragma unroll")
	}
	line(b, depth, "for ("+clauses+") {")
	if err := fe.block(b, s.Body, depth+1); err != nil {
		return err
	}
	line(b, depth, "}")
	return nil
}

func (fe *funcEmitter) returnStmt(b *strings.Builder, s *ir.Return, depth int) error {
	if (s.Value == nil) != (fe.f.Result == nil) {
		return malformed(s.Pos, "return with a value that %s does not return, or without one it does", fe.f.Name)
	}
	if s.Value == nil {
		line(b, depth, "return;")
		return nil
	}
	v, err := fe.expr(s.Value)
	if err != nil {
		return err
	}
	line(b, depth, "return "+bare(v)+";")
	return nil
}

func (fe *funcEmitter) store4(b *strings.Builder, s *ir.Store4, depth int) error {
	if s.Buf == nil || s.Buf.Var == nil {
		return malformed(s.Pos, "Store4 to no buffer")
	}
	if sl, ok := s.Buf.Var.Type.(*ir.Slice); !ok || sl.Elem != ir.F32 || !isFloat4(s.Value.ExprType()) {
		return malformed(s.Pos, "Store4 of a %T to a %T", s.Value.ExprType(), s.Buf.Var.Type)
	}
	buf, err := fe.ref(s.Buf)
	if err != nil {
		return err
	}
	i, err := fe.expr(s.Index)
	if err != nil {
		return err
	}
	v, err := fe.expr(s.Value)
	if err != nil {
		return err
	}
	line(b, depth, "reinterpret_cast<float4*>("+buf+")["+bare(i)+"] = "+bare(v)+";")
	return nil
}
