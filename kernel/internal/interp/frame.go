package interp

import (
	"fmt"
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// vec4 is a kernel.Float4 (ir.Vec of F32) as the interpreter holds it.
type vec4 = [4]float32

// thread is one thread's state while a kernel runs: its frame (every local,
// parameter, constant and id of the kernel and of the helpers inlined into
// it, each at a byte offset fixed at Compile), the group's shared memory and
// the buffers of the call.
type thread struct {
	mem  unsafe.Pointer // the frame: a lane's, or the group's scratch frame
	u    unsafe.Pointer // the group's uniform frame
	sh   unsafe.Pointer // the group's shared memory
	bufs []view         // the call's buffers, by parameter order among buffers
}

// view is a buffer argument: its first element and its length in elements.
type view struct {
	p unsafe.Pointer
	n int
}

// ctl is how a statement ends: normally, or by break, continue or return.
type ctl uint8

const (
	ctlNone ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

// stmt runs a compiled statement on a thread.
type stmt func(t *thread) ctl

// ld reads the T at byte offset off of t's frame.
func ld[T any](t *thread, off uintptr) T { return *(*T)(unsafe.Add(t.mem, off)) }

// st writes v at byte offset off of t's frame.
func st[T any](t *thread, off uintptr, v T) { *(*T)(unsafe.Add(t.mem, off)) = v }

// sizeOf is the size of a T in bytes.
func sizeOf[T any]() uintptr {
	var z T
	return unsafe.Sizeof(z)
}

// outOfRange is the panic of an index out of range: the CPU backend recovers
// it into the launch's error, where a GPU would read garbage or drop the write.
func outOfRange(pos ir.Pos, what string, i uint64, n int) {
	panic(fmt.Errorf("%s: index %d out of range [0:%d) of %s", pos, int64(i), n, what))
}
