import ctypes as C, time
import cupy as cp
cp.cuda.Device(0).use(); cp.zeros(1)  # context current on this thread
cu = C.CDLL("libcuda.so.1")
alloc = cu.cuMemAlloc_v2; alloc.argtypes = [C.POINTER(C.c_uint64), C.c_size_t]
free = cu.cuMemFree_v2; free.argtypes = [C.c_uint64]
def t(f, n=500):
    for _ in range(20): f()
    s = time.perf_counter()
    for _ in range(n): f()
    return (time.perf_counter() - s) / n * 1e6
for size in (64 << 10, 1 << 20, 2 << 20, 4 << 20, 32 << 20):
    p = C.c_uint64()
    def drv():
        alloc(C.byref(p), size); free(p.value)
    def cpy():
        m = cp.cuda.Memory(size); del m
    def drv_alloc_only():
        alloc(C.byref(p), size)
    print(f"{size>>10:6d} KiB: cuMemAlloc+cuMemFree {t(drv):8.2f} us   cupy Memory {t(cpy):8.2f} us")
# is cupy's Memory really cudaMalloc? time cudaMalloc directly via runtime
rt = cp.cuda.runtime
def rtm():
    p = rt.malloc(1 << 20); rt.free(p)
print(f"cupy runtime.malloc+free 1 MiB {t(rtm):.2f} us")
# with another allocation live (first allocation in a 2 MiB page?)
keep = []
p = C.c_uint64()
for _ in range(8):
    alloc(C.byref(p), 1 << 20); keep.append(p.value)
def drv1():
    q = C.c_uint64(); alloc(C.byref(q), 1 << 20); free(q.value)
print(f"1 MiB alloc+free with 8 MiB live: {t(drv1):.2f} us")
