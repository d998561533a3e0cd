package naga

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gogpu/naga/ir"
	"github.com/gogpu/naga/msl"
)

// mslVersion is the MSL version naga writes for (the Metal backend compiles
// with the device's default, 2.1 or newer).
var mslVersion = msl.Version2_1

// blockParam is the kernel parameter through which MSL kernels read the
// launch's block size.
const blockParam = "anygpu_threads_per_threadgroup"

// MSL returns the kernels' modules (see the package doc) as one Metal Shading
// Language text: a kernel function per kernel, named as the kernel, buffers at
// [[buffer(0..n-1)]] and the scalars' struct at [[buffer(n)]], the block size
// read from [[threads_per_threadgroup]]. Kernels go in name order; names two
// kernels both declare differently are prefixed with the kernel's name.
func MSL(modules map[string]string) (string, error) {
	mods, err := readModules(modules)
	if err != nil {
		return "", fmt.Errorf("naga: msl: %w", err)
	}
	var units []*mslUnit
	for _, m := range mods {
		text, err := translate(m, func(text string, s [3]uint32) (string, error) {
			return m.msl(text, s)
		})
		if err != nil {
			return "", fmt.Errorf("naga: msl: %w", err)
		}
		u, err := splitMSL(m.name, text)
		if err != nil {
			return "", fmt.Errorf("naga: msl: kernel %q: %w", m.name, err)
		}
		units = append(units, u)
	}
	return mergeMSL(units), nil
}

// msl translates one variant of the module (block values s): naga's text with
// the block constants read from the launch and no buffer-sizes argument.
func (m *kernelModule) msl(text string, s [3]uint32) (string, error) {
	mod, err := m.lower(text)
	if err != nil {
		return "", err
	}
	opts := msl.DefaultOptions()
	opts.LangVersion = mslVersion
	opts.BoundsCheckPolicies = msl.BoundsCheckPolicies{} // unchecked, as in every dialect: no sizes buffer
	opts.ForceLoopBounding = false                       // as the other dialects' kernels: loops end by their own condition
	opts.ZeroInitializeWorkgroupMemory = false           // shared arrays start undefined (kernel.Shared), as in the other dialects
	opts.PerEntryPointMap = map[string]msl.EntryPointResources{m.name: {Resources: bufferSlots(mod)}}
	out, info, err := msl.Compile(mod, opts)
	if err != nil {
		return "", fmt.Errorf("kernel %q: naga cannot write MSL: %w", m.name, err)
	}
	if out, err = kernelNamed(m.name, info.EntryPointNames[m.name], out); err != nil {
		return "", err
	}
	out, err = dropBufferSizes(out)
	if err != nil {
		return "", fmt.Errorf("kernel %q: %w", m.name, err)
	}
	out = bufferPointers(out)
	return launchBlock(m.name, out, s)
}

// runtimeArrayTypedef matches naga's typedef of a runtime-sized array
// ("typedef float type_2[1];"): group 1 the element type, group 2 the name.
var runtimeArrayTypedef = regexp.MustCompile(`(?m)^typedef (.+) (\w+)\[1\];$`)

// bufferParam matches a parameter that is a reference to a runtime-sized
// array: the kernel's, bound to a [[buffer]] ("," or two spaces first), or a
// helper function's (four spaces first, naga passes it the kernel's
// argument): group 1 what precedes "device", group 2 the type, group 3
// " const" or "", group 4 the name and what follows it.
var bufferParam = regexp.MustCompile(`(?m)^(,\s*|  |    )device (\w+)( const)?& (\w+ \[\[buffer\(\d+\)\]\]|\w+,?)$`)

// bufferPointers makes the buffer parameters pointers to their elements
// ("device float* x [[buffer(0)]]") where naga writes references to
// runtime-sized arrays ("device type_2& x"), in the kernel and in the helper
// functions the kernel passes them to: the Metal backend's ABI, which
// mslcheck checks, has buffers as pointers; indexing reads the same.
func bufferPointers(text string) string {
	elems := map[string]string{}
	for _, m := range runtimeArrayTypedef.FindAllStringSubmatch(text, -1) {
		elems[m[2]] = m[1]
	}
	return bufferParam.ReplaceAllStringFunc(text, func(line string) string {
		sub := bufferParam.FindStringSubmatch(line)
		elem, ok := elems[sub[2]]
		if !ok {
			return line
		}
		return sub[1] + "device " + elem + sub[3] + "* " + sub[4]
	})
}

