package cuda

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/backend/cuda/internal/cublaslt"
	"github.com/anygpu/gpu/errors"
)

// Matrix products through cuBLASLt (backend.MatMuler). The library is loaded
// at the first MatMul of the process, never at Open (cublaslt.Load). Each
// device holds one cuBLASLt handle and a cache of plans, each plan the
// descriptors and the algorithm the heuristic chose for one problem shape;
// each stream holds a workspace of matMulWorkspaceBytes, allocated at its
// first MatMul.
//
// cuBLASLt is column-major and the MatMul row-major. A row-major r×c matrix
// with leading dimension ld is, read column-major, its c×r transpose with the
// same ld, so the row-major C = op(A)·op(B) is computed as the column-major
// Cᵀ = op(B)ᵀ·op(A)ᵀ: B is cuBLASLt's first operand and A its second, M and N
// swap, and each transpose flag keeps its meaning (TransB becomes TRANSA,
// TransA becomes TRANSB).

// matMulWorkspaceBytes is the workspace each stream gives cuBLASLt: 32 MiB,
// what NVIDIA recommends for Hopper and what PyTorch allocates there.
const matMulWorkspaceBytes = 32 << 20

// maxMatMulPlans bounds a device's plan cache; a problem beyond it gets a
// plan of its own, made and destroyed around its product.
const maxMatMulPlans = 4096

// matMulState is a device's cuBLASLt state.
type matMulState struct {
	mu     sync.Mutex
	lib    *cublaslt.Lib // the library the handle and plans belong to
	handle cublaslt.Handle
	plans  map[matMulKey]*matMulPlan

	// names holds matMulOp's names of the products seen (matMulName to
	// matMulOp's string), up to maxMatMulPlans of them, so that a product
	// formats its name for errors once, not at every call; named counts them.
	names sync.Map
	named atomic.Int64
}

// matMulName is what matMulOp's name of a product depends on.
type matMulName struct {
	m, n, k, batch int
	in, out        backend.MatMulType
	act            backend.MatMulActivation
}

// op is m.String(), formatted once per kind of product.
func (st *matMulState) op(m *backend.MatMulArgs) string {
	key := matMulName{m: m.M, n: m.N, k: m.K, batch: m.Batch, in: m.In, out: m.Out, act: m.Act}
	if v, ok := st.names.Load(key); ok {
		return v.(string)
	}
	op := m.String()
	if st.named.Add(1) <= maxMatMulPlans {
		st.names.Store(key, op)
	}
	return op
}

// matMulStream is a stream's cuBLASLt state, guarded by the stream's mutex.
type matMulStream struct {
	work   *buffer   // the workspace, nil until the first MatMul
	scalar [2]uint32 // alpha and beta as the scale type, read by cublasLtMatmul
	args   cublaslt.MatmulArgs
}

// matMulKey is what a plan depends on: everything of a MatMul but its
// buffers and scalars, with the alignment of each operand instead of its
// address.
type matMulKey struct {
	m, n, k                   int
	transA, transB            bool
	in, out                   backend.MatMulType
	lda, ldb, ldc             int
	batch                     int
	strideA, strideB, strideC int64
	alignA, alignB, alignC    uint32
	alignD                    uint32            // D's (C's when the result overwrites C)
	bias                      bool              // the epilogue adds a bias (BIAS, RELU_BIAS, GELU_BIAS)
	alignBias                 uint32            // the bias pointer's alignment (the heuristic reads it)
	epilogue                  cublaslt.Epilogue // CUBLASLT_MATMUL_DESC_EPILOGUE: epilogueOf(bias, activation)
}

// matMulPlan is the cuBLASLt side of one key: the descriptor, the layouts
// of cuBLASLt's operands (first = the MatMul's B, second = its A, then C,
// which is also D) and the algorithm.
type matMulPlan struct {
	desc       cublaslt.MatmulDesc
	la, lb, lc cublaslt.MatrixLayout
	algo       cublaslt.Algo

	// biasMu serialises setting the descriptor's bias pointer and the
	// cublasLtMatmul that reads it: the device's streams share plans, and
	// the pointer is the descriptor's, read when the product is enqueued.
	biasMu sync.Mutex
}

