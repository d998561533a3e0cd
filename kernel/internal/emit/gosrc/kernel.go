package gosrc

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// fn is the state of emitting one function.
type fn struct {
	e     *emitter
	f     *ir.Func
	names map[*ir.Var]string
	an    *analysis // nil for a helper
	w     *strings.Builder

	// Inside a phase.
	inPhase    bool
	label      string // the phase's thread loop label
	labelUsed  bool
	tidUsed    bool
	depth      int // thread-level loops around the statement being emitted
	brkUsed    bool
	contUsed   bool
	loops      []*loopFlags // group-level loops, innermost last
	hoist      map[string]bool
	labelCount int
	fast       *fastPlan // while emitting the fast path
	remat      rematDecls
	rematOrder []*ir.Decl
	promoted   map[string]bool // per-thread slices read into locals in this phase
	uni        *uniformPlan    // what the group computes once; nil in a helper
	strip      *stripPlan      // while emitting the strip form
	win        *windowPlan     // while emitting a windowed run of threads

	// The strip form's windowed loops move to functions of their own
	// (outline.go) named after outlinePrefix ("": they stay in place).
	outlinePrefix string
	outlined      []string // their declarations
}

// loopFlags are the flags by which a phase breaks or continues the
// group-level loop around it.
type loopFlags struct {
	id        int
	brk, cont bool
}

func (f *fn) printf(format string, args ...any) { fmt.Fprintf(f.w, format, args...) }

// sub runs body with output going to a fresh builder and returns the text.
func (f *fn) sub(body func() error) (string, error) {
	saved := f.w
	f.w = &strings.Builder{}
	err := body()
	text := f.w.String()
	f.w = saved
	return text, err
}

// helper emits a helper function as a plain Go function.
func (e *emitter) helper(irf *ir.Func) (string, error) {
	f := &fn{e: e, f: irf, names: e.localNames(irf), w: &strings.Builder{}}
	f.an = analyse(irf, []node{&phase{stmts: irf.Body}}, 1)
	var params []string
	for _, p := range irf.Params {
		t, err := e.goType(p.Type, p.Pos)
		if err != nil {
			return "", err
		}
		params = append(params, f.names[p]+" "+t)
	}
	result := ""
	if irf.Result != nil {
		t, err := e.goType(irf.Result, irf.Pos)
		if err != nil {
			return "", err
		}
		result = " " + t
	}
	f.printf("// %s is the helper %s of the kernel source.\n", e.funcNames[irf], irf.Name)
	f.printf("func %s(%s)%s {\n", e.funcNames[irf], strings.Join(params, ", "), result)
	if err := f.stmts(irf.Body); err != nil {
		return "", err
	}
	if irf.Result != nil {
		if n := len(irf.Body); n == 0 {
			f.printf("panic(\"unreachable\")\n")
		} else if _, ok := irf.Body[n-1].(*ir.Return); !ok {
			f.printf("panic(\"unreachable\")\n")
		}
	}
	f.printf("}\n")
	return f.w.String(), nil
}

// Emitter-internal names of the group function.
const (
	nameSize = "agSize" // the normalised group size
	nameTid  = "agTid"  // the thread's linear index within the group
	nameN    = "agN"    // threads per group, an int
	nameDone = "agDone" // per thread: it has returned
)

