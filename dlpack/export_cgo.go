//go:build cgo

package dlpack

/*
#include <stdint.h>
#include <stdlib.h>
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
	void *data;
	DLDevice device;
	int32_t ndim;
	DLDataType dtype;
	int64_t *shape;
	int64_t *strides;
	uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
	DLTensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
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