// matMulTypes is how cuBLASLt computes one pair of MatMul types.
type matMulTypes struct {
	ab, c          cublaslt.DataType
	compute        cublaslt.ComputeType
	scale          cublaslt.DataType
	integerScalars bool
}

// matMulTypesOf returns the cuBLASLt types of in×in→out, false for a pair
// without a kernel: float32 (exact FP32: CUBLAS_COMPUTE_32F never rounds to
// TF32), float16 and bfloat16 to themselves or float32 (float32
// accumulation), int8 to int32 (int32 accumulation and int32 scalars).
func matMulTypesOf(in, out backend.MatMulType) (matMulTypes, bool) {
	f32 := matMulTypes{ab: cublaslt.R32F, c: cublaslt.R32F, compute: cublaslt.Compute32F, scale: cublaslt.R32F}
	switch {
	case in == backend.MatMulFloat32 && out == backend.MatMulFloat32:
		return f32, true
	case in == backend.MatMulFloat16 && (out == backend.MatMulFloat16 || out == backend.MatMulFloat32):
		t := f32
		t.ab, t.c = cublaslt.R16F, dataType(out)
		return t, true
	case in == backend.MatMulBFloat16 && (out == backend.MatMulBFloat16 || out == backend.MatMulFloat32):
		t := f32
		t.ab, t.c = cublaslt.R16BF, dataType(out)
		return t, true
	case in == backend.MatMulInt8 && out == backend.MatMulInt32:
		return matMulTypes{ab: cublaslt.R8I, c: cublaslt.R32I, compute: cublaslt.Compute32I, scale: cublaslt.R32I, integerScalars: true}, true
	}
	return matMulTypes{}, false
}

// dataType is the cudaDataType_t of a MatMul type.
func dataType(t backend.MatMulType) cublaslt.DataType {
	switch t {
	case backend.MatMulFloat16:
		return cublaslt.R16F
	case backend.MatMulBFloat16:
		return cublaslt.R16BF
	case backend.MatMulInt8:
		return cublaslt.R8I
	case backend.MatMulInt32:
		return cublaslt.R32I
	}
	return cublaslt.R32F
}

var _ backend.MatMuler = (*stream)(nil)

// epilogueOf is the cublasLtEpilogue_t that adds the bias (when bias) and
// then applies act; false for an activation cuBLASLt has no epilogue for.
func epilogueOf(bias bool, act backend.MatMulActivation) (cublaslt.Epilogue, bool) {
	switch act {
	case backend.MatMulNoActivation:
		if bias {
			return cublaslt.EpilogueBias, true
		}
		return cublaslt.EpilogueDefault, true
	case backend.MatMulGELU:
		if bias {
			return cublaslt.EpilogueGELUBias, true
		}
		return cublaslt.EpilogueGELU, true
	case backend.MatMulReLU:
		if bias {
			return cublaslt.EpilogueReLUBias, true
		}
		return cublaslt.EpilogueReLU, true
	}
	return 0, false
}

// notSupported is the error of a product cuBLASLt cannot compute here.
func notSupported(op, hint, format string, args ...any) *errors.Error {
	e := errors.E(errors.NotSupported, Name, op, format, args...)
	e.Hint = hint
	return e
}

// fallbackHint ends every NotSupported hint of MatMul.
const fallbackHint = "multiply with a kernel instead (package tensor falls back to its own)"

