// Package fakecublaslt builds a stand-in for libcublasLt with the system C
// compiler, for tests of the CUDA backend's MatMul on machines without a GPU.
// It goes with the fake driver of package fakecuda, whose device memory is
// host memory: the fake's cublasLtMatmul really computes
// D = alpha·op(A)·op(B) + beta·C, column-major as cuBLASLt defines it, for
// the type pairs the backend uses (float32, float16 and bfloat16 in, the same
// or float32 out, with float32 scalars; int8 in, int32 out, with int32
// scalars), batched through the layouts' BATCH_COUNT and
// STRIDED_BATCH_OFFSET, with CUBLASLT_EPILOGUE_BIAS's vector (of D's type,
// one element per row of D) added when the descriptor asks for it, and then
// the activation of the RELU, RELU_BIAS, GELU and GELU_BIAS epilogues
// applied: ReLU as max(x, 0) (0 for a NaN, as NVIDIA's library gives), GELU
// in its tanh form, x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))), both in float
// (C's float and tanhf) on the sum rounded to float, so that a 16-bit output
// is rounded once, after the activation. So a test can check both the calls
// and the numbers.
//
// It reports version $FAKECUBLASLT_VERSION (default 130000). Descriptors,
// layouts and preferences keep the attributes set on them; setting one the
// fake does not know, or with the wrong size, is CUBLAS_STATUS_INVALID_VALUE.
// cublasLtCreate returns $FAKECUBLASLT_CREATE when set and not 0.
// cublasLtMatmulAlgoGetHeuristic returns $FAKECUBLASLT_HEURISTIC when set
// and not 0, and otherwise min($FAKECUBLASLT_ALGOS (default 1), requested)
// algorithms; with $FAKECUBLASLT_INT8_TN set it finds none for an int8
// product that is not TRANSA=T, TRANSB=N. cublasLtMatmul returns
// $FAKECUBLASLT_MATMUL when set and not 0, and CUBLAS_STATUS_INVALID_VALUE
// for an algorithm the heuristic did not write, operands whose shapes or
// batch counts do not agree, or a workspace under the 1 MiB the heuristic
// says its algorithms need. With $FAKECUBLASLT_NOMATH set and not 0 it
// checks a product but computes nothing (benchmarks of the host path).
// On a stream the fake driver is capturing (found through cuStreamIsCapturing
// in the library $ANYGPU_CUDA_LIBRARY names) the product becomes a host
// function of the capture (cuLaunchHostFunc), computed at every launch of
// the graph, and the log gets "matmul captured".
//
// When $FAKECUBLASLT_LOG names a file, cublasLtCreate, cublasLtDestroy, the
// heuristic and cublasLtMatmul append a line each to it, for tests to read:
//
//	create
//	destroy
//	heuristic compute=68 scale=0 ta=1 tb=0 a=T/RxC/ldL/bB/sS b=... c=... d=... ws=W align=A,B,C,D epilogue=E
//	matmul ta=1 tb=0 a=... b=... c=... d=... ws=W
//
// where a layout is its cudaDataType T, rows R, columns C, leading dimension
// L, batch count B and batch stride S, and E is the descriptor's
// cublasLtEpilogue_t (1, CUBLASLT_EPILOGUE_DEFAULT, when not set).
package fakecublaslt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
)

// Build compiles the fake library into dir as libcublasLt.so.13 and returns
// its path. It fails when no C compiler is available (tests skip then).
func Build(dir string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("the fake cuBLASLt is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			return "", fmt.Errorf("no C compiler: %w", err)
		}
	}
	text := source
	for _, name := range cublaslt.Symbols() {
		if !strings.Contains(text, name+"(") {
			return "", fmt.Errorf("the fake cuBLASLt lacks %s", name)
		}
	}
	src := filepath.Join(dir, "fakecublaslt.c")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "libcublasLt.so.13")
	if b, err := exec.Command(cc, "-shared", "-fPIC", "-Wall", "-Werror", "-O1", "-o", out, src, "-ldl", "-lm").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cc, err, b)
	}
	return out, nil
}

