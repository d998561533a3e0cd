package wgsl

import (
	"strings"
	"testing"

	"github.com/gogpu/naga"
	"github.com/stretchr/testify/require"
)

// nagaCheck parses, lowers and validates src with gogpu/naga.
func nagaCheck(t *testing.T, name, src string, allowSharedBindings bool) {
	t.Helper()
	ast, err := naga.Parse(src)
	require.NoError(t, err, "%s: parse\n%s", name, numbered(src))
	mod, err := naga.LowerWithSource(ast, src)
	require.NoError(t, err, "%s: lower\n%s", name, numbered(src))
	errs, err := naga.Validate(mod)
	require.NoError(t, err, "%s: validate\n%s", name, numbered(src))
	var left []string
	for _, e := range errs {
		// All declares every kernel's bindings at the same slots, which
		// naga refuses and WebGPU takes.
		if !(allowSharedBindings && strings.Contains(e.Error(), "duplicate binding")) {
			left = append(left, e.Error())
		}
	}
	require.Empty(t, left, "%s: validate\n%s", name, numbered(src))
}
