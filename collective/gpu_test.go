package collective

// Tests with NCCL and CUDA GPUs. They skip without them, unless
// ANYGPU_TEST_REQUIRE names nccl. ANYGPU_NCCL_BENCH_MIB (default 256) sizes
// the bandwidth measurements.

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	_ "github.com/anygpu/gpu/backend/cuda" // the CUDA driver, for gpu.OpenAll
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openGPUs opens every CUDA device, or skips the test.
func openGPUs(t *testing.T) []*gpu.Device {
	t.Helper()
	if err := Available(); err != nil {
		if backendtest.Required("nccl") {
			t.Fatalf("NCCL is required (%s): %v", backendtest.EnvRequire, err)
		}
		t.Skipf("no NCCL: %v", err)
	}
	devs, err := gpu.OpenAll(context.Background(), gpu.WithBackends("cuda"), gpu.WithFallback(false))
	if err != nil {
		if backendtest.Required("nccl") || backendtest.Required("cuda") {
			t.Fatalf("no CUDA devices: %v", err)
		}
		t.Skipf("no CUDA devices: %v", err)
	}
	t.Cleanup(func() { _ = gpu.CloseAll(devs) })
	v, _ := Version()
	p, _ := Library()
	t.Logf("NCCL %s from %s; %d CUDA devices, peers of device 0: %v", v, p, len(devs), devs[0].Info().Peers)
	return devs
}

// openLocal opens every CUDA device and one communicator over them (rank i
// on devs[i]), closed when the test ends; it skips as openGPUs does.
func openLocal(t *testing.T) ([]*gpu.Device, []*Comm) {
	t.Helper()
	devs := openGPUs(t)
	comms, err := NewLocal(context.Background(), devs)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, CloseAll(comms)) })
	return devs, comms
}

func benchMiB() int {
	if n, err := strconv.Atoi(os.Getenv("ANYGPU_NCCL_BENCH_MIB")); err == nil && n > 0 {
		return n
	}
	return 256
}

func syncAll(t *testing.T, devs []*gpu.Device) {
	t.Helper()
	for _, d := range devs {
		require.NoError(t, d.DefaultStream().Synchronize(context.Background()))
	}
}

// rankValues is what rank r contributes: element i is r+1+i%7 (small
// integers: exact in every type).
func rankValues[T Elem](r, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(r + 1 + i%7)
	}
	return out
}

func upload[T Elem](t *testing.T, d *gpu.Device, v []T) *gpu.Buffer {
	t.Helper()
	b, err := gpu.FromSlice(context.Background(), d, v)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func alloc[T Elem](t *testing.T, d *gpu.Device, n int) *gpu.Buffer {
	t.Helper()
	b, err := gpu.AllocSlice[T](d, n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func download[T Elem](t *testing.T, b *gpu.Buffer) []T {
	t.Helper()
	v, err := gpu.ToSlice[T](context.Background(), b)
	require.NoError(t, err)
	return v
}

// reduceRef is op over every rank's value of element i.
func reduceRef(op Op, ranks, i int) float64 {
	acc := float64(1 + i%7)
	for r := 1; r < ranks; r++ {
		v := float64(r + 1 + i%7)
		switch op {
		case Sum, Avg:
			acc += v
		case Prod:
			acc *= v
		case Max:
			acc = math.Max(acc, v)
		case Min:
			acc = math.Min(acc, v)
		}
	}
	if op == Avg {
		acc /= float64(ranks)
	}
	return acc
}

// onEveryRank calls f for every rank, with the rank's default stream, inside
// one Group (one goroutine drives several ranks); it stops at f's first error.
func onEveryRank(comms []*Comm, f func(r int, c *Comm, s *gpu.Stream) error) error {
	return Group(func() error {
		for r, c := range comms {
			if err := f(r, c, c.Device().DefaultStream()); err != nil {
				return err
			}
		}
		return nil
	})
}

// allReduceType runs an in-place all-reduce of T over every rank and checks it.
func allReduceType[T Elem](t *testing.T, comms []*Comm, op Op) {
	const n = 1000
	typ := TypeOf[T]()
	bufs := make([]*gpu.Buffer, len(comms))
	for r, c := range comms {
		bufs[r] = upload(t, c.Device(), rankValues[T](r, n))
	}
	require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
		return c.AllReduce(s, bufs[r], bufs[r], n, typ, op)
	}))
	for r := range comms {
		got := download[T](t, bufs[r])
		for i, g := range got {
			want := reduceRef(op, len(comms), i)
			if typ != Float32 && typ != Float64 {
				want = math.Trunc(want)
			}
			require.InDelta(t, want, float64(g), 1e-6*math.Abs(want), "%s %s rank %d element %d", typ, op, r, i)
		}
	}
}

