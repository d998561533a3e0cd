// Package mslcheck parses Metal Shading Language sources without a Mac: it
// runs clang++ in C++17 mode, -fsyntax-only, on the source with a small
// header of anygpu's (include/metal_stdlib) that stands in for Metal's
// standard library, and it checks the kernels' argument bindings against the
// portable ABI by reading clang's AST.
//
// What a passing check proves: the source is well-formed C++ once Metal's
// address spaces, attributes and types are mapped (every identifier, type,
// member, call and [[attribute]] resolves; [[buffer(n)]] indices are
// integer constants; kernel names are unique; nothing writes through a
// constant pointer), and — with CheckABI — that each kernel exists under its
// name, binds its buffer arguments at [[buffer(0..b-1)]] in argument order,
// and reads its scalars from one struct at [[buffer(b)]] whose fields have
// the kinds of the declared parameters, in order (so the struct's layout is
// backend.PackScalars'). A deliberately broken source fails it.
//
// What it does not prove: that Metal's own compiler accepts the source (MSL
// rules C++ does not have — address-space agreement, restrictions on
// recursion, pointers to functions and dynamic allocation, attribute type
// rules — are not checked), nor anything about what the kernels compute or
// how fast. Only running them on Apple hardware does that.
package mslcheck

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// EnvClang names the C++ compiler the check runs instead of clang++.
const EnvClang = "ANYGPU_CLANGXX"

//go:embed include/metal_stdlib
var shimHeader []byte

// typesHeader is the part of the shim the check's and the execution's
// metal_stdlib share; both include it from their own directory.
//
//go:embed include/anygpu_metal_types
var typesHeader []byte

// typesHeaderName is the name both headers include typesHeader by.
const typesHeaderName = "anygpu_metal_types"

// writeHeaders writes a metal_stdlib and typesHeader into the directory inc.
func writeHeaders(inc string, stdlib []byte) error {
	if err := os.WriteFile(filepath.Join(inc, "metal_stdlib"), stdlib, 0o644); err != nil {
		return fmt.Errorf("mslcheck: %w", err)
	}
	if err := os.WriteFile(filepath.Join(inc, typesHeaderName), typesHeader, 0o644); err != nil {
		return fmt.Errorf("mslcheck: %w", err)
	}
	return nil
}

// Shim returns the stand-in metal_stdlib header the check compiles against,
// with the types header it includes in place.
func Shim() string {
	return strings.Replace(string(shimHeader), "#include \""+typesHeaderName+"\"\n", string(typesHeader), 1)
}

// Clang returns the path of the clang++ the check runs (EnvClang, else
// clang++ on PATH), or an error saying that there is none.
func Clang() (string, error) {
	name := os.Getenv(EnvClang)
	if name == "" {
		name = "clang++"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("mslcheck: no %s on PATH (install clang, e.g. apt-get install clang, or set %s): %w", name, EnvClang, err)
	}
	return path, nil
}

// Args are the compiler arguments of the check, before the source file.
var Args = []string{
	"-x", "c++", "-std=c++17", "-fsyntax-only",
	"-nostdinc", "-nostdinc++", // only the shim: no host header can make MSL parse by accident
	"-Werror=unknown-attributes", "-Werror=return-type", "-Werror=implicit-function-declaration",
	"-Wno-unused-parameter",
}

// Check parses src. name labels the source in messages. It returns nil, or an
// error holding clang's diagnostics.
func Check(ctx context.Context, name, src string) error {
	_, err := run(ctx, name, src, false)
	return err
}

// run compiles src with the shim, optionally dumping the AST as JSON.
func run(ctx context.Context, name, src string, dumpAST bool) ([]byte, error) {
	clang, err := Clang()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mslcheck")
	if err != nil {
		return nil, fmt.Errorf("mslcheck: %w", err)
	}
	defer os.RemoveAll(dir)
	inc := filepath.Join(dir, "include")
	if err := os.Mkdir(inc, 0o755); err != nil {
		return nil, fmt.Errorf("mslcheck: %w", err)
	}
	if err := writeHeaders(inc, shimHeader); err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "program_source.metal")
	if err := os.WriteFile(file, []byte(eraseAddressSpaceOverloads(src)), 0o644); err != nil {
		return nil, fmt.Errorf("mslcheck: %w", err)
	}
	args := append(append([]string{}, Args...), "-I", inc)
	if dumpAST {
		args = append(args, "-Xclang", "-ast-dump=json")
	}
	args = append(args, file)
	cmd := exec.CommandContext(ctx, clang, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		diag := strings.ReplaceAll(stderr.String(), file, name)
		return nil, fmt.Errorf("mslcheck: %s does not parse: %w\n%s", name, err, diag)
	}
	return stdout.Bytes(), nil
}