const source = `#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int envint(const char *n, int d) { const char *v = getenv(n); return v && *v ? atoi(v) : d; }

static void flog(const char *fmt, ...) {
	const char *p = getenv("FAKECUBLASLT_LOG");
	if (!p || !*p) return;
	FILE *f = fopen(p, "a");
	if (!f) return;
	va_list ap; va_start(ap, fmt); vfprintf(f, fmt, ap); va_end(ap);
	fputc('\n', f);
	fclose(f);
}

enum { R32F = 0, R16F = 2, R8I = 3, R32I = 10, R16BF = 14 };
enum { OK = 0, INVALID = 7, NOTSUP = 15 };
// cublasLtEpilogue_t: the bias and activation bits of the epilogues the fake computes.
enum { EPI_DEFAULT = 1, EPI_RELU = 2, EPI_BIAS = 4, EPI_GELU = 32 };

typedef struct { int compute, scale, pmode, ta, tb, epilogue; const void *bias; } fdesc;
typedef struct { int type; unsigned long long rows, cols; long long ld; int batch; long long stride; } flayout;
typedef struct { unsigned long long ws; unsigned align[4]; } fpref;
typedef struct { uint64_t data[8]; } falgo;
typedef struct { falgo algo; size_t ws; int state; float waves; int reserved[4]; } fresult;

#define MAGIC 0xfa4ec0b1a5ULL

size_t cublasLtGetVersion(void) { return (size_t)envint("FAKECUBLASLT_VERSION", 130000); }

const char *cublasLtGetStatusName(int s) {
	switch (s) {
	case 0: return "CUBLAS_STATUS_SUCCESS";
	case 7: return "CUBLAS_STATUS_INVALID_VALUE";
	case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
	}
	return "CUBLAS_STATUS_FAKE_UNKNOWN";
}

const char *cublasLtGetStatusString(int s) { return s == 0 ? "success" : "the fake cuBLASLt's failure"; }

int cublasLtCreate(void **h) {
	int r = envint("FAKECUBLASLT_CREATE", 0);
	if (r) return r;
	*h = malloc(16);
	flog("create");
	return OK;
}

int cublasLtDestroy(void *h) { flog("destroy"); free(h); return OK; }

int cublasLtMatmulDescCreate(fdesc **d, int compute, int scale) {
	fdesc *x = calloc(1, sizeof *x);
	x->compute = compute; x->scale = scale; x->epilogue = EPI_DEFAULT;
	*d = x;
	return OK;
}

int cublasLtMatmulDescSetAttribute(fdesc *d, int attr, const void *buf, size_t n) {
	int v;
	if (attr == 8) { if (n != 8) return INVALID; memcpy(&d->bias, buf, 8); return OK; }
	if (n != 4) return INVALID;
	memcpy(&v, buf, 4);
	switch (attr) {
	case 0: d->compute = v; return OK;
	case 1: d->scale = v; return OK;
	case 2: d->pmode = v; return OK;
	case 3: if (v < 0 || v > 1) return INVALID; d->ta = v; return OK;
	case 4: if (v < 0 || v > 1) return INVALID; d->tb = v; return OK;
	case 7:
		switch (v) {
		case EPI_DEFAULT: case EPI_RELU: case EPI_BIAS: case EPI_RELU | EPI_BIAS: case EPI_GELU: case EPI_GELU | EPI_BIAS:
			d->epilogue = v; return OK;
		}
		return INVALID;
	}
	return INVALID;
}

int cublasLtMatmulDescDestroy(fdesc *d) { free(d); return OK; }

int cublasLtMatrixLayoutCreate(flayout **l, int type, unsigned long long rows, unsigned long long cols, long long ld) {
	if (ld < 1 || (rows > 0 && (unsigned long long)ld < rows)) return INVALID;
	flayout *x = calloc(1, sizeof *x);
	x->type = type; x->rows = rows; x->cols = cols; x->ld = ld; x->batch = 1;
	*l = x;
	return OK;
}

int cublasLtMatrixLayoutSetAttribute(flayout *l, int attr, const void *buf, size_t n) {
	switch (attr) {
	case 5: if (n != 4) return INVALID; memcpy(&l->batch, buf, 4); return l->batch >= 1 ? OK : INVALID;
	case 6: if (n != 8) return INVALID; memcpy(&l->stride, buf, 8); return OK;
	}
	return INVALID;
}

int cublasLtMatrixLayoutDestroy(flayout *l) { free(l); return OK; }

int cublasLtMatmulPreferenceCreate(fpref **p) { *p = calloc(1, sizeof **p); return OK; }

int cublasLtMatmulPreferenceSetAttribute(fpref *p, int attr, const void *buf, size_t n) {
	if (attr == 1) { if (n != 8) return INVALID; memcpy(&p->ws, buf, 8); return OK; }
	if (attr >= 5 && attr <= 8) { if (n != 4) return INVALID; memcpy(&p->align[attr - 5], buf, 4); return OK; }
	return INVALID;
}

int cublasLtMatmulPreferenceDestroy(fpref *p) { free(p); return OK; }

static char *lay(char *buf, size_t n, const flayout *l) {
	snprintf(buf, n, "%d/%llux%llu/ld%lld/b%d/s%lld", l->type, l->rows, l->cols, l->ld, l->batch, l->stride);
	return buf;
}

int cublasLtMatmulAlgoGetHeuristic(void *h, fdesc *d, flayout *a, flayout *b, flayout *c, flayout *dd, fpref *p,
		int req, fresult *out, int *ret) {
	char sa[96], sb[96], sc[96], sd[96];
	flog("heuristic compute=%d scale=%d ta=%d tb=%d a=%s b=%s c=%s d=%s ws=%llu align=%u,%u,%u,%u epilogue=%d",
		d->compute, d->scale, d->ta, d->tb, lay(sa, sizeof sa, a), lay(sb, sizeof sb, b), lay(sc, sizeof sc, c),
		lay(sd, sizeof sd, dd), p->ws, p->align[0], p->align[1], p->align[2], p->align[3], d->epilogue);
	int r = envint("FAKECUBLASLT_HEURISTIC", 0);
	if (r) return r;
	if (req < 1) return INVALID;
	int n = envint("FAKECUBLASLT_ALGOS", 1);
	if (n > req) n = req;
	if (getenv("FAKECUBLASLT_INT8_TN") && a->type == R8I && !(d->ta == 1 && d->tb == 0)) n = 0;
	for (int i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].algo.data[0] = MAGIC;
		out[i].algo.data[1] = (uint64_t)i;
		out[i].ws = 1 << 20;
		out[i].waves = 1.0f;
	}
	*ret = n;
	return OK;
}

static float h2f(uint16_t h) {
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
	if (e == 0) {
		if (!m) x = sign;
		else { e = 113; while (!(m & 0x400)) { m <<= 1; e--; } m &= 0x3ff; x = sign | (e << 23) | (m << 13); }
	} else if (e == 31) x = sign | 0x7f800000 | (m << 13);
	else x = sign | ((e + 112) << 23) | (m << 13);
	float f; memcpy(&f, &x, 4); return f;
}

static uint16_t f2h(float f) {
	uint32_t x; memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, m = x & 0x7fffff;
	int e = (int)((x >> 23) & 0xff);
	if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	e = e - 127 + 15;
	if (e >= 31) return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10) return (uint16_t)sign;
		m |= 0x800000;
		int shift = 14 - e;
		uint32_t hv = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (hv & 1))) hv++;
		return (uint16_t)(sign | hv);
	}
	uint32_t hv = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (hv & 1))) hv++;
	return (uint16_t)(sign | hv);
}

static float bf2f(uint16_t b) { uint32_t x = (uint32_t)b << 16; float f; memcpy(&f, &x, 4); return f; }

static uint16_t f2bf(float f) {
	uint32_t x; memcpy(&x, &f, 4);
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static int esize(int t) { return t == R32F || t == R32I ? 4 : t == R8I ? 1 : 2; }

static double get(const flayout *l, const char *base, long long b, long long i, long long j) {
	const char *p = base + (b * l->stride + i + j * l->ld) * esize(l->type);
	switch (l->type) {
	case R32F: { float v; memcpy(&v, p, 4); return v; }
	case R16F: { uint16_t v; memcpy(&v, p, 2); return h2f(v); }
	case R16BF: { uint16_t v; memcpy(&v, p, 2); return bf2f(v); }
	case R8I: return (double)*(const int8_t *)p;
	case R32I: { int32_t v; memcpy(&v, p, 4); return v; }
	}
	return 0;
}

static void put(const flayout *l, char *base, long long b, long long i, long long j, double v) {
	char *p = base + (b * l->stride + i + j * l->ld) * esize(l->type);
	switch (l->type) {
	case R32F: { float f = (float)v; memcpy(p, &f, 4); return; }
	case R16F: { uint16_t h = f2h((float)v); memcpy(p, &h, 2); return; }
	case R16BF: { uint16_t h = f2bf((float)v); memcpy(p, &h, 2); return; }
	case R32I: { int32_t x = (int32_t)(int64_t)v; memcpy(p, &x, 4); return; }
	}
}

// activate applies the epilogue's activation to v, in float.
static double activate(int epilogue, double v) {
	float x = (float)v;
	if (epilogue & EPI_RELU) return x > 0.0f ? x : 0.0f;
	if (epilogue & EPI_GELU) return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	return v;
}

typedef struct {
	fdesc d; flayout la, lb, lc, ld;
	const void *A, *B, *C; void *D;
	unsigned long long m, n, k;
	double al, be;
} fjob;

// compute does the product j describes.
static void compute(void *arg) {
	const fjob *j = arg;
	const fdesc *d = &j->d;
	const flayout *la = &j->la, *lb = &j->lb, *lc = &j->lc, *ld = &j->ld;
	const void *A = j->A, *B = j->B, *C = j->C;
	void *D = j->D;
	unsigned long long m = j->m, n = j->n, k = j->k;
	double al = j->al, be = j->be;
	for (long long b = 0; b < lc->batch; b++)
		for (unsigned long long jj = 0; jj < n; jj++)
			for (unsigned long long i = 0; i < m; i++) {
				double acc = 0;
				for (unsigned long long p = 0; p < k; p++) {
					double x = d->ta ? get(la, A, b, p, i) : get(la, A, b, i, p);
					double y = d->tb ? get(lb, B, b, jj, p) : get(lb, B, b, p, jj);
					acc += x * y;
				}
				if (d->compute == 68) acc = (float)acc;
				double v = al * acc;
				if (be != 0) v += be * get(lc, C, b, i, jj);
				if (d->epilogue & EPI_BIAS) {
					flayout vec = *ld; vec.ld = 1; vec.stride = 0;
					v += get(&vec, d->bias, 0, i, 0);
				}
				put(ld, D, b, i, jj, activate(d->epilogue, v));
			}
}

typedef struct {
	int (*is_capturing)(void *, unsigned *);
	int (*launch_host)(void *, void (*)(void *), void *);
} capture_fns;

// driver_capture finds the fake driver's cuStreamIsCapturing and
// cuLaunchHostFunc in the driver library the backend loaded
// ($ANYGPU_CUDA_LIBRARY); zero when it is not loaded.
static capture_fns driver_capture(void) {
	capture_fns f = {0};
	const char *path = getenv("ANYGPU_CUDA_LIBRARY");
	void *h = path && *path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
	if (!h) return f;
	*(void **)&f.is_capturing = dlsym(h, "cuStreamIsCapturing");
	*(void **)&f.launch_host = dlsym(h, "cuLaunchHostFunc");
	dlclose(h);
	return f;
}

int cublasLtMatmul(void *h, fdesc *d, const void *alpha, const void *A, flayout *la, const void *B, flayout *lb,
		const void *beta, const void *C, flayout *lc, void *D, flayout *ld, const falgo *algo, void *ws, size_t wss,
		void *stream) {
	char sa[96], sb[96], sc[96], sd[96];
	flog("matmul ta=%d tb=%d a=%s b=%s c=%s d=%s ws=%zu", d->ta, d->tb, lay(sa, sizeof sa, la), lay(sb, sizeof sb, lb),
		lay(sc, sizeof sc, lc), lay(sd, sizeof sd, ld), wss);
	int r = envint("FAKECUBLASLT_MATMUL", 0);
	if (r) return r;
	if (!algo || algo->data[0] != MAGIC || !ws || wss < (1 << 20)) return INVALID;
	unsigned long long m = d->ta ? la->cols : la->rows, k = d->ta ? la->rows : la->cols;
	unsigned long long kb = d->tb ? lb->cols : lb->rows, n = d->tb ? lb->rows : lb->cols;
	if (k != kb || lc->rows != m || lc->cols != n || ld->rows != m || ld->cols != n) return INVALID;
	if (la->batch != lc->batch || lb->batch != lc->batch || ld->batch != lc->batch) return INVALID;
	if ((d->epilogue & EPI_BIAS) && !d->bias) return INVALID;
	if (envint("FAKECUBLASLT_NOMATH", 0)) return OK;
	fjob j;
	j.d = *d; j.la = *la; j.lb = *lb; j.lc = *lc; j.ld = *ld;
	j.A = A; j.B = B; j.C = C; j.D = D; j.m = m; j.n = n; j.k = k;
	if (d->scale == R32I) { int32_t x, y; memcpy(&x, alpha, 4); memcpy(&y, beta, 4); j.al = x; j.be = y; }
	else { float x, y; memcpy(&x, alpha, 4); memcpy(&y, beta, 4); j.al = x; j.be = y; }
	// Under stream capture the product becomes a host node of the fake
	// driver's graph (as cuBLASLt's kernels become kernel nodes), computed
	// at every launch of the graph.
	capture_fns cf = driver_capture();
	unsigned st = 0;
	if (cf.is_capturing && cf.launch_host && cf.is_capturing(stream, &st) == 0 && st == 1) {
		fjob *copy = malloc(sizeof *copy);
		*copy = j;
		flog("matmul captured");
		return cf.launch_host(stream, compute, copy) ? INVALID : OK;
	}
	compute(&j);
	return OK;
}
`
