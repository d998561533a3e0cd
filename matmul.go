package gpu

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// MatMulType is the element type of a MatMul operand.
type MatMulType = backend.MatMulType

// The element types a MatMul names. Which pairs a device multiplies is the
// backend's to say: an unsupported pair is an error of category NotSupported.
const (
	MatMulFloat32  = backend.MatMulFloat32  // IEEE binary32
	MatMulFloat16  = backend.MatMulFloat16  // IEEE binary16
	MatMulBFloat16 = backend.MatMulBFloat16 // bfloat16 (the top half of a binary32)
	MatMulInt8     = backend.MatMulInt8     // signed 8-bit integers (inputs)
	MatMulInt32    = backend.MatMulInt32    // signed 32-bit integers (the output of Int8 inputs)
)

// MatMulActivation is a function a MatMul applies to every element of its
// result, after the bias, before the result is stored (a fused epilogue: no
// launch of its own, no second pass over the result).
type MatMulActivation = backend.MatMulActivation

// The activations a MatMul applies. A device whose library cannot apply one
// answers NotSupported.
const (
	// MatMulNoActivation stores the result as computed.
	MatMulNoActivation = backend.MatMulNoActivation
	// MatMulGELU is GELU in its tanh form, x/2·(1 + tanh(√(2/π)·(x +
	// 0.044715·x³))) (GPT-2's "gelu_new"; cuBLASLt's GELU epilogue).
	MatMulGELU = backend.MatMulGELU
	// MatMulReLU is max(x, 0). What it gives for a NaN is the library's
	// (cuBLASLt's ReLU epilogue gives 0).
	MatMulReLU = backend.MatMulReLU
)

// MatMul describes a (batched) matrix product computed by a vendor library,
// such as cuBLASLt on CUDA, with tensor cores where the device has them:
//
//	C = Act(Alpha · op(A) · op(B) + Beta · C (+ Bias, in every row of C))
//
// for each of Batch matrices, Act the Activation (none unless set; one
// needs Beta 0). Matrices are row-major: element (i, j) of a
// matrix with leading dimension ld lies ld·i + j elements after its start.
// op(A) is M×K and op(B) is K×N; with TransA, A is stored K×M (op(A) = Aᵀ),
// with TransB, B is stored N×K (the layout of a linear layer's weights). C
// is M×N. Accumulation is in float32 (int32 for Int8 inputs).
type MatMul struct {
	M, N, K int // op(A) is M×K, op(B) is K×N, C is M×N; all ≥ 0

	A, B, C                   *Buffer // A and B are read; C is read (when Beta ≠ 0) and written
	AOffset, BOffset, COffset int64   // bytes from each buffer's start; multiples of the element size

	// LDA, LDB and LDC are the leading dimensions (row strides) in elements;
	// 0 means packed rows (the stored matrix's column count).
	LDA, LDB, LDC int

	TransA, TransB bool // A stored K×M, B stored N×K

	In  MatMulType // the type of A and B
	Out MatMulType // the type of C; 0 means In (Int32 for Int8)

	// Alpha and Beta scale the product and the old C. A zero Alpha with a
	// zero Beta is taken as Alpha 1: a plain product.
	Alpha, Beta float32

	// Batch is the number of products (0 means 1); StrideA, StrideB and
	// StrideC are the elements between consecutive matrices of each operand
	// (0 for B shares one B across the batch).
	Batch                     int
	StrideA, StrideB, StrideC int64

	// Bias, when not nil, holds N elements of type Out from BiasOffset
	// (bytes) that are added to every row of every C after the product is
	// scaled (a linear layer's bias, without a launch of its own). A backend
	// whose library cannot add one answers NotSupported.
	Bias       *Buffer
	BiasOffset int64

	// D, when not nil, receives the result from DOffset (bytes), laid out
	// as C (LDC, StrideC), and C is only read: D = Alpha·op(A)·op(B) +
	// Beta·C (+ Bias), as a residual connection adds a layer's input to its
	// product without a copy. D may be C itself.
	D       *Buffer
	DOffset int64

	// Activation is applied to every element of the result after the bias
	// is added, before it is stored (0: none), in float32 on the sum before
	// it is rounded to Out: it adds no rounding of its own, where an
	// activation op after the product rounds the product to a 16-bit Out
	// and then its activation again (cuBLASLt may still round a 16-bit
	// product before it adds the bias, as it does without an activation).
	// It needs a floating-point Out and Beta 0: cuBLASLt
	// applies its activation to the whole sum, Beta·C included
	// (Act(Alpha·op(A)·op(B) + Beta·C + Bias)), which is not what a
	// residual connection computes (it adds C after the activation), so
	// the combination is refused with InvalidArgument rather than defined
	// by one library.
	Activation MatMulActivation
}

