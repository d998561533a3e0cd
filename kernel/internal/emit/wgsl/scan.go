package wgsl

import (
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// rootVar is the variable an Index chain (or a Ref) reads from; nil if
// there is none.
func rootVar(e ir.Expr) *ir.Var {
	for {
		switch x := e.(type) {
		case *ir.Index:
			e = x.X
		case *ir.Ref:
			return x.Var
		default:
			return nil
		}
	}
}

// callees returns f's helpers, direct and indirect, in the module's order.
func callees(m *ir.Module, f *ir.Func) []*ir.Func {
	seen := map[*ir.Func]bool{}
	var visit func(g *ir.Func)
	visit = func(g *ir.Func) {
		ir.WalkStmts(g.Body, func(ir.Stmt) {}, func(e ir.Expr) {
			if c, ok := e.(*ir.Call); ok && c.Func != nil && !seen[c.Func] {
				seen[c.Func] = true
				visit(c.Func)
			}
		})
	}
	visit(f)
	var out []*ir.Func
	for _, g := range m.Funcs {
		if seen[g] {
			out = append(out, g)
		}
	}
	return out
}

// unsupported returns why f (with its helpers) cannot run on WebGPU, or "".
func unsupported(f *ir.Func, helpers []*ir.Func) string {
	wide, half, atomicFloat := false, false, false
	var scalar func(t ir.Type)
	scalar = func(t ir.Type) {
		switch ir.ElemScalar(t) {
		case ir.I64, ir.U64, ir.F64:
			wide = true
		case ir.F16:
			half = true
		}
	}
	for _, g := range append([]*ir.Func{f}, helpers...) {
		if g.Features&(ir.Float64|ir.Int64) != 0 {
			wide = true
		}
		if g.Features&ir.Float16 != 0 {
			half = true
		}
		if g.Features&ir.AtomicFloat != 0 {
			atomicFloat = true
		}
		for _, p := range g.Params {
			scalar(p.Type)
		}
		for _, s := range g.Shared {
			scalar(s.Type)
		}
		if g.Result != nil {
			scalar(g.Result)
		}
		ir.WalkStmts(g.Body, func(s ir.Stmt) {
			if d, ok := s.(*ir.Decl); ok {
				scalar(d.Var.Type)
			}
		}, func(e ir.Expr) {
			if t := e.ExprType(); t != nil {
				scalar(t)
			}
			if c, ok := e.(*ir.Convert); ok {
				scalar(c.To)
			}
			if a, ok := e.(*ir.Atomic); ok && a.Place != nil && ir.ElemScalar(a.Place.Type) == ir.F32 {
				atomicFloat = true
			}
		})
	}
	switch {
	case wide:
		return "float64/int64 not supported on WebGPU"
	case half:
		return "float16 not supported on WebGPU"
	case atomicFloat:
		return "float32 AtomicAdd not supported on WebGPU (WGSL has integer atomics only); accumulate in a uint32 with fixed-point, or use CUDA, Metal or the CPU"
	}
	return ""
}

// bufferUse is how a kernel touches its buffers and shared arrays.
type bufferUse struct {
	atomic map[*ir.Var]bool // the place of an atomic: declared atomic<T>
	cas    map[*ir.Var]bool // the place of a compare-exchange
	scalar map[*ir.Var]bool // read or written one element at a time
	wide   map[*ir.Var]bool // read or written by Load4/Store4
	// once holds the buffers an element of which is reached by an index
	// that must be evaluated once (see evalOnce): a vec4 buffer's element
	// spells its index twice.
	once map[*ir.Var]bool
}

// useOf scans a kernel's body.
func useOf(f *ir.Func) bufferUse {
	u := bufferUse{atomic: map[*ir.Var]bool{}, cas: map[*ir.Var]bool{}, scalar: map[*ir.Var]bool{}, wide: map[*ir.Var]bool{}, once: map[*ir.Var]bool{}}
	wideRefs := map[*ir.Ref]bool{}
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		if st, ok := s.(*ir.Store4); ok && st.Buf != nil {
			u.wide[st.Buf.Var] = true
			wideRefs[st.Buf] = true
		}
	}, func(e ir.Expr) {
		switch e := e.(type) {
		case *ir.Atomic:
			if v := rootVar(e.Place); v != nil {
				u.atomic[v] = true
				u.cas[v] = u.cas[v] || e.Op == ir.AtomicCompareExchange
			}
		case *ir.CallBuiltin:
			if e.Builtin == ir.Load4 && len(e.Args) > 0 {
				if r, ok := e.Args[0].(*ir.Ref); ok {
					u.wide[r.Var] = true
					wideRefs[r] = true
				}
			}
		case *ir.Index:
			if r, ok := e.X.(*ir.Ref); ok && evalOnce(e.Index) {
				u.once[r.Var] = true
			}
		case *ir.Ref:
			if !wideRefs[e] {
				u.scalar[e.Var] = true
			}
		}
	})
	return u
}

// vec4 reports whether buffer v is declared array<vec4<T>>: a kernel's
// buffer of 4-byte elements that it reads or writes 4 at a time (Load4,
// Store4). Those become one 16-byte access, v[i], and its one-element
// accesses a vector's lane, v[i >> 2u][i & 3u]. A buffer that is also the
// place of an atomic keeps its array<atomic<T>> (WGSL has no atomic
// vectors), and one with an element index that must be evaluated once its
// array<T>: both move 4 elements through per-buffer helpers instead. Every
// backend pads a buffer to 16 bytes (backend/webgpu, backend/vulkan,
// backend/opengl: the binding is the padded buffer), so the lanes of a last
// partial vector are inside the binding, and Load4's index is the vector's.
func (u bufferUse) vec4(v *ir.Var) bool {
	if v.Class != ir.Param || !u.wide[v] || u.atomic[v] || u.once[v] {
		return false
	}
	switch ir.ElemScalar(v.Type) {
	case ir.F32, ir.I32, ir.U32:
		return true
	}
	return false
}

// evalOnce reports whether e must not be spelled twice: it holds an atomic
// (a side effect) or a call (a helper has none, but may be costly).
func evalOnce(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) {
		switch x.(type) {
		case *ir.Atomic, *ir.Call:
			found = true
		}
	})
	return found
}

// assigned returns the variables f assigns to as a whole or in part.
func assigned(f *ir.Func) map[*ir.Var]bool {
	out := map[*ir.Var]bool{}
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		if a, ok := s.(*ir.Assign); ok {
			place := a.Place
			if l, ok := place.(*ir.Lane); ok {
				place = l.X
			}
			if v := rootVar(place); v != nil {
				out[v] = true
			}
		}
	}, func(ir.Expr) {})
	return out
}

// usesIDs reports whether f reads a thread or group index or size.
func usesIDs(f *ir.Func) bool {
	found := false
	ir.WalkStmts(f.Body, func(ir.Stmt) {}, func(e ir.Expr) {
		if b, ok := e.(*ir.CallBuiltin); ok && b.Builtin.IsID() {
			found = true
		}
	})
	return found
}
