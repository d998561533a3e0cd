package front

import (
	"go/ast"
	"go/constant"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/anygpu/gpu/kernel/internal/kmath"
)

// matMulHint is how a MatMulAdd call is written.
const matMulHint = "write kernel.MatMulAdd(c, a, b, kernel.MatMul{M: 16, N: 16, K: 16, Precision: kernel.PrecisionBFloat16}) with c, a and b kernel.Shared[[N]float32]() arrays of the kernel and constant fields"

// matMulAdd lowers kernel.MatMulAdd(c, a, b, kernel.MatMul{...}), a
// group-wide statement that, like Barrier, only a kernel may call.
func (f *fnLower) matMulAdd(call *ast.CallExpr) []ir.Stmt {
	if !f.fn.Kernel {
		f.errorf(call, "call it in the kernel, at a point every thread of the group reaches", "kernel.MatMulAdd in a helper is not allowed")
		return nil
	}
	if len(call.Args) != 4 {
		f.errorf(call, matMulHint, "kernel.MatMulAdd takes four arguments")
		return nil
	}
	s := &ir.MatMulAdd{Pos: f.pos(call)}
	names := []string{"c", "a", "b"}
	refs := make([]*ir.Ref, 3)
	lens := make([]int, 3)
	for i, arg := range call.Args[:3] {
		refs[i], lens[i] = f.matMulArray(arg, names[i], "kernel.MatMulAdd")
	}
	shape, ok := f.matMulShape(call.Args[3])
	if !ok || refs[0] == nil || refs[1] == nil || refs[2] == nil {
		return nil
	}
	if refs[0].Var == refs[1].Var || refs[0].Var == refs[2].Var {
		f.errorf(call.Args[0], "accumulate into a shared array of its own", "kernel.MatMulAdd with c also an operand is not allowed")
		return nil
	}
	shape = shape.WithDefaults()
	for _, d := range []struct {
		name string
		v    int
	}{{"M", shape.M}, {"N", shape.N}, {"K", shape.K}} {
		if d.v <= 0 || d.v%16 != 0 {
			f.errorf(call.Args[3], "make each of M, N and K a positive multiple of 16 (pad the tile with zeros)",
				"kernel.MatMul with %s = %d is not allowed", d.name, d.v)
			return nil
		}
	}
	if err := shape.Check(lens[0], lens[1], lens[2]); err != nil {
		f.errorf(call, "make the strides at least the rows' lengths and each shared array long enough: (rows-1)·stride + row length elements",
			"kernel.MatMulAdd: %v", err)
		return nil
	}
	s.C, s.A, s.B = refs[0], refs[1], refs[2]
	s.M, s.N, s.K = shape.M, shape.N, shape.K
	s.LDA, s.LDB, s.LDC = shape.LDA, shape.LDB, shape.LDC
	s.TransposeB, s.Precision = shape.TransposeB, ir.Precision(shape.Precision)
	f.fn.Barriers = true
	return []ir.Stmt{s}
}

// matMulArray lowers an argument of MatMulAdd (or MatMulAddFrom: fn) that must name a kernel's
// one-dimensional shared float32 array, and returns its length.
func (f *fnLower) matMulArray(e ast.Expr, name, fn string) (*ir.Ref, int) {
	if id, ok := unparen(e).(*ast.Ident); ok {
		if v := f.varOf(id); v != nil && v.Class == ir.Shared {
			if at, ok := v.Type.(*ir.Array); ok && at.Elem == ir.F32 {
				return &ir.Ref{Var: v, Pos: f.pos(id)}, at.Len
			}
			f.errorf(e, "declare it as a one-dimensional float32 array: "+id.Name+" := kernel.Shared[[256]float32]()",
				"%s of shared array %s is not allowed: it is not a [N]float32", fn, id.Name)
			return nil, 0
		}
	}
	f.errorf(e, "pass a kernel.Shared[[N]float32]() array of the kernel by its name",
		"%s's %s must be a shared float32 array", fn, name)
	return nil, 0
}