func TestLocalCollectives(t *testing.T) {
	devs, comms := openLocal(t)
	n := len(comms)
	for r, c := range comms {
		require.Equal(t, r, c.Rank())
		require.Equal(t, n, c.Size())
	}

	t.Run("AllReduceOps", func(t *testing.T) {
		for _, op := range []Op{Sum, Prod, Max, Min, Avg} {
			allReduceType[float32](t, comms, op)
		}
	})
	t.Run("AllReduceTypes", func(t *testing.T) {
		allReduceType[float64](t, comms, Sum)
		allReduceType[int32](t, comms, Max)
		allReduceType[uint32](t, comms, Sum)
		allReduceType[int64](t, comms, Sum)
		allReduceType[uint64](t, comms, Min)
		allReduceType[int8](t, comms, Sum)
		allReduceType[uint8](t, comms, Sum)
		allReduceType[int32](t, comms, Avg)
	})
	t.Run("Broadcast", func(t *testing.T) {
		const count = 4096
		root := n - 1
		recv := make([]*gpu.Buffer, n)
		var send *gpu.Buffer
		for r, c := range comms {
			recv[r] = alloc[float32](t, c.Device(), count)
			if r == root {
				send = upload(t, c.Device(), rankValues[float32](root, count))
			}
		}
		require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
			var b *gpu.Buffer
			if r == root {
				b = send
			}
			return c.Broadcast(s, b, recv[r], count, Float32, root)
		}))
		for r := range comms {
			require.Equal(t, rankValues[float32](root, count), download[float32](t, recv[r]), "rank %d", r)
		}
	})
	t.Run("Reduce", func(t *testing.T) {
		const count = 1000
		send := make([]*gpu.Buffer, n)
		for r, c := range comms {
			send[r] = upload(t, c.Device(), rankValues[float64](r, count))
		}
		out := alloc[float64](t, comms[0].Device(), count)
		require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
			var recv *gpu.Buffer
			if r == 0 {
				recv = out
			}
			return c.Reduce(s, send[r], recv, count, Float64, Sum, 0)
		}))
		for i, g := range download[float64](t, out) {
			require.Equal(t, reduceRef(Sum, n, i), g, "element %d", i)
		}
	})
	t.Run("AllGather", func(t *testing.T) {
		const count = 777
		send, recv := make([]*gpu.Buffer, n), make([]*gpu.Buffer, n)
		for r, c := range comms {
			send[r] = upload(t, c.Device(), rankValues[int32](r, count))
			recv[r] = alloc[int32](t, c.Device(), n*count)
		}
		require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
			return c.AllGather(s, send[r], recv[r], count, Int32)
		}))
		var want []int32
		for r := range comms {
			want = append(want, rankValues[int32](r, count)...)
		}
		for r := range comms {
			require.Equal(t, want, download[int32](t, recv[r]), "rank %d", r)
		}
	})
	t.Run("ReduceScatter", func(t *testing.T) {
		const count = 513
		send, recv := make([]*gpu.Buffer, n), make([]*gpu.Buffer, n)
		for r, c := range comms {
			send[r] = upload(t, c.Device(), rankValues[float32](r, n*count))
			recv[r] = alloc[float32](t, c.Device(), count)
		}
		require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
			return c.ReduceScatter(s, send[r], recv[r], count, Float32, Sum)
		}))
		for r := range comms {
			for i, g := range download[float32](t, recv[r]) {
				require.Equal(t, float32(reduceRef(Sum, n, r*count+i)), g, "rank %d element %d", r, i)
			}
		}
	})
	t.Run("SendRecvRing", func(t *testing.T) {
		if n < 2 {
			t.Skip("one rank")
		}
		const count = 1 << 16
		send, recv := make([]*gpu.Buffer, n), make([]*gpu.Buffer, n)
		for r, c := range comms {
			send[r] = upload(t, c.Device(), rankValues[float32](r, count))
			recv[r] = alloc[float32](t, c.Device(), count)
		}
		require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
			if err := c.Send(s, send[r], count, Float32, (r+1)%n); err != nil {
				return err
			}
			return c.Recv(s, recv[r], count, Float32, (r+n-1)%n)
		}))
		for r := range comms {
			require.Equal(t, rankValues[float32]((r+n-1)%n, count), download[float32](t, recv[r]), "rank %d", r)
		}
	})
	t.Run("ArgumentsOnGPU", func(t *testing.T) {
		c := comms[0]
		b := alloc[float32](t, c.Device(), 16)
		requireCat(t, c.AllReduce(c.Device().DefaultStream(), b, b, 17, Float32, Sum), errors.InvalidArgument, "too small")
		if n > 1 {
			other := alloc[float32](t, devs[1], 16)
			requireCat(t, c.AllReduce(c.Device().DefaultStream(), other, other, 16, Float32, Sum), errors.InvalidArgument, "buffer of another GPU")
		}
	})
	syncAll(t, devs)
	for _, c := range comms {
		require.NoError(t, c.Err())
	}
}

