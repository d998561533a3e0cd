package gpu_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// testDriver is a scripted backend for selection tests. It wraps the CPU
// backend so that the devices it opens work.
type testDriver struct {
	name     string
	devices  int
	err      error         // Probe's error
	block    bool          // Probe blocks until its context ends
	panics   bool          // Probe panics
	software bool          // its devices are software renderers
	opens    *atomic.Int32 // counts Open calls
}

func (d testDriver) Name() string { return d.name }

func (d testDriver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if d.panics {
		panic("scripted probe panic")
	}
	if d.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if d.err != nil {
		return nil, d.err
	}
	out := make([]backend.DeviceInfo, d.devices)
	for i := range out {
		out[i] = cpuInfo(ctx)
		out[i].Name = d.name + " device"
		if d.software {
			out[i].Type = backend.TypeSoftware
		}
	}
	return out, nil
}

func cpuInfo(ctx context.Context) backend.DeviceInfo {
	infos, _ := cpu.Driver{}.Probe(ctx)
	return infos[0]
}

func (d testDriver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	if d.opens != nil {
		d.opens.Add(1)
	}
	info := cpuInfo(context.Background())
	info.Name = d.name + " device"
	info.Type = backend.TypeDiscreteGPU
	return cpu.OpenInfo(info), nil
}

var (
	okOpens = new(atomic.Int32)
	drivers = []testDriver{
		{name: "test-ok", devices: 2, opens: okOpens},
		{name: "test-broken", err: &errors.Error{Backend: "test-broken", Category: errors.Unavailable, Msg: "libtest.so: cannot open shared object file", Hint: "install the test driver"}},
		{name: "test-notcompiled", err: errors.Join(backend.ErrNotCompiled, errors.New("built without cgo"))},
		{name: "test-empty"},
		{name: "test-slow", block: true},
		{name: "test-panic", panics: true},
		{name: "test-software", devices: 1, software: true},
	}
)

func init() {
	gpu.ProbeTimeout = 2 * time.Second // test-slow hangs until then in tests without a deadline
	for _, d := range drivers {
		backend.Register(d)
	}
}

func TestBackendsListsRegistered(t *testing.T) {
	names := gpu.Backends()
	require.Contains(t, names, "cpu")
	require.Contains(t, names, "test-ok")
	require.IsIncreasing(t, names)
}
