package front

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// stmts lowers a statement list; top is true for a kernel body's own list
// (where kernel.Shared may be called).
func (f *fnLower) stmts(list []ast.Stmt, top bool) []ir.Stmt {
	var out []ir.Stmt
	for _, s := range list {
		out = append(out, f.stmt(s, top)...)
	}
	return out
}

// stmt lowers one statement to zero or more.
func (f *fnLower) stmt(s ast.Stmt, top bool) []ir.Stmt {
	switch s := s.(type) {
	case *ast.DeclStmt:
		return f.declStmt(s, top)
	case *ast.AssignStmt:
		return f.assign(s, top)
	case *ast.IncDecStmt:
		op := ir.Add
		if s.Tok == token.DEC {
			op = ir.Sub
		}
		return f.compound(s, s.X, op, nil)
	case *ast.ExprStmt:
		return f.exprStmt(s)
	case *ast.BlockStmt:
		return []ir.Stmt{&ir.Block{Body: f.stmts(s.List, false), Pos: f.pos(s)}}
	case *ast.IfStmt:
		return f.ifStmt(s)
	case *ast.ForStmt, *ast.RangeStmt:
		return f.loop(s, nil)
	case *ast.LabeledStmt:
		switch s.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			lbl, _ := f.l.info.Defs[s.Label].(*types.Label)
			return f.loop(s.Stmt, lbl)
		}
		f.errorf(s, "label only for loops (break L and continue L leave or continue them)",
			"label %s on a statement other than a for loop is not allowed", s.Label.Name)
		return f.stmt(s.Stmt, top)
	case *ast.BranchStmt:
		return f.branch(s)
	case *ast.ReturnStmt:
		return f.returnStmt(s)
	case *ast.EmptyStmt:
		return nil
	case *ast.GoStmt:
		f.errorf(s, "every thread of the launch runs the kernel already: split the work by kernel.GlobalX()",
			"goroutines are not allowed in a kernel")
	case *ast.DeferStmt:
		f.errorf(s, "call it at the end of the function", "defer is not allowed in a kernel")
	case *ast.SelectStmt:
		f.errorf(s, "threads of a group share data through kernel.Shared arrays and kernel.Barrier",
			"select (channels) is not allowed in a kernel")
	case *ast.SendStmt:
		f.errorf(s, "threads of a group share data through kernel.Shared arrays and kernel.Barrier",
			"sending on a channel is not allowed in a kernel")
	case *ast.SwitchStmt:
		f.errorf(s, "write if / else if / else", "switch is not allowed in a kernel")
	case *ast.TypeSwitchStmt:
		f.errorf(s, "use concrete scalar types", "type switches (interfaces) are not allowed in a kernel")
	default:
		f.errorf(s, "", "this statement is not allowed in a kernel")
	}
	return nil
}

// declStmt lowers var declarations; constants are inlined where used.
func (f *fnLower) declStmt(s *ast.DeclStmt, top bool) []ir.Stmt {
	gen, ok := s.Decl.(*ast.GenDecl)
	if !ok {
		return nil
	}
	switch gen.Tok {
	case token.CONST:
		return nil
	case token.TYPE:
		f.errorf(s, "declare the type at package level", "type declarations inside a kernel function are not allowed")
		return nil
	case token.IMPORT:
		return nil
	}
	var out []ir.Stmt
	for _, spec := range gen.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) == 0 {
			for _, id := range vs.Names {
				if id.Name == "_" {
					continue
				}
				if v := f.declare(id); v != nil {
					out = append(out, &ir.Decl{Var: v, Pos: f.pos(id)})
				}
			}
			continue
		}
		if len(vs.Values) != len(vs.Names) {
			f.errorf(vs.Values[0], "return one value from a helper", "multiple results are not allowed in a kernel")
			continue
		}
		// The new variables are not in scope in the values: declare in order.
		for i, id := range vs.Names {
			out = append(out, f.define(id, vs.Values[i], top)...)
		}
	}
	return out
}