// busBandwidth is nccl-tests' bus bandwidth of an all-reduce of bytes taking
// d over n ranks: algorithm bandwidth times 2(n-1)/n.
func busBandwidth(bytes int64, d time.Duration, n int) float64 {
	alg := float64(bytes) / d.Seconds() / 1e9
	if n == 1 {
		return alg
	}
	return alg * 2 * float64(n-1) / float64(n)
}

// TestLocalAllReduceBandwidth times an in-place float32 all-reduce over every
// GPU of this process (one communicator, one group per iteration).
func TestLocalAllReduceBandwidth(t *testing.T) {
	devs, comms := openLocal(t)
	bytes := int64(benchMiB()) << 20
	count := int(bytes / 4)
	bufs := make([]*gpu.Buffer, len(devs))
	for r, d := range devs {
		bufs[r] = alloc[float32](t, d, count)
		require.NoError(t, d.DefaultStream().Fill(bufs[r], 0, bytes, 0))
	}
	step := func() error {
		return onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
			return c.AllReduce(s, bufs[r], bufs[r], count, Float32, Sum)
		})
	}
	for range 5 {
		require.NoError(t, step())
	}
	syncAll(t, devs)
	const iters = 20
	start := time.Now()
	ev0, err := devs[0].DefaultStream().Record()
	require.NoError(t, err)
	for range iters {
		require.NoError(t, step())
	}
	ev1, err := devs[0].DefaultStream().Record()
	require.NoError(t, err)
	syncAll(t, devs)
	wall := time.Since(start) / iters
	dev, err := ev1.Elapsed(ev0)
	require.NoError(t, err)
	dev /= iters
	t.Logf("BENCH nccl_allreduce_local %d MiB float32 over %d GPUs: %.3f ms, bus bandwidth %.1f GB/s (device events; wall clock %.1f GB/s)",
		bytes>>20, len(devs), float64(dev)/1e6, busBandwidth(bytes, dev, len(devs)), busBandwidth(bytes, wall, len(devs)))
}

// TestTwoProcesses runs one rank per process, two processes, one GPU each:
// the test binary re-executed as rank 0 and rank 1, the id through TCP and
// then through a file. The TCP run also times a 256 MiB all-reduce.
func TestTwoProcesses(t *testing.T) {
	devs := openGPUs(t)
	if len(devs) < 2 {
		t.Skipf("%d CUDA device: two processes need one GPU each", len(devs))
	}
	n := len(devs)
	_ = gpu.CloseAll(devs) // the helpers open their own
	run := func(t *testing.T, boot string, bench bool) {
		var cmds []*execHelper
		for r := range n {
			env := []string{envRank + "=" + strconv.Itoa(r), envRanks + "=" + strconv.Itoa(n)}
			if bench {
				env = append(env, "ANYGPU_COLLECTIVE_BENCH=1")
			}
			cmds = append(cmds, startHelper(t, "rank", boot, env...))
		}
		for r, h := range cmds {
			out, err := h.wait(90 * time.Second)
			t.Logf("rank %d:\n%s", r, strings.TrimSpace(out))
			require.NoError(t, err, "rank %d", r)
			require.Contains(t, out, fmt.Sprintf("rank %d ok", r))
		}
	}
	t.Run("tcp", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		run(t, "tcp:"+addr, true)
	})
	t.Run("file", func(t *testing.T) {
		run(t, "file:"+filepath.Join(t.TempDir(), "job.id"), false)
	})
}

