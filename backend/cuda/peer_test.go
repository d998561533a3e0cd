package cuda

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

// TestPeersFakeDriver: two GPUs whose driver cannot say they are peers are
// reported without peers (copies between them are then staged by the driver).
func TestPeersFakeDriver(t *testing.T) {
	t.Setenv(EnvLibrary, fakeDriver(t))
	t.Setenv("FAKECUDA_COUNT", "2")
	devs, err := Driver{}.Probe(context.Background())
	require.NoError(t, err)
	require.Len(t, devs, 2)
	for _, d := range devs {
		require.Empty(t, d.Peers)
	}
}

// openAllGPUs opens every CUDA device through the root package, or skips
// with fewer than two.
func openAllGPUs(t *testing.T) []*gpu.Device {
	t.Helper()
	requireGPU(t)
	devs, err := gpu.OpenAll(context.Background(), gpu.WithBackends(Name), gpu.WithFallback(false))
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.CloseAll(devs) })
	if len(devs) < 2 {
		t.Skipf("%d CUDA device: peer tests need two", len(devs))
	}
	return devs
}

func TestPeerInfo(t *testing.T) {
	devs := openAllGPUs(t)
	for _, d := range devs {
		t.Logf("%s: peers %v", d, d.Info().Peers)
	}
	for _, d := range devs {
		for _, p := range devs {
			require.Equal(t, d.IsPeer(p), p == d || containsInt(d.Info().Peers, p.Info().Ordinal))
		}
	}
	// H200s on NVLink reach each other; log rather than fail elsewhere.
	if !devs[0].IsPeer(devs[1]) {
		t.Logf("devices 0 and 1 are not peers: copies between them are staged")
	}
	// EnablePeer directly: idempotent; the same GPU is no error.
	a := devs[0].Info().Ordinal
	raw0, err := Driver{}.Open(context.Background(), a)
	require.NoError(t, err)
	defer raw0.Close()
	raw1, err := Driver{}.Open(context.Background(), devs[1].Info().Ordinal)
	require.NoError(t, err)
	defer raw1.Close()
	pe := raw0.(backend.PeerEnabler)
	require.NoError(t, pe.EnablePeer(raw0))
	if devs[0].IsPeer(devs[1]) {
		require.NoError(t, pe.EnablePeer(raw1))
		require.NoError(t, pe.EnablePeer(raw1), "twice")
	} else {
		require.Equal(t, errors.NotSupported, errors.CategoryOf(pe.EnablePeer(raw1)))
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestPeerCopyOrdered: device 1 fills a large buffer; device 0's stream
// waits for an event of device 1 (on the device, not the host) and copies the
// buffer over. Both directions; the copies go peer to peer.
func TestPeerCopyOrdered(t *testing.T) {
	devs := openAllGPUs(t)
	ctx := context.Background()
	const n = 64 << 20
	for _, dir := range [][2]int{{0, 1}, {1, 0}} {
		dst, src := devs[dir[0]], devs[dir[1]]
		sb, err := src.Alloc(n)
		require.NoError(t, err)
		db, err := dst.Alloc(n)
		require.NoError(t, err)
		ss, err := src.NewStream()
		require.NoError(t, err)
		ds, err := dst.NewStream()
		require.NoError(t, err)
		for round := uint32(1); round <= 3; round++ {
			require.NoError(t, ss.Fill(sb, 0, n, 0))
			require.NoError(t, ss.Fill(sb, 0, n, 0xA5000000+round)) // still running when the copy is enqueued
			ev, err := ss.Record()
			require.NoError(t, err)
			require.NoError(t, ds.Wait(ev), "a stream waits for another GPU's event")
			require.NoError(t, ds.Copy(db, 0, sb, 0, n))
			done, err := ds.Record()
			require.NoError(t, err)
			require.NoError(t, ss.Wait(done), "the source waits for the copy before it is overwritten")
			got := make([]byte, n)
			require.NoError(t, ds.Read(got, db, 0))
			require.NoError(t, ds.Synchronize(ctx))
			for _, off := range []int{0, 4, n / 2, n - 4} {
				require.Equal(t, 0xA5000000+round, binary.LittleEndian.Uint32(got[off:]), "%s <- %s round %d offset %d", dst, src, round, off)
			}
			require.NoError(t, ev.Close())
			require.NoError(t, done.Close())
		}
		require.NoError(t, ss.Synchronize(ctx))
		require.Zero(t, dst.Stats().Fallbacks, "waits on the device, copies peer to peer")
		require.Positive(t, dst.Stats().Transfers.Peer.Count)
		require.NoError(t, ss.Close())
		require.NoError(t, ds.Close())
		require.NoError(t, sb.Close())
		require.NoError(t, db.Close())
	}
}

// TestPeerCopyBandwidth times Stream.Copy of 256 MiB from device 1 to device
// 0 and back (cuMemcpyPeerAsync): 20 copies after 3 warm-ups, on the wall
// clock around a synchronize, as the PyTorch comparison measures
// tensor.to('cuda:1').
func TestPeerCopyBandwidth(t *testing.T) {
	devs := openAllGPUs(t)
	ctx := context.Background()
	const n = 256 << 20
	const iters = 20
	for _, dir := range [][2]int{{1, 0}, {0, 1}} {
		dst, src := devs[dir[0]], devs[dir[1]]
		sb, err := src.Alloc(n)
		require.NoError(t, err)
		require.NoError(t, src.DefaultStream().Fill(sb, 0, n, 7))
		require.NoError(t, src.DefaultStream().Synchronize(ctx))
		db, err := dst.Alloc(n)
		require.NoError(t, err)
		s := dst.DefaultStream()
		for range 3 {
			require.NoError(t, s.Copy(db, 0, sb, 0, n))
		}
		require.NoError(t, s.Synchronize(ctx))
		ev0, err := s.Record()
		require.NoError(t, err)
		start := time.Now()
		for range iters {
			require.NoError(t, s.Copy(db, 0, sb, 0, n))
		}
		ev1, err := s.Record()
		require.NoError(t, err)
		require.NoError(t, s.Synchronize(ctx))
		wall := time.Since(start)
		d, err := ev1.Elapsed(ev0)
		require.NoError(t, err)
		gbps := func(d time.Duration) float64 { return float64(n) * iters / d.Seconds() / 1e9 }
		t.Logf("BENCH peer_copy %s -> %s, 256 MiB: %.1f GB/s (wall clock), %.1f GB/s (device events); peers %v",
			src.Name(), dst.Name(), gbps(wall), gbps(d), dst.IsPeer(src))
		require.Zero(t, dst.Stats().Fallbacks)
		require.NoError(t, sb.Close())
		require.NoError(t, db.Close())
	}
}
