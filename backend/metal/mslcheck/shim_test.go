package mslcheck_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shimOverloads are a helper naga writes for both address spaces, which the
// shim erases.
const shimOverloads = `
template <typename A> uint bump(device A* p) { return metal::atomic_fetch_add_explicit(p, 1u, metal::memory_order_relaxed); }
template <typename A> uint bump(threadgroup A* p) { return metal::atomic_fetch_add_explicit(p, 1u, metal::memory_order_relaxed); }
`

// TestShimTakesNagaForms checks what the shim and the AST reader take (bool
// literals, overloads by address space, vectors from components, atomics)
// and that a real redefinition still fails.
func TestShimTakesNagaForms(t *testing.T) {
	needClang(t)
	kernelText := `
kernel void k(device metal::atomic_uint* c [[buffer(0)]], device float* y [[buffer(1)]], metal::uint3 lid [[thread_position_in_threadgroup]]) {
    bool on = true;
    metal::float4 v = metal::float4(y[0], 0.5, 1.0, 2.0);
    if (metal::all(lid == metal::uint3(0u)) && on != false) { y[0] = v.y + as_type<float>(bump(&c[0])); }
}
`
	for _, tc := range []struct {
		name  string
		src   string
		parse bool
	}{
		{"naga forms", "#include <metal_stdlib>\n" + shimOverloads + kernelText, true},
		{"a real redefinition", "#include <metal_stdlib>\n" + shimOverloads + shimOverloads + kernelText, false},
		{"a vector of too many components", "#include <metal_stdlib>\nkernel void k(device float* y [[buffer(0)]]) { metal::float2 v = metal::float2(1.0, 2.0, 3.0); y[0] = v.x; }\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mslcheck.CheckABI(ctxT(t), tc.name, tc.src, map[string][]mslcheck.Kind{"k": {"buffer", "buffer"}})
			if tc.parse {
				require.NoError(t, err)
				return
			}
			assert.Error(t, err)
		})
	}
}
