#include "textflag.h"

// The AVX2 micro-kernel: a 6×16 tile of C in Y0-Y11 (row r in Y(2r),
// Y(2r+1)), per step of k one row of the packed B panel (16 floats, Y12-Y13)
// and six broadcast values of the packed A panel (alternately Y14, Y15).

#define ROW(off, t, acc0, acc1) \
	VBROADCASTSS off(AX), t; \
	VFMADD231PS  Y12, t, acc0; \
	VFMADD231PS  Y13, t, acc1

// STORE writes alpha·acc to one row of C and steps to the next row.
#define STORE(acc0, acc1) \
	VMULPS  Y14, acc0, acc0; \
	VMULPS  Y14, acc1, acc1; \
	VMOVUPS acc0, (DI); \
	VMOVUPS acc1, 32(DI); \
	ADDQ    SI, DI

// UPDATE writes alpha·acc + beta·C to one row of C and steps to the next row.
#define UPDATE(acc0, acc1) \
	VMULPS      Y14, acc0, acc0; \
	VMULPS      Y14, acc1, acc1; \
	VFMADD231PS (DI), Y15, acc0; \
	VFMADD231PS 32(DI), Y15, acc1; \
	VMOVUPS     acc0, (DI); \
	VMOVUPS     acc1, 32(DI); \
	ADDQ        SI, DI

// func kernelAVX2(kc int, a, b, c *float32, ldc int, alpha, beta float32, loadC bool)
TEXT ·kernelAVX2(SB), NOSPLIT, $0-49
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), SI
	SHLQ $2, SI

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ  CX, CX
	JLE    store

loop:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	ROW(0, Y14, Y0, Y1)
	ROW(4, Y15, Y2, Y3)
	ROW(8, Y14, Y4, Y5)
	ROW(12, Y15, Y6, Y7)
	ROW(16, Y14, Y8, Y9)
	ROW(20, Y15, Y10, Y11)
	ADDQ $24, AX
	ADDQ $64, BX
	DECQ CX
	JNZ  loop

store:
	VBROADCASTSS alpha+40(FP), Y14
	CMPB         loadC+48(FP), $0
	JNE          update
	STORE(Y0, Y1)
	STORE(Y2, Y3)
	STORE(Y4, Y5)
	STORE(Y6, Y7)
	STORE(Y8, Y9)
	STORE(Y10, Y11)
	VZEROUPPER
	RET

update:
	VBROADCASTSS beta+44(FP), Y15
	UPDATE(Y0, Y1)
	UPDATE(Y2, Y3)
	UPDATE(Y4, Y5)
	UPDATE(Y6, Y7)
	UPDATE(Y8, Y9)
	UPDATE(Y10, Y11)
	VZEROUPPER
	RET
