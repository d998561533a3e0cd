package wgsl

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// fctx is the state of emitting one function.
type fctx struct {
	e      *emitter
	f      *ir.Func
	plan   *kernelPlan // nil in a helper
	names  map[*ir.Var]string
	local  *namer
	b      strings.Builder
	depth  int
	needs  map[string]bool
	priv   bool  // a helper read the thread's indices
	err    error // the first error
	result ir.Type
}

func (e *emitter) newCtx(f *ir.Func, p *kernelPlan) *fctx {
	return &fctx{e: e, f: f, plan: p, names: map[*ir.Var]string{}, local: e.global.child(), needs: map[string]bool{}, result: f.Result}
}

// fail records the first error, at pos.
func (c *fctx) fail(pos ir.Pos, format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%s: %s", pos, fmt.Sprintf(format, args...))
	}
}

func (c *fctx) need(name string) { addNeed(c.needs, name) }

// line writes one line at the current depth.
func (c *fctx) line(format string, args ...any) {
	c.b.WriteString(strings.Repeat("\t", c.depth))
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteString("\n")
}

// name is v's WGSL name in this function.
func (c *fctx) name(v *ir.Var) string {
	if v == nil {
		c.fail(c.f.Pos, "a reference to no variable")
		return "ag_invalid"
	}
	if c.plan != nil {
		if g, ok := c.plan.globals[v]; ok {
			return g
		}
	}
	if n, ok := c.names[v]; ok {
		return n
	}
	n := c.local.fresh(v.Name)
	c.names[v] = n
	return n
}

// helper emits a Go helper function.
func (e *emitter) helper(f *ir.Func) (*funcText, error) {
	c := e.newCtx(f, nil)
	reassigned := assigned(f)
	var params []string
	var copies []string
	for _, p := range f.Params {
		if p == nil {
			return nil, fmt.Errorf("%s: helper %s has a nil parameter", f.Pos, f.Name)
		}
		n := c.name(p)
		t := c.typ(p.Type, p.Pos)
		if reassigned[p] {
			in := "ag_in_" + n // Go names never start with ag_: unique
			copies = append(copies, fmt.Sprintf("var %s: %s = %s;", n, t, in))
			n = in
		}
		params = append(params, n+": "+t)
	}
	ret := ""
	if f.Result != nil {
		ret = " -> " + c.typ(f.Result, f.Pos)
	}
	c.line("// %s is the Go function %s.", e.funcNames[f], f.Name)
	c.line("fn %s(%s)%s {", e.funcNames[f], strings.Join(params, ", "), ret)
	c.depth++
	for _, s := range copies {
		c.line("%s", s)
	}
	c.stmts(f.Body)
	if f.Result != nil && !endsInReturn(f.Body) {
		c.line("return %s();", c.typ(f.Result, f.Pos))
	}
	c.depth--
	c.line("}")
	if c.err != nil {
		return nil, c.err
	}
	return &funcText{text: c.b.String(), needs: c.needs, privIDs: c.priv}, nil
}

// endsInReturn reports whether body's last statement is a return.
func endsInReturn(body []ir.Stmt) bool {
	if len(body) == 0 {
		return false
	}
	_, ok := body[len(body)-1].(*ir.Return)
	return ok
}