// declare makes the IR variable of a new Go local.
func (f *fnLower) declare(id *ast.Ident) *ir.Var {
	obj := f.l.info.Defs[id]
	if obj == nil {
		return nil
	}
	t := f.l.irType(obj.Type(), id.Pos(), "variable "+id.Name)
	if t == nil {
		return nil
	}
	v := &ir.Var{Name: f.names.name(id.Name), Type: t, Class: ir.Local, Pos: f.pos(id)}
	f.vars[obj] = v
	return v
}

// define lowers the declaration of the new variable id with value e.
func (f *fnLower) define(id *ast.Ident, e ast.Expr, top bool) []ir.Stmt {
	if call, ok := unparen(e).(*ast.CallExpr); ok && f.isKernelFunc(call.Fun, "Shared") {
		f.shared(id, call, top)
		return nil
	}
	if id.Name == "_" {
		return f.discard(e)
	}
	n := len(f.l.errs)
	value := f.initExpr(e)
	if len(f.l.errs) > n {
		return nil // the value's error says it; the variable stays undeclared
	}
	v := f.declare(id)
	if v == nil {
		return nil
	}
	return []ir.Stmt{&ir.Decl{Var: v, Init: convert(value, v.Type), Pos: f.pos(id)}}
}

// initExpr lowers a value that initializes or is assigned to a variable.
func (f *fnLower) initExpr(e ast.Expr) ir.Expr {
	if lit, ok := unparen(e).(*ast.CompositeLit); ok {
		if _, ok := f.typeOf(lit).Underlying().(*types.Array); ok {
			f.errorf(lit, "declare it (var a [4]float32) and assign the elements", "array literals are not allowed in a kernel")
			return bad(f.pos(lit))
		}
	}
	return f.expr(e)
}

// discard lowers _ = e: only its effects (an atomic) remain.
func (f *fnLower) discard(e ast.Expr) []ir.Stmt {
	x := f.expr(e)
	if _, ok := x.(*ir.Atomic); ok {
		return []ir.Stmt{&ir.ExprStmt{X: x, Pos: x.ExprPos()}}
	}
	return nil
}

// shared declares the shared array id := kernel.Shared[T]().
func (f *fnLower) shared(id *ast.Ident, call *ast.CallExpr, top bool) {
	if !f.fn.Kernel {
		f.errorf(call, "declare it in the kernel", "kernel.Shared in a helper is not allowed")
		return
	}
	if !top {
		f.errorf(call, "declare it among the kernel body's top-level statements: sh := kernel.Shared[[256]float32]()",
			"kernel.Shared inside a block is not allowed")
		return
	}
	if id.Name == "_" {
		return
	}
	obj := f.l.info.Defs[id]
	if obj == nil {
		f.errorf(id, "declare a new variable with :=", "kernel.Shared assigned to an existing variable is not allowed")
		return
	}
	ptr, _ := obj.Type().(*types.Pointer)
	var t ir.Type
	if ptr != nil {
		if _, ok := ptr.Elem().Underlying().(*types.Array); ok {
			t = f.l.irType(ptr.Elem(), call.Pos(), "shared array "+id.Name)
		}
	}
	if t == nil {
		if ptr != nil {
			if _, ok := ptr.Elem().Underlying().(*types.Array); !ok {
				f.errorf(call, "kernel.Shared[[256]float32]()", "kernel.Shared of %s is not allowed: it takes an array type", ptr.Elem())
			}
		}
		return
	}
	v := &ir.Var{Name: f.names.name(id.Name), Type: t, Class: ir.Shared, Pos: f.pos(id)}
	f.vars[obj] = v
	f.fn.Shared = append(f.fn.Shared, v)
}