// kernel emits kernel irf as a group function.
func (e *emitter) kernel(orig *ir.Func) (string, error) {
	uni, rest := planUniform(orig, orig.Body)
	irf := new(ir.Func)
	*irf = *orig
	irf.Body = rest // without the leading guards, which the group runs
	var sp splitter
	tree := sp.split(irf.Body)
	f := &fn{
		e: e, f: irf, names: e.localNames(orig), w: &strings.Builder{},
		an:    analyse(irf, tree, sp.phases),
		hoist: map[string]bool{},
		uni:   uni,
	}
	for v := range uni.isDecl {
		f.an.kinds[v] = kindUniform
	}
	f.markGuardUses()
	f.remat = f.markRemat(tree)
	e.imports[importGPU] = true
	body, err := f.sub(func() error { return f.group(tree) })
	if err != nil {
		return "", err
	}
	var strips string
	if plan := f.planFast(tree); plan != nil {
		fast, err := f.fastPath(plan)
		if err != nil {
			return "", err
		}
		body = fast + body
	} else if plan := f.planStrips(tree); plan != nil {
		f.outlinePrefix = e.funcNames[orig]
		if strips, err = f.stripPath(plan); err != nil {
			return "", err
		}
	}
	prelude, names, err := f.prelude("return")
	if err != nil {
		return "", err
	}
	name := e.funcNames[orig]
	w := f.w
	if strips != "" && !strings.Contains(prelude, nameN+" :=") {
		for _, decl := range f.outlined {
			w.WriteString(decl)
		}
		// The strip form is a function of its own: Go allocates the
		// registers of its tight loops better without the general form.
		stripPrelude, _, err := f.prelude("return true")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(w, "// %s_strips runs one work group of the kernel %s in strips, when the\n", name, irf.Name)
		fmt.Fprintf(w, "// group is 1-D; it reports false, having done nothing, for other groups.\n")
		fmt.Fprintf(w, "func %s_strips(g backend.Group, args []backend.Arg) bool {\n%s", name, stripPrelude)
		for _, n := range names {
			fmt.Fprintf(w, "_ = %s\n", n)
		}
		fmt.Fprintf(w, "%sreturn false\n}\n\n", strips)
		// Before the prelude: a 1-D group reads its arguments once.
		prelude = fmt.Sprintf("if %s_strips(g, args) {\nreturn\n}\n", name) + prelude
	}
	fmt.Fprintf(w, "// %s runs one work group of the kernel %s.\n", name, irf.Name)
	fmt.Fprintf(w, "func %s(g backend.Group, args []backend.Arg) {\n", name)
	w.WriteString(prelude)
	w.WriteString(body)
	w.WriteString("}\n")
	return w.String(), nil
}

// prelude is the start of a group function: the parameters, the group's
// ids and sizes, the uniform guards (ret ends the function) and locals, the
// shared arrays and per-thread slices; names are the Go locals it declares.
func (f *fn) prelude(ret string) (string, []string, error) {
	e := f.e
	var w strings.Builder
	var names []string
	if n := len(f.f.Params); n > 0 {
		fmt.Fprintf(&w, "_ = args[%d]\n", n-1)
	}
	// Parameters, hoisted out of the thread loops (only the used ones: Go
	// rejects unused locals).
	for _, p := range f.f.Params {
		u := f.an.uses[p]
		if u == nil {
			continue
		}
		load, err := e.paramLoad(p)
		if err != nil {
			return "", nil, err
		}
		switch f.an.kinds[p] {
		case kindPlain:
			fmt.Fprintf(&w, "%s := %s\n", f.names[p], load)
			names = append(names, f.names[p])
		case kindCopied:
			fmt.Fprintf(&w, "%s := %s\n", copiedName(f.names[p]), load)
			names = append(names, copiedName(f.names[p]))
		}
	}
	fmt.Fprintf(&w, "%s := g.Size.Norm()\n", nameSize)
	fmt.Fprintf(&w, "agSx, agSy, agSz := uint32(%s.X), uint32(%s.Y), uint32(%s.Z)\n", nameSize, nameSize, nameSize)
	names = append(names, "agSx", "agSy", "agSz")
	header, err := f.uniformHeader(ret)
	if err != nil {
		return "", nil, err
	}
	w.WriteString(f.hoistDecls())
	for _, h := range hoists {
		if f.hoist[h.name] {
			names = append(names, h.name)
		}
	}
	w.WriteString(header)
	for _, d := range f.uni.decls {
		if _, ok := f.uni.divisors[d.Var]; ok {
			names = append(names, reciprocalName(f.names[d.Var]))
		}
	}
	for _, v := range f.f.Shared {
		t, err := e.goType(v.Type, v.Pos)
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(&w, "var %s %s\n", f.names[v], t)
		names = append(names, f.names[v])
	}
	spills, err := f.spillDecls()
	if err != nil {
		return "", nil, err
	}
	w.WriteString(spills)
	return w.String(), names, nil
}

