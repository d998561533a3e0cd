# Exploration: how fast can cuMemHostRegister pin pageable memory, and can
# register -> DMA -> unregister beat staging through pinned chunks?
import ctypes as C, time, threading, sys, os, mmap
import numpy as np
cu = C.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0: raise RuntimeError(f"{what}: CUresult {r}")
ck(cu.cuInit(0), "init")
dev = C.c_int(); ck(cu.cuDeviceGet(C.byref(dev), 0), "dev")
ctx = C.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "ctx")
ck(cu.cuCtxSetCurrent(ctx), "set")
for a, nm in [(88, "PAGEABLE_MEMORY_ACCESS"), (99, "HOST_REGISTER_SUPPORTED"), (113, "READ_ONLY_HOST_REGISTER"), (100, "PAGEABLE_USES_HOST_PT")]:
    v = C.c_int(); cu.cuDeviceGetAttribute(C.byref(v), a, dev); print(nm, v.value)
for f in ["/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/defrag", "/proc/sys/vm/nr_hugepages"]:
    try: print(f, open(f).read().strip())
    except Exception as e: print(f, e)
reg = cu.cuMemHostRegister_v2; reg.argtypes = [C.c_void_p, C.c_size_t, C.c_uint]
unreg = cu.cuMemHostUnregister; unreg.argtypes = [C.c_void_p]
cpy = cu.cuMemcpyHtoDAsync_v2; cpy.argtypes = [C.c_uint64, C.c_void_p, C.c_size_t, C.c_void_p]
cpyd = cu.cuMemcpyDtoHAsync_v2; cpyd.argtypes = [C.c_void_p, C.c_uint64, C.c_size_t, C.c_void_p]
N = 256 << 20
dptr = C.c_uint64(); ck(cu.cuMemAlloc_v2(C.byref(dptr), C.c_size_t(N)), "alloc")
s = C.c_void_p(); ck(cu.cuStreamCreate(C.byref(s), 1), "stream")
def sync(): ck(cu.cuStreamSynchronize(s), "sync")
def fresh(huge=False):
    m = mmap.mmap(-1, N + 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge:
        try: m.madvise(mmap.MADV_HUGEPAGE)
        except Exception as e: print("madvise", e)
    a = np.frombuffer(m, dtype=np.uint8)
    a[:] = 7
    return m, a
def addr(a): return a.ctypes.data
# pinned baseline
hp = C.c_void_p(); ck(cu.cuMemHostAlloc(C.byref(hp), C.c_size_t(N), 1), "hostalloc")
for _ in range(2): cpy(dptr.value, hp, N, s); sync()
t = time.perf_counter()
for _ in range(5): cpy(dptr.value, hp, N, s)
sync(); print(f"pinned H2D {5*N/(time.perf_counter()-t)/1e9:.1f} GB/s")
_, a = fresh()
t = time.perf_counter(); ck(cu.cuMemcpyHtoD_v2(C.c_uint64(dptr.value), C.c_void_p(addr(a)), C.c_size_t(N)), "pageable"); print(f"driver pageable H2D {N/(time.perf_counter()-t)/1e9:.1f} GB/s")
# register whole / windows, flags
for huge in (False, True):
    for flags in (0, 8):
        for win in (N, 32 << 20, 4 << 20):
            m, a = fresh(huge)
            base = (addr(a) + 4095) & ~4095
            t0 = time.perf_counter()
            for off in range(0, N, win): ck(reg(base + off, win, flags), "reg")
            t1 = time.perf_counter()
            for off in range(0, N, win): ck(unreg(base + off), "unreg")
            t2 = time.perf_counter()
            # second registration of the same (already faulted, maybe cached) memory
            for off in range(0, N, win): ck(reg(base + off, win, flags), "reg")
            t3 = time.perf_counter()
            for off in range(0, N, win): ck(unreg(base + off), "unreg")
            t4 = time.perf_counter()
            print(f"huge={huge} flags={flags} win={win>>20}MiB: reg {N/(t1-t0)/1e9:.1f} GB/s unreg {N/(t2-t1)/1e9:.1f} GB/s; again reg {N/(t3-t2)/1e9:.1f} unreg {N/(t4-t3)/1e9:.1f}")
            del a; m.close()
# parallel registration of windows
def par(threads, win, huge=False, flags=0, dma=False):
    m, a = fresh(huge)
    base = (addr(a) + 4095) & ~4095
    n = N - 4096 if False else N
    wins = list(range(0, N, win))
    lock = threading.Lock(); it = iter(wins); errs = []
    def work():
        ck(cu.cuCtxSetCurrent(ctx), "set")
        st = C.c_void_p(); ck(cu.cuStreamCreate(C.byref(st), 1), "stream")
        pend = []
        while True:
            with lock: off = next(it, None)
            if off is None: break
            ck(reg(base + off, win, flags), "reg")
            if dma:
                ck(cpy(dptr.value + off, base + off, win, st), "cpy")
                ev = C.c_void_p(); ck(cu.cuEventCreate(C.byref(ev), 2), "ev"); ck(cu.cuEventRecord(ev, st), "rec")
                pend.append((off, ev))
                if len(pend) > 1:
                    o, e = pend.pop(0); ck(cu.cuEventSynchronize(e), "es"); ck(unreg(base + o), "unreg"); cu.cuEventDestroy_v2(e)
            else:
                pend.append((off, None))
        for o, e in pend:
            if e: ck(cu.cuEventSynchronize(e), "es"); cu.cuEventDestroy_v2(e)
            ck(unreg(base + o), "unreg")
        cu.cuStreamDestroy_v2(st)
    ths = [threading.Thread(target=work) for _ in range(threads)]
    t = time.perf_counter()
    for th in ths: th.start()
    for th in ths: th.join()
    dt = time.perf_counter() - t
    del a; m.close()
    return N / dt / 1e9
for dma in (False, True):
    for huge in (False, True):
        for threads in (1, 2, 4, 8):
            for win in (2 << 20, 8 << 20, 32 << 20):
                r = [par(threads, win, huge, 0, dma) for _ in range(3)]
                print(f"{'reg+dma+unreg' if dma else 'reg+unreg'} huge={huge} threads={threads} win={win>>20}MiB: {max(r):.1f} GB/s (runs {', '.join(f'{x:.1f}' for x in r)})")