// MatMul enqueues m on the stream. It is an error of category NotSupported
// when the device has no matrix library (every backend but CUDA today, or a
// CUDA machine without libcublasLt) or no kernel for m's types: callers fall
// back to a kernel of their own, as package tensor does. Arguments are
// checked before the backend sees them: buffers open and of the stream's
// device, every matrix within its buffer, leading dimensions at least the
// row length, offsets aligned to the element size.
func (s *Stream) MatMul(m MatMul) error {
	const op = "matmul"
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	args, err := s.matMulArgs(op, &m)
	if err != nil {
		return err
	}
	if args.M == 0 || args.N == 0 {
		return nil
	}
	mm, ok := s.impl.(backend.MatMuler)
	if !ok {
		e := errors.E(errors.NotSupported, s.dev.backend, op, "the %s backend has no matrix library", s.dev.backend)
		e.Hint = "multiply with a kernel (package tensor falls back to its own), or use CUDA with libcublasLt"
		return s.dev.record(e)
	}
	if c := s.capture.Load(); c != nil {
		return c.record(s, op, nil, []*Buffer{m.A, m.B, m.C, m.D, m.Bias}, true, graphTransfer{},
			func(impl backend.Stream) error {
				mm, ok := impl.(backend.MatMuler)
				if !ok {
					return errors.E(errors.NotSupported, s.dev.backend, "", "the stream has no matrix library")
				}
				return mm.MatMul(args)
			})
	}
	var err2 error
	if s.dev.prof == nil {
		err2 = mm.MatMul(args)
	} else {
		name := fmt.Sprintf("matmul %s %dx%dx%d", args.In, args.M, args.N, args.K)
		if args.Act != MatMulNoActivation {
			name += " " + args.Act.String()
		}
		err2 = s.profiled(profiling.KindKernel, name, 0, func() error { return mm.MatMul(args) })
	}
	if err2 != nil {
		return s.dev.wrap(err2, op)
	}
	s.dev.launches.Add(1)
	return nil
}

// dOf is D's backend buffer, nil for none.
func dOf(d *Buffer) backend.Buffer {
	if d == nil {
		return nil
	}
	return d.impl
}

