package backendtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernels"
)

func TestBenchKernels(t *testing.T) {
	for _, tc := range []struct {
		env       string
		generated bool // the set is kernels.Source (its CUDA text tells)
		wantErr   string
	}{
		{env: "", generated: true},
		{env: "generated", generated: true},
		{env: "handwritten"},
		{env: "fastest", wantErr: `ANYGPU_BENCH_KERNELS="fastest": want generated or handwritten`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(EnvBenchKernels, tc.env)
			src, err := BenchKernels()
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, kernels.Params, src.Params)
			assert.Equal(t, tc.generated, src.CUDA == kernels.Source().CUDA)
		})
	}
}
