import ctypes as C, time, glob, os, subprocess
cands = glob.glob("/usr/local/cuda*/lib64/libnvrtc.so*") + glob.glob("/usr/local/lib/python3*/dist-packages/nvidia/*/lib/libnvrtc.so*") + glob.glob("/usr/lib/python3/dist-packages/nvidia/*/lib/libnvrtc.so*") + glob.glob("/usr/local/lib/python3*/site-packages/nvidia/*/lib/libnvrtc.so*")
print("candidates", cands)
path = sorted(cands)[0]
for f in glob.glob(os.path.dirname(path) + "/libnvrtc*"):
    print(f, os.path.getsize(f) >> 20, "MiB")
try:
    print(subprocess.run(["fincore"] + glob.glob(os.path.dirname(path) + "/libnvrtc*"), capture_output=True, text=True).stdout)
except Exception as e:
    print("fincore:", e)
t0 = time.perf_counter(); lib = C.CDLL(path); t1 = time.perf_counter()
print(f"dlopen {path}: {(t1-t0)*1e3:.1f} ms")
def compile(src, opts):
    prog = C.c_void_p()
    t = time.perf_counter()
    r = lib.nvrtcCreateProgram(C.byref(prog), src.encode(), b"k.cu", 0, None, None)
    arr = (C.c_char_p * len(opts))(*[o.encode() for o in opts])
    r2 = lib.nvrtcCompileProgram(prog, len(opts), arr)
    dt = time.perf_counter() - t
    lib.nvrtcDestroyProgram(C.byref(prog))
    return r, r2, dt
for i, opts in enumerate([["--gpu-architecture=sm_90"], ["--gpu-architecture=sm_90"], ["--gpu-architecture=sm_90", "--std=c++17"]]):
    src = 'extern "C" __global__ void k%d(float* y, float a) { y[threadIdx.x] *= a; }' % i
    print(f"compile {i}: {compile(src, opts)[2]*1e3:.1f} ms")
try:
    print(subprocess.run(["fincore"] + glob.glob(os.path.dirname(path) + "/libnvrtc*"), capture_output=True, text=True).stdout)
except Exception as e:
    pass