// copiedName is the group-level name of a parameter every thread copies.
func copiedName(name string) string { return "agArg_" + name }

// paramLoad is the expression that reads parameter p from args.
func (e *emitter) paramLoad(p *ir.Var) (string, error) {
	arg := fmt.Sprintf("args[%d]", p.Index)
	if s, ok := p.Type.(*ir.Slice); ok {
		switch s.Elem {
		case ir.F32:
			return arg + ".Float32s()", nil
		case ir.F64:
			return arg + ".Float64s()", nil
		case ir.I32:
			return arg + ".Int32s()", nil
		case ir.U32:
			return arg + ".Uint32s()", nil
		case ir.I64, ir.U64:
			return e.viewHelper(s.Elem) + "(" + arg + ")", nil
		}
		return "", fmt.Errorf("%s: a buffer of %s is not supported by the CPU backend", p.Pos, s.Elem)
	}
	switch p.Type {
	case ir.F32:
		return arg + ".F32()", nil
	case ir.F64:
		return arg + ".F64()", nil
	case ir.I32:
		return arg + ".I32()", nil
	case ir.U32:
		return arg + ".U32()", nil
	case ir.I64:
		return arg + ".I64()", nil
	case ir.U64:
		return arg + ".U64()", nil
	}
	return "", fmt.Errorf("%s: a kernel parameter of type %s is not supported; pass a 32- or 64-bit number", p.Pos, ir.ElemScalar(p.Type))
}

// The group-level values the body may use, in declaration order: name, Go
// expression, and the names it needs.
var hoists = []struct {
	name, expr string
	needs      []string
}{
	{"agGrid", "g.Grid.Norm()", nil},
	{"agGx", "uint32(g.ID.X)", nil},
	{"agGy", "uint32(g.ID.Y)", nil},
	{"agGz", "uint32(g.ID.Z)", nil},
	{"agNx", "uint32(agGrid.X)", []string{"agGrid"}},
	{"agNy", "uint32(agGrid.Y)", []string{"agGrid"}},
	{"agNz", "uint32(agGrid.Z)", []string{"agGrid"}},
	{"agOx", "agGx * agSx", []string{"agGx"}},
	{"agOy", "agGy * agSy", []string{"agGy"}},
	{"agOz", "agGz * agSz", []string{"agGz"}},
}

// use marks a hoisted group-level value as needed, and returns its name.
func (f *fn) use(name string) string {
	f.hoist[name] = true
	for _, h := range hoists {
		if h.name == name {
			for _, n := range h.needs {
				f.use(n)
			}
		}
	}
	return name
}

// hoistDecls declares the hoisted values the body uses.
func (f *fn) hoistDecls() string {
	var b strings.Builder
	for _, h := range hoists {
		if f.hoist[h.name] {
			fmt.Fprintf(&b, "%s := %s\n", h.name, h.expr)
		}
	}
	return b.String()
}

// spillStackLen is how many threads' values of type t a group keeps in an
// array on its stack rather than in a slice it allocates (0: always
// allocate): scalars and Float4s of groups of up to 1024 threads, or 256
// for 16-byte values, so that a launch allocates nothing per group.
func spillStackLen(t ir.Type) int {
	switch t.(type) {
	case ir.Scalar:
		return 1024
	case *ir.Vec:
		return 256
	}
	return 0
}

// perThreadSlice declares name, a slice of the group's agN values of Go type
// t, on the stack when agN is at most stack.
func perThreadSlice(b *strings.Builder, name, t string, stack int) {
	if stack == 0 {
		fmt.Fprintf(b, "%s := make([]%s, %s)\n", name, t, nameN)
		return
	}
	fmt.Fprintf(b, "var agStack_%s [%d]%s\n%s := agStack_%s[:0]\n", name, stack, t, name, name)
	fmt.Fprintf(b, "if %s <= %d {\n%s = agStack_%s[:%s]\n} else {\n%s = make([]%s, %s)\n}\n", nameN, stack, name, name, nameN, name, t, nameN)
}