// matMulShape reads the kernel.MatMul literal of a MatMulAdd.
func (f *fnLower) matMulShape(e ast.Expr) (kmath.TileShape, bool) {
	var s kmath.TileShape
	lit, ok := unparen(e).(*ast.CompositeLit)
	if !ok {
		f.errorf(e, matMulHint, "kernel.MatMulAdd's shape must be a kernel.MatMul literal")
		return s, false
	}
	ok = true
	for _, el := range lit.Elts {
		kv, isKV := el.(*ast.KeyValueExpr)
		key, isID := (*ast.Ident)(nil), false
		if isKV {
			key, isID = kv.Key.(*ast.Ident)
		}
		if !isID {
			f.errorf(el, matMulHint, "kernel.MatMul fields without names are not allowed")
			ok = false
			continue
		}
		tv := f.l.info.Types[kv.Value]
		if tv.Value == nil {
			f.errorf(kv.Value, "use a constant (a literal or a const)", "kernel.MatMul's %s must be a constant", key.Name)
			ok = false
			continue
		}
		switch key.Name {
		case "TransposeB":
			s.TransposeB = constant.BoolVal(tv.Value)
			continue
		case "Precision":
			p, exact := constant.Uint64Val(tv.Value)
			if !exact || p > uint64(kmath.PrecisionFloat16) {
				f.errorf(kv.Value, "use kernel.PrecisionFloat32, kernel.PrecisionBFloat16 or kernel.PrecisionFloat16",
					"kernel.MatMul's Precision is not one of the precisions")
				ok = false
			}
			s.Precision = kmath.Precision(p)
			continue
		}
		n, exact := constant.Int64Val(constant.ToInt(tv.Value))
		if !exact || n < 0 || n > 1<<20 {
			f.errorf(kv.Value, "use a small non-negative constant", "kernel.MatMul's %s = %s is out of range", key.Name, tv.Value)
			ok = false
			continue
		}
		switch key.Name {
		case "M":
			s.M = int(n)
		case "N":
			s.N = int(n)
		case "K":
			s.K = int(n)
		case "LDA":
			s.LDA = int(n)
		case "LDB":
			s.LDB = int(n)
		case "LDC":
			s.LDC = int(n)
		}
	}
	return s, ok
}

// matMulFromHint is how a MatMulAddFrom call is written.
const matMulFromHint = "write kernel.MatMulAddFrom(c, a, aOff, lda, b, bOff, ldb, kernel.MatMul{M: 64, N: 64, K: 16}) with c a kernel.Shared[[N]float32]() array, a and b []float32 parameters, uint32 offsets and strides and constant fields"

// matMulAddFrom lowers kernel.MatMulAddFrom(c, a, aOff, lda, b, bOff, ldb,
// kernel.MatMul{...}): MatMulAdd with A and B read from buffers. The
// offsets and strides must be the same in every thread of the group, which
// checkUniform verifies with the rest of the kernel.
func (f *fnLower) matMulAddFrom(call *ast.CallExpr) []ir.Stmt {
	if !f.fn.Kernel {
		f.errorf(call, "call it in the kernel, at a point every thread of the group reaches", "kernel.MatMulAddFrom in a helper is not allowed")
		return nil
	}
	if len(call.Args) != 8 {
		f.errorf(call, matMulFromHint, "kernel.MatMulAddFrom takes eight arguments")
		return nil
	}
	c, lc := f.matMulArray(call.Args[0], "c", "kernel.MatMulAddFrom")
	a := f.matMulBuffer(call.Args[1], "a")
	b := f.matMulBuffer(call.Args[4], "b")
	from := &ir.MatMulFrom{AOff: f.expr(call.Args[2]), LDA: f.expr(call.Args[3]), BOff: f.expr(call.Args[5]), LDB: f.expr(call.Args[6])}
	shape, ok := f.matMulShape(call.Args[7])
	if !ok || c == nil || a == nil || b == nil {
		return nil
	}
	for _, x := range from.Exprs() {
		if x == nil {
			return nil
		}
	}
	if shape.LDA != 0 || shape.LDB != 0 {
		f.errorf(call.Args[7], "give the strides of a and b as lda and ldb and leave LDA and LDB out",
			"kernel.MatMulAddFrom with LDA or LDB in its kernel.MatMul is not allowed")
		return nil
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"M", shape.M}, {"N", shape.N}, {"K", shape.K}} {
		if d.v <= 0 || d.v%16 != 0 {
			f.errorf(call.Args[7], "make each of M, N and K a positive multiple of 16 (pad the tile with zeros)",
				"kernel.MatMul with %s = %d is not allowed", d.name, d.v)
			return nil
		}
	}
	shape = shape.WithDefaults() // LDA and LDB only stand in for the buffers' strides here
	if err := shape.Check(lc, shape.M*shape.K, max(shape.K*shape.N, 0)); err != nil {
		f.errorf(call, "make LDC at least N and the shared array long enough: (M-1)·LDC + N elements",
			"kernel.MatMulAddFrom: %v", err)
		return nil
	}
	s := &ir.MatMulAdd{C: c, A: a, B: b, M: shape.M, N: shape.N, K: shape.K, LDC: shape.LDC,
		TransposeB: shape.TransposeB, Precision: ir.Precision(shape.Precision), From: from, Pos: f.pos(call)}
	f.fn.Barriers = true
	return []ir.Stmt{s}
}

// matMulBuffer lowers an operand of MatMulAddFrom that must name a
// []float32 parameter of the kernel.
func (f *fnLower) matMulBuffer(e ast.Expr, name string) *ir.Ref {
	if id, ok := unparen(e).(*ast.Ident); ok {
		if v := f.varOf(id); v != nil && v.Class == ir.Param {
			if st, ok := v.Type.(*ir.Slice); ok && st.Elem == ir.F32 {
				return &ir.Ref{Var: v, Pos: f.pos(id)}
			}
		}
	}
	f.errorf(e, "pass a []float32 parameter of the kernel by its name (with the element offset as the next argument)",
		"kernel.MatMulAddFrom's %s must be a []float32 buffer of the kernel", name)
	return nil
}
