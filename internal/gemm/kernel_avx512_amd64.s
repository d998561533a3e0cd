#include "textflag.h"

// The AVX-512 micro-kernel: an 8×32 tile of C in Z0-Z15 (row r in Z(2r),
// Z(2r+1)), per step of k one row of the packed B panel (32 floats, Z16-Z17)
// and eight broadcast values of the packed A panel (Z18-Z25).

#define ROW(off, t, acc0, acc1) \
	VBROADCASTSS off(AX), t; \
	VFMADD231PS  Z16, t, acc0; \
	VFMADD231PS  Z17, t, acc1

// STORE writes alpha·acc to one row of C and steps to the next row.
#define STORE(acc0, acc1) \
	VMULPS  Z26, acc0, acc0; \
	VMULPS  Z26, acc1, acc1; \
	VMOVUPS acc0, (DI); \
	VMOVUPS acc1, 64(DI); \
	ADDQ    SI, DI

// UPDATE writes alpha·acc + beta·C to one row of C and steps to the next row.
#define UPDATE(acc0, acc1) \
	VMULPS      Z26, acc0, acc0; \
	VMULPS      Z26, acc1, acc1; \
	VFMADD231PS (DI), Z27, acc0; \
	VFMADD231PS 64(DI), Z27, acc1; \
	VMOVUPS     acc0, (DI); \
	VMOVUPS     acc1, 64(DI); \
	ADDQ        SI, DI

// func kernelAVX512(kc int, a, b, c *float32, ldc int, alpha, beta float32, loadC bool)
TEXT ·kernelAVX512(SB), NOSPLIT, $0-49
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	TESTQ  CX, CX
	JLE    store

loop:
	VMOVUPS (BX), Z16
	VMOVUPS 64(BX), Z17
	ROW(0, Z18, Z0, Z1)
	ROW(4, Z19, Z2, Z3)
	ROW(8, Z20, Z4, Z5)
	ROW(12, Z21, Z6, Z7)
	ROW(16, Z22, Z8, Z9)
	ROW(20, Z23, Z10, Z11)
	ROW(24, Z24, Z12, Z13)
	ROW(28, Z25, Z14, Z15)
	ADDQ $32, AX
	ADDQ $128, BX
	DECQ CX
	JNZ  loop

store:
	VBROADCASTSS alpha+40(FP), Z26
	CMPB         loadC+48(FP), $0
	JNE          update
	STORE(Z0, Z1)
	STORE(Z2, Z3)
	STORE(Z4, Z5)
	STORE(Z6, Z7)
	STORE(Z8, Z9)
	STORE(Z10, Z11)
	STORE(Z12, Z13)
	STORE(Z14, Z15)
	VZEROUPPER
	RET

update:
	VBROADCASTSS beta+44(FP), Z27
	UPDATE(Z0, Z1)
	UPDATE(Z2, Z3)
	UPDATE(Z4, Z5)
	UPDATE(Z6, Z7)
	UPDATE(Z8, Z9)
	UPDATE(Z10, Z11)
	UPDATE(Z12, Z13)
	UPDATE(Z14, Z15)
	VZEROUPPER
	RET