// Kind is a parameter kind as CheckABI compares it: "buffer", "f32", "u32",
// "i32", "f64", "u64", "i64" (the names of backend.ArgKind).
type Kind = string

// CheckABI parses src (as Check does) and checks every kernel listed in
// params against the portable argument ABI: a kernel function of that name
// exists; its k-th buffer parameter is bound at [[buffer(k)]] and is a
// pointer; when the kernel takes scalars, exactly one more parameter, bound
// at [[buffer(b)]] (b buffers), is a struct (by reference or pointer) whose
// fields are the scalars' kinds in order; no other parameter has a
// [[buffer]] binding.
func CheckABI(ctx context.Context, name, src string, params map[string][]Kind) error {
	out, err := run(ctx, name, src, true)
	if err != nil {
		return err
	}
	var root astNode
	if err := json.Unmarshal(out, &root); err != nil {
		return fmt.Errorf("mslcheck: %s: reading clang's AST: %w", name, err)
	}
	kernels, records := map[string]astNode{}, map[string]astNode{}
	collect(root, kernels, records)
	var problems []string
	for kernel, kinds := range params {
		fn, ok := kernels[kernel]
		if !ok {
			problems = append(problems, fmt.Sprintf("no kernel function %q", kernel))
			continue
		}
		problems = append(problems, checkKernel(kernel, fn, kinds, records)...)
	}
	if len(problems) > 0 {
		return fmt.Errorf("mslcheck: %s breaks the argument ABI:\n  %s", name, strings.Join(sorted(problems), "\n  "))
	}
	return nil
}

func checkKernel(kernel string, fn astNode, kinds []Kind, records map[string]astNode) []string {
	var bad []string
	var scalars []Kind
	nbuf := 0
	for _, k := range kinds {
		if k == "buffer" {
			nbuf++
		} else {
			scalars = append(scalars, k)
		}
	}
	bound := map[int]astNode{}
	for _, p := range fn.Inner {
		if p.Kind != "ParmVarDecl" {
			continue
		}
		idx, ok := bufferIndex(p)
		if !ok {
			continue
		}
		if prev, dup := bound[idx]; dup {
			bad = append(bad, fmt.Sprintf("%s: parameters %s and %s both bind [[buffer(%d)]]", kernel, prev.Name, p.Name, idx))
			continue
		}
		bound[idx] = p
	}
	want := nbuf
	if len(scalars) > 0 {
		want++
	}
	if len(bound) != want {
		what := ""
		if len(scalars) > 0 {
			what = " and a params struct"
		}
		bad = append(bad, fmt.Sprintf("%s: %d parameters bind a [[buffer]], want %d (%d buffers%s)", kernel, len(bound), want, nbuf, what))
	}
	for i := 0; i < nbuf; i++ {
		p, ok := bound[i]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: buffer argument %d is not bound at [[buffer(%d)]]", kernel, i, i))
			continue
		}
		if t := p.qualType(); !strings.HasSuffix(strings.TrimSpace(t), "*") {
			bad = append(bad, fmt.Sprintf("%s: [[buffer(%d)]] parameter %s is %q, want a pointer", kernel, i, p.Name, t))
		}
	}
	if len(scalars) == 0 {
		return bad
	}
	p, ok := bound[nbuf]
	if !ok {
		return append(bad, fmt.Sprintf("%s: the scalars are not bound at [[buffer(%d)]]", kernel, nbuf))
	}
	got, err := paramKinds(p, records)
	if err != nil {
		return append(bad, fmt.Sprintf("%s: [[buffer(%d)]] parameter %s: %v", kernel, nbuf, p.Name, err))
	}
	if strings.Join(got, ",") != strings.Join(scalars, ",") {
		bad = append(bad, fmt.Sprintf("%s: the params at [[buffer(%d)]] are (%s), want (%s)", kernel, nbuf,
			strings.Join(got, ", "), strings.Join(scalars, ", ")))
	}
	return bad
}