// rankMain is one rank of TestTwoProcesses, in its own process.
func rankMain() int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		return 1
	}
	rank, _ := strconv.Atoi(os.Getenv(envRank))
	ranks, _ := strconv.Atoi(os.Getenv(envRanks))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cuda"), gpu.WithDevice(rank), gpu.WithFallback(false))
	if err != nil {
		return fail("open: %v", err)
	}
	defer dev.Close()
	kind, arg, _ := strings.Cut(os.Getenv(envArg), ":")
	var b Bootstrap = File{Path: arg}
	if kind == "tcp" {
		b = TCP{Addr: arg, Ranks: ranks, Key: "two-processes"}
	}
	start := time.Now()
	c, err := Join(ctx, dev, rank, ranks, b)
	if err != nil {
		return fail("join: %v", err)
	}
	fmt.Printf("rank %d joined %s through %s in %v\n", rank, dev, kind, time.Since(start).Round(time.Millisecond))
	const count = 1 << 20
	s := dev.DefaultStream()
	buf, err := gpu.FromSlice(ctx, dev, rankValues[float32](rank, count))
	if err != nil {
		return fail("upload: %v", err)
	}
	if err := c.AllReduce(s, buf, buf, count, Float32, Sum); err != nil {
		return fail("all-reduce: %v", err)
	}
	got, err := gpu.ToSlice[float32](ctx, buf)
	if err != nil {
		return fail("download: %v", err)
	}
	for i, g := range got {
		if want := float32(reduceRef(Sum, ranks, i)); g != want {
			return fail("element %d is %v, want %v", i, g, want)
		}
	}
	_ = buf.Close()
	if os.Getenv("ANYGPU_COLLECTIVE_BENCH") != "" {
		bytes := int64(benchMiB()) << 20
		n := int(bytes / 4)
		big, err := gpu.AllocSlice[float32](dev, n)
		if err != nil {
			return fail("alloc: %v", err)
		}
		if err := s.Fill(big, 0, bytes, 0); err != nil {
			return fail("fill: %v", err)
		}
		for range 5 {
			if err := c.AllReduce(s, big, big, n, Float32, Sum); err != nil {
				return fail("all-reduce: %v", err)
			}
		}
		if err := s.Synchronize(ctx); err != nil {
			return fail("sync: %v", err)
		}
		const iters = 20
		ev0, _ := s.Record()
		t0 := time.Now()
		for range iters {
			if err := c.AllReduce(s, big, big, n, Float32, Sum); err != nil {
				return fail("all-reduce: %v", err)
			}
		}
		ev1, _ := s.Record()
		if err := s.Synchronize(ctx); err != nil {
			return fail("sync: %v", err)
		}
		wall := time.Since(t0) / iters
		d, err := ev1.Elapsed(ev0)
		if err != nil {
			return fail("elapsed: %v", err)
		}
		d /= iters
		fmt.Printf("BENCH nccl_allreduce_2proc rank %d: %d MiB float32, %d ranks: %.3f ms, bus bandwidth %.1f GB/s (device events; wall clock %.1f GB/s)\n",
			rank, bytes>>20, ranks, float64(d)/1e6, busBandwidth(bytes, d, ranks), busBandwidth(bytes, wall, ranks))
		_ = big.Close()
	}
	if err := c.Err(); err != nil {
		return fail("async error: %v", err)
	}
	if err := c.Close(); err != nil {
		return fail("close: %v", err)
	}
	fmt.Printf("rank %d ok\n", rank)
	return 0
}

// execHelper is a helper process whose output is collected.
type execHelper struct {
	cmd *exec.Cmd
	out *strings.Builder
}

func startHelper(t *testing.T, role, arg string, env ...string) *execHelper {
	t.Helper()
	h := &execHelper{cmd: helper(t, role, arg, env...), out: &strings.Builder{}}
	h.cmd.Stdout, h.cmd.Stderr = h.out, h.out
	require.NoError(t, h.cmd.Start())
	t.Cleanup(func() { _ = h.cmd.Process.Kill() })
	return h
}

// wait waits for the process, killing it after d.
func (h *execHelper) wait(d time.Duration) (string, error) {
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	select {
	case err := <-done:
		return h.out.String(), err
	case <-time.After(d):
		_ = h.cmd.Process.Kill()
		<-done
		return h.out.String(), fmt.Errorf("killed after %v", d)
	}
}