// assign lowers =, := and op=.
func (f *fnLower) assign(s *ast.AssignStmt, top bool) []ir.Stmt {
	if op, ok := compoundOps[s.Tok]; ok {
		return f.compound(s, s.Lhs[0], op, s.Rhs[0])
	}
	if len(s.Lhs) != len(s.Rhs) {
		f.errorf(s.Rhs[0], "return one value from a helper", "multiple results are not allowed in a kernel")
		return nil
	}
	if s.Tok == token.DEFINE {
		redeclares := false
		for _, l := range s.Lhs {
			id := l.(*ast.Ident)
			if id.Name != "_" && f.l.info.Defs[id] == nil {
				redeclares = true
			}
		}
		if len(s.Lhs) == 1 || !redeclares {
			var out []ir.Stmt
			for i, l := range s.Lhs {
				id := l.(*ast.Ident)
				if f.l.info.Defs[id] == nil && id.Name != "_" {
					out = append(out, f.assignOne(id, s.Rhs[i])...)
					continue
				}
				out = append(out, f.define(id, s.Rhs[i], top)...)
			}
			return out
		}
	}
	if len(s.Lhs) == 1 {
		return f.assignOne(s.Lhs[0], s.Rhs[0])
	}
	// A parallel assignment: every value first, into temporaries.
	var out []ir.Stmt
	temps := make([]ir.Expr, len(s.Rhs))
	for i, r := range s.Rhs {
		x := f.initExpr(r)
		if c, ok := x.(*ir.Const); ok {
			temps[i] = c
			continue
		}
		t := f.l.quietType(f.typeOf(s.Lhs[i]))
		if t == nil {
			t = f.l.quietType(f.typeOf(r))
		}
		if t == nil {
			temps[i] = x
			continue
		}
		tmp := f.newTemp("tmp", t, f.pos(r))
		out = append(out, &ir.Decl{Var: tmp, Init: convert(x, t), Pos: f.pos(r)})
		temps[i] = &ir.Ref{Var: tmp, Pos: f.pos(r)}
	}
	for i, l := range s.Lhs {
		if id, ok := l.(*ast.Ident); ok && s.Tok == token.DEFINE && f.l.info.Defs[id] != nil {
			if v := f.declare(id); v != nil {
				out = append(out, &ir.Decl{Var: v, Init: convert(temps[i], v.Type), Pos: f.pos(id)})
			}
			continue
		}
		place := f.place(l)
		if place == nil {
			continue
		}
		out = append(out, &ir.Assign{Place: place, Value: convert(temps[i], place.ExprType()), Pos: f.pos(l)})
	}
	return out
}

// assignOne lowers l = r.
func (f *fnLower) assignOne(l, r ast.Expr) []ir.Stmt {
	if call, ok := unparen(r).(*ast.CallExpr); ok && f.isKernelFunc(call.Fun, "Shared") {
		f.errorf(call, "declare a new variable: sh := kernel.Shared[[256]float32]()", "kernel.Shared assigned to an existing variable is not allowed")
		return nil
	}
	place := f.place(l)
	value := f.initExpr(r)
	if place == nil {
		if _, ok := value.(*ir.Atomic); ok {
			return []ir.Stmt{&ir.ExprStmt{X: value, Pos: value.ExprPos()}}
		}
		return nil
	}
	return []ir.Stmt{&ir.Assign{Place: place, Value: convert(value, place.ExprType()), Pos: f.pos(l)}}
}

// compoundOps maps op= tokens to operators.
var compoundOps = map[token.Token]ir.Op{
	token.ADD_ASSIGN: ir.Add, token.SUB_ASSIGN: ir.Sub, token.MUL_ASSIGN: ir.Mul, token.QUO_ASSIGN: ir.Div,
	token.REM_ASSIGN: ir.Rem, token.AND_ASSIGN: ir.And, token.OR_ASSIGN: ir.Or, token.XOR_ASSIGN: ir.Xor,
	token.AND_NOT_ASSIGN: ir.AndNot, token.SHL_ASSIGN: ir.Shl, token.SHR_ASSIGN: ir.Shr,
}

// compound lowers x op= y and x++ (y nil) to x = x op y, hoisting index
// expressions with effects so the place is evaluated once.
func (f *fnLower) compound(s ast.Node, l ast.Expr, op ir.Op, r ast.Expr) []ir.Stmt {
	place := f.place(l)
	if place == nil {
		f.errorf(l, "", "cannot assign to _")
		return nil
	}
	var out []ir.Stmt
	place = f.hoist(place, &out)
	t := place.ExprType()
	var y ir.Expr
	if r == nil {
		sc, _ := t.(ir.Scalar)
		y = one(sc, f.pos(l))
	} else {
		y = f.expr(r)
		if op != ir.Shl && op != ir.Shr {
			y = convert(y, t)
		}
	}
	out = append(out, &ir.Assign{Place: place, Value: &ir.Binary{Op: op, X: clonePlace(place), Y: y, Type: t, Pos: f.pos(s)}, Pos: f.pos(s)})
	return out
}