// MatMul enqueues m through cublasLtMatmul (see the comment at the top of
// this file for the row-major mapping).
func (s *stream) MatMul(m backend.MatMulArgs) error {
	op := s.dev.mm.op(&m)
	ty, ok := matMulTypesOf(m.In, m.Out)
	if !ok {
		return notSupported(op, "use one of those pairs, or "+fallbackHint,
			"cuBLASLt multiplies float32→float32, float16→float16 or float32, bfloat16→bfloat16 or float32 and int8→int32, not %s→%s", m.In, m.Out)
	}
	if m.K == 0 {
		return notSupported(op, fallbackHint, "an empty inner dimension (K = 0) is left to the caller: C becomes Beta·C")
	}
	for _, v := range []int{m.M, m.N, m.K, m.Batch} {
		if v > math.MaxInt32 {
			return notSupported(op, "split the product, or "+fallbackHint, "cuBLASLt takes sizes and batch counts up to 2³¹−1")
		}
	}
	foldBatch(&m)
	alpha, beta, err := matMulScalars(op, ty, m.Alpha, m.Beta)
	if err != nil {
		return err
	}
	pa := m.A.(*buffer).ptr + cu.DevicePtr(m.AOffset)
	pb := m.B.(*buffer).ptr + cu.DevicePtr(m.BOffset)
	pc := m.C.(*buffer).ptr + cu.DevicePtr(m.COffset)
	pd := pc
	if m.D != nil {
		pd = m.D.(*buffer).ptr + cu.DevicePtr(m.DOffset)
	}
	key := matMulKey{
		m: m.M, n: m.N, k: m.K, transA: m.TransA, transB: m.TransB, in: m.In, out: m.Out,
		lda: m.LDA, ldb: m.LDB, ldc: m.LDC, batch: m.Batch,
		alignA: alignment(uint64(pa), m.StrideA*m.In.Size(), m.Batch),
		alignB: alignment(uint64(pb), m.StrideB*m.In.Size(), m.Batch),
		alignC: alignment(uint64(pc), m.StrideC*m.Out.Size(), m.Batch),
		alignD: alignment(uint64(pd), m.StrideC*m.Out.Size(), m.Batch),
	}
	if m.Batch > 1 {
		key.strideA, key.strideB, key.strideC = m.StrideA, m.StrideB, m.StrideC
	}
	if m.In == backend.MatMulInt8 {
		if err := checkInt8(op, &key); err != nil {
			return err
		}
	}
	var pbias cu.DevicePtr
	if m.Bias != nil {
		if m.In == backend.MatMulInt8 {
			return notSupported(op, "add the bias with a kernel of your own, or "+fallbackHint,
				"the bias epilogue is not offered for int8 products")
		}
		pbias = m.Bias.(*buffer).ptr + cu.DevicePtr(m.BiasOffset)
		key.bias, key.alignBias = true, alignment(uint64(pbias), 0, 1)
	}
	if key.epilogue, ok = epilogueOf(key.bias, m.Act); !ok {
		return notSupported(op, fallbackHint, "cuBLASLt has no epilogue for the activation %v", m.Act)
	}
	lib, err := cublaslt.Load()
	if err != nil {
		return errors.Wrap(err, Name, op)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dev
	if err := d.enter(&s.fr, op); err != nil {
		return err
	}
	defer d.leave()
	work, err := s.matMulWorkspace(op)
	if err != nil {
		return err
	}
	h, p, transient, err := d.matMulPlan(lib, &key, ty, uint64(pbias), op)
	if err != nil {
		return err
	}
	if transient {
		defer p.destroy(lib)
	}
	s.mm.scalar = [2]uint32{alpha, beta}
	a := &s.mm.args
	*a = cublaslt.MatmulArgs{
		Desc:  p.desc,
		Alpha: unsafe.Pointer(&s.mm.scalar[0]), Beta: unsafe.Pointer(&s.mm.scalar[1]),
		A: uint64(pb), LA: p.la, B: uint64(pa), LB: p.lb, C: uint64(pc), LC: p.lc, D: uint64(pd), LD: p.lc,
		Algo: &p.algo, Workspace: uint64(work), WorkspaceSize: matMulWorkspaceBytes, Stream: uintptr(s.h),
	}
	if key.bias {
		p.biasMu.Lock()
		defer p.biasMu.Unlock()
		if st := lib.MatmulDescSetPointer(p.desc, cublaslt.DescBiasPointer, uint64(pbias)); st != cublaslt.StatusSuccess {
			return nativeErr(lib, st, op, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)")
		}
	}
	if st := lib.Matmul(h, a); st != cublaslt.StatusSuccess {
		return nativeErr(lib, st, op, "cublasLtMatmul")
	}
	return nil
}

// foldBatch turns a batch that shares one B into a single product when A
// and C are batches of untransposed matrices that follow one another row
// after row (each stride M rows): the matrices of A stacked are one
// (Batch·M)×K matrix, and those of C one (Batch·M)×N, as PyTorch multiplies
// a batch of activations by one weight matrix. One taller product keeps the
// tensor cores busier than a batch of short ones, and needs no zero stride.
func foldBatch(m *backend.MatMulArgs) {
	if m.Batch <= 1 || m.StrideB != 0 || m.TransA ||
		m.StrideA != int64(m.M)*int64(m.LDA) || m.StrideC != int64(m.M)*int64(m.LDC) ||
		int64(m.M)*int64(m.Batch) > math.MaxInt32 {
		return
	}
	m.M *= m.Batch
	m.Batch, m.StrideA, m.StrideC = 1, 0, 0
}

// matMulScalars converts Alpha and Beta to the bits of the scale type:
// float32, or int32 for int8 products, whose scalars must then be integers.
func matMulScalars(op string, ty matMulTypes, alpha, beta float32) (uint32, uint32, error) {
	if !ty.integerScalars {
		return math.Float32bits(alpha), math.Float32bits(beta), nil
	}
	out := [2]uint32{}
	for i, v := range []float32{alpha, beta} {
		if f := float64(v); f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return 0, 0, notSupported(op, "scale the int32 result afterwards, or "+fallbackHint,
				"int8 products scale by int32 values (cuBLASLt's int32 scale type): Alpha %v and Beta %v must be integers", alpha, beta)
		}
		out[i] = uint32(int32(v))
	}
	return out[0], out[1], nil
}

