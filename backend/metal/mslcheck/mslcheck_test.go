package mslcheck_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/kernels"
)

// requireToken in ANYGPU_TEST_REQUIRE makes a missing clang++ a failure
// instead of a skip (CI sets it; CI installs clang).
const requireToken = "msl"

// needClang skips t when there is no clang++, or fails it when
// ANYGPU_TEST_REQUIRE lists "msl".
func needClang(t *testing.T) {
	t.Helper()
	if _, err := mslcheck.Clang(); err != nil {
		if backendtest.Required(requireToken) {
			t.Fatalf("%s=%s requires the MSL check, but: %v", backendtest.EnvRequire, os.Getenv(backendtest.EnvRequire), err)
		}
		t.Skipf("MSL syntax check skipped: %v", err)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// abiParams turns kernels.Params into CheckABI's kinds.
func abiParams() map[string][]mslcheck.Kind {
	out := map[string][]mslcheck.Kind{}
	for op, kinds := range kernels.Params {
		for _, k := range kinds {
			out[op] = append(out[op], k.String())
		}
	}
	return out
}

// TestBuiltinKernels parses the built-in ops' MSL and checks every op's
// kernel function against the argument ABI of kernels.Params.
func TestBuiltinKernels(t *testing.T) {
	needClang(t)
	src := kernels.Source().MSL
	if strings.TrimSpace(src) == "" {
		t.Fatal("kernels.Source().MSL is empty")
	}
	if err := mslcheck.CheckABI(ctxT(t), "kernels builtin MSL", src, abiParams()); err != nil {
		t.Fatal(err)
	}
}

// TestCheckCanFail proves the check is a real parse: each of these broken
// sources must fail it.
func TestCheckCanFail(t *testing.T) {
	needClang(t)
	const head = "#include <metal_stdlib>\n"
	for _, tc := range []struct{ name, src string }{
		{"undeclared identifier", head + "kernel void k(device float* x [[buffer(0)]]) { x[0] = undeclared_identifier; }\n"},
		{"misspelled attribute", head + "kernel void k(device float* x [[bufer(0)]]) { x[0] = 1.0f; }\n"},
		{"misspelled built-in attribute", head + "kernel void k(device float* x [[buffer(0)]], uint i [[thread_positon_in_grid]]) { x[i] = 1.0f; }\n"},
		{"non-constant buffer index", head + "constant int slot = 0; int f(); kernel void k(device float* x [[buffer(f())]]) { x[0] = 1.0f; }\n"},
		{"write through a constant pointer", head + "kernel void k(constant float* x [[buffer(0)]]) { x[0] = 1.0f; }\n"},
		{"missing semicolon", head + "kernel void k(device float* x [[buffer(0)]]) { x[0] = 1.0f }\n"},
		{"unknown metal function", head + "kernel void k(device float* x [[buffer(0)]]) { x[0] = metal::no_such_function(1.0f); }\n"},
		{"unknown member", head + "kernel void k(device float* x [[buffer(0)]], uint3 g [[thread_position_in_grid]]) { x[g.q] = 1.0f; }\n"},
		{"two kernels of one name", head + "kernel void k(device float* x [[buffer(0)]]) {}\nkernel void k(device uint* x [[buffer(0)]]) {}\n"},
		{"missing header", "kernel void k(device float* x [[buffer(0)]]) { x[0] = 1.0f; }\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mslcheck.Check(ctxT(t), tc.name, tc.src)
			if err == nil {
				t.Fatalf("a broken source passed the check:\n%s", tc.src)
			}
			t.Logf("rejected as it should be: %v", err)
		})
	}
}

// TestCheckABICanFail: sources that parse but break the argument ABI fail
// CheckABI.
func TestCheckABICanFail(t *testing.T) {
	needClang(t)
	const head = "#include <metal_stdlib>\nstruct P { uint n; float v; };\nstruct Q { float v; uint n; };\n"
	want := map[string][]mslcheck.Kind{"fill": {"buffer", "u32", "f32"}}
	for _, tc := range []struct{ name, src string }{
		{"kernel missing", head + "kernel void fil(device float* y [[buffer(0)]], constant P& p [[buffer(1)]]) {}\n"},
		{"params fields swapped", head + "kernel void fill(device float* y [[buffer(0)]], constant Q& p [[buffer(1)]]) {}\n"},
		{"bindings swapped", head + "kernel void fill(device float* y [[buffer(1)]], constant P& p [[buffer(0)]]) {}\n"},
		{"params not bound", head + "kernel void fill(device float* y [[buffer(0)]]) {}\n"},
		{"params at the wrong index", head + "kernel void fill(device float* y [[buffer(0)]], constant P& p [[buffer(2)]]) {}\n"},
		{"buffer by value", head + "kernel void fill(device float y [[buffer(0)]], constant P& p [[buffer(1)]]) {}\n"},
		{"extra binding", head + "kernel void fill(device float* y [[buffer(0)]], constant P& p [[buffer(1)]], device float* z [[buffer(2)]]) {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := mslcheck.Check(ctxT(t), tc.name, tc.src); err != nil {
				t.Fatalf("the source should parse: %v", err)
			}
			err := mslcheck.CheckABI(ctxT(t), tc.name, tc.src, want)
			if err == nil {
				t.Fatalf("a source that breaks the ABI passed CheckABI:\n%s", tc.src)
			}
			t.Logf("rejected as it should be: %v", err)
		})
	}
	ok := head + "kernel void fill(device float* y [[buffer(0)]], constant P& p [[buffer(1)]], uint i [[thread_position_in_grid]]) { y[i] = p.v; }\n"
	if err := mslcheck.CheckABI(ctxT(t), "good", ok, want); err != nil {
		t.Fatalf("a source that keeps the ABI failed CheckABI: %v", err)
	}
}

// TestShim: the header alone parses, and MSL constructs the kernels use do.
func TestShim(t *testing.T) {
	needClang(t)
	src := `#include <metal_stdlib>
constant float scale = 2.0f;
struct S { uint n; float a; };
static inline float twice(float x) { return x * scale; }
kernel void k(device float* y [[buffer(0)]],
              device const half* h [[buffer(1)]],
              constant S& p [[buffer(2)]],
              uint3 gid [[thread_position_in_grid]],
              uint3 tid [[thread_position_in_threadgroup]],
              uint3 tpg [[threads_per_threadgroup]],
              uint3 grp [[threadgroup_position_in_grid]],
              uint3 ngr [[threadgroups_per_grid]])
{
    threadgroup float tile[64];
    float4 v = float4(1.0f);
    tile[tid.x] = twice(float(h[gid.x])) + v.x + v.w;
    metal::threadgroup_barrier(metal::mem_flags::mem_threadgroup | metal::mem_flags::mem_device);
    y[gid.x] = metal::fma(p.a, tile[tid.x], metal::max(0.0f, y[gid.x])) + float(ulong(grp.x) * ngr.x + tpg.x);
}
`
	if err := mslcheck.Check(ctxT(t), "shim constructs", src); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mslcheck.Shim(), "#define kernel") {
		t.Fatal("Shim does not return the header")
	}
}
