//go:build cgo

package webgpu

import (
	"testing"
	"unsafe"

	"github.com/oliverbestmann/webgpu/wgpu"
	"github.com/stretchr/testify/require"
)

var keyHandles [6]int64

// TestValidationKey: a dispatch's validation is reused for other buffers and
// offsets bound in the same pattern and sizes, not for another size, another
// pattern of shared buffers or another pipeline.
func TestValidationKey(t *testing.T) {
	// Stand-in handles (package variables, which never move): the key reads
	// only their addresses.
	h := func(i int) unsafe.Pointer { return unsafe.Pointer(&keyHandles[i]) }
	pipeA, pipeB := (*wgpu.ComputePipeline)(h(0)), (*wgpu.ComputePipeline)(h(1))
	layout := (*wgpu.BindGroupLayout)(h(2))
	x, y, z := (*wgpu.Buffer)(h(3)), (*wgpu.Buffer)(h(4)), (*wgpu.Buffer)(h(5))
	entries := func(a, b *wgpu.Buffer, off, size uint64) []wgpu.BindGroupEntry {
		return []wgpu.BindGroupEntry{{Binding: 0, Buffer: a, Offset: off, Size: size}, {Binding: 1, Buffer: b, Size: 64}}
	}
	key := func(p *wgpu.ComputePipeline, e []wgpu.BindGroupEntry) string {
		return string(validationKey(nil, p, layout, e))
	}
	base := key(pipeA, entries(x, y, 0, 256))
	require.Equal(t, base, key(pipeA, entries(y, z, 0, 256)), "other buffers, same pattern")
	require.Equal(t, base, key(pipeA, entries(x, y, 512, 256)), "another offset")
	require.NotEqual(t, base, key(pipeA, entries(x, y, 0, 128)), "another size")
	require.NotEqual(t, base, key(pipeA, entries(x, x, 0, 256)), "one buffer bound twice")
	require.NotEqual(t, base, key(pipeB, entries(x, y, 0, 256)), "another pipeline")
	require.NotEqual(t, bindKey(nil, layout, entries(x, y, 0, 256)), bindKey(nil, layout, entries(y, z, 0, 256)), "bind groups stay per buffer")
}
