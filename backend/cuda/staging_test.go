package cuda

import (
	"bytes"
	"context"
	"fmt"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/stretchr/testify/require"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// asyncFakeSource is a stand-in for libcuda.so.1 whose streams are real
// queues: copies enqueued with cuMemcpy*Async run later, in order, on a
// thread of the library's own after a random pause, events complete when the
// queue passes them, and "device memory" is host memory from malloc. It lets
// the staging protocol (slots reused only after their event) be tested for
// correctness, and under the race detector, without a GPU. Every other
// symbol returns 0.
const asyncFakeSource = `
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
typedef struct { void *dst; const void *src; size_t n; } op_t;
#define QN 65536
static op_t q[QN];
static long head, tail;          /* ops done, ops enqueued */
static long evseq[65536];        /* event -> ops enqueued when it was recorded */
static long nev;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER, done = PTHREAD_COND_INITIALIZER;
static pthread_t th;
static int started;
static unsigned seed = 1;
static int hold; /* fake_hold(1) stops the queue until fake_hold(0) */
void fake_hold(int h) { pthread_mutex_lock(&mu); hold = h; pthread_cond_broadcast(&more); pthread_mutex_unlock(&mu); }
static void *run(void *arg) {
	for (;;) {
		pthread_mutex_lock(&mu);
		while (head == tail || hold) pthread_cond_wait(&more, &mu);
		op_t op = q[head % QN];
		unsigned r = rand_r(&seed);
		pthread_mutex_unlock(&mu);
		if (r % 4 == 0) usleep(r % 200);
		memcpy(op.dst, op.src, op.n);
		pthread_mutex_lock(&mu);
		head++;
		pthread_cond_broadcast(&done);
		pthread_mutex_unlock(&mu);
	}
	return 0;
}
static int enqueue(void *dst, const void *src, size_t n) {
	pthread_mutex_lock(&mu);
	if (!started) { started = 1; pthread_create(&th, 0, run, 0); }
	while (tail - head >= QN) pthread_cond_wait(&done, &mu);
	q[tail % QN] = (op_t){dst, src, n};
	tail++;
	pthread_cond_signal(&more);
	pthread_mutex_unlock(&mu);
	return 0;
}
static void wait_for(long seq) {
	pthread_mutex_lock(&mu);
	while (head < seq) pthread_cond_wait(&done, &mu);
	pthread_mutex_unlock(&mu);
}
int cuMemAlloc_v2(unsigned long long *p, size_t n) { *p = (unsigned long long)malloc(n); return 0; }
int cuMemFree_v2(unsigned long long p) { free((void*)p); return 0; }
int cuMemHostAlloc(void **p, size_t n, unsigned flags) { *p = malloc(n); return 0; }
int cuMemFreeHost(void *p) { free(p); return 0; }
int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src, size_t n, void *s) { return enqueue((void*)dst, src, n); }
int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src, size_t n, void *s) { return enqueue(dst, (const void*)src, n); }
int cuEventCreate(long *e, unsigned flags) { pthread_mutex_lock(&mu); *e = ++nev; pthread_mutex_unlock(&mu); return 0; }
int cuEventRecord(long e, void *s) { pthread_mutex_lock(&mu); evseq[e] = tail; pthread_mutex_unlock(&mu); return 0; }
int cuEventSynchronize(long e) { pthread_mutex_lock(&mu); long s = evseq[e]; pthread_mutex_unlock(&mu); wait_for(s); return 0; }
int cuStreamQuery(void *s) { pthread_mutex_lock(&mu); int r = head < tail ? 600 : 0; pthread_mutex_unlock(&mu); return r; }
int cuStreamSynchronize(void *s) { pthread_mutex_lock(&mu); long t = tail; pthread_mutex_unlock(&mu); wait_for(t); return 0; }
`

// buildAsyncFake compiles asyncFakeSource, with every other symbol the
// backend resolves returning 0, and loads it.
func buildAsyncFake(t testing.TB) *cu.Lib {
	t.Helper()
	lib, _ := buildAsyncFakePath(t)
	return lib
}

// buildAsyncFakePath is buildAsyncFake that also returns the library's path.
func buildAsyncFakePath(t testing.TB) (*cu.Lib, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fake driver is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			t.Skipf("no C compiler: %v", err)
		}
	}
	var b strings.Builder
	b.WriteString(asyncFakeSource)
	for _, n := range cu.AllSymbols() {
		if !strings.Contains(asyncFakeSource, " "+n+"(") {
			fmt.Fprintf(&b, "int %s() { return 0; }\n", n)
		}
	}
	dir := t.TempDir()
	src, out := filepath.Join(dir, "fake.c"), filepath.Join(dir, "libcuda.so.1")
	require.NoError(t, os.WriteFile(src, []byte(b.String()), 0o644))
	if msg, err := exec.Command(cc, "-shared", "-fPIC", "-pthread", "-o", out, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the fake driver: %v\n%s", err, msg)
	}
	lib, err := cu.Load(out)
	require.NoError(t, err)
	return lib, out
}