// alignment is the largest power of two, up to 256, that divides the address
// of every matrix of an operand: its start and, in a batch, its stride in
// bytes.
func alignment(addr uint64, strideBytes int64, batch int) uint32 {
	a := addr | 256
	if batch > 1 && strideBytes != 0 {
		a |= uint64(strideBytes)
	}
	return uint32(1) << bits.TrailingZeros64(a)
}

// int8Hint is what cuBLASLt's int8 kernels need, in the MatMul's terms.
const int8Hint = "cuBLASLt's int8 kernels want A (M×K, not transposed) and B stored N×K (TransB, a linear layer's weights), " +
	"N and K multiples of 4, leading dimensions multiples of 4 and 4-byte aligned matrices; otherwise " + fallbackHint

// checkInt8 refuses int8 products whose matrices are not where cuBLASLt's
// int8 kernels can read them: every matrix 4-byte aligned and every leading
// dimension a multiple of 4 (cublasLtMatmul's documented conditions for its
// int8 kernels). The transposes and sizes it wants are the heuristic's to
// check: a product it has no kernel for is NotSupported with int8Hint.
func checkInt8(op string, k *matMulKey) error {
	for _, o := range []struct {
		name  string
		align uint32
		ld    int
	}{{"A", k.alignA, k.lda}, {"B", k.alignB, k.ldb}, {"C", k.alignC, k.ldc}, {"D", k.alignD, k.ldc}} {
		if o.align < 4 {
			return notSupported(op, int8Hint, "cuBLASLt multiplies int8 matrices only at 4-byte aligned addresses: %s is %d-byte aligned", o.name, o.align)
		}
		if o.ld%4 != 0 {
			return notSupported(op, int8Hint, "cuBLASLt multiplies int8 matrices only with leading dimensions that are multiples of 4: LD%s is %d", o.name, o.ld)
		}
	}
	return nil
}

// nativeErr is the error of a failed cuBLASLt call: its category, name and
// hint from the status, the call named in the message.
func nativeErr(lib *cublaslt.Lib, st cublaslt.Status, op, call string) error {
	err := lib.Err(st, op)
	if e, ok := err.(*errors.Error); ok {
		e.Msg = call + ": " + e.Msg
	}
	return err
}

// matMulWorkspace returns the stream's workspace, allocating it at the first
// MatMul. The context is current and s.mu held.
func (s *stream) matMulWorkspace(op string) (cu.DevicePtr, error) {
	if w := s.mm.work; w != nil {
		return w.ptr, nil
	}
	d := s.dev
	p, r := d.lib.MemAlloc(matMulWorkspaceBytes)
	if err := d.check(r, "allocate the cuBLASLt workspace ("+byteSize(matMulWorkspaceBytes)+")"); err != nil {
		return 0, errors.Wrap(err, Name, op)
	}
	s.mm.work = track(d, d.buffers, &buffer{dev: d, ptr: p, size: matMulWorkspaceBytes})
	return p, nil
}

// closeMatMul frees the stream's workspace (after the stream is destroyed).
func (s *stream) closeMatMul() {
	s.mu.Lock()
	w := s.mm.work
	s.mm.work = nil
	s.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
}

