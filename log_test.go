package gpu_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/kernels"
)

// logRecord is one record a recordingHandler kept: its level, message and
// attributes, values as strings.
type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

// recordingHandler keeps every record of every level.
type recordingHandler struct {
	mu      *sync.Mutex
	records *[]logRecord
}

func newRecordingHandler() recordingHandler {
	return recordingHandler{mu: new(sync.Mutex), records: new([]logRecord)}
}

func (h recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordingHandler) WithGroup(string) slog.Handler            { return h }

func (h recordingHandler) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.records = append(*h.records, rec)
	return nil
}

// find returns the debug records with message msg whose attributes include
// every one of want.
func (h recordingHandler) find(msg string, want map[string]string) []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logRecord
next:
	for _, r := range *h.records {
		if r.level != slog.LevelDebug || r.msg != msg {
			continue
		}
		for k, v := range want {
			if r.attrs[k] != v {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// TestDebugLogs checks the debug-level records of selection (each backend
// passed over and why, the one chosen), compiles and fallbacks (the CPU
// standing in, a staged copy between devices, a host wait for another
// device's event), captured through the logger of WithLogger.
func TestDebugLogs(t *testing.T) {
	ctx := context.Background()
	h := newRecordingHandler()
	logger := slog.New(h)
	a, err := gpu.Open(ctx, gpu.WithBackends("test-broken", "test-empty"), gpu.WithLogger(logger))
	require.NoError(t, err)
	defer a.Close()
	b, err := gpu.Open(ctx, gpu.WithBackends("cpu"), gpu.WithLogger(logger))
	require.NoError(t, err)
	defer b.Close()

	mod, err := a.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	defer mod.Close()

	src, err := gpu.FromSlice(ctx, b, []float32{1, 2, 3, 4})
	require.NoError(t, err)
	dst, err := gpu.AllocSlice[float32](a, 4)
	require.NoError(t, err)
	ev, err := b.DefaultStream().Record()
	require.NoError(t, err)
	require.NoError(t, a.DefaultStream().Wait(ev))
	require.NoError(t, a.DefaultStream().Copy(dst, 0, src, 0, 16))
	got, err := gpu.ToSlice[float32](ctx, dst)
	require.NoError(t, err)
	require.Equal(t, []float32{1, 2, 3, 4}, got)

	for _, tc := range []struct {
		name string
		msg  string
		want map[string]string
		key  string // an attribute that must be set, whatever its value
	}{
		{"broken backend passed over", "anygpu: backend passed over",
			map[string]string{"op": "open", "backend": "test-broken", "state": gpu.Unavailable.String()}, "reason"},
		{"empty backend passed over", "anygpu: backend passed over",
			map[string]string{"op": "open", "backend": "test-empty", "state": gpu.NoDevices.String()}, "reason"},
		{"cpu fallback chosen", "anygpu: backend chosen",
			map[string]string{"backend": "cpu", "passed_over": "2", "cpu_fallback": "true"}, ""},
		{"cpu named: no fallback", "anygpu: backend chosen",
			map[string]string{"backend": "cpu", "passed_over": "0", "cpu_fallback": "false"}, ""},
		{"device opened", "anygpu: device opened", map[string]string{"device": "cpu:0"}, "model"},
		{"compile", "anygpu: compile",
			map[string]string{"source": kernels.SourceName, "backend": "cpu", "ok": "true"}, "duration"},
		{"staged copy", "anygpu: fallback: peer copy staged through the host",
			map[string]string{"from": "cpu:0", "to": "cpu:0", "bytes": "16"}, "reason"},
		{"host wait", "anygpu: fallback: waiting on the host for another device's event",
			map[string]string{"event_device": "cpu:0", "stream_device": "cpu:0"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := h.find(tc.msg, tc.want)
			require.NotEmpty(t, recs, "no debug record %q with %v", tc.msg, tc.want)
			if tc.key != "" {
				assert.NotEmpty(t, recs[0].attrs[tc.key], "attribute %q", tc.key)
			}
		})
	}
	require.Contains(t, h.find("anygpu: backend passed over", map[string]string{"backend": "test-broken"})[0].attrs["reason"],
		"cannot open shared object file", "the probe's reason")
}
