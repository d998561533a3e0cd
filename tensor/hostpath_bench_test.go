package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/backend/cuda/cudatest"
	"github.com/stretchr/testify/require"
)

// BenchmarkOpsHostPath is BenchmarkOps' loop (one op and a synchronization
// per iteration, 1024×1024) on the CUDA backend over the stand-in libraries
// of package cudatest, whose kernels do nothing: the host's share of an op's
// time, µs/op.
//
//	go test ./tensor -run '^$' -bench OpsHostPath -cpu 1
func BenchmarkOpsHostPath(b *testing.B) {
	if err := cudatest.Install(b.TempDir(), b.Setenv, false); err != nil {
		b.Skipf("no stand-in CUDA libraries: %v", err)
	}
	ctx := context.Background()
	dev, err := gpu.OpenDriver(ctx, cuda.Driver{}, 0)
	require.NoError(b, err)
	defer dev.Close()
	defer Release(ctx, dev)
	for _, d := range []DType{Float32, BFloat16} {
		b.Run(d.String(), func(b *testing.B) { benchOps(b, dev, d) })
	}
}
