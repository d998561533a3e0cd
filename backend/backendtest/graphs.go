package backendtest

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// testGraphs captures a fill, a copy and a kernel launch into a graph,
// checks that the capture ran none of them, and replays the graph on the
// captured stream and on another with new inputs: natively where the backend
// has graphs, operation by operation elsewhere, with the same results.
// What moves host memory is refused on the capturing stream.
func (s *suite) testGraphs(t *testing.T) {
	ctx := ctxT(t)
	bk := s.builtins(t, s.dev)
	scale := bk.kernel(t, kernels.OpScale)
	const n = 4096
	x, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer x.Close()
	y, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer y.Close()
	z, err := gpu.AllocSlice[float32](s.dev, n)
	require.NoError(t, err)
	defer z.Close()
	st, err := s.dev.NewStream()
	require.NoError(t, err)
	defer st.Close()
	other, err := s.dev.NewStream()
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, st.Fill(y, 0, 4*n, 0))
	require.NoError(t, st.Fill(z, 0, 4*n, 0))
	require.NoError(t, st.Synchronize(ctx))

	require.NoError(t, st.BeginCapture())
	require.NoError(t, st.Copy(y, 0, x, 0, 4*n))
	require.NoError(t, st.Launch(scale, s.grid1D(n), gpu.D1(s.block1D()), gpu.Buf(y), gpu.Buf(y), gpu.U32(n), gpu.F32(3)))
	require.NoError(t, st.Fill(z, 0, 4*n, 0x40000000)) // 2.0
	requireCategory(t, gpu.Upload(st, x, make([]float32, n)), errors.InvalidArgument, "an upload while capturing")
	requireCategory(t, st.Synchronize(ctx), errors.InvalidArgument, "a synchronize while capturing")
	g, err := st.EndCapture()
	require.NoError(t, err)
	defer g.Close()
	require.Equal(t, 3, g.Ops())
	t.Logf("%v", g)
	require.NoError(t, CheckFloats(ctx, other, y, n, func(int) float32 { return 0 }), "the capture ran the work")

	for round, s2 := range []*gpu.Stream{st, other} {
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(i%97 + round)
		}
		require.NoError(t, gpu.Upload(s2, x, in))
		require.NoError(t, g.Launch(s2))
		require.NoError(t, s2.Synchronize(ctx))
		require.NoError(t, CheckFloats(ctx, s2, y, n, func(i int) float32 { return 3 * in[i] }), "replay %d", round)
		require.NoError(t, CheckFloats(ctx, s2, z, n, func(int) float32 { return 2 }), "replay %d", round)
	}
	require.NoError(t, g.Close())
	requireCategory(t, g.Launch(st), errors.Closed, "a launch after Close")
	require.NoError(t, s.dev.Synchronize(context.Background()))
}
