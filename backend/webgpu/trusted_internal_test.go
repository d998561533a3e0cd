//go:build cgo

package webgpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/webgpu/internal/wgpuc"
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// TestTrustedWGSL checks the trusted creation of WGSL modules (no
// loop-bounding counters): valid WGSL gives a module without the fallback,
// and broken WGSL is still a Compilation error with wgpu's report.
func TestTrustedWGSL(t *testing.T) {
	d := openInternal(t)
	const loop = `@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn k(@builtin(global_invocation_id) id: vec3<u32>) {
	var acc: array<f32, 4>;
	for (var i = 0u; i < 4u; i++) { acc[i] = f32(i); }
	y[id.x] = acc[id.x % 4u];
}
`
	tests := []struct {
		name, code string
		ok         bool
	}{
		{"valid", loop, true},
		{"broken", "fn f() { x }", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d.mu.Lock()
			defer d.mu.Unlock()
			var direct *wgpu.ShaderModule
			err := d.call("test", errors.Compilation, func() error {
				direct = wgpuc.CreateShaderModuleWGSL(d.dev, tt.name, tt.code, wgslChecks)
				return nil
			})
			if direct != nil {
				direct.Release()
			}
			if tt.ok {
				require.NoError(t, err)
				assert.NotNil(t, direct, "the trusted creation returned no module")
			} else {
				require.Error(t, err)
			}
			sm, err := d.createShaderLocked("test", "WGSL", &wgpu.ShaderModuleDescriptor{Label: tt.name, WGSLSource: &wgpu.ShaderSourceWGSL{Code: tt.code}})
			if tt.ok {
				require.NoError(t, err)
				sm.Release()
				return
			}
			require.Error(t, err)
			assert.Equal(t, errors.Compilation, errors.CategoryOf(err), "%v", err)
			assert.Contains(t, errors.LogOf(err), "parsing error")
		})
	}
}