// spillDecls declares the per-thread slices, and fills spilled parameters.
func (f *fn) spillDecls() (string, error) {
	var b strings.Builder
	var spilled []*ir.Var
	for _, p := range f.f.Params {
		if f.an.kinds[p] == kindSpill {
			spilled = append(spilled, p)
		}
	}
	ir.WalkStmts(f.f.Body, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok && f.an.kinds[d.Var] == kindSpill {
			spilled = append(spilled, d.Var)
		}
	}, nil)
	needDone := f.an.hasReturn && f.an.phases > 1
	if len(spilled) == 0 && !needDone {
		return "", nil
	}
	fmt.Fprintf(&b, "%s := int(agSx * agSy * agSz)\n", nameN)
	if needDone {
		perThreadSlice(&b, nameDone, "bool", spillStackLen(ir.Bool))
	}
	for _, v := range spilled {
		t, err := f.e.goType(v.Type, v.Pos)
		if err != nil {
			return "", err
		}
		perThreadSlice(&b, f.names[v], t, spillStackLen(v.Type))
		if v.Class == ir.Param {
			load, err := f.e.paramLoad(v)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s(%s, %s)\n", f.e.fillHelper(), f.names[v], load)
		}
	}
	return b.String(), nil
}

// group emits group-level nodes.
func (f *fn) group(nodes []node) error {
	for _, n := range nodes {
		switch n := n.(type) {
		case *phase:
			if err := f.phase(n); err != nil {
				return err
			}
		case *groupIf:
			if err := f.groupIf(n); err != nil {
				return err
			}
		case *groupFor:
			if err := f.groupFor(n); err != nil {
				return err
			}
		case *groupMatMul:
			if err := f.groupMatMul(n.s); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupMatMul emits a MatMulAdd as one call of package kernel's, the code a
// plain Go call of the kernel runs, on the group's shared arrays; a
// MatMulAddFrom as one call of kernel.MatMulAddFrom on the buffers, with
// the offsets and strides the group computes once (they are uniform).
func (f *fn) groupMatMul(s *ir.MatMulAdd) error {
	k := f.e.kernelPkg()
	prec := [...]string{"PrecisionFloat32", "PrecisionBFloat16", "PrecisionFloat16"}[s.Precision]
	if s.From == nil {
		f.printf("%sMatMulAdd(&%s, &%s, &%s, %sMatMul{M: %d, N: %d, K: %d, LDA: %d, LDB: %d, LDC: %d, TransposeB: %t, Precision: %s%s})\n",
			k, f.names[s.C.Var], f.names[s.A.Var], f.names[s.B.Var], k, s.M, s.N, s.K, s.LDA, s.LDB, s.LDC, s.TransposeB, k, prec)
		return nil
	}
	args := make([]string, 4)
	for i, x := range s.From.Exprs() {
		v, err := f.exprUntyped(x)
		if err != nil {
			return err
		}
		args[i] = v
	}
	f.printf("%sMatMulAddFrom(&%s, %s, %s, %s, %s, %s, %s, %sMatMul{M: %d, N: %d, K: %d, LDC: %d, TransposeB: %t, Precision: %s%s})\n",
		k, f.names[s.C.Var], f.ref(s.A.Var), args[0], args[1], f.ref(s.B.Var), args[2], args[3], k, s.M, s.N, s.K, s.LDC, s.TransposeB, k, prec)
	return nil
}

func (f *fn) groupIf(n *groupIf) error {
	cond, err := f.expr(n.s.Cond)
	if err != nil {
		return err
	}
	f.printf("if %s {\n", cond)
	if err := f.group(n.then); err != nil {
		return err
	}
	if len(n.els_) > 0 {
		f.printf("} else {\n")
		if err := f.group(n.els_); err != nil {
			return err
		}
	}
	f.printf("}\n")
	return nil
}

func (f *fn) groupFor(n *groupFor) error {
	s := n.s
	init, cond, post, err := f.forClauses(s)
	if err != nil {
		return err
	}
	flags := &loopFlags{id: n.id}
	f.loops = append(f.loops, flags)
	body, err := f.sub(func() error { return f.group(n.body) })
	f.loops = f.loops[:len(f.loops)-1]
	if err != nil {
		return err
	}
	if flags.brk {
		f.printf("%s := false\n", brkName(n.id))
	}
	if flags.cont {
		f.printf("%s := false\n", contName(n.id))
	}
	f.printf("for %s; %s; %s {\n%s}\n", init, cond, post, body)
	return nil
}

func brkName(id int) string  { return fmt.Sprintf("agBreak%d", id) }
func contName(id int) string { return fmt.Sprintf("agContinue%d", id) }

// phase emits a loop over the group's threads around the phase's statements.
func (f *fn) phase(p *phase) error {
	f.inPhase = true
	f.label = fmt.Sprintf("agThreads%d", p.id)
	f.labelUsed, f.tidUsed, f.brkUsed, f.contUsed = false, false, false, false
	f.depth = 0
	promoted, written := f.promotable(p)
	emitBody := func() (string, error) {
		f.promoted = map[string]bool{}
		for _, n := range promoted {
			f.promoted[n] = true
		}
		f.labelUsed, f.tidUsed, f.brkUsed, f.contUsed = false, false, false, false
		return f.sub(func() error { return f.stmts(p.stmts) })
	}
	body, err := emitBody()
	if err == nil && f.labelUsed && len(written) > 0 {
		// A thread may leave the phase early: no write-back at its end, so
		// the slices it writes are used in place.
		var kept []string
		for _, n := range promoted {
			if !written[n] {
				kept = append(kept, n)
			}
		}
		promoted, written = kept, nil
		body, err = emitBody()
	}
	var prologue string
	if err == nil {
		prologue, err = f.rematPrologue(p)
	}
	var rng *threadRange
	if err == nil {
		rng, err = f.phaseRange(p)
	}
	f.inPhase, f.promoted = false, nil
	if err != nil {
		return err
	}
	if strings.TrimSpace(body) == "" {
		return nil // every statement was uniform: declared before the threads run
	}
	if len(promoted) > 0 {
		f.tidUsed = true
		var load, store strings.Builder
		for _, n := range promoted {
			fmt.Fprintf(&load, "%s := %s[%s]\n", promotedName(n), n, nameTid)
			if written[n] {
				fmt.Fprintf(&store, "%s[%s] = %s\n", n, nameTid, promotedName(n))
			} else {
				fmt.Fprintf(&load, "_ = %s\n", promotedName(n))
			}
		}
		prologue += load.String()
		body += store.String()
	}
	needDone := f.an.hasReturn && f.an.phases > 1
	if needDone {
		f.tidUsed = true
	}
	if rng != nil {
		f.printf("{\n")
		f.rangeLoops(rng)
	} else {
		f.printf("for agTz := uint32(0); agTz < agSz; agTz++ {\n")
		f.printf("for agTy := uint32(0); agTy < agSy; agTy++ {\n")
		if f.labelUsed {
			f.printf("%s:\n", f.label)
		}
		f.printf("for agTx := uint32(0); agTx < agSx; agTx++ {\n")
	}
	if f.tidUsed {
		f.printf("%s := agTx + agSx*(agTy+agSy*agTz)\n", nameTid)
	}
	if needDone {
		f.printf("if %s[%s] {\ncontinue\n}\n", nameDone, nameTid)
	}
	for _, v := range f.f.Params {
		if f.an.kinds[v] == kindCopied && f.an.uses[v] != nil {
			f.printf("%s := %s\n", f.names[v], copiedName(f.names[v]))
		}
	}
	f.printf("%s%s}\n}\n}\n", prologue, body)
	if rng != nil {
		f.printf("}\n")
	}
	if len(f.loops) > 0 {
		l := f.loops[len(f.loops)-1]
		if f.brkUsed {
			f.printf("if %s {\nbreak\n}\n", brkName(l.id))
		}
		if f.contUsed {
			f.printf("if %s {\n%s = false\ncontinue\n}\n", contName(l.id), contName(l.id))
		}
	}
	return nil
}
