package opt

import (
	_ "embed"
	"fmt"
	"strconv"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// halfHelpersSrc holds the float16 conversions in the kernel language.
//
//go:embed halfhelpers.txt
var halfHelpersSrc string

// halfHelpers are the conversions, loaded for one module: the binary16 bits
// (in the low 16 bits of a uint32) to float32, float32 to the bits, the
// packings of kernel.PackHalves (bfloat16's through its rounding) and the
// steps of the portable kernel.MMA (float16's through the conversion).
type halfHelpers struct{ toF32, fromF32, bf16Bits, packBF16, packF16, stepBF16, stepF16 *ir.Func }

// ordered is the helpers with callees before callers.
func (h halfHelpers) ordered() []*ir.Func {
	return []*ir.Func{h.toF32, h.fromF32, h.bf16Bits, h.packBF16, h.packF16, h.stepBF16, h.stepF16}
}

// loadHalfHelpers translates halfhelpers.txt.
func loadHalfHelpers() (halfHelpers, error) {
	m, err := front.Load([]front.File{{Name: "anygpu/half.go", Src: halfHelpersSrc}})
	if err != nil {
		return halfHelpers{}, fmt.Errorf("the float16 conversions: %w", err)
	}
	var h halfHelpers
	byName := map[string]**ir.Func{"halfBitsToFloat32": &h.toF32, "halfBitsFromFloat32": &h.fromF32,
		"bfloat16Bits": &h.bf16Bits, "packBFloat16Halves": &h.packBF16, "packFloat16Halves": &h.packF16,
		"mmaStepBFloat16": &h.stepBF16, "mmaStepFloat16": &h.stepF16}
	for _, f := range m.Funcs {
		if p, ok := byName[f.Name]; ok {
			*p = f
		}
	}
	for _, f := range h.ordered() {
		if f == nil {
			return h, fmt.Errorf("the float16 conversions lack a function")
		}
	}
	return h, nil
}

// helperPool loads the helpers once for the rewrites of one module and
// records which of them the rewritten module calls.
type helperPool struct {
	h      halfHelpers
	loaded bool
	used   map[*ir.Func]bool
}

// get loads the helpers if need be.
func (p *helperPool) get() (halfHelpers, error) {
	if !p.loaded {
		h, err := loadHalfHelpers()
		if err != nil {
			return h, err
		}
		p.h, p.loaded, p.used = h, true, map[*ir.Func]bool{}
	}
	return p.h, nil
}

// use records that the module calls f (and so whatever f calls).
func (p *helperPool) use(f *ir.Func) { p.used[f] = true }

// prepend puts the used helpers and their callees first in m.Funcs, callees
// first, each renamed if a function of m has its name.
func (p *helperPool) prepend(m *ir.Module) {
	if !p.loaded || len(p.used) == 0 {
		return
	}
	if p.used[p.h.packBF16] {
		p.used[p.h.bf16Bits] = true
	}
	if p.used[p.h.packF16] {
		p.used[p.h.fromF32] = true
	}
	if p.used[p.h.stepF16] {
		p.used[p.h.toF32] = true
	}
	taken := map[string]bool{}
	for _, f := range m.Funcs {
		taken[f.Name] = true
	}
	var first []*ir.Func
	for _, f := range p.h.ordered() {
		if !p.used[f] {
			continue
		}
		name := f.Name
		for i := 1; taken[name]; i++ {
			name = f.Name + "_" + strconv.Itoa(i)
		}
		f.Name, taken[name] = name, true
		first = append(first, f)
	}
	m.Funcs = append(first, m.Funcs...)
}

// halfWords rewrites every kernel's []kernel.Float16 buffers into buffers of
// 4-byte words holding two halves each (element i in the low half of word
// i/2 when i is even, the high half when odd), for the dialects that cannot
// address 16-bit elements (WGSL without shader-f16, and what naga writes
// from it) and for the CPU:
//
//   - a load, float32(x[i]), becomes the conversion of the half's bits
//     shifted out of word x[i>>1];
//   - a store, x[i] = float16(v), becomes a compare-and-swap loop on word
//     x[i>>1] that replaces the half's 16 bits, so that two threads storing
//     the two halves of one word never lose a store (a plain read-modify-
//     write of the word would race).
//
// The conversion helpers are pool's (prepended to m.Funcs by its caller).
func halfWords(m *ir.Module, pool *helperPool) error {
	var kernels []*ir.Func
	for _, f := range m.Funcs {
		if f != nil && f.Features&ir.Float16 != 0 { // a helper may round to float16's precision
			kernels = append(kernels, f)
		}
	}
	if len(kernels) == 0 {
		return nil
	}
	h, err := pool.get()
	if err != nil {
		return err
	}
	pool.use(h.toF32)
	pool.use(h.fromF32)
	for _, f := range kernels {
		lowerHalf(f, h)
	}
	return nil
}

// halfLowering is the rewrite of one kernel.
type halfLowering struct {
	h     halfHelpers
	bufs  map[*ir.Var]bool // the []kernel.Float16 parameters
	names map[string]bool
	next  int
}

// lowerHalf rewrites f (see halfWords).
func lowerHalf(f *ir.Func, h halfHelpers) {
	l := &halfLowering{h: h, bufs: map[*ir.Var]bool{}, names: varNames(f)}
	for _, p := range f.Params {
		if s, ok := p.Type.(*ir.Slice); ok && s.Elem == ir.F16 {
			l.bufs[p] = true
		}
	}
	f.Body = mapStmts(f.Body, l.load, l.store)
	for p := range l.bufs {
		p.Type = &ir.Slice{Elem: ir.U32}
	}
	f.Features &^= ir.Float16
}

// halfBuf is the float16 buffer x indexes, or nil.
func (l *halfLowering) halfBuf(x ir.Expr) *ir.Ref {
	ix, ok := x.(*ir.Index)
	if !ok {
		return nil
	}
	if r, ok := ix.X.(*ir.Ref); ok && l.bufs[r.Var] {
		return r
	}
	return nil
}

// asU32 is x as a U32.
func asU32(x ir.Expr) ir.Expr {
	if x.ExprType() == ir.U32 {
		return x
	}
	return &ir.Convert{To: ir.U32, X: x, Pos: x.ExprPos()}
}

// cu32 is the U32 constant v.
func cu32(v uint64, p ir.Pos) *ir.Const { return &ir.Const{Type: ir.U32, Uint: v, Pos: p} }

// u32Op is x op y of type U32.
func u32Op(op ir.Op, x, y ir.Expr, p ir.Pos) ir.Expr {
	return &ir.Binary{Op: op, X: x, Y: y, Type: ir.U32, Pos: p}
}

// load rewrites float32(x[i]) of a float16 buffer x, and float32(float16(v))
// (v rounded to float16's precision).
func (l *halfLowering) load(e ir.Expr) ir.Expr {
	c, ok := e.(*ir.Convert)
	if !ok || c.To != ir.F32 {
		return e
	}
	if r, ok := c.X.(*ir.Convert); ok && r.To == ir.F16 { // a rounding to float16's precision
		bits := &ir.Call{Func: l.h.fromF32, Args: []ir.Expr{r.X}, Pos: r.Pos}
		return &ir.Call{Func: l.h.toF32, Args: []ir.Expr{bits}, Pos: c.Pos}
	}
	buf := l.halfBuf(c.X)
	if buf == nil {
		return e
	}
	p := c.Pos
	i := asU32(c.X.(*ir.Index).Index)
	word := &ir.Index{X: buf, Index: u32Op(ir.Shr, i, cu32(1, p), p), Type: ir.U32, Pos: p}
	shift := u32Op(ir.Shl, u32Op(ir.And, i, cu32(1, p), p), cu32(4, p), p)
	bits := u32Op(ir.And, u32Op(ir.Shr, word, shift, p), cu32(0xffff, p), p)
	return &ir.Call{Func: l.h.toF32, Args: []ir.Expr{bits}, Pos: p}
}

// local declares a new U32 local named for what, initialized to init.
func (l *halfLowering) local(what string, init ir.Expr, p ir.Pos) (*ir.Decl, *ir.Var) {
	for {
		l.next++
		name := "half" + what + strconv.Itoa(l.next)
		if !l.names[name] {
			l.names[name] = true
			v := &ir.Var{Name: name, Type: ir.U32, Class: ir.Local, Pos: p}
			return &ir.Decl{Var: v, Init: init, Pos: p}, v
		}
	}
}

// store rewrites x[i] = float16(v) of a float16 buffer x into
//
//	{ idx := i; bits := fromF32(v); w := idx >> 1; sh := (idx & 1) << 4
//	  for { old := x[w]; if atomicCAS(&x[w], old, old&^(0xffff<<sh) | bits<<sh) == old { break } } }
func (l *halfLowering) store(s ir.Stmt) []ir.Stmt {
	a, ok := s.(*ir.Assign)
	if !ok {
		return nil
	}
	buf := l.halfBuf(a.Place)
	if buf == nil {
		return nil
	}
	p := a.Pos
	var value ir.Expr
	if c, ok := a.Value.(*ir.Convert); ok && c.To == ir.F16 {
		value = c.X
	} else { // the front end allows nothing else
		value = &ir.Const{Type: ir.F32, Pos: p}
	}
	ref := func(v *ir.Var) *ir.Ref { return &ir.Ref{Var: v, Pos: p} }
	dIdx, idx := l.local("Index", asU32(a.Place.(*ir.Index).Index), p)
	dBits, bits := l.local("Bits", &ir.Call{Func: l.h.fromF32, Args: []ir.Expr{value}, Pos: p}, p)
	dWord, word := l.local("Word", u32Op(ir.Shr, ref(idx), cu32(1, p), p), p)
	dShift, shift := l.local("Shift", u32Op(ir.Shl, u32Op(ir.And, ref(idx), cu32(1, p), p), cu32(4, p), p), p)
	place := func() *ir.Index { return &ir.Index{X: buf, Index: ref(word), Type: ir.U32, Pos: p} }
	dOld, old := l.local("Old", place(), p)
	merged := u32Op(ir.Or, u32Op(ir.AndNot, ref(old), u32Op(ir.Shl, cu32(0xffff, p), ref(shift), p), p),
		u32Op(ir.Shl, ref(bits), ref(shift), p), p)
	dSeen, seen := l.local("Seen", &ir.Atomic{Op: ir.AtomicCompareExchange, Place: place(), Args: []ir.Expr{ref(old), merged}, Pos: p}, p)
	loop := &ir.For{Pos: p, Body: []ir.Stmt{dOld, dSeen,
		&ir.If{Cond: &ir.Binary{Op: ir.Eq, X: ref(seen), Y: ref(old), Type: ir.Bool, Pos: p}, Then: []ir.Stmt{&ir.Break{Pos: p}}, Pos: p}}}
	return []ir.Stmt{&ir.Block{Body: []ir.Stmt{dIdx, dBits, dWord, dShift, loop}, Pos: p}}
}
