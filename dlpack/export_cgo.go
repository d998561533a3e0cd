//go:build cgo

package dlpack

/*
#include "dlpack.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// anygpuDLPackDelete is the deleter of every tensor Export made: the
// consumer calls it (through a C trampoline) when it is done with the
// tensor. It frees the C memory and lets the Buffer go.
//
//export anygpuDLPackDelete
func anygpuDLPackDelete(t *C.DLManagedTensor) {
	if t == nil {
		return
	}
	h := cgo.Handle(uintptr(t.manager_ctx))
	if st, ok := h.Value().(*exportState); ok {
		st.deleted.Store(true)
		if st.owned {
			_ = st.buf.Close()
		}
	}
	h.Delete()
	C.free(unsafe.Pointer(t.dl_tensor.shape))
	C.free(unsafe.Pointer(t))
}
