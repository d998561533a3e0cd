// Package fakecuda builds a stand-in for libcuda.so.1 with the system C
// compiler, for tests of the CUDA backend's loader and probe on machines
// without an NVIDIA driver. The library exports every symbol the backend
// resolves; cuInit returns $FAKECUDA_INIT (default 0), cuDeviceGetCount
// $FAKECUDA_COUNT (default 1), cuDriverGetVersion $FAKECUDA_VERSION (default
// 13000); attributes are an H200's, each overridden by $FAKECUDA_ATTR_<n>
// (n the CUdevice_attribute's value); every other function returns
// $FAKECUDA_DEFAULT, read once (default 801, CUDA_ERROR_NOT_SUPPORTED), and
// writes nothing.
//
// Enough of a device works for the backend's compile and launch paths:
// contexts, memory (host memory), streams, modules and functions. A module
// is its image, kept as text; cuModuleGetFunction finds a name when the
// image has ".entry NAME" or "void NAME(" in it (what the fake NVRTC's output
// and a PTX source hold). Function attributes are stored per function:
// cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) raises the dynamic shared
// memory a launch may ask for above its default of 48 KiB, and
// cuLaunchKernel refuses more than that with CUDA_ERROR_INVALID_VALUE, as
// the driver does. cuDevicePrimaryCtxRetain returns $FAKECUDA_RETAIN when it
// is set and not 0. When $FAKECUDA_LOG names a file, the module, function
// and launch calls append a line each to it ("launch NAME smem=N", ...), for
// tests to read. cuModuleLoadData and cuModuleLoadDataEx refuse an image
// holding the text FAKECUDA_NO_BINARY with CUDA_ERROR_NO_BINARY_FOR_GPU
// (logging "refuse N"), as the driver refuses code for another GPU.
// cuPointerGetAttribute describes every address as the start
// of 1 MiB of device memory of device $FAKECUDA_POINTER_DEVICE (default 0),
// except 0xdead000, which it does not know (CUDA_ERROR_INVALID_VALUE).
//
// Streams capture: between cuStreamBeginCapture_v2 and cuStreamEndCapture,
// cuLaunchKernel, cuLaunchCooperativeKernel, cuMemcpyDtoDAsync_v2,
// cuMemsetD32Async and cuLaunchHostFunc on the stream are recorded as nodes
// instead of run, while host transfers and cuStreamSynchronize return
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidate the capture (then
// cuStreamEndCapture returns CUDA_ERROR_STREAM_CAPTURE_INVALIDATED).
// cuGraphInstantiateWithFlags copies the nodes, and cuGraphLaunch runs them
// in order: copies and fills move memory, launches log their usual line,
// host functions are called. The log gets "begin capture mode=M",
// "end capture N", "instantiate N flags=F", "graph launch N", "destroy exec"
// and "destroy graph" lines; cuGraphGetNodes counts the nodes.
package fakecuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
)

// Attributes are the attribute values the fake device reports (an H200's).
var Attributes = map[cu.Attribute]int{
	cu.AttrMaxThreadsPerBlock: 1024, cu.AttrMaxBlockDimX: 1024, cu.AttrMaxBlockDimY: 1024, cu.AttrMaxBlockDimZ: 64,
	cu.AttrMaxGridDimX: 2147483647, cu.AttrMaxGridDimY: 65535, cu.AttrMaxGridDimZ: 65535,
	cu.AttrMaxSharedMemoryPerBlock: 49152, cu.AttrTotalConstantMemory: 65536, cu.AttrWarpSize: 32,
	cu.AttrMaxRegistersPerBlock: 65536, cu.AttrClockRate: 1980000, cu.AttrMultiprocessorCount: 132,
	cu.AttrIntegrated: 0, cu.AttrCanMapHostMemory: 1, cu.AttrComputeMode: 0, cu.AttrConcurrentKernels: 1,
	cu.AttrECCEnabled: 1, cu.AttrPCIBusID: 0x3b, cu.AttrMemoryClockRate: 3201000, cu.AttrGlobalMemoryBusWidth: 6016,
	cu.AttrL2CacheSize: 62914560, cu.AttrMaxThreadsPerMultiprocessor: 2048, cu.AttrAsyncEngineCount: 3,
	cu.AttrUnifiedAddressing: 1, cu.AttrComputeCapabilityMajor: 9, cu.AttrComputeCapabilityMinor: 0,
	cu.AttrMaxSharedMemoryPerSM: 233472, cu.AttrMaxRegistersPerSM: 65536, cu.AttrManagedMemory: 1,
	cu.AttrCooperativeLaunch: 1, cu.AttrMaxSharedMemoryPerBlockOptin: 232448, cu.AttrMaxBlocksPerMultiprocessor: 32,
	cu.AttrReservedSharedMemoryPerBlock: 1024, cu.AttrClusterLaunch: 1, cu.AttrMemoryPoolsSupported: 1,
}