// matMulPlan returns the device's cuBLASLt handle and the plan of key,
// creating the handle and the plan on first use. transient is true for a
// plan the cache had no room for: the caller destroys it after the product.
// The context is current.
func (d *device) matMulPlan(lib *cublaslt.Lib, key *matMulKey, ty matMulTypes, bias uint64, op string) (h cublaslt.Handle, p *matMulPlan, transient bool, err error) {
	mm := &d.mm
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if err := mm.handleLocked(lib, op); err != nil {
		return 0, nil, false, err
	}
	if p := mm.plans[*key]; p != nil {
		return mm.handle, p, false, nil
	}
	p, err = newMatMulPlan(lib, mm.handle, key, ty, bias, op)
	if err != nil {
		return 0, nil, false, err
	}
	if len(mm.plans) >= maxMatMulPlans {
		return mm.handle, p, true, nil
	}
	mm.plans[*key] = p
	return mm.handle, p, false, nil
}

// handleLocked creates the device's cuBLASLt handle of lib unless it has
// one. mm.mu is held and the context current.
func (mm *matMulState) handleLocked(lib *cublaslt.Lib, op string) error {
	if mm.lib == lib {
		return nil
	}
	mm.closeLocked() // another library (tests change ANYGPU_CUBLASLT_LIBRARY)
	hh, st := lib.Create()
	if st != cublaslt.StatusSuccess {
		return nativeErr(lib, st, op, "cublasLtCreate")
	}
	mm.lib, mm.handle, mm.plans = lib, hh, map[matMulKey]*matMulPlan{}
	return nil
}

// closeMatMul destroys the device's plans and handle. The context is
// current.
func (d *device) closeMatMul() {
	d.mm.mu.Lock()
	defer d.mm.mu.Unlock()
	d.mm.closeLocked()
}

func (mm *matMulState) closeLocked() {
	if mm.lib == nil {
		return
	}
	for _, p := range mm.plans {
		p.destroy(mm.lib)
	}
	_ = mm.lib.Destroy(mm.handle)
	mm.lib, mm.handle, mm.plans = nil, 0, nil
}

