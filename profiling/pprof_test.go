package profiling

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWritePprof(t *testing.T) {
	p := fixedProfiler()
	p.Add(Record{Kind: KindAlloc, Device: "cuda:0", Stream: -1, Start: 0, End: 2 * us, Bytes: 4096, HostTimed: true})
	p.Add(Record{Kind: KindRange, Name: "step", Stream: -1, Start: 0, End: time.Second}) // left out
	var b bytes.Buffer
	require.NoError(t, p.WritePprof(&b))

	prof, err := profile.Parse(&b)
	require.NoError(t, err)
	require.NoError(t, prof.CheckValid())
	types := make([]string, len(prof.SampleType))
	for i, st := range prof.SampleType {
		types[i] = st.Type + "/" + st.Unit
	}
	assert.Equal(t, []string{"count/count", "device_time/nanoseconds", "bytes/bytes"}, types)
	assert.Equal(t, "device_time", prof.DefaultSampleType)
	assert.Equal(t, time.Second.Nanoseconds(), prof.DurationNanos)

	// Totals per leaf, and the stack of each sample from the root.
	type total struct{ count, ns, bytes int64 }
	byStack := map[string]total{}
	var sum total
	for _, s := range prof.Sample {
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			names = append(names, s.Location[i].Line[0].Function.Name)
		}
		key := strings.Join(names, ";")
		tt := byStack[key]
		tt.count += s.Value[0]
		tt.ns += s.Value[1]
		tt.bytes += s.Value[2]
		byStack[key] = tt
		sum.count += s.Value[0]
		sum.ns += s.Value[1]
		sum.bytes += s.Value[2]
	}
	assert.Len(t, prof.Sample, len(byStack), "one sample per stack")
	assert.Equal(t, map[string]total{
		"cuda:0;cuda:0 stream 0;kernel;saxpy": {5, (15 * us).Nanoseconds(), 0},
		"cuda:0;cuda:0 stream 3;kernel;gemm":  {2, (400 * us).Nanoseconds(), 0},
		"cuda:0;cuda:0 stream 0;h2d":          {10, (110 * ms).Nanoseconds(), 10e6}, // even i: 2+4+..+20
		"cuda:0;cuda:0 stream 1;h2d":          {10, (100 * ms).Nanoseconds(), 10e6}, // odd i: 1+3+..+19
		"cuda:0;cuda:0 stream 0;d2h":          {1, ms.Nanoseconds(), 2e6},
		"cuda:0;cuda:0 host;alloc":            {1, (2 * us).Nanoseconds(), 4096},
	}, byStack)
	var want total
	for _, r := range p.Records() {
		if r.Kind != KindRange {
			want.count++
			want.ns += int64(r.Duration())
			want.bytes += r.Bytes
		}
	}
	assert.Equal(t, want, sum)

	// go tool pprof reads it, where the go command is at hand.
	goCmd, err := exec.LookPath("go")
	if err != nil || testing.Short() {
		t.Skip("go tool pprof: no go command, or -short")
	}
	file := filepath.Join(t.TempDir(), "prof.pb.gz")
	b.Reset()
	require.NoError(t, p.WritePprof(&b))
	require.NoError(t, os.WriteFile(file, b.Bytes(), 0o644))
	out, err := exec.Command(goCmd, "tool", "pprof", "-top", "-nodefraction=0", file).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "saxpy")
	assert.Contains(t, string(out), "gemm")
	assert.Regexp(t, `(?m)^\s*\S+\s+99\.33%.*\bh2d$`, string(out))
}

func TestWritePprofEmpty(t *testing.T) {
	for _, p := range []*Profiler{New(), nil} {
		var b bytes.Buffer
		require.NoError(t, p.WritePprof(&b))
		prof, err := profile.Parse(&b)
		require.NoError(t, err)
		assert.Empty(t, prof.Sample)
	}
}
