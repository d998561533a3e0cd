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

// TestEmitDeterministic emits the same module many times: the same bytes.
func TestEmitDeterministic(t *testing.T) {
	first, err := Emit(semanticsModule())
	require.NoError(t, err)
	for range 20 {
		again, err := Emit(semanticsModule())
		require.NoError(t, err)
		require.Equal(t, first, again)
	}
}

// TestEmitNames: Go names that WGSL reserves, or that clash once prefixed,
// are renamed; a kernel named as a WGSL keyword is an error with its
// position.
func TestEmitNames(t *testing.T) {
	for _, tc := range []struct {
		name    string
		module  func() *ir.Module
		wantErr string
	}{
		{"kernel named as a keyword", func() *ir.Module {
			k := saxpyKernel()
			k.Name = "loop"
			return &ir.Module{Funcs: []*ir.Func{k}}
		}, `k.go:1:1: kernel name "loop" is a WGSL reserved word`},
		{"kernel named with the emitter's prefix", func() *ir.Module {
			k := saxpyKernel()
			k.Name = "ag_group"
			return &ir.Module{Funcs: []*ir.Func{k}}
		}, `kernel name "ag_group"`},
		{"globals that clash once prefixed", func() *ir.Module {
			a, b := groupsKernel(), groupsKernel()
			a.Name, a.Params[0].Name = "A", "b_c"
			b.Name, b.Params[0].Name = "A_b", "c"
			return &ir.Module{Funcs: []*ir.Func{a, b}}
		}, ""},
		{"helper named as a built-in", func() *ir.Module {
			h := tripleHelper()
			h.Name = "select"
			k := opsKernel(h)
			return &ir.Module{Funcs: []*ir.Func{h, k}}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Emit(tc.module())
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			nagaCheck(t, "All", out.All, true)
			for name, src := range out.Modules {
				nagaCheck(t, name, src, false)
			}
		})
	}
}
