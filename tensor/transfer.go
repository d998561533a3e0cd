package tensor

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/anygpu/gpu"
)

// count adds a transfer to the tensor's ledger and its device's.
func (t *Tensor) count(dir func(*gpu.TransferCounts) *gpu.Transfer, n int64) {
	t.mu.Lock()
	addTransfer(dir(&t.transfers), n)
	t.mu.Unlock()
	t.st.ds.count(dir, n)
}

// Transfers is the tensor's own transfer ledger: what its constructor
// uploaded (H2D), what ToHost and the other readers read (D2H) and what
// CopyTo copied from it (D2D within the device, Peer to another). A view
// starts with an empty ledger. Zero for a nil tensor.
func (t *Tensor) Transfers() gpu.TransferCounts {
	if t == nil {
		return gpu.TransferCounts{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.transfers
}

// ResetTransfers zeroes the tensor's ledger.
func (t *Tensor) ResetTransfers() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.transfers = gpu.TransferCounts{}
	t.mu.Unlock()
}

// readBytes copies the tensor's elements, row-major, to the host: a view that
// is not contiguous is first gathered on the device (a kernel, no transfer),
// then read in one copy, synchronously. counted says whether the read goes
// to the ledgers.
func (t *Tensor) readBytes(ctx context.Context, op string, counted bool) ([]byte, error) {
	if err := t.usable(op); err != nil {
		return nil, err
	}
	if err := checkCtx(op, ctx); err != nil {
		return nil, err
	}
	src := t
	if !t.IsContiguous() {
		c, err := t.Contiguous()
		if err != nil {
			return nil, err
		}
		defer c.Close()
		src = c
	}
	n := int64(src.Len() * src.dtype.Size())
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	ds := src.st.ds
	start := int64(src.offset * src.dtype.Size())
	lo, hi := start&^3, (start+n+3)&^3
	stage := make([]byte, hi-lo)
	src.st.touch(ds.nextEpoch())
	if err := ds.dev.DefaultStream().Read(stage, src.st.buf, lo); err != nil {
		return nil, wrap(err, op)
	}
	if err := ds.synchronize(ctx); err != nil {
		return nil, wrap(err, op)
	}
	copy(out, stage[start-lo:])
	if counted {
		t.count(d2h, n)
	}
	return out, nil
}

// Bytes copies the tensor's elements to the host, row-major, as their
// little-endian bytes (one D2H transfer; a view that is not contiguous is
// gathered on the device first).
func (t *Tensor) Bytes(ctx context.Context) ([]byte, error) {
	return t.readBytes(ctx, "bytes", true)
}

// ToFloat32 copies the tensor's elements to the host as float32s, row-major,
// converting on the host (exact, but for int32 beyond 2²⁴): one D2H
// transfer.
func (t *Tensor) ToFloat32(ctx context.Context) ([]float32, error) {
	raw, err := t.readBytes(ctx, "to float32", true)
	if err != nil {
		return nil, err
	}
	out := make([]float32, t.Len())
	decodeFloat32s(out, t.dtype, raw)
	return out, nil
}

// Peek is ToFloat32 for debugging: its read is left out of the tensor's
// and the package's ledgers (Device.Stats still counts it), so a test that
// asserts a number of transfers may look at tensors on the way.
func (t *Tensor) Peek(ctx context.Context) ([]float32, error) {
	raw, err := t.readBytes(ctx, "peek", false)
	if err != nil {
		return nil, err
	}
	out := make([]float32, t.Len())
	decodeFloat32s(out, t.dtype, raw)
	return out, nil
}

// ToHost copies t's elements to the host as a []T, row-major: one D2H
// transfer. T must be t's dtype's Go type (float32 for Float32, ...); use
// ToFloat32 or Bytes for the others.
func ToHost[T Element](ctx context.Context, t *Tensor) ([]T, error) {
	const op = "to host"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	if want := dtypeOf[T](); want != t.dtype {
		return nil, invalidHint(op, "use ToFloat32 or Bytes, or Cast first", "a %s tensor read as %s", t.dtype, want)
	}
	raw, err := t.readBytes(ctx, op, true)
	if err != nil {
		return nil, err
	}
	out := make([]T, t.Len())
	for i := range out {
		switch t.dtype {
		case Float32:
			out[i] = T(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		case Int32:
			out[i] = T(int32(binary.LittleEndian.Uint32(raw[4*i:])))
		case Int8:
			out[i] = T(int8(raw[i]))
		default:
			out[i] = T(raw[i])
		}
	}
	return out, nil
}

// CopyTo returns a contiguous copy of t on dev, which may be t's device (a
// D2D transfer) or another (Peer, counted on t and on dev: the copy goes
// peer to peer where the backend can, else through the host, see
// gpu.Stream.Copy). t's pending work is waited for first.
func (t *Tensor) CopyTo(ctx context.Context, dev *gpu.Device) (*Tensor, error) {
	const op = "copy to"
	if err := t.usable(op); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, invalid(op, "nil device")
	}
	if err := checkCtx(op, ctx); err != nil {
		return nil, err
	}
	// A source at a 4-byte aligned offset, contiguous: the copy's unit.
	src := t
	if !t.IsContiguous() || (t.offset*t.dtype.Size())%4 != 0 {
		g, err := t.gather("copy to")
		if err != nil {
			return nil, err
		}
		defer g.Close()
		src = g
	}
	n := int64(src.Len() * src.dtype.Size())
	ds := stateOf(dev)
	out, err := empty(ds, op, t.dtype, t.shape)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return out, nil
	}
	sameDevice := dev == t.st.ds.dev
	if !sameDevice {
		if err := src.st.ds.synchronize(ctx); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
	}
	epoch := ds.nextEpoch()
	out.st.touch(epoch)
	if sameDevice {
		src.st.touch(epoch)
	}
	if err := dev.DefaultStream().Copy(out.st.buf, 0, src.st.buf, int64(src.offset*src.dtype.Size()), (n+3)&^3); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	if sameDevice {
		t.count(d2d, n)
	} else {
		// The copy reads another device's buffer, which that device's
		// frees do not wait for: finish it now.
		if err := ds.synchronize(ctx); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
		t.mu.Lock()
		addTransfer(&t.transfers.Peer, n)
		t.mu.Unlock()
		ds.count(peer, n)
	}
	return out, nil
}