// kernelNamed renames the kernel function from naga's name for it (naga
// appends '_' to names that end in a digit, for one) to the kernel's name.
func kernelNamed(name, got, text string) (string, error) {
	if got == "" || got == name {
		return text, nil
	}
	if regexp.MustCompile(`\b` + name + `\b`).MatchString(text) {
		return "", fmt.Errorf("kernel %q: naga named the kernel function %q and uses %q for something else", name, got, name)
	}
	head := "kernel void " + got + "("
	if strings.Count(text, head) != 1 {
		return "", fmt.Errorf("kernel %q: naga's MSL has no kernel function %q", name, got)
	}
	return strings.Replace(text, head, "kernel void "+name+"(", 1), nil
}

// bufferSlots binds every resource of group 0 at the [[buffer]] slot of its
// binding number: buffers at 0..n-1, the scalars at n.
func bufferSlots(mod *ir.Module) map[ir.ResourceBinding]msl.BindTarget {
	out := map[ir.ResourceBinding]msl.BindTarget{}
	for _, g := range mod.GlobalVariables {
		if g.Binding == nil || g.Binding.Binding >= 256 {
			continue
		}
		slot := uint8(g.Binding.Binding)
		out[*g.Binding] = msl.BindTarget{Buffer: &slot, Mutable: g.Space == ir.SpaceStorage}
	}
	return out
}

// bufferSizesParam matches the runtime-array sizes argument naga adds to a
// kernel that has runtime-sized arrays.
var bufferSizesParam = regexp.MustCompile(`(?m)^, constant _mslBufferSizes& _buffer_sizes[^\n]*\n`)

// bufferSizesStruct matches naga's declaration of that argument's struct.
var bufferSizesStruct = regexp.MustCompile(`(?s)struct _mslBufferSizes \{.*?\n\};\n\n?`)

// helperBufferSizesParam matches the sizes parameter naga gives a helper
// function that touches a runtime-sized array ("constant _mslBufferSizes&
// _buffer_sizes" on its own line, after a comma or as the only one).
var helperBufferSizesParam = regexp.MustCompile(`(?m),?\s*constant _mslBufferSizes& _buffer_sizes\b`)

// bufferSizesArg matches the argument that passes the sizes on to a helper.
var bufferSizesArg = regexp.MustCompile(`,\s*_buffer_sizes\s*\)`)

// dropBufferSizes removes naga's runtime-array sizes argument, which the
// Metal ABI has no slot for, and its forwarding to helper functions (the
// compare-exchange helpers of atomics), when nothing reads it.
func dropBufferSizes(text string) (string, error) {
	text = bufferSizesParam.ReplaceAllString(text, "")
	text = helperBufferSizesParam.ReplaceAllString(text, "")
	text = bufferSizesArg.ReplaceAllString(text, ")")
	if strings.Contains(text, "_buffer_sizes") {
		return "", fmt.Errorf("the kernel reads the length of a runtime-sized array, which the Metal ABI does not pass; pass lengths as scalars")
	}
	return bufferSizesStruct.ReplaceAllString(text, ""), nil
}

// launchBlock initialises the block variables (naga declares the private
// variables of withBlock at the top of the kernel function, with the values
// s) from a [[threads_per_threadgroup]] parameter it adds to the kernel.
func launchBlock(name, text string, s [3]uint32) (string, error) {
	used := false
	for k, c := range blockConstNames {
		decl := regexp.MustCompile(`(?m)^(\s+)uint ` + c + ` = ` + fmt.Sprint(s[k]) + `u;$`)
		if decl.MatchString(text) {
			used = true
			text = decl.ReplaceAllString(text, fmt.Sprintf("${1}uint %s = %s.%c;", c, blockParam, "xyz"[k]))
		}
	}
	if !used {
		return text, nil
	}
	head := regexp.MustCompile(`(?m)^kernel void ` + name + `\(\n`)
	loc := head.FindStringIndex(text)
	if loc == nil {
		return "", fmt.Errorf("kernel %q: naga's MSL has no kernel function of that name", name)
	}
	open := strings.Index(text[loc[1]:], "\n) {\n")
	if open < 0 {
		return "", fmt.Errorf("kernel %q: naga's MSL kernel signature has an unexpected form", name)
	}
	at := loc[1] + open
	sep := "\n, "
	if open == 0 { // no parameters yet
		sep = "  "
	}
	return text[:at] + sep + "metal::uint3 " + blockParam + " [[threads_per_threadgroup]]" + text[at:], nil
}

// mslItem is one top-level declaration of naga's MSL.
type mslItem struct {
	name   string // the declared name ("" for a header line)
	kernel bool   // the kernel function
	text   string
}

// mslUnit is one kernel's MSL split into its header lines and declarations.
type mslUnit struct {
	kernel string
	header []string
	items  []mslItem
}

var (
	typedefName  = regexp.MustCompile(`(\w+)\s*(\[[^\]]*\])*\s*;\s*$`)
	constantName = regexp.MustCompile(`^constant\s+[\w:<>, ]+?\s+(\w+)\s*(=|;|\[)`)
	functionName = regexp.MustCompile(`(\w+)\s*\(`)
	structName   = regexp.MustCompile(`^struct\s+(\w+)`)
)

