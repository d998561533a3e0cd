#include "textflag.h"

// HSUM leaves the sum of Y0's eight floats in X0.
#define HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0

// func sum4Vector(p0, p1, p2, p3 *float32, n int) float32
// Two accumulators per run (Y0-Y7), 16 floats of each run per step.
TEXT ·sum4Vector(SB), NOSPLIT, $0-44
	MOVQ   p0+0(FP), AX
	MOVQ   p1+8(FP), BX
	MOVQ   p2+16(FP), CX
	MOVQ   p3+24(FP), DX
	MOVQ   n+32(FP), SI
	SHLQ   $2, SI
	XORQ   DI, DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	JMP    sumcheck

sumloop:
	VADDPS (AX)(DI*1), Y0, Y0
	VADDPS 32(AX)(DI*1), Y1, Y1
	VADDPS (BX)(DI*1), Y2, Y2
	VADDPS 32(BX)(DI*1), Y3, Y3
	VADDPS (CX)(DI*1), Y4, Y4
	VADDPS 32(CX)(DI*1), Y5, Y5
	VADDPS (DX)(DI*1), Y6, Y6
	VADDPS 32(DX)(DI*1), Y7, Y7
	ADDQ   $64, DI

sumcheck:
	CMPQ DI, SI
	JLT  sumloop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	VADDPS Y2, Y0, Y0
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+40(FP)
	RET

// func dot4Vector(x0, x1, x2, x3, y0, y1, y2, y3 *float32, n int) float32
// As sum4Vector, each step loading 16 floats of each y run and fusing their
// products with the x run's into the accumulators.
TEXT ·dot4Vector(SB), NOSPLIT, $0-76
	MOVQ   x0+0(FP), AX
	MOVQ   x1+8(FP), BX
	MOVQ   x2+16(FP), CX
	MOVQ   x3+24(FP), DX
	MOVQ   y0+32(FP), R8
	MOVQ   y1+40(FP), R9
	MOVQ   y2+48(FP), R10
	MOVQ   y3+56(FP), R11
	MOVQ   n+64(FP), SI
	SHLQ   $2, SI
	XORQ   DI, DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	JMP    dotcheck

dotloop:
	VMOVUPS     (R8)(DI*1), Y8
	VMOVUPS     32(R8)(DI*1), Y9
	VMOVUPS     (R9)(DI*1), Y10
	VMOVUPS     32(R9)(DI*1), Y11
	VMOVUPS     (R10)(DI*1), Y12
	VMOVUPS     32(R10)(DI*1), Y13
	VMOVUPS     (R11)(DI*1), Y14
	VMOVUPS     32(R11)(DI*1), Y15
	VFMADD231PS (AX)(DI*1), Y8, Y0
	VFMADD231PS 32(AX)(DI*1), Y9, Y1
	VFMADD231PS (BX)(DI*1), Y10, Y2
	VFMADD231PS 32(BX)(DI*1), Y11, Y3
	VFMADD231PS (CX)(DI*1), Y12, Y4
	VFMADD231PS 32(CX)(DI*1), Y13, Y5
	VFMADD231PS (DX)(DI*1), Y14, Y6
	VFMADD231PS 32(DX)(DI*1), Y15, Y7
	ADDQ        $64, DI

dotcheck:
	CMPQ DI, SI
	JLT  dotloop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	VADDPS Y2, Y0, Y0
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+72(FP)
	RET

// SUM8 leaves the sum of Y0-Y7 in Y0.
#define SUM8 \
	VADDPS Y1, Y0, Y0; \
	VADDPS Y3, Y2, Y2; \
	VADDPS Y5, Y4, Y4; \
	VADDPS Y7, Y6, Y6; \
	VADDPS Y2, Y0, Y0; \
	VADDPS Y6, Y4, Y4; \
	VADDPS Y4, Y0, Y0

// ZERO8 clears Y0-Y7.
#define ZERO8 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7

