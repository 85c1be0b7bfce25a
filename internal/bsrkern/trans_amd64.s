//go:build !noasm

#include "textflag.h"

// func trans36(rowPtr *int64, colIdx *int32, val, x *float64, rows int, y *float64, ncols, nblk, clo, chi int, alpha float64) (bad int)
//
// The transposed product with 3×6 blocks (a prolongator's, row-major, 144 bytes): for
// each of rows block rows r, with a = alpha·x_r (x advancing 3 values a row), every
// block A_rc of the row whose column c lies in [clo, chi) adds Aᵀ_rc·a to y_c
// (y[6c : 6c+6]), entry by entry as ((y_j + a_0j·a0) + a_1j·a1) + a_2j·a2, each product
// and sum rounded on its own: the operations of bsr's Go loop, in its order, four and
// two entries a step, so the bits are its. A row's columns ascend: a row whose last
// column lies below clo or whose first lies from chi on is skipped in O(1); otherwise
// the scan skips the blocks before clo and stops at chi.
// The same checks as sum33 (bad 1: a block column not below ncols, y's block count;
// 2: a row's end beyond nblk or before its start).
// Registers: R8 the row pointer, R9 colIdx, R10 val, R11 x_r, CX rows left, DI y,
// R12 ncols, R13 nblk, R14 clo, R15 chi, AX the block index, BX the row's end, SI
// the block's values, DX y_c, Y3–Y5 a broadcast, Y15 alpha, Y0 and X1 y_c, Y6 and X7
// products.
TEXT ·trans36(SB), NOSPLIT, $0-96
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ y+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ clo+64(FP), R14
	MOVQ chi+72(FP), R15
	VBROADCASTSD alpha+80(FP), Y15
	MOVQ $0, bad+88(FP)
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX

row:
	MOVQ 8(R8), BX
	CMPQ BX, R13
	JHI badrow
	CMPQ AX, BX
	JGT badrow
	JEQ rowdone
	// A row whose columns all lie below clo or from chi on is skipped whole.
	MOVLQSX -4(R9)(BX*4), DX
	CMPQ DX, R14
	JLT rowdone
	MOVLQSX (R9)(AX*4), DX
	CMPQ DX, R15
	JGE rowdone
	VMULSD 0(R11), X15, X3
	VBROADCASTSD X3, Y3
	VMULSD 8(R11), X15, X4
	VBROADCASTSD X4, Y4
	VMULSD 16(R11), X15, X5
	VBROADCASTSD X5, Y5
	MOVQ AX, SI
	IMULQ $144, SI
	ADDQ R10, SI

blk:
	MOVLQSX (R9)(AX*4), DX
	CMPQ DX, R12
	JCC badcol
	CMPQ DX, R14
	JLT next
	CMPQ DX, R15
	JGE rowdone
	IMULQ $48, DX
	ADDQ DI, DX
	VMOVUPD 0(DX), Y0
	VMOVUPD 32(DX), X1
	VMULPD 0(SI), Y3, Y6
	VADDPD Y6, Y0, Y0
	VMULPD 32(SI), X3, X7
	VADDPD X7, X1, X1
	VMULPD 48(SI), Y4, Y6
	VADDPD Y6, Y0, Y0
	VMULPD 80(SI), X4, X7
	VADDPD X7, X1, X1
	VMULPD 96(SI), Y5, Y6
	VADDPD Y6, Y0, Y0
	VMULPD 128(SI), X5, X7
	VADDPD X7, X1, X1
	VMOVUPD Y0, 0(DX)
	VMOVUPD X1, 32(DX)

next:
	ADDQ $144, SI
	INCQ AX
	CMPQ AX, BX
	JLT blk

rowdone:
	MOVQ BX, AX
	ADDQ $24, R11
	ADDQ $8, R8
	DECQ CX
	JNZ row

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+88(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+88(FP)
	VZEROUPPER
	RET
