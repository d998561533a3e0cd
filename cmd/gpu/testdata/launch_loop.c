/*
 * launch_loop: the C reference for gpu bench's launch_us. It opens
 * libcuda.so.1 with dlopen and uses the CUDA driver API with prototypes
 * declared here (no CUDA headers), loads a PTX kernel with the signature of
 * anygpu's built-in fill (float* y, unsigned n, float value), and times
 * back-to-back cuLaunchKernel calls (grid 1, block 1) on a non-blocking
 * stream, then one cuStreamSynchronize: wall time / count, median of the
 * rounds after a warm-up round — what gpu bench's launch_us does through anygpu.
 *
 *   gcc -O2 -o launch_loop launch_loop.c -ldl
 *   ./launch_loop [launches=10000] [rounds=5]
 *
 * Output: one JSON object, {"c_launch_us": ..., "c_launch_us_empty": ...,
 * "c_enqueue_us": ...} (the last: bursts of 128 fill launches that fit the
 * queue, timed without the Synchronize — the CPU cost of a launch alone).
 *
 * Built with -DLAUNCH_LOOP_LIB -shared -fPIC it is instead a library with one
 * function, launch_loop_run (at the end), which backend/cuda's TestLaunchVsC
 * calls between rounds of its own launches, in the same process.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;

static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(CUdevice *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent)(CUcontext);
static CUresult (*cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuStreamCreate)(CUstream *, unsigned);
static CUresult (*cuStreamSynchronize)(CUstream);
static CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                  unsigned, CUstream, void **, void **);

#ifndef LAUNCH_LOOP_LIB
static const char ptx[] =
    ".version 7.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry fill(.param .u64 y, .param .u32 n, .param .f32 v)\n"
    "{\n"
    "  .reg .pred %p;\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .f32 %f1;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [y];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  ld.param.f32 %f1, [v];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  setp.ge.u32 %p, %r2, %r1;\n"
    "  @%p bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r2, 4;\n"
    "  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.f32 [%rd2], %f1;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry empty(.param .u64 p)\n"
    "{\n"
    "  ret;\n"
    "}\n";

#define CHECK(call)                                                              \
	do {                                                                         \
		CUresult r_ = (call);                                                    \
		if (r_ != 0) {                                                           \
			fprintf(stderr, "launch_loop: %s failed: CUresult %d\n", #call, r_); \
			exit(1);                                                             \
		}                                                                        \
	} while (0)

static void *sym(void *lib, const char *name) {
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "launch_loop: %s: %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* median_us times rounds of launches of f with params on s. */
static double median_us(CUfunction f, void **params, CUstream s, int launches, int rounds) {
	double *per = malloc(sizeof(double) * rounds);
	for (int i = 0; i < launches; i++) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, 0)); /* warm-up round */
	CHECK(cuStreamSynchronize(s));
	for (int r = 0; r < rounds; r++) {
		double t0 = now();
		for (int i = 0; i < launches; i++) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, 0));
		CHECK(cuStreamSynchronize(s));
		per[r] = (now() - t0) / launches * 1e6;
	}
	qsort(per, rounds, sizeof(double), cmp);
	double m = rounds % 2 ? per[rounds / 2] : (per[rounds / 2 - 1] + per[rounds / 2]) / 2;
	free(per);
	return m;
}

/* enqueue_us times bursts of launches short enough to fit the stream's queue
 * (each after a Synchronize): the CPU cost of one launch alone, without the
 * GPU's pace. Median of rounds. */
static double enqueue_us(CUfunction f, void **params, CUstream s, int burst, int rounds) {
	double *per = malloc(sizeof(double) * rounds);
	for (int r = 0; r < rounds; r++) {
		CHECK(cuStreamSynchronize(s));
		double t0 = now();
		for (int i = 0; i < burst; i++) CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, 0));
		per[r] = (now() - t0) / burst * 1e6;
	}
	CHECK(cuStreamSynchronize(s));
	qsort(per, rounds, sizeof(double), cmp);
	double m = per[rounds / 2];
	free(per);
	return m;
}

int main(int argc, char **argv) {
	int launches = argc > 1 ? atoi(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "launch_loop: %s\n", dlerror());
		return 1;
	}
	cuInit = sym(lib, "cuInit");
	cuDeviceGet = sym(lib, "cuDeviceGet");
	cuDevicePrimaryCtxRetain = sym(lib, "cuDevicePrimaryCtxRetain");
	cuCtxSetCurrent = sym(lib, "cuCtxSetCurrent");
	cuModuleLoadData = sym(lib, "cuModuleLoadData");
	cuModuleGetFunction = sym(lib, "cuModuleGetFunction");
	cuMemAlloc = sym(lib, "cuMemAlloc_v2");
	cuStreamCreate = sym(lib, "cuStreamCreate");
	cuStreamSynchronize = sym(lib, "cuStreamSynchronize");
	cuLaunchKernel = sym(lib, "cuLaunchKernel");

	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fill, empty;
	CUstream s;
	CUdeviceptr y;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, ptx));
	CHECK(cuModuleGetFunction(&fill, mod, "fill"));
	CHECK(cuModuleGetFunction(&empty, mod, "empty"));
	CHECK(cuMemAlloc(&y, 4));
	CHECK(cuStreamCreate(&s, 1 /* CU_STREAM_NON_BLOCKING */));

	unsigned n = 1;
	float v = 1.5f;
	void *fillParams[] = {&y, &n, &v};
	void *emptyParams[] = {&y};
	double fillUs = median_us(fill, fillParams, s, launches, rounds);
	double emptyUs = median_us(empty, emptyParams, s, launches, rounds);
	double fillEnq = enqueue_us(fill, fillParams, s, 128, 201);
	printf("{\"c_launch_us\": %.4f, \"c_launch_us_empty\": %.4f, \"c_enqueue_us\": %.4f, \"launches\": %d, \"rounds\": %d}\n", fillUs, emptyUs, fillEnq, launches, rounds);
	return 0;
}
#else
/* launch_loop_run: one round of the loop above in the calling process —
 * launches back-to-back cuLaunchKernel(f, grid 1, block 1, params) on s, then
 * cuStreamSynchronize(s) — with the context already current on the calling
 * thread. It uses the libcuda.so.1 the process has loaded. Returns the
 * round's wall time in nanoseconds, or -CUresult on failure (-1000: no
 * libcuda.so.1 loaded). */
long long launch_loop_run(void *f, void **params, void *s, int launches) {
	static int ready;
	if (!ready) {
		void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		if (!lib) return -1000;
		cuLaunchKernel = dlsym(lib, "cuLaunchKernel");
		cuStreamSynchronize = dlsym(lib, "cuStreamSynchronize");
		if (!cuLaunchKernel || !cuStreamSynchronize) return -1000;
		ready = 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < launches; i++) {
		CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, 0);
		if (r != 0) return -r;
	}
	CUresult r = cuStreamSynchronize(s);
	if (r != 0) return -r;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
}
#endif
