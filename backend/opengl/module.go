//go:build linux

package opengl

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
)

// program is one linked compute program and what the launch checks need.
type program struct {
	id       uint32
	wg       backend.Dim3 // GL_COMPUTE_WORK_GROUP_SIZE
	ssbos    int          // highest storage-block binding + 1 (0: none)
	uniforms []uniformBlock
}

type uniformBlock struct {
	binding int
	size    int64
}

// built is one kernel's compile result on the context's thread.
type built struct {
	prog *program
	log  string // compiler and linker output of a failure
}

// build compiles and links one program per text on the context's thread,
// letting the driver compile them in parallel where it can
// (GL_KHR_parallel_shader_compile). A kernel that fails leaves its log and
// no program.
func (d *device) build(texts []string) ([]built, error) {
	out := make([]built, len(texts))
	err := d.call(func(t *thread) error {
		f := t.gl
		shaders := make([]uint32, len(texts))
		for i, text := range texts {
			shaders[i] = f.CreateShader(gl.ComputeShader)
			f.ShaderSource(shaders[i], text)
			f.CompileShader(shaders[i])
		}
		progs := make([]uint32, len(texts))
		for i, sh := range shaders {
			if f.GetShader(sh, gl.CompileStatus) == 0 {
				out[i].log = f.ShaderInfoLog(sh)
				if out[i].log == "" {
					out[i].log = "the compiler reported a failure with an empty log"
				}
				continue
			}
			progs[i] = f.CreateProgram()
			f.AttachShader(progs[i], sh)
			f.LinkProgram(progs[i])
		}
		for i, p := range progs {
			if p == 0 {
				f.DeleteShader(shaders[i])
				continue
			}
			ok := f.GetProgram(p, gl.LinkStatus) != 0
			if !ok {
				out[i].log = "link: " + f.ProgramInfoLog(p)
			}
			f.DetachShader(p, shaders[i])
			f.DeleteShader(shaders[i])
			if !ok {
				f.DeleteProgram(p)
				continue
			}
			out[i].prog = introspect(f, p)
		}
		return t.check("compile")
	})
	return out, err
}

// introspect reads a linked program's work-group size and bindings.
func introspect(f *gl.Funcs, p uint32) *program {
	wg := f.WorkGroupSize(p)
	pr := &program{id: p, wg: backend.Dim3{X: int(wg[0]), Y: int(wg[1]), Z: int(wg[2])}}
	for i := int32(0); i < f.ActiveResources(p, gl.ShaderStorageBlock); i++ {
		if b := int(f.ResourceProp(p, gl.ShaderStorageBlock, uint32(i), gl.BufferBinding)); b+1 > pr.ssbos {
			pr.ssbos = b + 1
		}
	}
	for i := int32(0); i < f.ActiveResources(p, gl.UniformBlock); i++ {
		pr.uniforms = append(pr.uniforms, uniformBlock{
			binding: int(f.ResourceProp(p, gl.UniformBlock, uint32(i), gl.BufferBinding)),
			size:    int64(f.ResourceProp(p, gl.UniformBlock, uint32(i), gl.BufferDataSize)),
		})
	}
	return pr
}

// compileError builds the Compilation error of the kernels of text that
// failed.
func compileError(op string, names []string, res []built, block *backend.Dim3, text dialect) error {
	var failed []string
	var log strings.Builder
	for i, r := range res {
		if r.prog != nil {
			continue
		}
		failed = append(failed, names[i])
		fmt.Fprintf(&log, "kernel %s:\n%s\n", names[i], strings.TrimRight(r.log, "\n"))
	}
	what := text.lang + " compute shader"
	if len(names) > 1 {
		what = fmt.Sprintf("%d of %d %s kernels", len(failed), len(names), text.lang)
	}
	msg := fmt.Sprintf("%s did not compile (%s)", what, strings.Join(failed, ", "))
	if block != nil {
		msg = fmt.Sprintf("%s for block %v", msg, *block)
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(res[indexOf(names, failed[0])].log), "\n"); first != "" {
		msg += ": " + first
	}
	hint := "read the compiler log (errors.LogOf); its line numbers are those of " + text.field
	if text.derived {
		hint += ", from which the GLSL ES 3.10 text was derived (#version 310 es and default precisions): " +
			"GLSL ES has no implicit int/uint/float conversions, no double and no fma before 3.20; " +
			"write the ES forms in #ifdef GL_ES sections or give Source.GLSLES"
	}
	return &errors.Error{Backend: Name, Op: op, Category: errors.Compilation, Msg: msg, Hint: hint, Log: log.String()}
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return 0
}

