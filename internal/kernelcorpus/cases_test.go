package kernelcorpus_test

import (
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/stretchr/testify/require"
)

// TestEveryKernelHasACase: each corpus kernel is launched by at least one
// case, with arguments that match its parameters.
func TestEveryKernelHasACase(t *testing.T) {
	launched := map[string]bool{}
	names := map[string]bool{}
	for _, c := range kernelcorpus.Cases() {
		require.False(t, names[c.Name], "two cases named %s", c.Name)
		names[c.Name] = true
		params, ok := kernelcorpus.Kernels.Params[c.Kernel]
		require.True(t, ok, "case %s launches an unknown kernel %s", c.Name, c.Kernel)
		require.Len(t, c.Args, len(params), "case %s", c.Name)
		for i, a := range c.Args {
			if a.IsScalar {
				require.Equal(t, params[i], a.Scalar.Kind(), "case %s argument %d", c.Name, i)
			} else {
				require.Equal(t, gpu.KindBuffer, params[i], "case %s argument %d", c.Name, i)
				require.Positive(t, a.Elems(), "case %s argument %d", c.Name, i)
			}
		}
		launched[c.Kernel] = true
	}
	for name := range kernelcorpus.Kernels.Params {
		require.True(t, launched[name], "no case launches %s", name)
	}
	require.GreaterOrEqual(t, len(kernelcorpus.Kernels.Params), 30)
}
