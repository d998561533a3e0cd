package kernel

import (
	"math"
	"reflect"
)

// LoadMatrices4 loads four 8×8 matrices of 16-bit values from the shared
// array src (a kernel.Shared array of uint32, passed by its name) into a
// matrix unit's fragment registers: PTX's
// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16.
//
// A matrix unit is 32 consecutive threads of the group by ThreadIndex (see
// MMA): lane l = ThreadIndex()%32. A row of an 8×8 matrix is 8 16-bit
// values in 4 consecutive words of src, value 2w in the low half of word w
// and 2w+1 in its high half, starting at a word index that is a multiple
// of 4. Lane l passes in at the word index of row l%8 of matrix l/8. With
// g = l/4 and t = l%4, the lane then holds, for i = 0..3,
//
//	trans false: frag[i] = word t of row g of matrix i
//	             (M_i[g][2t] in the low half, M_i[g][2t+1] in the high half)
//	trans true:  frag[i] = M_i[2t][g] in the low half, M_i[2t+1][g] in the high half
//
// which are MMA's fragments: matrices 0..3 of row blocks (0, 0), (8, 0),
// (0, 8), (8, 8) of a 16×16 A stored by rows are its a[0..3] without
// trans; a B operand whose columns are stored as rows (B[k][n] at row n,
// keys by dimensions, say) is loaded without trans, one stored by rows of
// k (B[k][n] at row k, values by dimensions) with trans.
//
// The rules are MMA's (the translator checks them): every thread of the
// group calls it in control flow that is the same for the whole group, in
// the kernel, not in a helper; the kernel declares //gpu:maxthreads N, N a
// positive multiple of 32; frag is the address of a local [4]uint32 array
// or of one in a local array of arrays (&frag, &q[k]); src is a shared
// array of uint32 of the kernel; trans is a constant. On CUDA src must be
// 16-byte aligned, which the translator makes it.
//
// CUDA (sm_75 and newer) runs one ldmatrix, which synchronizes only the 32
// threads of the unit; older devices exchange the addresses with
// __shfl_sync. The other dialects (Vulkan, OpenGL, WebGPU, Metal, the CPU)
// store each lane's at in a shared array the translator adds (128 bytes
// per 32 threads of N, shared with MMA's), Barrier, read the words, and
// Barrier again. A kernel must rely on neither.
//
// Run as plain Go outside a translated kernel, it cannot see the other
// threads of its unit, and panics.
func LoadMatrices4[S any](frag *[4]uint32, src *S, at uint32, trans bool) {
	panic("kernel.LoadMatrices4: a matrix unit's operation needs the 32 threads of its unit; it runs only in a translated kernel")
}

// LoadMatrices2 is LoadMatrices4 for two matrices (ldmatrix's .x2): lanes
// 0..15 give the addresses of the rows of matrices 0 and 1 (those of lanes
// 16..31 are not used, but every lane calls it), and frag[0], frag[1] are
// as LoadMatrices4's: exactly one B operand of MMA (b[0] from matrix 0,
// the values of k 0..7, and b[1] from matrix 1, k 8..15).
func LoadMatrices2[S any](frag *[2]uint32, src *S, at uint32, trans bool) {
	panic("kernel.LoadMatrices2: a matrix unit's operation needs the 32 threads of its unit; it runs only in a translated kernel")
}

// CopyAsync starts copying the 16 bytes src[4·sv .. 4·sv+3] (a buffer of
// the kernel, indexed in 4-element vectors as Load4 indexes it) to
// dst[4·dv .. 4·dv+3] (a shared array of uint32 of the kernel, passed by its
// name; float32s are copied as their bits). The copy is complete only after
// the thread's CopyAsyncCommit and a CopyAsyncWait that leaves its batch no
// longer pending, and visible to the other threads of the group only after
// a Barrier after that wait. Each thread copies its own vectors: it may call
// it under any condition. Only a kernel may call it.
//
// On CUDA sm_80 and newer it is cp.async.cg.shared.global (the copy
// bypasses the registers and overlaps the work that follows); on older
// devices and in every other dialect it is a plain copy of four words and
// CopyAsyncCommit and CopyAsyncWait do nothing. Run as plain Go it copies
// (dst must then point at an array of uint32; an index out of range
// panics, as one does in Go).
func CopyAsync[D any, S float32 | uint32](dst *D, dv uint32, src []S, sv uint32) {
	d := reflect.ValueOf(dst).Elem()
	if d.Kind() != reflect.Array || d.Type().Elem().Kind() != reflect.Uint32 {
		panic("kernel.CopyAsync: dst must be an array of uint32")
	}
	for i := range uint32(4) {
		var w uint32
		switch x := any(src[4*sv+i]).(type) {
		case float32:
			w = math.Float32bits(x)
		case uint32:
			w = x
		}
		d.Index(int(4*dv + i)).SetUint(uint64(w))
	}
}

// CopyAsyncCommit ends the calling thread's current batch of CopyAsyncs:
// CopyAsyncWait counts batches (cp.async.commit_group on CUDA sm_80 and
// newer; nothing elsewhere).
func CopyAsyncCommit() {}

// CopyAsyncWait waits until at most n (a constant) of the calling thread's
// committed batches of CopyAsyncs are still pending: CopyAsyncWait(0)
// completes them all (cp.async.wait_group n on CUDA sm_80 and newer;
// nothing elsewhere, whose copies are done when CopyAsync returns).
func CopyAsyncWait(n uint32) {}
