package cuda

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// Several GPUs in one process: which GPUs reach each other directly
// (DeviceInfo.Peers), enabling that access, copying from another GPU's
// memory, ordering a stream after an event of another GPU, and running native
// code (NCCL) with a GPU's context current. The root package checks only that
// both devices are of the backend named "cuda", which a simulated CUDA device
// is too: the peer operations check that the other object is this backend's.

var (
	_ backend.PeerEnabler  = (*device)(nil)
	_ backend.NativeRunner = (*device)(nil)
	_ backend.PeerWaiter   = (*stream)(nil)
)

// peersOf lists the ordinals whose memory GPU i can access directly
// (cuDeviceCanAccessPeer: NVLink, or PCIe where the platform allows it). It
// needs no context. A driver that cannot answer reports no peers: copies then
// go through cuMemcpyPeerAsync, which stages through the host itself.
func (st *driverState) peersOf(i int) []int {
	var out []int
	for j, o := range st.ordinals {
		if j == i {
			continue
		}
		if ok, r := st.lib.DeviceCanAccessPeer(st.ordinals[i].dev, o.dev); r == cu.Success && ok {
			out = append(out, j)
		}
	}
	return out
}

// EnablePeer enables access from this GPU's context to other's memory
// (cuCtxEnablePeerAccess), once per pair: later peer copies issued here move
// over NVLink or PCIe without the host. Access that is already enabled (by
// another Device of the same GPU, or earlier) is not an error.
func (d *device) EnablePeer(other backend.Device) error {
	const op = "enable peer access"
	p, ok := other.(*device)
	if !ok {
		return foreign(op, other)
	}
	if p.lib != d.lib {
		return errors.E(errors.InvalidArgument, Name, op, "the devices were opened through different driver libraries")
	}
	if p.dev == d.dev {
		return nil // the same GPU: its memory is local
	}
	ok, r := d.lib.DeviceCanAccessPeer(d.dev, p.dev)
	if r != cu.Success {
		return d.check(r, op)
	}
	if !ok {
		return &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Code: int64(cu.ErrorPeerAccessUnsupported), Name: cu.ErrorPeerAccessUnsupported.String(),
			Msg:  fmt.Sprintf("GPU %d cannot access GPU %d directly", d.info.Ordinal, p.info.Ordinal),
			Hint: "the GPUs share no NVLink or peer-capable PCIe path (check `nvidia-smi topo -m`); copies between them are staged through host memory"}
	}
	d.mu.Lock()
	done := d.peers[p.ctx]
	d.mu.Unlock()
	if done {
		return nil
	}
	err := d.do(op, func(*cu.Frame) cu.Result {
		r := d.lib.CtxEnablePeerAccess(p.ctx)
		if r == cu.ErrorPeerAccessAlreadyEnabled {
			return cu.Success
		}
		return r
	})
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.peers[p.ctx] = true
	d.mu.Unlock()
	return nil
}

// WaitPeer makes work enqueued on s after it wait for an event of any GPU
// of this driver: cuStreamWaitEvent takes events of other contexts, so the
// wait happens on the device and the host does not block.
func (s *stream) WaitPeer(ev backend.Event) error {
	const op = "wait"
	e, ok := ev.(*event)
	if !ok {
		return foreign(op, ev)
	}
	if e.dev.lib != s.dev.lib {
		return errors.E(errors.InvalidArgument, Name, op, "the event's device was opened through another driver library")
	}
	if e.dev.broken() {
		return lostErr(e.dev.ord, op)
	}
	return s.Wait(ev)
}

// RunNative runs f on the calling goroutine's OS thread, locked for the
// call, with the GPU's primary context current: the CUDA runtime inside a
// native library (NCCL's cudaGetDevice, for one) then sees this GPU.
func (d *device) RunNative(f func() error) error {
	var err error
	if e := d.bound("run native", func(*cu.Frame) { err = f() }); e != nil {
		return e
	}
	return err
}

// enablePeer enables access from d's context to peer's memory once, where
// the GPUs allow it; copies work without it (staged by the driver). The
// context is current.
func (d *device) enablePeer(peer *device) {
	d.mu.Lock()
	done := d.peers[peer.ctx]
	d.peers[peer.ctx] = true
	d.mu.Unlock()
	if done || peer.dev == d.dev {
		return
	}
	if ok, r := d.lib.DeviceCanAccessPeer(d.dev, peer.dev); r == cu.Success && ok {
		_ = d.lib.CtxEnablePeerAccess(peer.ctx) // 704: already enabled, by another Device of this GPU
	}
}

// CopyPeer copies from a buffer of another Device: on the same GPU a plain
// device copy, across GPUs cuMemcpyPeerAsync (direct over NVLink or PCIe
// where peer access is possible, else staged by the driver). It is ordered
// on this stream only: the work that produced src must be complete (or
// ordered) before the copy is enqueued.
func (s *stream) CopyPeer(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy peer"
	db := dst.(*buffer)
	sb, ok := src.(*buffer)
	if !ok {
		return foreign(op, src)
	}
	if sb.dev.broken() {
		return lostErr(sb.dev.ord, op)
	}
	return s.enqueue(op, "copy peer "+byteSize(n), func(fr *cu.Frame) cu.Result {
		d := s.dev
		if sb.dev.ctx == d.ctx {
			return d.lib.MemcpyDtoDAsync(fr, db.ptr+cu.DevicePtr(dstOff), sb.ptr+cu.DevicePtr(srcOff), n, s.h)
		}
		d.enablePeer(sb.dev)
		return d.lib.MemcpyPeerAsync(fr, db.ptr+cu.DevicePtr(dstOff), d.ctx, sb.ptr+cu.DevicePtr(srcOff), sb.dev.ctx, n, s.h)
	})
}