// kernel emits a kernel: its uniform struct, bindings, shared arrays,
// per-array helpers and entry point. A native kernel (for the naga
// translation to the native backends) takes its ids from the built-ins and
// its uniform holds only the scalars; otherwise (WebGPU) the uniform ends
// with the launch geometry and the group comes from it.
func (e *emitter) kernel(p *kernelPlan, native bool) (*funcText, error) {
	k := p.f
	c := e.newCtx(k, p)
	c.line("// ---- %s ----", k.Name)
	c.line("")
	var scalars []*ir.Var
	for _, v := range k.Params {
		if _, ok := v.Type.(ir.Scalar); ok {
			scalars = append(scalars, v)
		}
	}
	uniform := !native || len(scalars) > 0
	if uniform {
		// The uniform: the scalars, then (WebGPU) the launch geometry.
		c.line("struct %s {", p.params)
		c.depth++
		for _, v := range scalars {
			c.line("%s: %s,", c.name(v), c.typ(v.Type, v.Pos))
		}
		if !native {
			c.line("launch: ag_Launch,")
		}
		c.depth--
		c.line("}")
	}
	binding := 0
	for _, v := range k.Params {
		if _, ok := v.Type.(*ir.Slice); !ok {
			continue
		}
		c.line("@group(0) @binding(%d) var<storage, read_write> %s: %s;", binding, p.globals[v], c.storeType(v))
		binding++
	}
	if uniform {
		c.line("@group(0) @binding(%d) var<uniform> %s: %s;", binding, p.uniform, p.params)
	}
	for _, v := range k.Shared {
		c.line("var<workgroup> %s: %s;", p.globals[v], c.storeType(v))
	}
	c.varHelpers()
	// The entry point.
	c.line("")
	c.line("@compute @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)")
	c.line("fn %s(@builtin(workgroup_id) ag_wg: vec3<u32>, @builtin(num_workgroups) ag_nwg: vec3<u32>,", k.Name)
	if usesSubgroups(k) {
		c.line("\t\t@builtin(local_invocation_id) ag_lid: vec3<u32>, @builtin(local_invocation_index) ag_lidx: u32,")
		c.line("\t\t%s) {", subgroupParams)
	} else {
		c.line("\t\t@builtin(local_invocation_id) ag_lid: vec3<u32>, @builtin(local_invocation_index) ag_lidx: u32) {")
	}
	c.depth++
	if native {
		c.line("let ag_grid = ag_nwg;")
		c.line("let ag_grp = ag_wg;")
		c.line("let ag_bs = vec3<u32>(anygpu_block_x, anygpu_block_y, anygpu_block_z);")
	} else {
		c.need("ag_group")
		c.line("let ag_grid = %s.launch.grid.xyz;", p.uniform)
		c.line("let ag_g = ag_group(ag_grid, ag_wg, ag_nwg);")
		c.line("if (ag_g.w == 0u) {")
		c.line("\treturn; // the group pads a folded dispatch")
		c.line("}")
		c.line("let ag_grp = ag_g.xyz;")
		// The block size from the constants, which the backend sets to the
		// launch's block in every pipeline, so that the driver's compiler
		// folds GroupSizeX() / 4, t / q and block-bounded loops. It goes
		// through a variable: arithmetic on a constant itself is evaluated
		// when the shader is created, and one that overflows
		// (GroupSizeX() << 26) would be a shader error there.
		c.line("var ag_bs_v = vec3<u32>(anygpu_block_x, anygpu_block_y, anygpu_block_z);")
		c.line("let ag_bs = ag_bs_v;")
	}
	for _, h := range p.helpers {
		if usesIDs(h) {
			c.line("ag_priv_grp = ag_grp;")
			c.line("ag_priv_lid = ag_lid;")
			c.line("ag_priv_lidx = ag_lidx;")
			c.line("ag_priv_grid = ag_grid;")
			c.line("ag_priv_bs = ag_bs;")
			break
		}
	}
	for _, v := range k.Params {
		if _, ok := v.Type.(*ir.Slice); ok && !native && !p.use.scalar[v] && !p.use.wide[v] && !p.use.atomic[v] {
			// Bound by every launch: the pipeline's layout must have it.
			c.line("_ = arrayLength(&%s);", p.globals[v])
		}
	}
	reassigned := assigned(k)
	for _, v := range scalars {
		kw := "let"
		if reassigned[v] {
			kw = "var"
		}
		c.line("%s %s = %s.%s;", kw, c.name(v), p.uniform, c.name(v))
	}
	c.stmts(k.Body)
	c.depth--
	c.line("}")
	if c.err != nil {
		return nil, c.err
	}
	return &funcText{text: c.b.String(), needs: c.needs, privIDs: c.priv}, nil
}

