package naga

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	nagalib "github.com/gogpu/naga"
	"github.com/gogpu/naga/ir"
)

// blockConstNames are the WGSL constants that hold the block size, x, y, z.
var blockConstNames = [3]string{"anygpu_block_x", "anygpu_block_y", "anygpu_block_z"}

// blockConstDecl matches one block-size constant's declaration; group 1 is
// the dimension, group 2 the decimal value.
var blockConstDecl = regexp.MustCompile(`const\s+anygpu_block_([xyz])\s*:\s*u32\s*=\s*([0-9]+)u\s*;`)

// workgroupSizeAttr matches the entry point's work-group size attribute.
var workgroupSizeAttr = regexp.MustCompile(`@workgroup_size\(\s*anygpu_block_x\s*,\s*anygpu_block_y\s*,\s*anygpu_block_z\s*,?\s*\)`)

// kernelModule is one kernel's WGSL module as this package reads it.
type kernelModule struct {
	name string
	src  string
	// decl holds, per dimension, the byte range of the declaration in src.
	decl [3][2]int
	// block is the block size the module declares (the defaults).
	block [3]uint32
}

// readModule finds the block-size constants of the kernel name's module.
func readModule(name, src string) (*kernelModule, error) {
	if !isIdent(name) {
		return nil, fmt.Errorf("kernel %q: the name is not an identifier; name kernels as Go functions", name)
	}
	m := &kernelModule{name: name, src: src}
	seen := [3]bool{}
	for _, loc := range blockConstDecl.FindAllStringSubmatchIndex(src, -1) {
		k := int(src[loc[2]] - 'x')
		if seen[k] {
			return nil, fmt.Errorf("kernel %q: the module declares %s twice; declare it once", name, blockConstNames[k])
		}
		seen[k] = true
		v, err := strconv.ParseUint(src[loc[4]:loc[5]], 10, 32)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("kernel %q: %s = %su is not a block size; write a u32 from 1 up", name, blockConstNames[k], src[loc[4]:loc[5]])
		}
		m.decl[k] = [2]int{loc[0], loc[1]}
		m.block[k] = uint32(v)
	}
	for k, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("kernel %q: the module does not declare \"const %s: u32 = <n>u;\"; the block size must be the launch's", name, blockConstNames[k])
		}
	}
	if !workgroupSizeAttr.MatchString(src) {
		return nil, fmt.Errorf("kernel %q: the module has no \"@workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)\": the block size must be the launch's", name)
	}
	return m, nil
}

// withBlock returns the module's text made ready for naga with the block
// values vals (sentinels): each block constant becomes a private variable
// initialised to its value, so that naga cannot fold it into a constant
// expression and every use reads it (the dialects then initialise it with the
// launch's block), and the work-group size attribute takes the values as
// literals (without a u suffix: naga v0.19.0 reads @workgroup_size(64u, ...)
// as 1, 1, 1; the values are below 2^31).
func (m *kernelModule) withBlock(vals [3]uint32) string {
	order := []int{0, 1, 2}
	slices.SortFunc(order, func(a, b int) int { return m.decl[a][0] - m.decl[b][0] })
	var b strings.Builder
	last := 0
	for _, k := range order {
		b.WriteString(m.src[last:m.decl[k][0]])
		fmt.Fprintf(&b, "var<private> %s: u32 = %du;", blockConstNames[k], vals[k])
		last = m.decl[k][1]
	}
	b.WriteString(m.src[last:])
	return workgroupSizeAttr.ReplaceAllString(b.String(), fmt.Sprintf("@workgroup_size(%d, %d, %d)", vals[0], vals[1], vals[2]))
}

// lower parses and lowers text (the module with some block values), keeps
// only the kernel's entry point and validates the result.
func (m *kernelModule) lower(text string) (*ir.Module, error) {
	ast, err := nagalib.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("kernel %q: the WGSL does not parse: %w", m.name, err)
	}
	mod, err := nagalib.LowerWithSource(ast, text)
	if err != nil {
		return nil, fmt.Errorf("kernel %q: the WGSL does not lower: %w", m.name, err)
	}
	var keep []ir.EntryPoint
	for _, ep := range mod.EntryPoints {
		if ep.Name == m.name {
			keep = append(keep, ep)
		}
	}
	if len(keep) != 1 || keep[0].Stage != ir.StageCompute {
		var names []string
		for _, ep := range mod.EntryPoints {
			names = append(names, ep.Name)
		}
		return nil, fmt.Errorf("kernel %q: the module has no @compute entry point of that name (it has: %s); name the entry point as the kernel", m.name, strings.Join(names, ", "))
	}
	mod.EntryPoints = keep
	if len(mod.Overrides) > 0 {
		return nil, fmt.Errorf("kernel %q: override %s: pipeline-overridable constants are not supported (the backends set only the block size); use a const", m.name, mod.Overrides[0].Name)
	}
	if err := checkArraySizes(mod); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	problems, err := ir.Validate(mod)
	if err != nil {
		return nil, fmt.Errorf("kernel %q: naga cannot validate the module: %w", m.name, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("kernel %q: the module is not valid: %w", m.name, &problems[0])
	}
	return mod, nil
}

// checkArraySizes refuses runtime-sized arrays outside storage buffers:
// naga v0.19.0 lowers an array sized by a variable (a block constant, which
// is one here) to a runtime-sized array instead of refusing it.
func checkArraySizes(mod *ir.Module) error {
	for _, g := range mod.GlobalVariables {
		if g.Space != ir.SpaceStorage && hasRuntimeArray(mod, g.Type, 0) {
			return fmt.Errorf("%s is an array of no constant size; give it a constant size (the block size is not a constant)", g.Name)
		}
	}
	fns := make([]*ir.Function, 0, len(mod.Functions)+len(mod.EntryPoints))
	for i := range mod.Functions {
		fns = append(fns, &mod.Functions[i])
	}
	for i := range mod.EntryPoints {
		fns = append(fns, &mod.EntryPoints[i].Function)
	}
	for _, f := range fns {
		for _, v := range f.LocalVars {
			if hasRuntimeArray(mod, v.Type, 0) {
				return fmt.Errorf("local variable %s is an array of no constant size; give it a constant size (the block size is not a constant)", v.Name)
			}
		}
	}
	return nil
}

// hasRuntimeArray reports whether type h is or holds a runtime-sized array.
func hasRuntimeArray(mod *ir.Module, h ir.TypeHandle, depth int) bool {
	if int(h) >= len(mod.Types) || depth > 64 {
		return false
	}
	switch t := mod.Types[h].Inner.(type) {
	case ir.ArrayType:
		return t.Size.Constant == nil || hasRuntimeArray(mod, t.Base, depth+1)
	case ir.StructType:
		for _, m := range t.Members {
			if hasRuntimeArray(mod, m.Type, depth+1) {
				return true
			}
		}
	}
	return false
}

// readModules reads every module of the map, in name order.
func readModules(modules map[string]string) ([]*kernelModule, error) {
	if len(modules) == 0 {
		return nil, fmt.Errorf("no kernel modules to translate")
	}
	var out []*kernelModule
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		m, err := readModule(name, modules[name])
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// isIdent reports whether s is an identifier in every dialect (ASCII letters,
// digits and '_', not starting with a digit).
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
