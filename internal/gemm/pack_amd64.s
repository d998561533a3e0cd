#include "textflag.h"

// func packPanelAVX2(dst, src *float32, kc, ldb, nr int)
// Copies kc rows of nr floats (nr = 16 or 32), ldb floats apart at src, to
// dst one after another, prefetching the rows eight ahead (the rows of B lie
// a page or more apart, where the hardware prefetchers do not follow).
TEXT ·packPanelAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ kc+16(FP), CX
	MOVQ ldb+24(FP), DX
	SHLQ $2, DX
	MOVQ DX, R8
	SHLQ $3, R8 // eight rows ahead
	CMPQ nr+32(FP), $32
	JEQ  wide
	TESTQ CX, CX
	JLE  done

narrow:
	PREFETCHT0 (SI)(R8*1)
	VMOVUPS    (SI), Y0
	VMOVUPS    32(SI), Y1
	VMOVUPS    Y0, (DI)
	VMOVUPS    Y1, 32(DI)
	ADDQ       DX, SI
	ADDQ       $64, DI
	DECQ       CX
	JNZ        narrow
	JMP        done

wide:
	TESTQ CX, CX
	JLE   done

wideloop:
	PREFETCHT0 (SI)(R8*1)
	PREFETCHT0 64(SI)(R8*1)
	VMOVUPS    (SI), Y0
	VMOVUPS    32(SI), Y1
	VMOVUPS    64(SI), Y2
	VMOVUPS    96(SI), Y3
	VMOVUPS    Y0, (DI)
	VMOVUPS    Y1, 32(DI)
	VMOVUPS    Y2, 64(DI)
	VMOVUPS    Y3, 96(DI)
	ADDQ       DX, SI
	ADDQ       $128, DI
	DECQ       CX
	JNZ        wideloop

done:
	VZEROUPPER
	RET