// storeType is the declared type of a buffer or shared array: atomic
// elements where the kernel applies an atomic to it, vec4<T> elements where
// it reads or writes it 4 elements at a time (bufferUse.vec4).
func (c *fctx) storeType(v *ir.Var) string {
	if c.plan.vec4[v] {
		return "array<vec4<" + c.typ(ir.ElemScalar(v.Type), v.Pos) + ">>"
	}
	return c.typeOf(v.Type, c.plan.use.atomic[v], v.Pos)
}

// varHelpers writes the kernel's per-array helpers: 4-wide loads and stores
// of the float buffers not declared vec4 (bufferUse.vec4), and the
// compare-exchange of atomic arrays.
func (c *fctx) varHelpers() {
	p := c.plan
	vars := append(append([]*ir.Var{}, p.f.Params...), p.f.Shared...)
	for _, v := range vars {
		g := p.globals[v]
		if n, ok := p.load4[v]; ok {
			c.line("")
			c.line("// %s reads 4 floats of %s at 4i.", n, g)
			c.line("fn %s(i: u32) -> vec4<f32> {", n)
			c.line("\tlet j = 4u * i;")
			c.line("\treturn vec4<f32>(%[1]s[j], %[1]s[j + 1u], %[1]s[j + 2u], %[1]s[j + 3u]);", g)
			c.line("}")
			n = p.store4[v]
			c.line("")
			c.line("// %s writes 4 floats of %s at 4i.", n, g)
			c.line("fn %s(i: u32, v: vec4<f32>) {", n)
			c.line("\tlet j = 4u * i;")
			c.line("\t%[1]s[j] = v.x;", g)
			c.line("\t%[1]s[j + 1u] = v.y;", g)
			c.line("\t%[1]s[j + 2u] = v.z;", g)
			c.line("\t%[1]s[j + 3u] = v.w;", g)
			c.line("}")
		}
		if n, ok := p.cas[v]; ok {
			dims := 0
			t := v.Type
			for {
				if a, ok := t.(*ir.Array); ok {
					dims++
					t = a.Elem
					continue
				}
				if _, ok := t.(*ir.Slice); ok {
					dims++
				}
				break
			}
			elem := c.typ(ir.ElemScalar(v.Type), v.Pos)
			var idx, params []string
			for i := range dims {
				idx = append(idx, fmt.Sprintf("[i%d]", i))
				params = append(params, fmt.Sprintf("i%d: u32", i))
			}
			place := g + strings.Join(idx, "")
			c.line("")
			c.line("// %s stores v in %s if it holds cmp, and returns what it held", n, g)
			c.line("// (WGSL's exchange may fail spuriously: it is retried).")
			c.line("fn %s(%s, cmp: %s, v: %s) -> %s {", n, strings.Join(params, ", "), elem, elem, elem)
			c.line("\tvar old = cmp;")
			c.line("\tloop {")
			c.line("\t\tlet r = atomicCompareExchangeWeak(&%s, cmp, v);", place)
			c.line("\t\told = r.old_value;")
			c.line("\t\tif (r.exchanged || old != cmp) { break; }")
			c.line("\t}")
			c.line("\treturn old;")
			c.line("}")
		}
	}
}

// stmts emits a statement list.
func (c *fctx) stmts(body []ir.Stmt) {
	for _, s := range body {
		c.stmt(s)
	}
}

