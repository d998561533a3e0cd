package wgsl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

// testModule is every hand-built test kernel.
func testModule() *ir.Module {
	return &ir.Module{Funcs: []*ir.Func{saxpyKernel(), reduceKernel(), histogramKernel(), groupsKernel()}}
}

func TestEmitValidates(t *testing.T) {
	out, err := Emit(testModule())
	require.NoError(t, err)
	assert.Empty(t, out.Unsupported)
	require.Len(t, out.Modules, 4)
	nagaCheck(t, "All", out.All, true)
	for name, src := range out.Modules {
		nagaCheck(t, name, src, false)
	}
	if testing.Verbose() {
		t.Log("\n" + out.All)
	}
}

func TestEmitSemanticsValidates(t *testing.T) {
	out, err := Emit(semanticsModule())
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"Wide":        "float64/int64 not supported on WebGPU",
		"FloatAtomic": out.Unsupported["FloatAtomic"],
	}, out.Unsupported)
	assert.Contains(t, out.Unsupported["FloatAtomic"], "float32 AtomicAdd not supported on WebGPU")
	assert.NotContains(t, out.All, "Wide")
	assert.NotContains(t, out.All, "FloatAtomic")
	require.Len(t, out.Modules, 3)
	nagaCheck(t, "All", out.All, true)
	for name, src := range out.Modules {
		nagaCheck(t, name, src, false)
	}
	if testing.Verbose() {
		t.Log("\n" + out.All)
	}
}
