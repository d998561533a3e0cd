package tensor

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// deviceState is what the package keeps per device: the compiled ops, the
// device's transfer ledger, the op sequence and the buffers whose free waits
// for queued work.
type deviceState struct {
	dev *gpu.Device

	mu        sync.Mutex
	transfers gpu.TransferCounts
	mod       *gpu.Module
	modErr    error
	kernels   map[string]*kernelEntry
	gemmMod   *gpu.Module // the built-in kernels (kernels.Source), for sgemm
	gemmErr   error
	gemm      *gpu.Kernel
	noLibrary map[libraryKey]bool // the products gpu.Stream.MatMul said NotSupported for
	epoch     uint64              // ops enqueued so far
	synced    uint64              // ops known complete
	deferred  []deferredFree
	deferredB int64
	freeing   []*gpu.Buffer // synchronize's list of buffers to free, kept between calls

	// shape, when not nil, changes the device's DeviceInfo as the package
	// sees it (tests: the split and grid plans of a larger device).
	shape func(*gpu.DeviceInfo)
}

// info is the device's DeviceInfo as the package plans its launches with.
func (ds *deviceState) info() gpu.DeviceInfo {
	if ds.shape != nil {
		return ds.shapedInfo()
	}
	return ds.dev.Info()
}

// shapedInfo is the device's DeviceInfo as shape changes it (out of line:
// the pointer shape takes moves the copy to the heap).
//
//go:noinline
func (ds *deviceState) shapedInfo() gpu.DeviceInfo {
	info := ds.dev.Info()
	ds.shape(&info)
	return info
}

type deferredFree struct {
	buf   *gpu.Buffer
	epoch uint64
}

// maxDeferredBytes is how much memory waits for a synchronization to be
// freed before a free synchronizes the device itself.
const maxDeferredBytes = 256 << 20

var (
	registryMu sync.Mutex
	registry   = map[*gpu.Device]*deviceState{}
)

// stateOf is dev's state, created on first use.
func stateOf(dev *gpu.Device) *deviceState {
	registryMu.Lock()
	defer registryMu.Unlock()
	ds := registry[dev]
	if ds == nil {
		ds = &deviceState{dev: dev}
		registry[dev] = ds
	}
	return ds
}