func (c *fctx) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Decl, *ir.Assign:
		c.line("%s;", c.simple(s))
	case *ir.ExprStmt:
		if s.X == nil {
			c.fail(s.Pos, "an expression statement without an expression")
			return
		}
		x := c.expr(s.X)
		if s.X.ExprType() == nil {
			c.line("%s;", x)
		} else {
			c.line("_ = %s;", x)
		}
	case *ir.If:
		c.line("if %s {", cond(c.expr(s.Cond)))
		c.ifTail(s)
	case *ir.For:
		init, test, post := "", "", ""
		if s.Init != nil {
			init = c.simple(s.Init)
		}
		if s.Cond != nil {
			test = cond(c.expr(s.Cond))
			test = test[1 : len(test)-1]
		}
		if s.Post != nil {
			post = c.simple(s.Post)
		}
		c.line("for (%s; %s; %s) {", init, test, post)
		c.block(s.Body)
		c.line("}")
	case *ir.Break:
		c.line("break;")
	case *ir.Continue:
		c.line("continue;")
	case *ir.Return:
		if s.Value != nil {
			c.line("return %s;", c.expr(s.Value))
		} else {
			c.line("return;")
		}
	case *ir.Barrier:
		c.line("storageBarrier();")
		c.line("workgroupBarrier();")
	case *ir.MatMulAdd:
		c.matMul(s)
	case *ir.Store4:
		if s.Buf == nil || s.Index == nil || s.Value == nil {
			c.fail(s.Pos, "Store4 without its buffer, index or value")
			return
		}
		if c.plan == nil {
			c.fail(s.Pos, "Store4 in a helper function; store from the kernel")
			return
		}
		v := s.Buf.Var
		if c.plan.vec4[v] {
			c.line("%s[%s] = %s;", c.name(v), c.expr(s.Index), c.expr(s.Value))
		} else {
			c.line("%s(%s, %s);", c.plan.store4[v], c.asU32(s.Index), c.expr(s.Value))
		}
	case *ir.Block:
		c.line("{")
		c.block(s.Body)
		c.line("}")
	case nil:
		c.fail(c.f.Pos, "a nil statement")
	default:
		c.fail(s.StmtPos(), "statement %T has no WGSL form", s)
	}
}

// cond is a condition in parentheses, once.
func cond(x string) string {
	if strings.HasPrefix(x, "(") && strings.HasSuffix(x, ")") {
		depth := 0
		for i, r := range x {
			switch r {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 && i < len(x)-1 {
				return "(" + x + ")" // (a) && (b): not one group
			}
		}
		return x
	}
	return "(" + x + ")"
}

// ifTail writes an if's then branch and its else chain; the line with the
// condition is written.
func (c *fctx) ifTail(s *ir.If) {
	c.block(s.Then)
	if len(s.Else) == 1 {
		if elif, ok := s.Else[0].(*ir.If); ok {
			c.line("} else if %s {", cond(c.expr(elif.Cond)))
			c.ifTail(elif)
			return
		}
	}
	if len(s.Else) > 0 {
		c.line("} else {")
		c.block(s.Else)
	}
	c.line("}")
}

func (c *fctx) block(body []ir.Stmt) {
	c.depth++
	c.stmts(body)
	c.depth--
}

// simple is a Decl or an Assign without its semicolon (a for's init and
// post are these).
func (c *fctx) simple(s ir.Stmt) string {
	switch s := s.(type) {
	case *ir.Decl:
		if s.Var == nil {
			c.fail(s.Pos, "a declaration of no variable")
			return ""
		}
		t := c.typ(s.Var.Type, s.Pos)
		n := c.name(s.Var)
		if s.Init == nil {
			// Zeroed explicitly: WGSL zeroes a var without an initialiser,
			// but naga's SPIR-V leaves it undefined.
			return fmt.Sprintf("var %s: %s = %s()", n, t, t)
		}
		return fmt.Sprintf("var %s: %s = %s", n, t, c.expr(s.Init))
	case *ir.Assign:
		if s.Place == nil || s.Value == nil {
			c.fail(s.Pos, "an assignment without its place or value")
			return ""
		}
		if ix, ok := s.Place.(*ir.Index); ok && c.isAtomic(ix) {
			return fmt.Sprintf("atomicStore(&%s, %s)", c.place(ix), c.expr(s.Value))
		}
		return fmt.Sprintf("%s = %s", c.place(s.Place), c.expr(s.Value))
	case nil:
		c.fail(c.f.Pos, "a nil statement")
	default:
		c.fail(s.StmtPos(), "a for loop's init or post must be a declaration or an assignment, not %T", s)
	}
	return ""
}
