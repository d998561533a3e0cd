package prebuilt

import (
	"reflect"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyCoversEveryOption sets each field of nvrtc.Options in turn: every
// field that reaches NVRTC changes the key, the target and the kernel-cache
// settings do not. A field added to nvrtc.Options fails here until Key
// decides about it.
func TestKeyCoversEveryOption(t *testing.T) {
	notInKey := map[string]bool{"Arch": true, "DriverVersion": true, "NoCache": true}
	const src = `extern "C" __global__ void k() {}`
	base := Key(src, nvrtc.Options{})
	typ := reflect.TypeFor[nvrtc.Options]()
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			var o nvrtc.Options
			v := reflect.ValueOf(&o).Elem().Field(i)
			switch v.Kind() {
			case reflect.String:
				v.SetString("x")
			case reflect.Bool:
				v.SetBool(true)
			case reflect.Int:
				v.SetInt(7)
			case reflect.Map:
				v.Set(reflect.ValueOf(map[string]string{"A": "1"}))
			case reflect.Slice:
				v.Set(reflect.ValueOf([]string{"a"}))
			default:
				t.Fatalf("nvrtc.Options.%s is a %s: teach Key (and this test) about it", f.Name, v.Kind())
			}
			if notInKey[f.Name] {
				assert.Equal(t, base, Key(src, o), "%s does not change the code", f.Name)
			} else {
				assert.NotEqual(t, base, Key(src, o), "%s reaches NVRTC", f.Name)
			}
			seen[Key(src, o)] = true
		})
	}
	require.Len(t, seen, typ.NumField()-len(notInKey)+1, "every field that is in the key changes it differently")
}

func TestKeyDistinguishes(t *testing.T) {
	const src = `extern "C" __global__ void k() {}`
	for _, tc := range []struct {
		name   string
		a, b   nvrtc.Options
		srcB   string
		differ bool
	}{
		{"the source text", nvrtc.Options{}, nvrtc.Options{}, src + " ", true},
		{"list order", nvrtc.Options{Flags: []string{"-a", "-b"}}, nvrtc.Options{Flags: []string{"-b", "-a"}}, src, true},
		{"where a list splits", nvrtc.Options{Flags: []string{"-ab"}}, nvrtc.Options{Flags: []string{"-a", "b"}}, src, true},
		{"a define's name against its value", nvrtc.Options{Defines: map[string]string{"AB": ""}},
			nvrtc.Options{Defines: map[string]string{"A": "B"}}, src, true},
		{"a define against a header", nvrtc.Options{Defines: map[string]string{"A": "1"}},
			nvrtc.Options{Headers: map[string]string{"A": "1"}}, src, true},
		{"maps built in another order", nvrtc.Options{Defines: map[string]string{"A": "1", "B": "2", "C": "3"}},
			nvrtc.Options{Defines: map[string]string{"C": "3", "B": "2", "A": "1"}}, src, false},
		{"another target", nvrtc.Options{Arch: "sm_80"}, nvrtc.Options{Arch: "compute_75"}, src, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ka, kb := Key(src, tc.a), Key(tc.srcB, tc.b)
			require.Len(t, ka, 64, "hex SHA-256")
			if tc.differ {
				require.NotEqual(t, ka, kb)
			} else {
				require.Equal(t, ka, kb)
			}
		})
	}
}

// TestNVRTCOptions: what the CUDA backend's compile options become, and
// that each option that changes the code changes the key.
func TestNVRTCOptions(t *testing.T) {
	src := backend.Source{Name: "builtin", CUDA: `extern "C" __global__ void k() {}`}
	three := 3
	for _, tc := range []struct {
		name  string
		opts  backend.CompileOptions
		names []string
		want  nvrtc.Options
	}{
		{"none", backend.CompileOptions{}, nil, nvrtc.Options{Name: "builtin.cu"}},
		{"fast math", backend.CompileOptions{FastMath: true}, nil, nvrtc.Options{Name: "builtin.cu", FastMath: true}},
		{"debug: line information", backend.CompileOptions{Debug: true}, nil, nvrtc.Options{Name: "builtin.cu", LineInfo: true}},
		{"launch bounds: PTX", backend.CompileOptions{MaxThreadsPerBlock: 256}, nil, nvrtc.Options{Name: "builtin.cu", PTX: true}},
		{"optimisation level: PTX", backend.CompileOptions{OptLevel: &three}, nil, nvrtc.Options{Name: "builtin.cu", PTX: true}},
		{"registers", backend.CompileOptions{MaxRegisters: 64}, nil, nvrtc.Options{Name: "builtin.cu", MaxRegisters: 64}},
		{"defines", backend.CompileOptions{Defines: map[string]string{"ANYGPU_CUDA_EW_MODE": "3"}}, nil,
			nvrtc.Options{Name: "builtin.cu", Defines: map[string]string{"ANYGPU_CUDA_EW_MODE": "3"}}},
		{"include paths", backend.CompileOptions{IncludePaths: []string{"inc"}}, nil, nvrtc.Options{Name: "builtin.cu", IncludePaths: []string{"inc"}}},
		{"headers", backend.CompileOptions{Headers: map[string]string{"h.h": "x"}}, nil, nvrtc.Options{Name: "builtin.cu", Headers: map[string]string{"h.h": "x"}}},
		{"flags", backend.CompileOptions{Flags: []string{"--std=c++20"}}, nil, nvrtc.Options{Name: "builtin.cu", Flags: []string{"--std=c++20"}}},
		{"name expressions", backend.CompileOptions{}, []string{"k<int>"}, nvrtc.Options{Name: "builtin.cu", NameExpressions: []string{"k<int>"}}},
		{"a forced architecture is the backend's, not a code option", backend.CompileOptions{Arch: "sm_80"}, nil, nvrtc.Options{Name: "builtin.cu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NVRTCOptions(src, tc.opts, tc.names)
			require.Equal(t, tc.want, got)
			base := Key(src.CUDA, NVRTCOptions(src, backend.CompileOptions{}, nil))
			if reflect.DeepEqual(tc.want, nvrtc.Options{Name: "builtin.cu"}) {
				require.Equal(t, base, Key(src.CUDA, got))
			} else {
				require.NotEqual(t, base, Key(src.CUDA, got))
			}
		})
	}
}

func TestEligible(t *testing.T) {
	const plain = `extern "C" __global__ void k() {}`
	for _, tc := range []struct {
		name string
		src  string
		o    nvrtc.Options
		ok   bool
		why  string
	}{
		{"plain", plain, nvrtc.Options{}, true, ""},
		{"defines and flags", plain, nvrtc.Options{Defines: map[string]string{"X": "1"}, Flags: []string{"--std=c++17"}}, true, ""},
		{"an include", "#include <cuda_fp16.h>\n" + plain, nvrtc.Options{}, false, "includes files"},
		{"an include probe", "#if __has_include(<x.h>)\n#endif\n" + plain, nvrtc.Options{}, false, "includes files"},
		{"a pre-include flag", plain, nvrtc.Options{Flags: []string{"-include", "x.h"}}, false, "include option"},
		{"name expressions", plain, nvrtc.Options{NameExpressions: []string{"k"}}, false, "name expressions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := Eligible(tc.src, tc.o)
			require.Equal(t, tc.ok, ok)
			if tc.why == "" {
				require.Empty(t, why)
			} else {
				require.Contains(t, why, tc.why)
			}
		})
	}
}
