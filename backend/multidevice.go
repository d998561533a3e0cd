package backend

// Optional interfaces for work that spans several devices of one backend.
// The root package finds them by type assertion, like those in optional.go.

// PeerWaiter is implemented by streams that can make their later work wait,
// on the device, for an event recorded on a stream of another device of the
// same backend (CUDA: cuStreamWaitEvent accepts an event of another context).
// Without it the root package waits for such an event on the host.
type PeerWaiter interface {
	WaitPeer(e Event) error
}

// PeerEnabler is implemented by devices that can map the memory of another
// device of the same backend for direct access (CUDA: cuCtxEnablePeerAccess,
// over NVLink or PCIe). After EnablePeer, copies this device makes from
// other's memory go peer to peer. Enabling twice is not an error; two devices
// that cannot reach each other give an error of category NotSupported.
type PeerEnabler interface {
	EnablePeer(other Device) error
}

// NativeRunner is implemented by devices whose native API makes a context
// current per OS thread (CUDA). RunNative runs f on a locked OS thread with
// the device's context current, so that native libraries called from f (NCCL,
// cuBLAS) act on this device.
type NativeRunner interface {
	RunNative(f func() error) error
}