// TestStagingProtocol round-trips pageable transfers of many sizes through
// the staging workers over a driver whose copies complete late and out of
// step with the host, with several chunk sizes and worker counts.
func TestStagingProtocol(t *testing.T) {
	lib := buildAsyncFake(t)
	d := &device{lib: lib, ord: &ordinalState{}, buffers: map[*buffer]struct{}{}, streams: map[*stream]struct{}{}, hosts: map[*hostBuffer]struct{}{}}
	s := newStream(d, 0)
	defer func(c, w, p int, gr, gw bool) {
		stageChunk, stageWorkers, stageCopyPiece, stageGuidedRead, stageGuidedWrite = c, w, p, gr, gw
	}(stageChunk, stageWorkers, stageCopyPiece, stageGuidedRead, stageGuidedWrite)
	// Many chunks: more than any geometry's workers, so every worker takes
	// several; -short's 13 still exceeds the 12 workers (up to 148 MiB
	// fewer to copy).
	manyChunks := 37
	if testing.Short() {
		manyChunks = 13
	}
	for _, geo := range []struct {
		chunk, workers, piece int
		guided                bool
	}{{64 << 10, 1, 0, true}, {64 << 10, 3, 0, false}, {256 << 10, 8, 0, false}, {256 << 10, 8, 0, true}, {4 << 20, 4, 0, true}, {256 << 10, 5, 100 << 10, true}, {2 << 20, 12, 512 << 10, true}} {
		stageChunk, stageWorkers, stageCopyPiece = geo.chunk, geo.workers, geo.piece
		stageGuidedRead, stageGuidedWrite = geo.guided, geo.guided
		for _, n := range []int{directMax + 1, 2*geo.chunk - 1, 3*geo.chunk + 5, manyChunks*geo.chunk + 4095, 5 << 20} {
			if n <= directMax {
				continue
			}
			name := fmt.Sprintf("chunk=%d/workers=%d/guided=%v/n=%d", geo.chunk, geo.workers, geo.guided, n)
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*131 + i>>11 + geo.workers)
			}
			want := bytes.Clone(data)
			p, r := lib.MemAlloc(int64(n) + 64)
			require.Equal(t, cu.Success, r)
			buf := &buffer{dev: d, ptr: p, size: int64(n) + 64}
			require.NoError(t, s.Write(buf, 7, data), name)
			clear(data) // the source may be reused as soon as Write returns
			got := make([]byte, n)
			require.NoError(t, s.Read(got, buf, 7), name)
			require.True(t, bytes.Equal(want, got), name)
			// Twice in a row through the same (reused) staging set.
			require.NoError(t, s.Write(buf, 0, want), name)
			require.NoError(t, s.Read(got[:n-3], buf, 0), name)
			require.NoError(t, s.Synchronize(context.Background()), name) // n-3 may be a direct (asynchronous) read
			require.True(t, bytes.Equal(want[:n-3], got[:n-3]), name)
			lib.MemFree(p)
		}
	}
	require.NotEmpty(t, d.staging, "staging sets are kept for reuse")
}
