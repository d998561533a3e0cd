package backendtest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/profiling"
	"github.com/stretchr/testify/require"
)

// testProfiler attaches a profiler and checks that every stream operation is
// recorded with its kind, name, size and a sane device time.
func (s *suite) testProfiler(t *testing.T) {
	ctx := ctxT(t)
	p := profiling.New()
	dev := s.open(t, gpu.WithProfiler(p))
	bk := s.builtins(t, dev)
	st := dev.DefaultStream()
	const n = 1 << 20
	x, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer x.Close()
	y, err := gpu.AllocSlice[float32](dev, n)
	require.NoError(t, err)
	defer y.Close()
	require.NoError(t, st.Write(x, 0, make([]byte, 4*n)))
	require.NoError(t, st.Fill(y, 0, 4*n, 0))
	for i := 0; i < 3; i++ {
		require.NoError(t, st.Launch(bk.kernel(t, kernels.OpAxpy), s.grid1D(n), gpu.D1(s.block1D()), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(2)))
	}
	require.NoError(t, st.Copy(x, 0, y, 0, 4*n))
	require.NoError(t, st.Read(make([]byte, 4*n), y, 0))
	require.NoError(t, st.Synchronize(ctx))

	recs := dev.Profiler().Records()
	count := map[profiling.Kind]int{}
	for _, r := range recs {
		count[r.Kind]++
		require.GreaterOrEqual(t, r.End, r.Start, "record %+v ends before it starts", r)
		require.Equal(t, dev.Name(), r.Device)
		if r.Kind == profiling.KindKernel {
			require.Equal(t, kernels.OpAxpy, r.Name)
			require.Equal(t, s.grid1D(n), r.Grid)
		}
		if r.Kind == profiling.KindH2D || r.Kind == profiling.KindD2H || r.Kind == profiling.KindD2D {
			require.Equal(t, int64(4*n), r.Bytes)
		}
	}
	require.Equal(t, 3, count[profiling.KindKernel])
	require.Equal(t, 1, count[profiling.KindH2D])
	require.Equal(t, 1, count[profiling.KindD2H])
	require.Equal(t, 1, count[profiling.KindD2D])
	require.Equal(t, 1, count[profiling.KindFill])
	require.Equal(t, 2, count[profiling.KindAlloc])
	require.Equal(t, 1, count[profiling.KindCompile])

	var sum *profiling.Summary
	for _, sm := range p.Summaries() {
		if sm.Name == kernels.OpAxpy {
			sm := sm
			sum = &sm
		}
	}
	require.NotNil(t, sum, "a summary for the kernel")
	require.Equal(t, 3, sum.Count)

	var trace bytes.Buffer
	require.NoError(t, p.WriteChromeTrace(&trace))
	var parsed any
	require.NoError(t, json.Unmarshal(trace.Bytes(), &parsed), "the Chrome trace is JSON")
	var text bytes.Buffer
	require.NoError(t, p.WriteText(&text))
	require.Contains(t, text.String(), kernels.OpAxpy)
}