// func sumChunks4Vector(p0, p1, p2, p3 *float32, stride, n, m int, out *float32)
// Per chunk, sum4Vector's loop (two accumulators per run, 16 floats of each
// run per step), then the chunk's sum to out and the four pointers a stride
// on.
TEXT ·sumChunks4Vector(SB), NOSPLIT, $0-64
	MOVQ p0+0(FP), AX
	MOVQ p1+8(FP), BX
	MOVQ p2+16(FP), CX
	MOVQ p3+24(FP), DX
	MOVQ stride+32(FP), R8
	MOVQ n+40(FP), SI
	MOVQ m+48(FP), R9
	MOVQ out+56(FP), R10
	SHLQ $2, R8
	SHLQ $2, SI

s4chunk:
	ZERO8
	XORQ DI, DI

s4loop:
	VADDPS (AX)(DI*1), Y0, Y0
	VADDPS 32(AX)(DI*1), Y1, Y1
	VADDPS (BX)(DI*1), Y2, Y2
	VADDPS 32(BX)(DI*1), Y3, Y3
	VADDPS (CX)(DI*1), Y4, Y4
	VADDPS 32(CX)(DI*1), Y5, Y5
	VADDPS (DX)(DI*1), Y6, Y6
	VADDPS 32(DX)(DI*1), Y7, Y7
	ADDQ   $64, DI
	CMPQ   DI, SI
	JLT    s4loop

	SUM8
	HSUM
	MOVSS X0, (R10)
	ADDQ  $4, R10
	ADDQ  R8, AX
	ADDQ  R8, BX
	ADDQ  R8, CX
	ADDQ  R8, DX
	DECQ  R9
	JNZ   s4chunk
	VZEROUPPER
	RET

// func dotChunks4Vector(x0, x1, x2, x3, y0, y1, y2, y3 *float32, stride, n, m int, out *float32)
// As sumChunks4Vector, with dot4Vector's loop; out is kept in its argument
// slot (the registers are taken).
TEXT ·dotChunks4Vector(SB), NOSPLIT, $0-96
	MOVQ x0+0(FP), AX
	MOVQ x1+8(FP), BX
	MOVQ x2+16(FP), CX
	MOVQ x3+24(FP), DX
	MOVQ y0+32(FP), R8
	MOVQ y1+40(FP), R9
	MOVQ y2+48(FP), R10
	MOVQ y3+56(FP), R11
	MOVQ stride+64(FP), R12
	MOVQ n+72(FP), SI
	MOVQ m+80(FP), R13
	SHLQ $2, R12
	SHLQ $2, SI

d4chunk:
	ZERO8
	XORQ DI, DI

d4loop:
	VMOVUPS     (R8)(DI*1), Y8
	VMOVUPS     32(R8)(DI*1), Y9
	VMOVUPS     (R9)(DI*1), Y10
	VMOVUPS     32(R9)(DI*1), Y11
	VMOVUPS     (R10)(DI*1), Y12
	VMOVUPS     32(R10)(DI*1), Y13
	VMOVUPS     (R11)(DI*1), Y14
	VMOVUPS     32(R11)(DI*1), Y15
	VFMADD231PS (AX)(DI*1), Y8, Y0
	VFMADD231PS 32(AX)(DI*1), Y9, Y1
	VFMADD231PS (BX)(DI*1), Y10, Y2
	VFMADD231PS 32(BX)(DI*1), Y11, Y3
	VFMADD231PS (CX)(DI*1), Y12, Y4
	VFMADD231PS 32(CX)(DI*1), Y13, Y5
	VFMADD231PS (DX)(DI*1), Y14, Y6
	VFMADD231PS 32(DX)(DI*1), Y15, Y7
	ADDQ        $64, DI
	CMPQ        DI, SI
	JLT         d4loop

	SUM8
	HSUM
	MOVQ  out+88(FP), DI
	MOVSS X0, (DI)
	ADDQ  $4, DI
	MOVQ  DI, out+88(FP)
	ADDQ  R12, AX
	ADDQ  R12, BX
	ADDQ  R12, CX
	ADDQ  R12, DX
	ADDQ  R12, R8
	ADDQ  R12, R9
	ADDQ  R12, R10
	ADDQ  R12, R11
	DECQ  R13
	JNZ   d4chunk
	VZEROUPPER
	RET