// Compile builds one program per kernel of the source's text for the
// context (see dialectOf: Source.GLSL on desktop OpenGL; Source.GLSLES, or
// GLSL ES derived from Source.GLSL, on OpenGL ES): each kernel's text is the
// source with "#define ANYGPU_KERNEL_<name> 1" after its #version line.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	text, ok := dialectOf(src, d.lim.es, d.lim.exts["GL_ARB_ES3_1_compatibility"])
	if !ok {
		if d.lim.es {
			return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
				Msg:  "the source has no GLSL ES dialect (Source.GLSLES) and no GLSL to derive one from (Source.GLSL)",
				Hint: "this OpenGL ES 3.1 device compiles GLSL ES 3.10 compute shaders: add Source.GLSLES (or Source.GLSL 430), or use a backend with a dialect the source has"}
		}
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  "the source has no GLSL dialect (Source.GLSL)",
			Hint: "the OpenGL backend compiles GLSL 430 compute shaders (GLSL ES 3.10 ones, Source.GLSLES, only where the driver has GL_ARB_ES3_1_compatibility): add Source.GLSL, or use a backend with a dialect the source has"}
	}
	if len(opts.Flags) > 0 {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  fmt.Sprintf("GLSL compilers take no flags (got %q)", opts.Flags),
			Hint: "pass macros with gpu.Define instead"}
	}
	if err := checkDefines(opts.Defines); err != nil {
		return nil, withHint(errors.E(errors.InvalidArgument, Name, op, "%v", err), "name macros with letters, digits and underscores, one line each")
	}
	names := entryPoints(src)
	texts := make([]string, len(names))
	dialects := make([]dialect, len(names)) // text, or the kernel's subgroup variant
	for i, name := range names {
		if !isIdent(name) {
			return nil, withHint(errors.E(errors.InvalidArgument, Name, op, "kernel name %q is not a GLSL identifier (it names the macro ANYGPU_KERNEL_<name>)", name), "name kernels (Source.Params keys, or Source.Name) with letters, digits and underscores")
		}
		dialects[i] = d.subgroupDialect(src, name, text)
		texts[i] = prepare(dialects[i].text, name, opts.Defines, nil, opts.Debug)
	}
	res, err := d.build(texts)
	if err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	if err := d.retryPortable(res, dialects, names, text, opts); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	m := &module{dev: d, name: src.Name, kernels: make(map[string]*kernel, len(names))}
	var bad bool
	for i, name := range names {
		if res[i].prog == nil {
			bad = true
			continue
		}
		m.kernels[name] = &kernel{
			mod: m, name: name, def: res[i].prog, launchOp: "launch " + name,
			sized: strings.Contains(dialects[i].text, blockMacroPrefix), src: dialects[i], defines: opts.Defines, debug: opts.Debug,
		}
		if dialects[i].text != text.text {
			// A subgroup variant: a block that is not a whole number of
			// subgroups runs the portable text (see kernel.program).
			m.kernels[name].portable, m.kernels[name].subgroupSize = &text, d.lim.subgroupSize
		}
	}
	if bad {
		m.release()
		return nil, compileError(op, names, res, nil, text)
	}
	return m, nil
}

// module holds the programs of one Compile.
type module struct {
	dev     *device
	name    string
	kernels map[string]*kernel
}

var _ backend.Module = (*module)(nil)