// matMulArgs checks m and returns the backend's form of it, defaults filled.
func (s *Stream) matMulArgs(op string, m *MatMul) (backend.MatMulArgs, error) {
	bad := func(format string, args ...any) (backend.MatMulArgs, error) {
		return backend.MatMulArgs{}, s.dev.errorf(errors.InvalidArgument, op, format, args...)
	}
	if m.M < 0 || m.N < 0 || m.K < 0 {
		return bad("negative size %d×%d×%d", m.M, m.N, m.K)
	}
	in, out := m.In, m.Out
	if in.Size() == 0 || in == MatMulInt32 {
		return bad("input type %v is not one of Float32, Float16, BFloat16, Int8", in)
	}
	if out == 0 {
		out = in
		if in == MatMulInt8 {
			out = MatMulInt32
		}
	}
	if out.Size() == 0 {
		return bad("output type %v is not a MatMulType", out)
	}
	batch := m.Batch
	if batch < 0 {
		return bad("negative Batch %d", batch)
	}
	if batch == 0 {
		batch = 1
	}
	alpha, beta := m.Alpha, m.Beta
	if alpha == 0 && beta == 0 {
		alpha = 1
	}
	// Stored shapes (rows × columns) of each operand.
	aRows, aCols := m.M, m.K
	if m.TransA {
		aRows, aCols = m.K, m.M
	}
	bRows, bCols := m.K, m.N
	if m.TransB {
		bRows, bCols = m.N, m.K
	}
	type operand struct {
		role       string
		b          *Buffer
		off        int64
		ld         int
		rows, cols int
		stride     int64
		elem       int64
	}
	ops := []operand{
		{"A", m.A, m.AOffset, m.LDA, aRows, aCols, m.StrideA, in.Size()},
		{"B", m.B, m.BOffset, m.LDB, bRows, bCols, m.StrideB, in.Size()},
		{"C", m.C, m.COffset, m.LDC, m.M, m.N, m.StrideC, out.Size()},
	}
	if m.D != nil {
		ops = append(ops, operand{"D", m.D, m.DOffset, m.LDC, m.M, m.N, m.StrideC, out.Size()})
	} else if m.DOffset != 0 {
		return bad("DOffset %d without a D", m.DOffset)
	}
	lds := make([]int, len(ops))
	for i, o := range ops {
		if err := s.own(op, o.role, o.b); err != nil {
			return backend.MatMulArgs{}, err
		}
		ld := o.ld
		if ld == 0 {
			ld = max(o.cols, 1)
		}
		if ld < o.cols {
			return bad("LD%s %d is less than the %d columns %s has as stored", o.role, ld, o.cols, o.role)
		}
		if o.off < 0 || o.off%o.elem != 0 {
			return bad("%s offset %d is negative or not a multiple of the element size %d", o.role, o.off, o.elem)
		}
		if o.stride < 0 {
			return bad("Stride%s %d is negative", o.role, o.stride)
		}
		lds[i] = ld
		if o.rows == 0 || o.cols == 0 {
			continue
		}
		// The last element any matrix of the batch touches.
		last := int64(o.rows-1)*int64(ld) + int64(o.cols)
		if batch > 1 {
			last += int64(batch-1) * o.stride
		}
		if err := checkRange(o.off, last*o.elem, o.b.size); err != nil {
			return bad("%s (%d×%d, ld %d, batch %d): %v", o.role, o.rows, o.cols, ld, batch, err)
		}
	}
	if batch > 1 && m.StrideC == 0 && m.M > 0 && m.N > 0 {
		return bad("StrideC is 0 with Batch %d: every product would write the same C", batch)
	}
	var bias backend.Buffer
	if m.Bias != nil {
		if err := s.own(op, "Bias", m.Bias); err != nil {
			return backend.MatMulArgs{}, err
		}
		if m.BiasOffset < 0 || m.BiasOffset%out.Size() != 0 {
			return bad("Bias offset %d is negative or not a multiple of the element size %d", m.BiasOffset, out.Size())
		}
		if err := checkRange(m.BiasOffset, int64(m.N)*out.Size(), m.Bias.size); err != nil {
			return bad("Bias (%d elements of %v): %v", m.N, out, err)
		}
		bias = m.Bias.impl
	} else if m.BiasOffset != 0 {
		return bad("BiasOffset %d without a Bias", m.BiasOffset)
	}
	if act := m.Activation; act != MatMulNoActivation {
		switch {
		case !act.Valid():
			return bad("activation %v is not one of MatMulNoActivation, MatMulGELU, MatMulReLU", act)
		case beta != 0:
			return bad("activation %v with Beta %v: the library would apply it to the sum with Beta·C; add C after the product instead", act, beta)
		case out == MatMulInt32:
			return bad("activation %v of an int32 output: activations need a floating-point output", act)
		}
	}
	return backend.MatMulArgs{
		M: m.M, N: m.N, K: m.K,
		A: m.A.impl, B: m.B.impl, C: m.C.impl,
		AOffset: m.AOffset, BOffset: m.BOffset, COffset: m.COffset,
		LDA: lds[0], LDB: lds[1], LDC: lds[2],
		TransA: m.TransA, TransB: m.TransB,
		In: in, Out: out, Alpha: alpha, Beta: beta,
		Batch: batch, StrideA: m.StrideA, StrideB: m.StrideB, StrideC: m.StrideC,
		Bias: bias, BiasOffset: m.BiasOffset,
		D: dOf(m.D), DOffset: m.DOffset,
		Act: m.Activation,
	}, nil
}
