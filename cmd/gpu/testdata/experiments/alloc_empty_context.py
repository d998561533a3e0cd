import ctypes as C, time
cu = C.CDLL("libcuda.so.1")
alloc = cu.cuMemAlloc_v2; alloc.argtypes = [C.POINTER(C.c_uint64), C.c_size_t]
free = cu.cuMemFree_v2; free.argtypes = [C.c_uint64]
cu.cuInit(0); dev = C.c_int(); cu.cuDeviceGet(C.byref(dev), 0)
ctx = C.c_void_p(); cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev); cu.cuCtxSetCurrent(ctx)
def t(f, n=300):
    for _ in range(10): f()
    s = time.perf_counter()
    for _ in range(n): f()
    return (time.perf_counter() - s) / n * 1e6
p = C.c_uint64()
def pair(size):
    def f():
        alloc(C.byref(p), size); free(p.value)
    return f
print(f"empty context: 1 MiB {t(pair(1<<20)):.2f} us, 64 KiB {t(pair(64<<10)):.2f} us")
q = C.c_uint64(); alloc(C.byref(q), 4)
print(f"with 4 B live: 1 MiB {t(pair(1<<20)):.2f} us, 64 KiB {t(pair(64<<10)):.2f} us")
free(q.value)
alloc(C.byref(q), 1 << 20)
print(f"with 1 MiB live: 1 MiB {t(pair(1<<20)):.2f} us")
