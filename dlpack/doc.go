// Package dlpack exchanges device buffers with other libraries through
// DLPack (dmlc/dlpack), the tensor interchange format of PyTorch, CuPy, JAX,
// TensorFlow and many C/C++ libraries, without copying.
//
// Export hands a gpu.Buffer out as a DLManagedTensor (C memory the consumer
// owns until it calls the tensor's deleter); Import takes a
// DLManagedTensor another library produced and returns a borrowed
// gpu.Buffer over its memory (Device.Borrow), calling the producer's
// deleter when the import is closed.
//
//	t, err := dlpack.Export(buf, dlpack.Float32, []int64{rows, cols})
//	// hand t.Pointer() to C, or wrap it in a PyCapsule named "dltensor"
//
//	in, err := dlpack.Import(dev, ptr) // ptr: a DLManagedTensor* from elsewhere
//	defer in.Close()                   // calls the producer's deleter
//	stream.Launch(k, grid, block, gpu.Buf(in.Buffer))
//
// Only CUDA device memory is exchanged (kDLCUDA, and kDLCUDAManaged on
// import): the other backends' buffers are not plain pointers. Tensors must
// be compact (row-major, or strides NULL). The package needs cgo (the
// deleter is a C function pointer); without cgo Export and Import return
// NotSupported.
//
// # Layout
//
// The structs are DLPack's ABI, version 0.x/1.0 "DLManagedTensor" (the
// unversioned one every consumer accepts): DLTensor {void* data; DLDevice
// {int32 device_type, device_id} device; int32 ndim; DLDataType {uint8
// code, bits; uint16 lanes} dtype; int64* shape; int64* strides; uint64
// byte_offset} (48 bytes on 64-bit systems), then void* manager_ctx and
// void (*deleter)(DLManagedTensor*) (64 bytes in all).
package dlpack