// Build compiles the fake library into dir and returns its path. It fails
// when no C compiler is available (tests skip then).
func Build(dir string) (string, error) { return BuildCustom(dir, nil, nil) }

// BuildCustom is Build with the functions in omit left out and those in
// extra (other exported names) added.
func BuildCustom(dir string, omit, extra []string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("the fake driver is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			return "", fmt.Errorf("no C compiler: %w", err)
		}
	}
	src := filepath.Join(dir, "fakecuda.c")
	if err := os.WriteFile(src, []byte(source(omit, extra)), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "libcuda.so.1")
	cmd := exec.Command(cc, "-shared", "-fPIC", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cc, err, b)
	}
	return out, nil
}

// source is the C text of the fake library.
func source(omit, extra []string) string {
	var b strings.Builder
	b.WriteString(`#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int envint(const char *n, int d) { const char *v = getenv(n); return v ? atoi(v) : d; }
static int fallback = -1;
static int result(void) { if (fallback < 0) fallback = envint("FAKECUDA_DEFAULT", 801); return fallback; }
int cuInit(unsigned flags) { return envint("FAKECUDA_INIT", 0); }
int cuDriverGetVersion(int *v) { *v = envint("FAKECUDA_VERSION", 13000); return 0; }
int cuDeviceGetCount(int *n) { *n = envint("FAKECUDA_COUNT", 1); return 0; }
int cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
int cuDeviceGetName(char *name, int len, int d) { strncpy(name, "Fake H200", len); return 0; }
int cuDeviceTotalMem_v2(unsigned long long *b, int d) { *b = 150109880320ULL; return 0; }
int cuDeviceGetUuid_v2(unsigned char *u, int d) { for (int i = 0; i < 16; i++) u[i] = (unsigned char)(i * 17); return 0; }
int cuDeviceGetPCIBusId(char *b, int len, int d) { strncpy(b, "0000:3B:00.0", len); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) {
	switch (a) {
`)
	for a, v := range Attributes {
		fmt.Fprintf(&b, "\tcase %d: *v = envint(\"FAKECUDA_ATTR_%d\", %d); return 0;\n", int(a), int(a), v)
	}
	b.WriteString("\t}\n\t*v = 0;\n\treturn 0;\n}\n")
	done := map[string]bool{"cuInit": true, "cuDriverGetVersion": true, "cuDeviceGetCount": true, "cuDeviceGet": true,
		"cuDeviceGetName": true, "cuDeviceTotalMem_v2": true, "cuDeviceGetUuid_v2": true, "cuDeviceGetPCIBusId": true,
		"cuDeviceGetAttribute": true}
	for _, n := range omit {
		done[n] = true
	}
	for _, f := range working {
		if !done[f.name] {
			done[f.name] = true
			b.WriteString(f.body)
		}
	}
	for _, n := range append(cu.AllSymbols(), extra...) {
		if !done[n] {
			done[n] = true
			fmt.Fprintf(&b, "int %s() { return result(); }\n", n)
		}
	}
	return b.String()
}

