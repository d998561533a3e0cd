// dlpack.h: the DLPack structures this package exchanges (DLPack v0.8's
// DLDevice, DLDataType, DLTensor and DLManagedTensor), for the package's cgo
// files.
#ifndef ANYGPU_DLPACK_H
#define ANYGPU_DLPACK_H
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
#endif
