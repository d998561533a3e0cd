#include "textflag.h"

// The Go assembler has no vector FADD or FADDP for arm64: these macros write
// their encodings (d, n, m are register numbers, as in FADD Vd.4S, Vn.4S,
// Vm.4S).

// FADD4S sets Vd.4S to Vn.4S + Vm.4S.
#define FADD4S(d, n, m) WORD $(0x4e20d400 | (m)<<16 | (n)<<5 | (d))

// FADDP4S sets Vd.4S to the pairwise sums of Vn.4S, then Vm.4S.
#define FADDP4S(d, n, m) WORD $(0x6e20d400 | (m)<<16 | (n)<<5 | (d))

// FADDP2S sets the scalar Sd to Vn.S[0] + Vn.S[1].
#define FADDP2S(d, n) WORD $(0x7e30d800 | (n)<<5 | (d))

// HSUM leaves in F0 the sum of V0-V15: the sixteen accumulators are added in
// a tree, then the four lanes of V0 pairwise.
#define HSUM                \
	FADD4S(0, 0, 1);    \
	FADD4S(2, 2, 3);    \
	FADD4S(4, 4, 5);    \
	FADD4S(6, 6, 7);    \
	FADD4S(8, 8, 9);    \
	FADD4S(10, 10, 11); \
	FADD4S(12, 12, 13); \
	FADD4S(14, 14, 15); \
	FADD4S(0, 0, 2);    \
	FADD4S(4, 4, 6);    \
	FADD4S(8, 8, 10);   \
	FADD4S(12, 12, 14); \
	FADD4S(0, 0, 4);    \
	FADD4S(8, 8, 12);   \
	FADD4S(0, 0, 8);    \
	FADDP4S(0, 0, 0);   \
	FADDP2S(0, 0)

// ZERO16 clears the accumulators V0-V15.
#define ZERO16                          \
	VEOR V0.B16, V0.B16, V0.B16;    \
	VEOR V1.B16, V1.B16, V1.B16;    \
	VEOR V2.B16, V2.B16, V2.B16;    \
	VEOR V3.B16, V3.B16, V3.B16;    \
	VEOR V4.B16, V4.B16, V4.B16;    \
	VEOR V5.B16, V5.B16, V5.B16;    \
	VEOR V6.B16, V6.B16, V6.B16;    \
	VEOR V7.B16, V7.B16, V7.B16;    \
	VEOR V8.B16, V8.B16, V8.B16;    \
	VEOR V9.B16, V9.B16, V9.B16;    \
	VEOR V10.B16, V10.B16, V10.B16; \
	VEOR V11.B16, V11.B16, V11.B16; \
	VEOR V12.B16, V12.B16, V12.B16; \
	VEOR V13.B16, V13.B16, V13.B16; \
	VEOR V14.B16, V14.B16, V14.B16; \
	VEOR V15.B16, V15.B16, V15.B16

// func sum4Vector(p0, p1, p2, p3 *float32, n int) float32
// Four accumulators per run (run r in V(4r)-V(4r+3)), 16 floats of each run
// per step, loaded into V16-V31.
TEXT ·sum4Vector(SB), NOSPLIT, $0-44
	MOVD p0+0(FP), R0
	MOVD p1+8(FP), R1
	MOVD p2+16(FP), R2
	MOVD p3+24(FP), R3
	MOVD n+32(FP), R4
	ZERO16
	CBZ  R4, sumdone

sumloop:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R2), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1.P 64(R3), [V28.S4, V29.S4, V30.S4, V31.S4]
	FADD4S(0, 0, 16)
	FADD4S(1, 1, 17)
	FADD4S(2, 2, 18)
	FADD4S(3, 3, 19)
	FADD4S(4, 4, 20)
	FADD4S(5, 5, 21)
	FADD4S(6, 6, 22)
	FADD4S(7, 7, 23)
	FADD4S(8, 8, 24)
	FADD4S(9, 9, 25)
	FADD4S(10, 10, 26)
	FADD4S(11, 11, 27)
	FADD4S(12, 12, 28)
	FADD4S(13, 13, 29)
	FADD4S(14, 14, 30)
	FADD4S(15, 15, 31)
	SUBS   $16, R4, R4
	BNE    sumloop

sumdone:
	HSUM
	FMOVS F0, ret+40(FP)
	RET

// func dot4Vector(x0, x1, x2, x3, y0, y1, y2, y3 *float32, n int) float32
// As sum4Vector, the accumulators of run r in V(4r)-V(4r+3); per step 16
// floats of x and y of two runs at a time are loaded into V16-V31 and their
// products fused into the accumulators.
TEXT ·dot4Vector(SB), NOSPLIT, $0-76
	MOVD x0+0(FP), R0
	MOVD x1+8(FP), R1
	MOVD x2+16(FP), R2
	MOVD x3+24(FP), R3
	MOVD y0+32(FP), R4
	MOVD y1+40(FP), R5
	MOVD y2+48(FP), R6
	MOVD y3+56(FP), R7
	MOVD n+64(FP), R8
	ZERO16
	CBZ  R8, dotdone

dotloop:
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R4), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R1), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1.P 64(R5), [V28.S4, V29.S4, V30.S4, V31.S4]
	VFMLA  V16.S4, V20.S4, V0.S4
	VFMLA  V17.S4, V21.S4, V1.S4
	VFMLA  V18.S4, V22.S4, V2.S4
	VFMLA  V19.S4, V23.S4, V3.S4
	VFMLA  V24.S4, V28.S4, V4.S4
	VFMLA  V25.S4, V29.S4, V5.S4
	VFMLA  V26.S4, V30.S4, V6.S4
	VFMLA  V27.S4, V31.S4, V7.S4
	VLD1.P 64(R2), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R6), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R3), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1.P 64(R7), [V28.S4, V29.S4, V30.S4, V31.S4]
	VFMLA  V16.S4, V20.S4, V8.S4
	VFMLA  V17.S4, V21.S4, V9.S4
	VFMLA  V18.S4, V22.S4, V10.S4
	VFMLA  V19.S4, V23.S4, V11.S4
	VFMLA  V24.S4, V28.S4, V12.S4
	VFMLA  V25.S4, V29.S4, V13.S4
	VFMLA  V26.S4, V30.S4, V14.S4
	VFMLA  V27.S4, V31.S4, V15.S4
	SUBS   $16, R8, R8
	BNE    dotloop

dotdone:
	HSUM
	FMOVS F0, ret+72(FP)
	RET
