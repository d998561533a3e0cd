package cuda

import (
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// How a launch's arguments reach cuLaunchKernel: each stream's reused
// parameter block, packed and checked against the parameter sizes the
// driver reports.

// LaunchCopiesArgs tells the root package that Launch is done with its
// argument slice when it returns: the values are copied into the stream's
// parameter block, which cuLaunchKernel copies before it returns. The root
// package then passes the arguments in reused memory, allocating nothing per
// launch.
func (s *stream) LaunchCopiesArgs() bool { return true }

// maxParams is the most arguments a launch takes.
const maxParams = 256

// paramBlock is the argument memory of launches on one stream, reused from
// launch to launch (cuLaunchKernel copies the values before it returns):
// vals holds each argument's value in 8 bytes (a 4-byte scalar in the low
// half, as a little-endian pointer to it reads it), ptrs the address of
// each value, the kernelParams array.
type paramBlock struct {
	vals [maxParams]uint64
	ptrs [maxParams]uintptr
}

// init points ptrs at vals. The block lives inside a heap object that the
// garbage collector never moves.
func (p *paramBlock) init() {
	for i := range p.vals {
		p.ptrs[i] = uintptr(unsafe.Pointer(&p.vals[i]))
	}
}

// pack stores args in the block, checking their number and sizes against
// the kernel's parameters where the driver reports them. The common case,
// arguments that fit, runs the compact packFast; packChecked, out of line,
// finds and words what does not fit.
func (p *paramBlock) pack(args []backend.Arg, k *kernel) error {
	if p.packFast(args, k) {
		return nil
	}
	return p.packChecked(args, k)
}

// packFast stores args and reports whether they all fit (packChecked finds
// nothing wrong); on false the block's contents are unspecified.
func (p *paramBlock) packFast(args []backend.Arg, k *kernel) bool {
	if len(args) > maxParams || (k.params != nil && len(args) != len(k.params)) {
		return false
	}
	for i, a := range args {
		if !k.fits(i, p.put(i, a)) {
			return false
		}
	}
	return true
}

// put stores argument a as parameter i and returns its size in bytes. The
// root package passes only arguments of a kind and buffers of this device.
func (p *paramBlock) put(i int, a backend.Arg) int {
	switch a.Kind {
	case backend.ArgBuffer:
		p.vals[i] = uint64(a.Buffer.(*buffer).ptr)
	case backend.ArgF32, backend.ArgI32, backend.ArgU32:
		p.vals[i] = a.Bits & 0xffffffff
		return 4
	default:
		p.vals[i] = a.Bits
	}
	return 8
}

// fits reports whether parameter i takes an argument of size bytes (any
// does where the driver did not report the sizes). A parameter takes an
// argument of its size; a 1- or 2-byte integer parameter (char, short)
// takes a 4-byte integer, whose low bytes the driver reads.
func (k *kernel) fits(i, size int) bool {
	return k.params == nil || k.params[i] == size || (k.params[i] < 4 && size == 4)
}

// packChecked is pack's checking half: the error of the first argument
// that does not fit.
//
//go:noinline
func (p *paramBlock) packChecked(args []backend.Arg, k *kernel) error {
	bad := func(format string, a ...any) error {
		e := errors.E(errors.InvalidArgument, Name, "launch "+k.name, format, a...)
		e.Hint = "pass the kernel's parameters in order: gpu.Buf for pointers, the scalar type of each other parameter"
		return e
	}
	if len(args) > maxParams {
		return bad("%d arguments: at most %d are supported", len(args), maxParams)
	}
	if k.params != nil && len(args) != len(k.params) {
		return bad("kernel %s takes %d parameters, got %d arguments", k.name, len(k.params), len(args))
	}
	for i, a := range args {
		if size := p.put(i, a); !k.fits(i, size) {
			return bad("parameter %d of %s takes %d bytes, argument %d (%s) has %d", i, k.name, k.params[i], i, a.Kind, size)
		}
	}
	return nil
}

var _ backend.ArgsCopier = (*stream)(nil)