// working are the functions the fake implements, beyond the device queries.
var working = []struct{ name, body string }{
	{"", `
static void flog(const char *fmt, ...) {
	const char *p = getenv("FAKECUDA_LOG");
	if (!p || !*p) return;
	FILE *f = fopen(p, "a");
	if (!f) return;
	va_list ap; va_start(ap, fmt); vfprintf(f, fmt, ap); va_end(ap);
	fputc('\n', f);
	fclose(f);
}
typedef struct { char *image; } fmodule;
typedef struct { char name[256]; int maxdyn; int carveout; } ffunc;
static __thread void *current;
enum { NODE_KERNEL, NODE_COOPERATIVE, NODE_COPY, NODE_SET, NODE_HOST };
typedef struct {
	int kind;
	unsigned long long dst, src; size_t n; unsigned v;
	ffunc *f; unsigned g[3], b[3], smem;
	void (*fn)(void *); void *data;
} fnode;
typedef struct { fnode *nodes; size_t len, cap; int invalid; } fgraph;
typedef struct { fgraph *cap; } fstream;
static fgraph *capturing(void *st) { return st ? ((fstream *)st)->cap : NULL; }
static fnode *addnode(fgraph *g, int kind) {
	if (g->len == g->cap) { g->cap = g->cap ? 2 * g->cap : 8; g->nodes = realloc(g->nodes, g->cap * sizeof *g->nodes); }
	fnode *n = &g->nodes[g->len++];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	return n;
}
static void runnode(const fnode *n) {
	switch (n->kind) {
	case NODE_KERNEL:
	case NODE_COOPERATIVE:
		flog("%s %s smem=%u grid=%u,%u,%u block=%u,%u,%u", n->kind == NODE_KERNEL ? "launch" : "cooperative", n->f->name, n->smem,
			n->g[0], n->g[1], n->g[2], n->b[0], n->b[1], n->b[2]);
		return;
	case NODE_COPY: memmove((void *)n->dst, (void *)n->src, n->n); return;
	case NODE_SET: { unsigned *p = (unsigned *)n->dst; for (size_t i = 0; i < n->n; i++) p[i] = n->v; return; }
	case NODE_HOST: n->fn(n->data); return;
	}
}
static int kernelnode(int kind, ffunc *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, void *s) {
	fnode n = {0};
	n.kind = kind; n.f = f; n.smem = smem;
	n.g[0] = gx; n.g[1] = gy; n.g[2] = gz; n.b[0] = bx; n.b[1] = by; n.b[2] = bz;
	fgraph *g = capturing(s);
	if (g) { *addnode(g, kind) = n; return 0; }
	runnode(&n);
	return 0;
}
// invalidate is what a call the driver cannot capture does to a capture:
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and the capture is invalidated.
static int invalidate(void *st) { capturing(st)->invalid = 1; return 900; }
`},
	{"cuDevicePrimaryCtxRetain", "int cuDevicePrimaryCtxRetain(void **c, int d) { int r = envint(\"FAKECUDA_RETAIN\", 0); if (r) return r; *c = (void *)(0x1000 + (unsigned long)d); return 0; }\n"},
	{"cuDevicePrimaryCtxRelease_v2", "int cuDevicePrimaryCtxRelease_v2(int d) { return 0; }\n"},
	{"cuCtxSetCurrent", "int cuCtxSetCurrent(void *c) { current = c; return 0; }\n"},
	{"cuCtxGetCurrent", "int cuCtxGetCurrent(void **c) { *c = current; return 0; }\n"},
	{"cuCtxSynchronize", "int cuCtxSynchronize(void) { return 0; }\n"},
	{"cuMemGetInfo_v2", "int cuMemGetInfo_v2(size_t *f, size_t *t) { *f = 1UL << 34; *t = 150109880320ULL; return 0; }\n"},
	{"cuMemAlloc_v2", "int cuMemAlloc_v2(unsigned long long *p, size_t n) { void *m = calloc(1, n ? n : 1); if (!m) return 2; *p = (unsigned long long)m; return 0; }\n"},
	{"cuMemFree_v2", "int cuMemFree_v2(unsigned long long p) { flog(\"free %llx\", p); free((void *)p); return 0; }\n"},
	{"cuPointerGetAttribute", `int cuPointerGetAttribute(void *v, int a, unsigned long long p) {
	if (p == 0xdead000) return 1;
	switch (a) {
	case 2: *(unsigned *)v = 2; return 0;
	case 9: *(int *)v = envint("FAKECUDA_POINTER_DEVICE", 0); return 0;
	case 11: *(unsigned long long *)v = p; return 0;
	case 12: *(size_t *)v = 1 << 20; return 0;
	}
	return 1;
}
`},
	{"cuMemHostAlloc", "int cuMemHostAlloc(void **p, size_t n, unsigned f) { *p = calloc(1, n ? n : 1); return *p ? 0 : 2; }\n"},
	{"cuMemFreeHost", "int cuMemFreeHost(void *p) { free(p); return 0; }\n"},
	{"cuMemcpyHtoDAsync_v2", "int cuMemcpyHtoDAsync_v2(unsigned long long d, const void *s, size_t n, void *st) { if (capturing(st)) return invalidate(st); memcpy((void *)d, s, n); return 0; }\n"},
	{"cuMemcpyDtoHAsync_v2", "int cuMemcpyDtoHAsync_v2(void *d, unsigned long long s, size_t n, void *st) { if (capturing(st)) return invalidate(st); memcpy(d, (void *)s, n); return 0; }\n"},
	{"cuMemcpyDtoDAsync_v2", "int cuMemcpyDtoDAsync_v2(unsigned long long d, unsigned long long s, size_t n, void *st) { fnode x = {0}; x.kind = NODE_COPY; x.dst = d; x.src = s; x.n = n; fgraph *g = capturing(st); if (g) *addnode(g, NODE_COPY) = x; else runnode(&x); return 0; }\n"},
	{"cuMemsetD32Async", "int cuMemsetD32Async(unsigned long long d, unsigned v, size_t n, void *st) { fnode x = {0}; x.kind = NODE_SET; x.dst = d; x.v = v; x.n = n; fgraph *g = capturing(st); if (g) *addnode(g, NODE_SET) = x; else runnode(&x); return 0; }\n"},
	{"cuStreamCreate", "int cuStreamCreate(void **s, unsigned f) { *s = calloc(1, sizeof(fstream)); return 0; }\n"},
	{"cuStreamDestroy_v2", "int cuStreamDestroy_v2(void *s) { free(s); return 0; }\n"},
	{"cuStreamSynchronize", "int cuStreamSynchronize(void *s) { if (capturing(s)) return invalidate(s); return 0; }\n"},
	{"cuStreamQuery", "int cuStreamQuery(void *s) { return 0; }\n"},
	{"cuStreamWaitEvent", "int cuStreamWaitEvent(void *s, void *e, unsigned f) { return 0; }\n"},
	{"cuEventCreate", "int cuEventCreate(void **e, unsigned f) { *e = malloc(8); return 0; }\n"},
	{"cuEventRecord", "int cuEventRecord(void *e, void *s) { return 0; }\n"},
	{"cuEventQuery", "int cuEventQuery(void *e) { return 0; }\n"},
	{"cuEventSynchronize", "int cuEventSynchronize(void *e) { return 0; }\n"},
	{"cuEventDestroy_v2", "int cuEventDestroy_v2(void *e) { free(e); return 0; }\n"},
	{"cuEventElapsedTime_v2", "int cuEventElapsedTime_v2(float *ms, void *a, void *b) { *ms = 0.001f; return 0; }\n"},
	{"cuModuleLoadData", `int cuModuleLoadData(fmodule **m, const char *image) {
	if (strstr(image, "FAKECUDA_NO_BINARY")) { flog("refuse %zu", strlen(image)); return 209; }
	fmodule *x = malloc(sizeof *x); x->image = strdup(image); *m = x;
	flog("load %zu", strlen(image));
	return 0;
}
`},
	{"cuModuleLoadDataEx", `int cuModuleLoadDataEx(fmodule **m, const char *image, unsigned n, int *opts, void **vals) {
	if (strstr(image, "FAKECUDA_NO_BINARY")) { flog("refuse %zu", strlen(image)); return 209; }
	fmodule *x = malloc(sizeof *x); x->image = strdup(image); *m = x;
	char buf[512] = ""; size_t k = 0;
	for (unsigned i = 0; i < n && k < 400; i++) k += (size_t)snprintf(buf + k, sizeof buf - k, " %d=%lu", opts[i], (unsigned long)vals[i]);
	flog("loadex %zu%s", strlen(image), buf);
	return 0;
}
`},
	{"cuModuleUnload", "int cuModuleUnload(fmodule *m) { flog(\"unload\"); free(m->image); free(m); return 0; }\n"},
	{"cuModuleGetFunction", `static int has(const char *image, const char *pre, const char *name) {
	size_t n = strlen(name), p = strlen(pre);
	for (const char *s = strstr(image, pre); s; s = strstr(s + 1, pre)) {
		const char *q = s + p;
		if (strncmp(q, name, n) == 0) {
			char c = q[n];
			if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return 1;
		}
	}
	return 0;
}
int cuModuleGetFunction(ffunc **f, fmodule *m, const char *name) {
	if (!has(m->image, ".entry ", name) && !has(m->image, "void ", name)) { flog("getfunction %s missing", name); return 500; }
	ffunc *x = calloc(1, sizeof *x); strncpy(x->name, name, 255); x->maxdyn = 49152; x->carveout = -1; *f = x;
	flog("getfunction %s", name);
	return 0;
}
`},
	{"cuFuncGetAttribute", `int cuFuncGetAttribute(int *v, int a, ffunc *f) {
	switch (a) {
	case 0: *v = 1024; return 0;
	case 4: *v = 32; return 0;
	case 8: *v = f->maxdyn; return 0;
	case 9: *v = f->carveout; return 0;
	}
	*v = 0; return 0;
}
`},
	{"cuFuncSetAttribute", `int cuFuncSetAttribute(ffunc *f, int a, int v) {
	flog("setattribute %s %d=%d", f->name, a, v);
	if (a == 8) { if (v < 0 || v > 232448) return 1; f->maxdyn = v; }
	if (a == 9) f->carveout = v;
	return 0;
}
`},
	{"cuLaunchKernel", `int cuLaunchKernel(ffunc *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, void *s, void **params, void **extra) {
	if ((int)smem > f->maxdyn) { flog("launch %s smem=%u refused", f->name, smem); return 1; }
	return kernelnode(NODE_KERNEL, f, gx, gy, gz, bx, by, bz, smem, s);
}
`},
	{"cuOccupancyMaxActiveBlocksPerMultiprocessor", `int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, ffunc *f, int bs, size_t smem) {
	*n = bs > 0 ? 2048 / bs : 0;
	if (*n > 32) *n = 32;
	if (smem) { int s = (int)(233472 / (smem + 1024)); if (s < *n) *n = s; }
	return 0;
}
`},
	{"cuLaunchCooperativeKernel", `int cuLaunchCooperativeKernel(ffunc *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, void *s, void **params) {
	if ((int)smem > f->maxdyn) { flog("cooperative %s smem=%u refused", f->name, smem); return 1; }
	return kernelnode(NODE_COOPERATIVE, f, gx, gy, gz, bx, by, bz, smem, s);
}
`},
	{"cuLaunchHostFunc", `int cuLaunchHostFunc(void *s, void (*fn)(void *), void *data) {
	fnode x = {0}; x.kind = NODE_HOST; x.fn = fn; x.data = data;
	fgraph *g = capturing(s);
	if (g) *addnode(g, NODE_HOST) = x; else runnode(&x);
	return 0;
}
`},
	{"cuStreamBeginCapture_v2", `int cuStreamBeginCapture_v2(void *s, unsigned mode) {
	if (!s) return 900;
	if (capturing(s)) return 401;
	((fstream *)s)->cap = calloc(1, sizeof(fgraph));
	flog("begin capture mode=%u", mode);
	return 0;
}
`},
	{"cuStreamEndCapture", `int cuStreamEndCapture(void *s, fgraph **g) {
	fgraph *c = capturing(s);
	*g = NULL;
	if (!c) return 401;
	((fstream *)s)->cap = NULL;
	if (c->invalid) { free(c->nodes); free(c); flog("end capture invalidated"); return 901; }
	*g = c;
	flog("end capture %zu", c->len);
	return 0;
}
`},
	{"cuStreamIsCapturing", `int cuStreamIsCapturing(void *s, unsigned *st) {
	fgraph *c = capturing(s);
	*st = !c ? 0 : c->invalid ? 2 : 1;
	return 0;
}
`},
	{"cuGraphInstantiateWithFlags", `int cuGraphInstantiateWithFlags(fgraph **e, fgraph *g, unsigned long long flags) {
	fgraph *x = calloc(1, sizeof *x);
	x->len = x->cap = g->len;
	x->nodes = malloc((g->len ? g->len : 1) * sizeof *x->nodes);
	memcpy(x->nodes, g->nodes, g->len * sizeof *x->nodes);
	*e = x;
	flog("instantiate %zu flags=%llu", g->len, flags);
	return 0;
}
`},
	{"cuGraphLaunch", `int cuGraphLaunch(fgraph *e, void *s) {
	fgraph *c = capturing(s);
	flog("graph launch %zu", e->len);
	for (size_t i = 0; i < e->len; i++) {
		if (c) *addnode(c, e->nodes[i].kind) = e->nodes[i];
		else runnode(&e->nodes[i]);
	}
	return 0;
}
`},
	{"cuGraphExecDestroy", "int cuGraphExecDestroy(fgraph *e) { flog(\"destroy exec\"); free(e->nodes); free(e); return 0; }\n"},
	{"cuGraphDestroy", "int cuGraphDestroy(fgraph *g) { flog(\"destroy graph\"); free(g->nodes); free(g); return 0; }\n"},
	{"cuGraphGetNodes", `int cuGraphGetNodes(fgraph *g, void **nodes, size_t *n) {
	if (!nodes) { *n = g->len; return 0; }
	size_t k = *n < g->len ? *n : g->len;
	for (size_t i = 0; i < k; i++) nodes[i] = &g->nodes[i];
	*n = k;
	return 0;
}
`},
}
