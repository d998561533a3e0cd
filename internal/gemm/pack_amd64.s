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

// func packA8AVX2(dst, src *float32, blocks, lda int)
// Transposes blocks 8×8 blocks of A: rows 0-7 (lda floats apart at src),
// eight columns at a time, to dst as packA8 lays them out (for each column
// the eight rows' values one after another), 256 bytes per block.
TEXT ·packA8AVX2(SB), NOSPLIT, $0-32
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  blocks+16(FP), CX
	MOVQ  lda+24(FP), DX
	SHLQ  $2, DX
	LEAQ  (DX)(DX*2), R9  // three rows
	LEAQ  (SI)(DX*4), R10 // row 4
	TESTQ CX, CX
	JLE   adone

aloop:
	VMOVUPS    (SI), Y0
	VMOVUPS    (SI)(DX*1), Y1
	VMOVUPS    (SI)(DX*2), Y2
	VMOVUPS    (SI)(R9*1), Y3
	VMOVUPS    (R10), Y4
	VMOVUPS    (R10)(DX*1), Y5
	VMOVUPS    (R10)(DX*2), Y6
	VMOVUPS    (R10)(R9*1), Y7
	VUNPCKLPS  Y1, Y0, Y8  // r0[0] r1[0] r0[1] r1[1] | [4] [5]
	VUNPCKHPS  Y1, Y0, Y9  // r0[2] r1[2] r0[3] r1[3] | [6] [7]
	VUNPCKLPS  Y3, Y2, Y10
	VUNPCKHPS  Y3, Y2, Y11
	VUNPCKLPS  Y5, Y4, Y12
	VUNPCKHPS  Y5, Y4, Y13
	VUNPCKLPS  Y7, Y6, Y14
	VUNPCKHPS  Y7, Y6, Y15
	VSHUFPS    $0x44, Y10, Y8, Y0  // rows 0-3 of columns 0 | 4
	VSHUFPS    $0xEE, Y10, Y8, Y1  // 1 | 5
	VSHUFPS    $0x44, Y11, Y9, Y2  // 2 | 6
	VSHUFPS    $0xEE, Y11, Y9, Y3  // 3 | 7
	VSHUFPS    $0x44, Y14, Y12, Y4 // rows 4-7 of columns 0 | 4
	VSHUFPS    $0xEE, Y14, Y12, Y5
	VSHUFPS    $0x44, Y15, Y13, Y6
	VSHUFPS    $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8   // column 0
	VPERM2F128 $0x20, Y5, Y1, Y9   // column 1
	VPERM2F128 $0x20, Y6, Y2, Y10  // column 2
	VPERM2F128 $0x20, Y7, Y3, Y11  // column 3
	VPERM2F128 $0x31, Y4, Y0, Y12  // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13  // column 5
	VPERM2F128 $0x31, Y6, Y2, Y14  // column 6
	VPERM2F128 $0x31, Y7, Y3, Y15  // column 7
	VMOVUPS    Y8, (DI)
	VMOVUPS    Y9, 32(DI)
	VMOVUPS    Y10, 64(DI)
	VMOVUPS    Y11, 96(DI)
	VMOVUPS    Y12, 128(DI)
	VMOVUPS    Y13, 160(DI)
	VMOVUPS    Y14, 192(DI)
	VMOVUPS    Y15, 224(DI)
	ADDQ       $32, SI
	ADDQ       $32, R10
	ADDQ       $256, DI
	DECQ       CX
	JNZ        aloop

adone:
	VZEROUPPER
	RET