// one is the constant 1 of type s.
func one(s ir.Scalar, p ir.Pos) *ir.Const {
	c := &ir.Const{Type: s, Pos: p}
	switch {
	case s.IsSigned():
		c.Int = 1
	case s.IsInt():
		c.Uint = 1
	case s.IsFloat():
		c.Float = 1
	}
	return c
}

// hoist moves index expressions of place that have effects (calls,
// atomics) into locals declared in out.
func (f *fnLower) hoist(place ir.Expr, out *[]ir.Stmt) ir.Expr {
	switch p := place.(type) {
	case *ir.Index:
		p.X = f.hoist(p.X, out)
		if hasEffects(p.Index) {
			tmp := f.newTemp("idx", p.Index.ExprType(), p.Index.ExprPos())
			*out = append(*out, &ir.Decl{Var: tmp, Init: p.Index, Pos: p.Index.ExprPos()})
			p.Index = &ir.Ref{Var: tmp, Pos: p.Index.ExprPos()}
		}
	case *ir.Lane:
		p.X = f.hoist(p.X, out)
	}
	return place
}

// hasEffects reports whether evaluating e calls a helper or an atomic.
func hasEffects(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) {
		switch x.(type) {
		case *ir.Call, *ir.Atomic:
			found = true
		}
	})
	return found
}

// clonePlace copies the nodes of a place (Ref, Index, Lane) so that the
// place and its read are distinct trees.
func clonePlace(e ir.Expr) ir.Expr {
	switch p := e.(type) {
	case *ir.Ref:
		c := *p
		return &c
	case *ir.Index:
		c := *p
		c.X = clonePlace(p.X)
		return &c
	case *ir.Lane:
		c := *p
		c.X = clonePlace(p.X)
		return &c
	}
	return e
}

// place lowers the left side of an assignment; nil for _.
func (f *fnLower) place(e ast.Expr) ir.Expr {
	e = unparen(e)
	switch x := e.(type) {
	case *ast.Ident:
		if x.Name == "_" {
			return nil
		}
		v := f.varOf(x)
		if v == nil {
			return bad(f.pos(x))
		}
		switch {
		case v.Class == ir.Shared:
			f.errorf(x, "assign its elements: "+x.Name+"[i] = v", "assigning shared array %s is not allowed", x.Name)
		case isSlice(v.Type):
			f.errorf(x, "assign its elements: "+x.Name+"[i] = v", "assigning buffer %s is not allowed", x.Name)
		}
		return &ir.Ref{Var: v, Pos: f.pos(x)}
	case *ast.IndexExpr:
		return f.index(x)
	case *ast.SelectorExpr:
		if sel := f.l.info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && f.l.isFloat4(sel.Recv()) {
			inner := f.place(x.X)
			if ref, ok := inner.(*ir.Ref); !ok || ref.Var.Class == ir.Shared || !isVec(ref.Var.Type) {
				if inner != nil {
					f.errorf(x, "copy it into a local Float4, set the lane there and store the whole Float4 back",
						"assigning a lane of this Float4 is not allowed")
				}
				return bad(f.pos(x))
			}
			return &ir.Lane{X: inner, N: sel.Index()[0], Pos: f.pos(x)}
		}
	case *ast.StarExpr:
		f.errorf(x, "index a buffer, an array or a shared array", "pointer indirection (*p) is not allowed in a kernel")
		return bad(f.pos(x))
	}
	f.errorf(e, "assign to a local variable, or an element of a buffer, array or shared array", "assigning to this is not allowed in a kernel")
	return bad(f.pos(e))
}

// isVec reports whether t is a Vec.
func isVec(t ir.Type) bool { _, ok := t.(*ir.Vec); return ok }

// isSlice reports whether t is a buffer.
func isSlice(t ir.Type) bool { _, ok := t.(*ir.Slice); return ok }