// newMatMulPlan builds the descriptor and layouts of key and asks the
// heuristic for the best algorithm that fits the workspace and the operands'
// alignment.
func newMatMulPlan(lib *cublaslt.Lib, h cublaslt.Handle, k *matMulKey, ty matMulTypes, bias uint64, op string) (*matMulPlan, error) {
	p := &matMulPlan{}
	fail := func(st cublaslt.Status, call string) (*matMulPlan, error) {
		p.destroy(lib)
		return nil, nativeErr(lib, st, op, call)
	}
	var st cublaslt.Status
	if p.desc, st = lib.MatmulDescCreate(ty.compute, ty.scale); st != cublaslt.StatusSuccess {
		return fail(st, "cublasLtMatmulDescCreate")
	}
	// cuBLASLt's first operand is the MatMul's B, its second the MatMul's A.
	if st = lib.MatmulDescSetInt32(p.desc, cublaslt.DescTransA, int32(operation(k.transB))); st != cublaslt.StatusSuccess {
		return fail(st, "cublasLtMatmulDescSetAttribute(TRANSA)")
	}
	if st = lib.MatmulDescSetInt32(p.desc, cublaslt.DescTransB, int32(operation(k.transA))); st != cublaslt.StatusSuccess {
		return fail(st, "cublasLtMatmulDescSetAttribute(TRANSB)")
	}
	if k.epilogue != cublaslt.EpilogueDefault { // the bias (when any), then the activation (when any)
		if st = lib.MatmulDescSetInt32(p.desc, cublaslt.DescEpilogue, int32(k.epilogue)); st != cublaslt.StatusSuccess {
			return fail(st, "cublasLtMatmulDescSetAttribute(EPILOGUE)")
		}
	}
	if k.bias { // one element per row of cuBLASLt's D, which is a column of the MatMul's C
		if st = lib.MatmulDescSetPointer(p.desc, cublaslt.DescBiasPointer, bias); st != cublaslt.StatusSuccess {
			return fail(st, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)")
		}
	}
	// Stored shapes, row-major: A is M×K (K×M with TransA), B is K×N (N×K
	// with TransB), C is M×N; read column-major, each is its transpose.
	aRows, aCols := k.m, k.k
	if k.transA {
		aRows, aCols = k.k, k.m
	}
	bRows, bCols := k.k, k.n
	if k.transB {
		bRows, bCols = k.n, k.k
	}
	layouts := []struct {
		l          *cublaslt.MatrixLayout
		t          cublaslt.DataType
		rows, cols int
		ld         int
		stride     int64
	}{
		{&p.la, ty.ab, bCols, bRows, k.ldb, k.strideB},
		{&p.lb, ty.ab, aCols, aRows, k.lda, k.strideA},
		{&p.lc, ty.c, k.n, k.m, k.ldc, k.strideC},
	}
	for _, l := range layouts {
		if *l.l, st = lib.MatrixLayoutCreate(l.t, uint64(l.rows), uint64(l.cols), int64(l.ld)); st != cublaslt.StatusSuccess {
			return fail(st, "cublasLtMatrixLayoutCreate")
		}
		if k.batch <= 1 {
			continue
		}
		if st = lib.MatrixLayoutSetInt32(*l.l, cublaslt.LayoutBatchCount, int32(k.batch)); st != cublaslt.StatusSuccess {
			return fail(st, "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)")
		}
		if st = lib.MatrixLayoutSetInt64(*l.l, cublaslt.LayoutStridedBatchOffset, l.stride); st != cublaslt.StatusSuccess {
			return fail(st, "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)")
		}
	}
	pref, st := lib.PreferenceCreate()
	if st != cublaslt.StatusSuccess {
		return fail(st, "cublasLtMatmulPreferenceCreate")
	}
	defer lib.PreferenceDestroy(pref)
	for _, a := range []struct {
		attr cublaslt.PreferenceAttribute
		v    uint32
	}{
		{cublaslt.PrefMinAlignmentA, k.alignB}, {cublaslt.PrefMinAlignmentB, k.alignA},
		{cublaslt.PrefMinAlignmentC, k.alignC}, {cublaslt.PrefMinAlignmentD, k.alignD},
	} {
		if st = lib.PreferenceSetUint32(pref, a.attr, a.v); st != cublaslt.StatusSuccess {
			return fail(st, "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)")
		}
	}
	if st = lib.PreferenceSetUint64(pref, cublaslt.PrefMaxWorkspaceBytes, matMulWorkspaceBytes); st != cublaslt.StatusSuccess {
		return fail(st, "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)")
	}
	var res [1]cublaslt.HeuristicResult
	n, st := lib.AlgoGetHeuristic(h, p.desc, p.la, p.lb, p.lc, p.lc, pref, res[:])
	if st == cublaslt.StatusNotSupported || (st == cublaslt.StatusSuccess && (n == 0 || res[0].State != cublaslt.StatusSuccess)) {
		p.destroy(lib)
		hint := "cuBLASLt has no kernel for these types, transposes, alignments and sizes on this GPU: " + fallbackHint
		if k.in == backend.MatMulInt8 {
			hint = int8Hint
		}
		e := notSupported(op, hint, "cuBLASLt's heuristic found no algorithm for it (transposes A %v, B %v; leading dimensions %d, %d, %d; alignments %d, %d, %d bytes)",
			k.transA, k.transB, k.lda, k.ldb, k.ldc, k.alignA, k.alignB, k.alignC)
		e.Code, e.Name = int64(cublaslt.StatusNotSupported), cublaslt.StatusNotSupported.String()
		return nil, e
	}
	if st != cublaslt.StatusSuccess {
		return fail(st, "cublasLtMatmulAlgoGetHeuristic")
	}
	p.algo = res[0].Algo
	return p, nil
}

// operation is the cublasOperation_t of a transpose flag.
func operation(trans bool) cublaslt.Operation {
	if trans {
		return cublaslt.OpT
	}
	return cublaslt.OpN
}

// destroy frees what the plan holds (host objects of cuBLASLt).
func (p *matMulPlan) destroy(lib *cublaslt.Lib) {
	for _, l := range []cublaslt.MatrixLayout{p.la, p.lb, p.lc} {
		if l != 0 {
			_ = lib.MatrixLayoutDestroy(l)
		}
	}
	if p.desc != 0 {
		_ = lib.MatmulDescDestroy(p.desc)
	}
	*p = matMulPlan{}
}