// paramKinds returns the kinds of the params parameter's fields: a struct by
// reference or pointer, or a single scalar by reference or pointer.
func paramKinds(p astNode, records map[string]astNode) ([]Kind, error) {
	t := strings.TrimSpace(p.qualType())
	if !strings.HasSuffix(t, "&") && !strings.HasSuffix(t, "*") {
		return nil, fmt.Errorf("type %q, want a reference or pointer to the params struct", t)
	}
	base := strings.TrimSpace(strings.TrimRight(t, "&*"))
	base = strings.TrimSpace(strings.TrimPrefix(base, "const "))
	base = strings.TrimSpace(strings.TrimPrefix(base, "struct "))
	if k, ok := scalarKind(base); ok {
		return []Kind{k}, nil
	}
	rec, ok := records[base]
	if !ok {
		return nil, fmt.Errorf("type %q is neither a scalar nor a struct defined in the source", t)
	}
	var kinds []Kind
	for _, f := range rec.Inner {
		if f.Kind != "FieldDecl" {
			continue
		}
		k, ok := scalarKind(f.qualType())
		if !ok {
			k, ok = scalarKind(f.desugared())
		}
		if !ok {
			return nil, fmt.Errorf("field %s.%s has type %q, which is no scalar kind of the ABI", base, f.Name, f.qualType())
		}
		kinds = append(kinds, k)
	}
	return kinds, nil
}

// scalarKind maps an MSL scalar type to its ABI kind.
func scalarKind(t string) (Kind, bool) {
	switch strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "const ")) {
	case "float":
		return "f32", true
	case "uint", "unsigned int", "uint32_t":
		return "u32", true
	case "int", "int32_t":
		return "i32", true
	case "ulong", "unsigned long", "uint64_t":
		return "u64", true
	case "long", "int64_t":
		return "i64", true
	case "double":
		return "f64", true
	}
	return "", false
}

// astNode is the part of clang's JSON AST the ABI check reads.
type astNode struct {
	Kind  string    `json:"kind"`
	Name  string    `json:"name"`
	Value astValue  `json:"value"`
	Type  *astType  `json:"type"`
	Inner []astNode `json:"inner"`
	// CompleteDefinition is set on a struct's defining declaration.
	CompleteDefinition bool `json:"completeDefinition"`
}

// astValue is a literal's value in clang's JSON AST: a string for most
// literals ("42", "1.5"), a JSON true or false for a bool literal, which it
// keeps as "true" or "false".
type astValue string

// UnmarshalJSON reads a string as it is and any other JSON value as its text.
func (v *astValue) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = astValue(s)
		return nil
	}
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("mslcheck: a literal's value %s: %w", b, err)
	}
	*v = astValue(strings.TrimSpace(string(raw)))
	return nil
}

type astType struct {
	QualType          string `json:"qualType"`
	DesugaredQualType string `json:"desugaredQualType"`
}

func (n astNode) qualType() string {
	if n.Type == nil {
		return ""
	}
	return n.Type.QualType
}

func (n astNode) desugared() string {
	if n.Type == nil {
		return ""
	}
	return n.Type.DesugaredQualType
}

// collect finds the kernel functions (extern "C" FunctionDecls with a body or
// declaration at file scope) and the struct definitions of the translation
// unit.
func collect(n astNode, kernels, records map[string]astNode) {
	for _, c := range n.Inner {
		switch c.Kind {
		case "LinkageSpecDecl":
			for _, f := range c.Inner {
				if f.Kind == "FunctionDecl" && f.Name != "" {
					if prev, ok := kernels[f.Name]; !ok || len(f.Inner) > len(prev.Inner) {
						kernels[f.Name] = f
					}
				}
			}
		case "CXXRecordDecl", "RecordDecl":
			if c.CompleteDefinition && c.Name != "" {
				records[c.Name] = c
			}
		}
	}
}

// annotation returns the value of a parameter's shim annotation of kind
// ("1" for [[buffer(n)]], "2" for a built-in): the shim turns an attribute
// into clang::annotate("metal.…", kind, value), whose constant arguments
// the AST keeps as ConstantExpr values.
func annotation(p astNode, kind string) (string, bool) {
	for _, a := range p.Inner {
		if a.Kind != "AnnotateAttr" {
			continue
		}
		var vals []string
		for _, e := range a.Inner {
			if e.Kind == "ConstantExpr" && e.Value != "" {
				vals = append(vals, string(e.Value))
			}
		}
		if len(vals) == 2 && vals[0] == kind {
			return vals[1], true
		}
	}
	return "", false
}

// bufferIndex returns n of a parameter's [[buffer(n)]] binding
// (clang::annotate("metal.buffer", 1, n)).
func bufferIndex(p astNode) (int, bool) {
	v, ok := annotation(p, "1")
	if !ok {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil {
		return 0, false
	}
	return n, true
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