// exprStmt lowers a call statement.
func (f *fnLower) exprStmt(s *ast.ExprStmt) []ir.Stmt {
	call, ok := unparen(s.X).(*ast.CallExpr)
	if !ok {
		f.errorf(s, "", "this statement is not allowed in a kernel")
		return nil
	}
	switch {
	case f.isKernelFunc(call.Fun, "Barrier"):
		if !f.fn.Kernel {
			f.errorf(call, "do it in the kernel", "kernel.Barrier in a helper is not allowed")
			return nil
		}
		f.fn.Barriers = true
		return []ir.Stmt{&ir.Barrier{Pos: f.pos(call)}}
	case f.isKernelFunc(call.Fun, "MatMulAdd"):
		return f.matMulAdd(call)
	case f.isKernelFunc(call.Fun, "MatMulAddFrom"):
		return f.matMulAddFrom(call)
	case f.isKernelFunc(call.Fun, "MMA"):
		return f.mma(call)
	case f.isKernelFunc(call.Fun, "LoadMatrices4"):
		return f.loadMatrices(call, 4)
	case f.isKernelFunc(call.Fun, "LoadMatrices2"):
		return f.loadMatrices(call, 2)
	case f.isKernelFunc(call.Fun, "CopyAsync"):
		return f.copyAsync(call)
	case f.isKernelFunc(call.Fun, "CopyAsyncCommit"):
		return f.copyAsyncSync(call, false)
	case f.isKernelFunc(call.Fun, "CopyAsyncWait"):
		return f.copyAsyncSync(call, true)
	case f.isKernelFunc(call.Fun, "Store4"):
		if !f.fn.Kernel {
			f.errorf(call, "do it in the kernel", "kernel.Store4 in a helper is not allowed")
			return nil
		}
		buf := f.buffer(call.Args[0], "kernel.Store4")
		idx := f.expr(call.Args[1])
		val := f.expr(call.Args[2])
		if buf == nil {
			return nil
		}
		return []ir.Stmt{&ir.Store4{Buf: buf, Index: idx, Value: val, Pos: f.pos(call)}}
	case f.isKernelFunc(call.Fun, "Shared"):
		f.errorf(call, "declare it: sh := kernel.Shared[[256]float32]()", "kernel.Shared without a variable is not allowed")
		return nil
	}
	x := f.expr(call)
	switch x.(type) {
	case *ir.Call, *ir.Atomic:
		return []ir.Stmt{&ir.ExprStmt{X: x, Pos: f.pos(call)}}
	}
	return nil
}

// ifStmt lowers if (with its init statement in an enclosing Block).
func (f *fnLower) ifStmt(s *ast.IfStmt) []ir.Stmt {
	var init []ir.Stmt
	if s.Init != nil {
		init = f.stmt(s.Init, false)
	}
	st := &ir.If{Cond: f.expr(s.Cond), Then: f.stmts(s.Body.List, false), Pos: f.pos(s)}
	switch e := s.Else.(type) {
	case *ast.BlockStmt:
		st.Else = f.stmts(e.List, false)
	case *ast.IfStmt:
		st.Else = f.ifStmt(e)
	}
	if s.Init == nil {
		return []ir.Stmt{st}
	}
	return []ir.Stmt{&ir.Block{Body: append(init, st), Pos: f.pos(s)}}
}

// returnStmt lowers return.
func (f *fnLower) returnStmt(s *ast.ReturnStmt) []ir.Stmt {
	if f.fn.Kernel || f.fn.Result == nil {
		return []ir.Stmt{&ir.Return{Pos: f.pos(s)}}
	}
	if len(s.Results) == 0 {
		if f.result == nil {
			return []ir.Stmt{&ir.Return{Pos: f.pos(s)}}
		}
		return []ir.Stmt{&ir.Return{Value: &ir.Ref{Var: f.result, Pos: f.pos(s)}, Pos: f.pos(s)}}
	}
	if len(s.Results) > 1 {
		return nil // reported at the signature
	}
	x := f.initExpr(s.Results[0])
	return []ir.Stmt{&ir.Return{Value: convert(x, f.fn.Result), Pos: f.pos(s)}}
}