// Kernel returns the entry point called name.
func (m *module) Kernel(name string) (backend.Kernel, error) {
	k, ok := m.kernels[name]
	if !ok {
		names := make([]string, 0, len(m.kernels))
		for n := range m.kernels {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, withHint(errors.E(errors.InvalidArgument, Name, "kernel", "no kernel %q in module %q (it has %s)", name, m.name, strings.Join(names, ", ")), "ask for a kernel that Source.Params names (or Source.Name for a source of one kernel)")
	}
	return k, nil
}

// Close deletes the programs after the work queued before it.
func (m *module) Close() error {
	m.release()
	return nil
}

// release deletes the programs of every kernel and its variants after the
// work queued before it.
func (m *module) release() {
	var ids []uint32
	for _, k := range m.kernels {
		k.mu.Lock()
		ids = append(ids, k.def.id)
		for _, p := range k.variants {
			ids = append(ids, p.id)
		}
		k.variants = nil
		k.mu.Unlock()
	}
	m.dev.deletePrograms(ids...)
}

// deletePrograms deletes programs after the work queued before it (a closed
// device has deleted them with its context).
func (d *device) deletePrograms(ids ...uint32) {
	_ = d.submit(task{fn: func(t *thread) error {
		for _, id := range ids {
			t.deleteProgram(id)
		}
		return nil
	}})
}

// kernel is one entry point: the program compiled with the source's own
// work-group size, and variants for other launch block sizes.
type kernel struct {
	mod      *module
	name     string
	launchOp string
	def      *program
	sized    bool    // the text uses the ANYGPU_BLOCK_ macros
	src      dialect // the text compiled, and where it came from
	defines  map[string]string
	debug    bool
	// portable is, when src is the kernel's subgroup variant, the source's
	// portable text, which the launches whose block's thread count is not a
	// multiple of subgroupSize run (no subgroup is then partial).
	portable     *dialect
	subgroupSize int

	mu       sync.Mutex
	variants map[backend.Dim3]*program
	follows  int // 0 unknown, 1 the work-group size follows the block macros, -1 it does not
}

var (
	_ backend.Kernel           = (*kernel)(nil)
	_ backend.KernelAttributer = (*kernel)(nil)
)

// Name is the entry point's name.
func (k *kernel) Name() string { return k.name }

// program returns the program whose work-group size is block, building a
// variant when the source lets the launch choose the size.
func (k *kernel) program(block backend.Dim3) (*program, error) {
	src := k.srcFor(block)
	if block == k.def.wg && src.text == k.src.text {
		return k.def, nil
	}
	mismatch := func(declared backend.Dim3) error {
		return &errors.Error{Backend: Name, Op: k.launchOp, Category: errors.Launch,
			Msg: fmt.Sprintf("the kernel declares work-group size %v (local_size), the launch's block is %v", declared, block),
			Hint: "launch with the block the GLSL source declares, or size it with the ANYGPU_BLOCK_X/Y/Z macros " +
				"(layout(local_size_x = ANYGPU_BLOCK_X ...) in;) so each launch's block is compiled"}
	}
	if !k.sized {
		return nil, mismatch(k.def.wg)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.variants[block]; ok {
		return p, nil
	}
	p, err := k.variant(block, src)
	if err != nil {
		return nil, err
	}
	if p.wg != block {
		k.mod.dev.deletePrograms(p.id)
		return nil, mismatch(p.wg)
	}
	if k.variants == nil {
		k.variants = map[backend.Dim3]*program{}
	}
	k.variants[block] = p
	return p, nil
}

// srcFor is the text a launch of block compiles: the kernel's, or, for a
// subgroup variant whose block's thread count is not a multiple of the
// subgroup size, the portable one.
func (k *kernel) srcFor(block backend.Dim3) dialect {
	if k.portable != nil && k.subgroupSize > 0 && (block.X*block.Y*block.Z)%k.subgroupSize != 0 {
		return *k.portable
	}
	return k.src
}

// variant compiles the kernel from src with the block macros set to block.
// k.mu is held.
func (k *kernel) variant(block backend.Dim3, src dialect) (*program, error) {
	text := prepare(src.text, k.name, k.defines, &block, k.debug)
	res, err := k.mod.dev.build([]string{text})
	if err != nil {
		return nil, errors.Wrap(err, Name, k.launchOp)
	}
	if res[0].prog == nil {
		return nil, compileError(k.launchOp, []string{k.name}, res, &block, src)
	}
	return res[0].prog, nil
}

// Attributes reports the work-group size the source fixes (zero when the
// block macros let the launch choose it) and the device's thread limit.
// OpenGL does not report a program's registers or shared memory.
func (k *kernel) Attributes() (backend.KernelAttributes, error) {
	a := backend.KernelAttributes{
		MaxThreadsPerBlock: k.mod.dev.info.MaxThreadsPerBlock,
		WorkGroupSize:      k.def.wg,
	}
	if !k.sized {
		return a, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.follows == 0 {
		// Compile once with another block: if the size changes, the launch
		// chooses it.
		probe := k.def.wg
		if probe.X > 1 {
			probe.X = 1
		} else {
			probe.X = 2
		}
		p, ok := k.variants[probe]
		if !ok {
			var err error
			if p, err = k.variant(probe, k.srcFor(probe)); err != nil {
				return a, err
			}
			if k.variants == nil {
				k.variants = map[backend.Dim3]*program{}
			}
			if p.wg == probe {
				k.variants[probe] = p
			} else {
				k.mod.dev.deletePrograms(p.id)
			}
		}
		k.follows = -1
		if p.wg == probe {
			k.follows = 1
		}
	}
	if k.follows > 0 {
		a.WorkGroupSize = backend.Dim3{}
	}
	return a, nil
}

// deleteProgram deletes a program and forgets it as the current one.
func (t *thread) deleteProgram(id uint32) {
	if t.program == id {
		t.gl.UseProgram(0)
		t.program = 0
	}
	t.gl.DeleteProgram(id)
}
