// cgoexp: one cuLaunchKernel per cgo call from a Go loop, against the same
// loop in C (one cgo call for all), in one process, alternating rounds.
package main

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
typedef int CUresult;
typedef void *CUfunction, *CUstream, *CUmodule, *CUcontext;
typedef unsigned long long CUdeviceptr;
static CUresult (*pLaunch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
static CUresult (*pSync)(CUstream);
static CUfunction fn; static CUstream st; static CUdeviceptr y; static unsigned n = 1; static float v = 1.5f;
static void *params[3];
static const char ptx[] =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry fill(.param .u64 y, .param .u32 n, .param .f32 v)\n{\n"
    "  .reg .pred %p;\n  .reg .b32 %r<3>;\n  .reg .f32 %f1;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [y];\n  ld.param.u32 %r1, [n];\n  ld.param.f32 %f1, [v];\n"
    "  mov.u32 %r2, %tid.x;\n  setp.ge.u32 %p, %r2, %r1;\n  @%p bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n  mul.wide.u32 %rd3, %r2, 4;\n  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.f32 [%rd2], %f1;\nDONE:\n  ret;\n}\n";
static int setup(void) {
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) return -1;
	CUresult (*init)(unsigned) = dlsym(lib, "cuInit");
	CUresult (*devget)(int *, int) = dlsym(lib, "cuDeviceGet");
	CUresult (*retain)(CUcontext *, int) = dlsym(lib, "cuDevicePrimaryCtxRetain");
	CUresult (*setcur)(CUcontext) = dlsym(lib, "cuCtxSetCurrent");
	CUresult (*load)(CUmodule *, const void *) = dlsym(lib, "cuModuleLoadData");
	CUresult (*getf)(CUfunction *, CUmodule, const char *) = dlsym(lib, "cuModuleGetFunction");
	CUresult (*alloc)(CUdeviceptr *, size_t) = dlsym(lib, "cuMemAlloc_v2");
	CUresult (*screate)(CUstream *, unsigned) = dlsym(lib, "cuStreamCreate");
	pLaunch = dlsym(lib, "cuLaunchKernel"); pSync = dlsym(lib, "cuStreamSynchronize");
	int dev; CUcontext ctx; CUmodule mod;
	if (init(0) || devget(&dev, 0) || retain(&ctx, dev) || setcur(ctx) || load(&mod, ptx) || getf(&fn, mod, "fill") || alloc(&y, 4) || screate(&st, 1)) return -2;
	params[0] = &y; params[1] = &n; params[2] = &v;
	return 0;
}
static int bind(void) { return 0; }
static CUresult launch_one(void) { return pLaunch(fn, 1, 1, 1, 1, 1, 1, 0, st, params, 0); }
static CUresult sync_st(void) { return pSync(st); }
static long long c_round(int k) {
	struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < k; i++) if (pLaunch(fn, 1, 1, 1, 1, 1, 1, 0, st, params, 0)) return -1;
	if (pSync(st)) return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"
)

func main() {
	runtime.LockOSThread()
	if r := C.setup(); r != 0 {
		fmt.Println("setup", r)
		os.Exit(1)
	}
	const k = 10000
	var cs, gs []float64
	for r := -1; r < 15; r++ {
		ns := float64(C.c_round(k))
		start := time.Now()
		for range k {
			if C.launch_one() != 0 {
				panic("launch")
			}
		}
		C.sync_st()
		g := float64(time.Since(start).Nanoseconds())
		if r >= 0 {
			cs = append(cs, ns/k/1e3)
			gs = append(gs, g/k/1e3)
		}
	}
	slices.Sort(cs)
	slices.Sort(gs)
	fmt.Printf("{\"c_us\": %.3f, \"cgo_per_launch_us\": %.3f, \"ratio\": %.3f}\n", cs[7], gs[7], gs[7]/cs[7])
}
