package gpu

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Several devices in one process.
//
// OpenAll opens every device of a backend; each Device keeps its own pools,
// streams, statistics and error history, and may be driven from its own
// goroutine. Between devices of one backend:
//
//   - Stream.Copy takes a source buffer of another device: peer to peer where
//     the backend can (CUDA: cuMemcpyPeerAsync, over NVLink or PCIe where
//     DeviceInfo.Peers lists the source), else staged through host memory
//     (counted in Stats.Fallbacks). A peer copy is ordered on the destination
//     stream only: order it after the work that wrote the source with an
//     event of the source device (below), and record an event after it
//     before the source device overwrites the source.
//   - Stream.Wait takes an event of another device: on the device where the
//     backend can (CUDA: cuStreamWaitEvent across contexts), else Wait
//     blocks the caller until the event completes (counted in
//     Stats.Fallbacks), which orders the work just the same.
//
// Collectives over several devices (all-reduce, broadcast, ...) are in the
// package github.com/anygpu/gpu/collective, over NCCL.

// OpenAll opens every device of one backend: the first backend in the
// selection order of Open (WithBackends, else ANYGPU_BACKEND, else
// DefaultOrder) that has a usable device, with all its devices instead of
// one, in ordinal order. Software renderers are passed over unless their
// backend is named, as in Open; WithDevice and ANYGPU_DEVICE are ignored
// (CUDA_VISIBLE_DEVICES still limits what CUDA shows). The other options
// apply to every device: each gets its own pools of the configured sizes.
//
// Where the backend can, OpenAll enables direct access between every pair of
// devices that DeviceInfo.Peers lists (CUDA: cuCtxEnablePeerAccess both
// ways); a pair it cannot enable is logged and its copies are staged.
//
// When no GPU backend is usable OpenAll falls back to the CPU device, alone,
// with the one warning Open logs (or, with WithFallback(false), returns an
// error of category Unavailable joining every backend's reason). If one
// device of the chosen backend fails to open, the ones already opened are
// closed and the error names it. Close every device when done (CloseAll).
func OpenAll(ctx context.Context, opts ...Option) ([]*Device, error) {
	return choose(ctx, "open all", opts, func(o options, c candidate, st BackendStatus) ([]*Device, error) {
		infos := st.Devices
		if o.backends == nil {
			infos = slices.DeleteFunc(slices.Clone(infos), func(d DeviceInfo) bool { return d.Type == backend.TypeSoftware })
			if len(infos) == 0 {
				return nil, softwareOnly(c.name, st.Devices[0].Name)
			}
		}
		devs, err := openEvery(ctx, c, infos, o)
		if err != nil {
			return nil, err
		}
		connectPeers(devs, o)
		return devs, nil
	}, func(d *Device) []*Device { return []*Device{d} })
}

// openEvery opens each listed device of one backend, or none.
func openEvery(ctx context.Context, c candidate, infos []DeviceInfo, o options) ([]*Device, error) {
	devs := make([]*Device, 0, len(infos))
	for _, info := range infos {
		d, err := openDevice(ctx, c, info, o)
		if err != nil {
			_ = CloseAll(devs)
			return nil, errors.Wrap(err, c.name, fmt.Sprintf("open all: device %d of %d", info.Ordinal, len(infos)))
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// connectPeers enables direct access between the devices that list each
// other as peers, where the backend can; failures are logged, not fatal:
// copies between such devices are staged instead.
func connectPeers(devs []*Device, o options) {
	byOrdinal := make(map[int]*Device, len(devs))
	for _, d := range devs {
		byOrdinal[d.info.Ordinal] = d
	}
	for _, d := range devs {
		pe, ok := d.impl.(backend.PeerEnabler)
		if !ok {
			continue
		}
		for _, j := range d.info.Peers {
			p := byOrdinal[j]
			if p == nil || p == d {
				continue
			}
			if err := pe.EnablePeer(p.impl); err != nil {
				o.logger.Warn("anygpu: peer access not enabled; copies between these devices are staged", "from", d.name, "to", p.name, "err", err)
			}
		}
	}
}

// CloseAll closes every device (nil entries are skipped) and returns their
// errors, joined.
func CloseAll(devs []*Device) error {
	var errs []error
	for _, d := range devs {
		if err := d.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// IsPeer reports whether d reaches other's memory directly: both belong to
// the same backend and d's DeviceInfo.Peers lists other (or they are the same
// device). Copies between devices that are not peers are staged.
func (d *Device) IsPeer(other *Device) bool {
	if d == nil || other == nil || d.backend != other.backend || d.simulated != other.simulated {
		return false
	}
	if d.info.Ordinal == other.info.Ordinal {
		return true
	}
	return slices.Contains(d.info.Peers, other.info.Ordinal)
}

// RunNative runs f on the calling goroutine's OS thread, locked to it for
// the call, with the device's native context current where its backend binds
// one to threads (CUDA's primary context). It is for calling native libraries
// that act on the current context (NCCL, cuBLAS, through purego or cgo) with
// this device's memory and streams, whose handles Buffer.NativeHandle and
// Stream.NativeHandle give. f should call only such native code: an anygpu
// call inside f for another device may leave that device's context current.
// Backends without thread-bound contexts run f on the locked thread as it is.
// f's error is returned unchanged.
func (d *Device) RunNative(f func() error) error {
	const op = "run native"
	if err := d.usable(op); err != nil {
		return err
	}
	if f == nil {
		return d.errorf(errors.InvalidArgument, op, "nil function")
	}
	if nr, ok := d.impl.(backend.NativeRunner); ok {
		return nr.RunNative(f)
	}
	return runLocked(f)
}

// NativeHandle returns the backend's handle for the stream (a CUstream, ...)
// where the backend exposes one, for native libraries that enqueue work on it
// (NCCL). Work they enqueue is ordered with the stream's own.
func (s *Stream) NativeHandle() (uintptr, error) {
	const op = "native handle"
	if err := s.usable(op); err != nil {
		return 0, err
	}
	if h, ok := s.impl.(backend.NativeHandle); ok {
		return h.NativeHandle(), nil
	}
	return 0, s.dev.errorf(errors.NotSupported, op, "the %s backend exposes no stream handle", s.dev.backend)
}

// waitOther makes s wait for e, an event of another device: on the device
// where the backend can (backend.PeerWaiter), else on the host: it returns
// once e has completed, which orders everything s is given afterwards.
func (s *Stream) waitOther(e *Event) error {
	const op = "wait"
	if e.dev.backend == s.dev.backend && e.dev.simulated == s.dev.simulated {
		if pw, ok := s.impl.(backend.PeerWaiter); ok {
			return s.dev.wrap(pw.WaitPeer(e.impl), op)
		}
	}
	s.dev.stats.fallbacks.Add(1)
	if err := e.impl.Synchronize(context.Background()); err != nil {
		return e.dev.wrap(err, fmt.Sprintf("wait (on the host, for %s's event)", e.dev.name))
	}
	return nil
}

// runLocked runs f with the goroutine locked to its OS thread.
func runLocked(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return f()
}
