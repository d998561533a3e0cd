"""Checks the DLPack exchange of examples/dlpack with PyTorch on a GPU.

    go build -buildmode=c-shared -o /tmp/libanygpu_dlpack.so ./examples/dlpack
    python3 examples/dlpack/check.py /tmp/libanygpu_dlpack.so

A PyTorch tensor goes to the Go library as a DLManagedTensor (no copy); the
library adds 1 to it in place and returns a new tensor, twice the result,
that torch.from_dlpack reads (no copy). Prints the device pointers and
"dlpack: OK" when the values and pointers are as expected.
"""
import ctypes
import sys

import torch
import torch.utils.dlpack

lib = ctypes.CDLL(sys.argv[1])
lib.anygpu_add_one_and_twice.restype = ctypes.c_void_p
lib.anygpu_add_one_and_twice.argtypes = [ctypes.c_void_p]

api = ctypes.pythonapi
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.restype = ctypes.c_int
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

x = torch.arange(1 << 20, dtype=torch.float32, device="cuda:0").reshape(1024, 1024)
before = x.clone()
torch.cuda.synchronize()

capsule = torch.utils.dlpack.to_dlpack(x)
managed = api.PyCapsule_GetPointer(capsule, b"dltensor")
# The Go side takes the tensor (its Close calls the deleter): mark the
# capsule used, as DLPack consumers do, so that PyTorch does not delete it too.
api.PyCapsule_SetName(capsule, b"used_dltensor")
in_ptr = ctypes.c_void_p.from_address(managed).value  # DLTensor.data is the first field

out_managed = lib.anygpu_add_one_and_twice(managed)
assert out_managed, "the Go library failed (see stderr)"
out_ptr = ctypes.c_void_p.from_address(out_managed).value
y = torch.utils.dlpack.from_dlpack(api.PyCapsule_New(out_managed, b"dltensor", None))

print(f"input  data_ptr {x.data_ptr():#x}, as Go saw it {in_ptr:#x}")
print(f"output data_ptr {y.data_ptr():#x}, as Go made it {out_ptr:#x}")
assert x.data_ptr() == in_ptr, "the input was not shared"
assert y.data_ptr() == out_ptr, "the output was not shared"
assert y.shape == x.shape and y.dtype == torch.float32 and y.device == x.device
assert torch.equal(x, before + 1), "the in-place kernel did not run on PyTorch's memory"
assert torch.equal(y, 2 * (before + 1)), "the returned tensor is wrong"
del y  # PyTorch calls the Go deleter, which closes the Go buffer
torch.cuda.synchronize()
print("dlpack: OK")