// Release forgets what the package keeps for dev: its compiled ops, its
// transfer ledger, buffers waiting to be freed (after synchronizing the
// device). Call it when done with a device, before or after closing it;
// tensors of dev must be closed first. Using dev again starts afresh.
func Release(ctx context.Context, dev *gpu.Device) error {
	registryMu.Lock()
	ds := registry[dev]
	delete(registry, dev)
	registryMu.Unlock()
	if ds == nil {
		return nil
	}
	err := ds.synchronize(ctx)
	if errors.Is(err, errors.Closed) {
		err = nil // a closed device has finished its work and freed its memory
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.mod != nil {
		err = errors.Join(err, ds.mod.Close())
		ds.mod, ds.kernels = nil, nil
	}
	if ds.gemmMod != nil {
		err = errors.Join(err, ds.gemmMod.Close())
		ds.gemmMod, ds.gemm = nil, nil
	}
	return err
}

// Synchronize waits for every op enqueued on dev's default stream (where the
// package enqueues its work) and frees the buffers of closed tensors that
// waited for it.
func Synchronize(ctx context.Context, dev *gpu.Device) error {
	if dev == nil {
		return invalid("synchronize", "nil device")
	}
	return stateOf(dev).synchronize(ctx)
}

func (ds *deviceState) synchronize(ctx context.Context) error {
	ds.mu.Lock()
	epoch := ds.epoch
	ds.mu.Unlock()
	if err := ds.dev.DefaultStream().Synchronize(ctx); err != nil {
		return wrap(err, "synchronize")
	}
	ds.mu.Lock()
	ds.synced = max(ds.synced, epoch)
	// Split the list in place: what stays first, what is freed after, each
	// in order; the freed part is taken out (the next frees reuse the array).
	keep := 0
	free := ds.freeing[:0]
	for _, d := range ds.deferred {
		if d.epoch <= ds.synced {
			free = append(free, d.buf)
			ds.deferredB -= d.buf.Size()
		} else {
			ds.deferred[keep] = d
			keep++
		}
	}
	clear(ds.deferred[keep:])
	ds.deferred = ds.deferred[:keep]
	ds.freeing = nil // a concurrent synchronize makes a list of its own
	ds.mu.Unlock()
	var err error
	for _, b := range free {
		err = errors.Join(err, b.Close())
	}
	clear(free)
	ds.mu.Lock()
	if ds.freeing == nil {
		ds.freeing = free[:0]
	}
	ds.mu.Unlock()
	return err
}

// free closes buf, last used by work of sequence epoch: now if that work is
// known complete, else at the next synchronization.
func (ds *deviceState) free(buf *gpu.Buffer, epoch uint64) error {
	ds.mu.Lock()
	if epoch <= ds.synced {
		ds.mu.Unlock()
		return buf.Close()
	}
	ds.deferred = append(ds.deferred, deferredFree{buf, epoch})
	ds.deferredB += buf.Size()
	over := ds.deferredB > maxDeferredBytes
	ds.mu.Unlock()
	if over {
		return ds.synchronize(context.Background())
	}
	return nil
}

// nextEpoch is the sequence number of an op about to be enqueued.
func (ds *deviceState) nextEpoch() uint64 {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.epoch++
	return ds.epoch
}

// Prepare compiles the package's ops for dev under ctx, as its first op
// would (with no deadline): call it to bound the compilation's time or to
// take its cost before timing. A compilation that ctx ended is not kept: a
// later Prepare or op compiles again; any other failure is returned by every
// op after it.
func Prepare(ctx context.Context, dev *gpu.Device) error {
	if err := checkCtx("prepare", ctx); err != nil {
		return err
	}
	if dev == nil {
		return invalid("prepare", "nil device")
	}
	ds := stateOf(dev)
	if err := ds.compileOps(ctx); err != nil {
		return err
	}
	_, err := ds.compileSgemm(ctx)
	return err
}

// keepFailure is whether a failed compilation under ctx is kept as the
// device's answer: not when ctx ended (the next caller may have time).
func keepFailure(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil
}

// compileOps compiles the package's ops for the device unless done.
func (ds *deviceState) compileOps(ctx context.Context) error {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.mod == nil && ds.modErr == nil {
		mod, err := ds.dev.Compile(ctx, ops.Kernels)
		if err != nil {
			if keepFailure(ctx, err) {
				ds.modErr = err
			}
			return wrap(err, "compile ops")
		}
		ds.mod = mod
		ds.kernels = map[string]*kernelEntry{}
	}
	if ds.modErr != nil {
		return wrap(ds.modErr, "compile ops")
	}
	return nil
}

// kernelEntry is a compiled op and its launch geometry, each found once per
// device.
type kernelEntry struct {
	k *gpu.Kernel
	// block is the block size launch runs the kernel with (0: not chosen
	// yet); groupLimit the most threads launchGroups may give a group of it
	// (0: not found yet; -1: no limit).
	block, groupLimit atomic.Int64
}

// entry is the compiled op name and its geometry, compiling the package's
// ops for the device on first use.
func (ds *deviceState) entry(name string) (*kernelEntry, error) {
	ds.mu.Lock()
	e := ds.kernels[name]
	ds.mu.Unlock()
	if e != nil {
		return e, nil
	}
	if err := ds.compileOps(context.Background()); err != nil {
		return nil, err
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if e := ds.kernels[name]; e != nil {
		return e, nil
	}
	k, err := ds.mod.Kernel(name)
	if err != nil {
		return nil, wrap(err, "kernel "+name)
	}
	e = &kernelEntry{k: k}
	ds.kernels[name] = e
	return e, nil
}

// sgemm is the library's built-in sgemm (package kernels: 128×128 tiles of
// 8×8 per thread, double-buffered Float4 staging; on the CPU the hand-tuned
// GEMM), compiled for the device on first use.
func (ds *deviceState) sgemm() (*gpu.Kernel, error) {
	return ds.compileSgemm(context.Background())
}

// compileSgemm compiles the built-in sgemm for the device unless done.
func (ds *deviceState) compileSgemm(ctx context.Context) (*gpu.Kernel, error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.gemm == nil && ds.gemmErr == nil {
		mod, err := ds.dev.Compile(ctx, kernels.Source())
		var k *gpu.Kernel
		if err == nil {
			if k, err = mod.Kernel(kernels.OpSgemm); err != nil {
				_ = mod.Close()
			}
		}
		if err != nil {
			if keepFailure(ctx, err) {
				ds.gemmErr = err
			}
			return nil, wrap(err, "compile sgemm")
		}
		ds.gemmMod, ds.gemm = mod, k
	}
	if ds.gemmErr != nil {
		return nil, wrap(ds.gemmErr, "compile sgemm")
	}
	return ds.gemm, nil
}

// count adds a transfer of n bytes in direction dir to the device's ledger.
func (ds *deviceState) count(dir func(*gpu.TransferCounts) *gpu.Transfer, n int64) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	addTransfer(dir(&ds.transfers), n)
}

// DeviceTransfers is the transfer ledger the package keeps for dev: the
// bytes its tensors moved through FromSlice and the other constructors
// (H2D), ToHost and the other readers (D2H), CopyTo within the device (D2D)
// and CopyTo from another device (Peer, counted on the destination). Peek,
// Zeros' fill and kernels are not transfers here. (Device.Stats counts every
// copy of the device, this package's and Peek's included.)
func DeviceTransfers(dev *gpu.Device) gpu.TransferCounts {
	if dev == nil {
		return gpu.TransferCounts{}
	}
	ds := stateOf(dev)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.transfers
}

// ResetDeviceTransfers zeroes dev's ledger (DeviceTransfers).
func ResetDeviceTransfers(dev *gpu.Device) {
	if dev == nil {
		return
	}
	ds := stateOf(dev)
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.transfers = gpu.TransferCounts{}
}

func addTransfer(t *gpu.Transfer, n int64) {
	t.Count++
	t.Bytes += n
}

func h2d(c *gpu.TransferCounts) *gpu.Transfer  { return &c.H2D }
func d2h(c *gpu.TransferCounts) *gpu.Transfer  { return &c.D2H }
func d2d(c *gpu.TransferCounts) *gpu.Transfer  { return &c.D2D }
func peer(c *gpu.TransferCounts) *gpu.Transfer { return &c.Peer }
