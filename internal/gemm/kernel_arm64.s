#include "textflag.h"

// The NEON micro-kernel: an 8×12 tile of C in V0-V23 (row r in V(3r),
// V(3r+1), V(3r+2), four columns each), per step of k one row of the packed
// B panel (12 floats, V26-V28) and one column of the packed A panel (8
// floats, V24-V25), each B vector multiplied by one lane of A.

// The Go assembler has no by-element FMLA or FMUL for arm64: these macros
// write their encodings. d, n and m are register numbers and i a lane of
// Vm, as in FMLA Vd.4S, Vn.4S, Vm.S[i].

// FMLAE adds Vn.4S·Vm.S[i] to Vd.4S (fused).
#define FMLAE(d, n, m, i) WORD $(0x4f801000 | ((i)&1)<<21 | ((i)>>1)<<11 | (m)<<16 | (n)<<5 | (d))

// FMULE sets Vd.4S to Vn.4S·Vm.S[i].
#define FMULE(d, n, m, i) WORD $(0x4f809000 | ((i)&1)<<21 | ((i)>>1)<<11 | (m)<<16 | (n)<<5 | (d))

// STORE writes alpha·acc (alpha in V29.S[0]) to one row of C at R3 and steps
// R3 to the next row (R4 bytes on). d0-d2 are the row's registers by number,
// v0-v2 by name.
#define STORE(d0, d1, d2, v0, v1, v2) \
	FMULE(d0, d0, 29, 0);         \
	FMULE(d1, d1, 29, 0);         \
	FMULE(d2, d2, 29, 0);         \
	VST1.P [v0.S4, v1.S4, v2.S4], (R3)(R4)

// UPDATE writes alpha·acc + beta·C (beta in V30.S[0]) to one row of C at R3
// and steps R3 to the next row.
#define UPDATE(d0, d1, d2, v0, v1, v2)         \
	FMULE(d0, d0, 29, 0);                  \
	FMULE(d1, d1, 29, 0);                  \
	FMULE(d2, d2, 29, 0);                  \
	VLD1   (R3), [V24.S4, V25.S4, V26.S4]; \
	FMLAE(d0, 24, 30, 0);                  \
	FMLAE(d1, 25, 30, 0);                  \
	FMLAE(d2, 26, 30, 0);                  \
	VST1.P [v0.S4, v1.S4, v2.S4], (R3)(R4)

// func kernelNEON(kc int, a, b, c *float32, ldc int, alpha, beta float32, loadC bool)
TEXT ·kernelNEON(SB), NOSPLIT, $0-49
	MOVD kc+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD c+24(FP), R3
	MOVD ldc+32(FP), R4
	LSL  $2, R4, R4 // ldc in bytes

	// The accumulators start at zero.
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	CMP  $0, R0
	BLE  store

loop:
	VLD1.P 32(R1), [V24.S4, V25.S4]
	VLD1.P 48(R2), [V26.S4, V27.S4, V28.S4]
	// row 0: += B·A[0] (V24.S[0])
	FMLAE(0, 26, 24, 0)
	FMLAE(1, 27, 24, 0)
	FMLAE(2, 28, 24, 0)
	// row 1: += B·A[1] (V24.S[1])
	FMLAE(3, 26, 24, 1)
	FMLAE(4, 27, 24, 1)
	FMLAE(5, 28, 24, 1)
	// row 2: += B·A[2] (V24.S[2])
	FMLAE(6, 26, 24, 2)
	FMLAE(7, 27, 24, 2)
	FMLAE(8, 28, 24, 2)
	// row 3: += B·A[3] (V24.S[3])
	FMLAE(9, 26, 24, 3)
	FMLAE(10, 27, 24, 3)
	FMLAE(11, 28, 24, 3)
	// row 4: += B·A[4] (V25.S[0])
	FMLAE(12, 26, 25, 0)
	FMLAE(13, 27, 25, 0)
	FMLAE(14, 28, 25, 0)
	// row 5: += B·A[5] (V25.S[1])
	FMLAE(15, 26, 25, 1)
	FMLAE(16, 27, 25, 1)
	FMLAE(17, 28, 25, 1)
	// row 6: += B·A[6] (V25.S[2])
	FMLAE(18, 26, 25, 2)
	FMLAE(19, 27, 25, 2)
	FMLAE(20, 28, 25, 2)
	// row 7: += B·A[7] (V25.S[3])
	FMLAE(21, 26, 25, 3)
	FMLAE(22, 27, 25, 3)
	FMLAE(23, 28, 25, 3)
	SUBS   $1, R0, R0
	BNE    loop

store:
	FMOVS alpha+40(FP), F29
	MOVBU loadC+48(FP), R5
	CBNZ  R5, update
	STORE(0, 1, 2, V0, V1, V2)
	STORE(3, 4, 5, V3, V4, V5)
	STORE(6, 7, 8, V6, V7, V8)
	STORE(9, 10, 11, V9, V10, V11)
	STORE(12, 13, 14, V12, V13, V14)
	STORE(15, 16, 17, V15, V16, V17)
	STORE(18, 19, 20, V18, V19, V20)
	STORE(21, 22, 23, V21, V22, V23)
	RET

update:
	FMOVS beta+44(FP), F30
	UPDATE(0, 1, 2, V0, V1, V2)
	UPDATE(3, 4, 5, V3, V4, V5)
	UPDATE(6, 7, 8, V6, V7, V8)
	UPDATE(9, 10, 11, V9, V10, V11)
	UPDATE(12, 13, 14, V12, V13, V14)
	UPDATE(15, 16, 17, V15, V16, V17)
	UPDATE(18, 19, 20, V18, V19, V20)
	UPDATE(21, 22, 23, V21, V22, V23)
	RET