// splitMSL splits naga's MSL for one kernel into top-level items.
func splitMSL(kernel, text string) (*mslUnit, error) {
	u := &mslUnit{kernel: kernel}
	var cur []string
	depth := 0
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(cur) == 0 {
			if trimmed == "" {
				continue
			}
			if strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "using ") {
				u.header = append(u.header, trimmed)
				continue
			}
		}
		cur = append(cur, line)
		depth += strings.Count(line, "{") - strings.Count(line, "}")
		if depth == 0 && (strings.HasSuffix(trimmed, ";") || strings.HasSuffix(trimmed, "}")) {
			it, err := newItem(strings.Join(cur, "\n") + "\n")
			if err != nil {
				return nil, err
			}
			u.items = append(u.items, it)
			cur = nil
		}
	}
	if len(cur) > 0 || depth != 0 {
		return nil, fmt.Errorf("naga's MSL ends inside a declaration")
	}
	found := slices.ContainsFunc(u.items, func(it mslItem) bool { return it.kernel && it.name == kernel })
	if !found {
		return nil, fmt.Errorf("naga's MSL has no kernel function %q", kernel)
	}
	return u, nil
}

// newItem names a top-level declaration.
func newItem(text string) (mslItem, error) {
	lines := strings.SplitN(text, "\n", 3)
	first := strings.TrimSpace(lines[0])
	if strings.HasPrefix(first, "template ") && len(lines) > 1 {
		// A template (naga's helpers for atomics): named by the declaration
		// on the next line.
		first = strings.TrimSpace(lines[1])
	}
	var sub []string
	it := mslItem{text: text}
	switch {
	case strings.HasPrefix(first, "struct "):
		sub = structName.FindStringSubmatch(first)
	case strings.HasPrefix(first, "typedef "):
		sub = typedefName.FindStringSubmatch(strings.TrimSpace(text))
	case strings.HasPrefix(first, "constant "):
		sub = constantName.FindStringSubmatch(first)
	default:
		it.kernel = strings.HasPrefix(first, "kernel ")
		sub = functionName.FindStringSubmatch(first)
	}
	if sub == nil {
		return it, fmt.Errorf("cannot tell what naga's top-level MSL declaration %q declares", first)
	}
	it.name = sub[1]
	return it, nil
}

// mergeMSL joins the kernels' units into one text: the header lines once,
// then each kernel's declarations, where a name two kernels declare with
// different definitions is prefixed with the kernel's name in each, and a
// declaration two kernels share word for word is kept once.
func mergeMSL(units []*mslUnit) string {
	// Rename until every name that several kernels declare has the same
	// definitions in each (renaming one name can change others' texts).
	for {
		defs := map[string]map[string]string{} // name -> kernel -> its definitions
		for _, u := range units {
			for _, it := range u.items {
				if it.kernel {
					continue
				}
				if defs[it.name] == nil {
					defs[it.name] = map[string]string{}
				}
				defs[it.name][u.kernel] += it.text
			}
		}
		var clash []string
		for name, byKernel := range defs {
			texts := map[string]bool{}
			for _, t := range byKernel {
				texts[t] = true
			}
			if len(byKernel) > 1 && len(texts) > 1 {
				clash = append(clash, name)
			}
		}
		if len(clash) == 0 {
			break
		}
		slices.Sort(clash)
		for _, u := range units {
			for _, name := range clash {
				if _, ok := defs[name][u.kernel]; ok {
					u.rename(name, u.kernel+"_"+name)
				}
			}
		}
	}
	var b strings.Builder
	seenHeader := map[string]bool{}
	for _, u := range units {
		for _, h := range u.header {
			if strings.HasPrefix(h, "#include <simd/") || seenHeader[h] {
				continue // metal_stdlib has the simd types
			}
			seenHeader[h] = true
			b.WriteString(h + "\n")
		}
	}
	seenItem := map[string]bool{}
	for _, u := range units {
		b.WriteString("\n// ---- kernel " + u.kernel + " ----\n")
		for _, it := range u.items {
			if seenItem[it.text] {
				continue
			}
			seenItem[it.text] = true
			b.WriteString("\n" + it.text)
		}
	}
	return b.String()
}

// rename replaces the identifier from with to in every item of u, except
// where it is qualified (metal::from).
func (u *mslUnit) rename(from, to string) {
	re := regexp.MustCompile(`(^|[^\w:])` + regexp.QuoteMeta(from) + `\b`)
	for i := range u.items {
		u.items[i].text = re.ReplaceAllString(u.items[i].text, "${1}"+to)
		if u.items[i].name == from {
			u.items[i].name = to
		}
	}
}
