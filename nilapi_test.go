package gpu_test

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// apiTypes is every exported type of the package that has exported methods
// (and the value types Stats, Transfer and TransferCounts, which may gain
// some), as a value of the receiver kind its methods use. TestNilReceivers fails
// when a type with methods is missing here, so that a new type is walked too;
// a new method of a listed type is walked without any change.
var apiTypes = map[string]reflect.Type{
	"Buffer":         reflect.TypeFor[*gpu.Buffer](),
	"HostBuffer":     reflect.TypeFor[*gpu.HostBuffer](),
	"Device":         reflect.TypeFor[*gpu.Device](),
	"Stream":         reflect.TypeFor[*gpu.Stream](),
	"Event":          reflect.TypeFor[*gpu.Event](),
	"Module":         reflect.TypeFor[*gpu.Module](),
	"Kernel":         reflect.TypeFor[*gpu.Kernel](),
	"Graph":          reflect.TypeFor[*gpu.Graph](),
	"Pool":           reflect.TypeFor[*gpu.Pool](),
	"PoolStats":      reflect.TypeFor[gpu.PoolStats](),
	"Report":         reflect.TypeFor[gpu.Report](),
	"State":          reflect.TypeFor[gpu.State](),
	"Arg":            reflect.TypeFor[gpu.Arg](),
	"Stats":          reflect.TypeFor[gpu.Stats](),
	"Transfer":       reflect.TypeFor[gpu.Transfer](),
	"TransferCounts": reflect.TypeFor[gpu.TransferCounts](),
}

// exportedMethods parses the package's source (test files aside) and returns
// each exported type that has exported methods, with their names.
func exportedMethods(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	require.NoError(t, err)
	out := map[string][]string{}
	for _, f := range pkgs["gpu"].Files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() {
				continue
			}
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if idx, ok := typ.(*ast.IndexExpr); ok { // a generic receiver
				typ = idx.X
			}
			name := typ.(*ast.Ident).Name
			if ast.IsExported(name) {
				out[name] = append(out[name], fn.Name.Name)
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// zeroArgs are the arguments of a call of m made of zero values (nil
// pointers, contexts, readers, ...).
func zeroArgs(m reflect.Type) []reflect.Value {
	args := make([]reflect.Value, m.NumIn())
	for i := range args {
		args[i] = reflect.Zero(m.In(i))
	}
	return args
}

// simpleArgs are the arguments of a call of m made of simple non-nil values:
// a background context, 1 for numbers, one-element slices, readers and
// writers of nothing, pointers to zero values.
func simpleArgs(m reflect.Type) []reflect.Value {
	ctx := reflect.TypeFor[context.Context]()
	args := make([]reflect.Value, m.NumIn())
	for i := range args {
		in := m.In(i)
		v := reflect.New(in).Elem()
		switch {
		case in == ctx:
			v.Set(reflect.ValueOf(context.Background()))
		case in == reflect.TypeFor[io.Reader]():
			v.Set(reflect.ValueOf(bytes.NewReader(nil)))
		case in == reflect.TypeFor[io.Writer]():
			v.Set(reflect.ValueOf(io.Discard))
		case in.Kind() == reflect.Slice:
			v.Set(reflect.MakeSlice(in, 1, 1))
		case in.Kind() == reflect.Pointer:
			v.Set(reflect.New(in.Elem()))
		case in.Kind() >= reflect.Int && in.Kind() <= reflect.Float64:
			v.Set(reflect.ValueOf(1).Convert(in))
		case in.Kind() == reflect.String:
			v.SetString("x")
		}
		args[i] = v
	}
	return args
}

// TestNilReceivers calls every exported method of the package's types on a
// nil receiver (the zero value of a value type), with zero arguments and with
// simple ones: none panics, and every error is of category InvalidArgument.
func TestNilReceivers(t *testing.T) {
	declared := exportedMethods(t)
	var missing []string
	for name := range declared {
		if _, ok := apiTypes[name]; !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "add these types to apiTypes")

	for name, typ := range apiTypes {
		recvs := []reflect.Value{reflect.Zero(typ)}
		if typ.Kind() == reflect.Pointer {
			recvs = append(recvs, reflect.New(typ.Elem())) // a zero struct, never opened
		}
		for _, recv := range recvs {
			for _, m := range declared[name] {
				method, ok := typ.MethodByName(m)
				require.True(t, ok, "%s.%s is not in the method set of %v", name, m, typ)
				for _, args := range []struct {
					kind string
					make func(reflect.Type) []reflect.Value
				}{{"zero", zeroArgs}, {"simple", simpleArgs}} {
					call := fmt.Sprintf("%s.%s on %v (%s arguments)", name, m, recv, args.kind)
					in := append([]reflect.Value{recv}, args.make(method.Type)[1:]...)
					var out []reflect.Value
					require.NotPanics(t, func() {
						if method.Type.IsVariadic() {
							out = method.Func.CallSlice(in)
						} else {
							out = method.Func.Call(in)
						}
					}, call)
					if n := len(out); n > 0 && method.Type.Out(n-1) == reflect.TypeFor[error]() {
						if err, _ := out[n-1].Interface().(error); err != nil {
							require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%s: %v", call, err)
						}
					}
				}
			}
		}
	}
}

// TestProbeNilContext reports a nil context as every backend's reason, as
// Open refuses it, rather than panicking.
func TestProbeNilContext(t *testing.T) {
	rep := gpu.Probe(nil) //nolint:staticcheck // the point of the test
	require.NotEmpty(t, rep.Backends)
	for _, st := range rep.Backends {
		require.Equal(t, gpu.Unavailable, st.State, st.Name)
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(st.Err), "%s: %v", st.Name, st.Err)
		require.Contains(t, st.Reason, "nil context", st.Name)
	}
}