// TestProfiledCollective: an all-reduce issued outside a Group on a device
// with a profiler is recorded as a collective, timed on the device, with the
// bytes it reduces. Each rank runs on its own goroutine (NCCL allows one
// rank per thread without a group).
func TestProfiledCollective(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NCCL: %v", err)
	}
	ctx := context.Background()
	prof := profiling.New()
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("cuda"), gpu.WithFallback(false), gpu.WithProfiler(prof))
	if err != nil {
		if backendtest.Required("nccl") || backendtest.Required("cuda") {
			t.Fatalf("no CUDA devices: %v", err)
		}
		t.Skipf("no CUDA devices: %v", err)
	}
	t.Cleanup(func() { _ = gpu.CloseAll(devs) })
	comms, err := NewLocal(ctx, devs)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, CloseAll(comms)) })
	const n = 1 << 20
	errs := make([]error, len(comms))
	done := make(chan int, len(comms))
	for r, c := range comms {
		go func() {
			defer func() { done <- r }()
			buf, err := devs[r].Alloc(n * 4)
			if err != nil {
				errs[r] = err
				return
			}
			defer buf.Close()
			s := devs[r].DefaultStream()
			if errs[r] = c.AllReduce(s, buf, buf, n, Float32, Sum); errs[r] == nil {
				errs[r] = s.Synchronize(ctx)
			}
		}()
	}
	for range comms {
		<-done
	}
	for r, err := range errs {
		require.NoError(t, err, "rank %d", r)
	}
	for _, d := range devs {
		_ = d.Profiler() // collects the completed records
	}
	var got int
	for _, rec := range prof.Records() {
		if rec.Kind == profiling.KindCollective {
			got++
			assert.Equal(t, "all-reduce", rec.Name)
			assert.Equal(t, int64(n*4), rec.Bytes)
			assert.Positive(t, rec.Duration())
			assert.False(t, rec.HostTimed)
		}
	}
	assert.Equal(t, len(comms), got, "one collective record per rank")
}

// TestProfiledGroup: the collectives of a Group are recorded, one record
// per rank's stream, named after them, with their bytes summed, timed on the
// device around the group's launch: after the work issued before the group
// on that stream, before the work issued after it.
func TestProfiledGroup(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("no NCCL: %v", err)
	}
	ctx := context.Background()
	prof := profiling.New()
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("cuda"), gpu.WithFallback(false), gpu.WithProfiler(prof))
	if err != nil {
		if backendtest.Required("nccl") || backendtest.Required("cuda") {
			t.Fatalf("no CUDA devices: %v", err)
		}
		t.Skipf("no CUDA devices: %v", err)
	}
	t.Cleanup(func() { _ = gpu.CloseAll(devs) })
	comms, err := NewLocal(ctx, devs)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, CloseAll(comms)) })
	const n = 1 << 20
	bufs, gathered := make([]*gpu.Buffer, len(comms)), make([]*gpu.Buffer, len(comms))
	for r := range comms {
		bufs[r] = alloc[float32](t, devs[r], n)
		gathered[r] = alloc[float32](t, devs[r], n)
	}
	for r := range comms { // work before the group, on each stream
		require.NoError(t, devs[r].DefaultStream().Fill(bufs[r], 0, 4*n, 0))
	}
	require.NoError(t, onEveryRank(comms, func(r int, c *Comm, s *gpu.Stream) error {
		if err := c.AllReduce(s, bufs[r], bufs[r], n, Float32, Sum); err != nil {
			return err
		}
		return c.AllGather(s, bufs[r], gathered[r], n/len(comms), Float32)
	}))
	for r := range comms { // and after it
		require.NoError(t, devs[r].DefaultStream().Fill(bufs[r], 0, 4*n, 0))
	}
	syncAll(t, devs)
	for _, d := range devs {
		_ = d.Profiler()
	}
	perDevice := map[string][]profiling.Record{}
	for _, rec := range prof.Records() {
		if rec.Kind == profiling.KindFill || rec.Kind == profiling.KindCollective { // not the allocations
			perDevice[rec.Device] = append(perDevice[rec.Device], rec) // in Start order
		}
	}
	require.Len(t, perDevice, len(devs))
	for dev, recs := range perDevice {
		var kinds []string
		for _, r := range recs {
			kinds = append(kinds, string(r.Kind))
		}
		require.Len(t, recs, 3, "%s: fill, group, fill: %v", dev, kinds)
		g := recs[1]
		assert.Equal(t, profiling.KindCollective, g.Kind, dev)
		assert.Equal(t, "group: all-reduce, all-gather", g.Name, dev)
		assert.Equal(t, int64(n*4+n/len(comms)*len(comms)*4), g.Bytes, "%s: all-reduce n and all-gather n/ranks×ranks elements", dev)
		assert.Positive(t, g.Duration(), dev)
		assert.False(t, g.HostTimed, dev)
		assert.LessOrEqual(t, recs[0].End, g.Start, "%s: the group starts after the work before it", dev)
		assert.LessOrEqual(t, g.End, recs[2].Start, "%s: and ends before the work after it", dev)
	}
}
