//go:build !noasm

#include "textflag.h"
#include "kern_amd64.h"

// The symmetric kernels read only the blocks on and above the diagonal of a
// symmetric matrix (bsr.Upper): each block A_jk of row j is used twice, for row j's
// sum (as sum33 or sum66 do) and, when k > j and base ≤ k < khi, as its transpose
// A_jkᵀ·x_j added into the accumulator of row k (acc[(k−base)·b : +b]), fused, the
// terms of each entry in the order of the block's rows. So the values stream from
// memory once while the product is that of the whole matrix; the caller adds row
// j's accumulator to its sum once every row before it has been through.
//
// The same bounds checks as the other kernels (bad 1: a block column not below
// ncols; 2: a row's end beyond nblk or before its start). The caller checks that x
// holds the rows' own block columns and that acc holds khi − base block rows.

// func sym33(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int, acc *float64, row0, base, khi int) (bad int)
//
// sum33's lanes (out[9r : 9r+9]); the accumulators are 4 apart (acc[4(k−base) : +3],
// the fourth a padding lane that takes a product of no use), so that one is a single
// 4-lane fused update per row of the block: acc_k += (a0 a1 a2 ·)·x_j0, then
// (a3 a4 a5 ·)·x_j1, then (a6 a7 a8 ·)·x_j2 (the last loaded from a5 on and rotated,
// so that no load passes the block's end). Each row's first block must be its
// diagonal (bad 3 otherwise): it goes into the row's sum only, the others into both.
// Registers: R8 the row pointer, R9 colIdx, R10 val, R11 x, R12 ncols, R13 nblk,
// R14 acc − 32·base (block column k's accumulator at (R14)(32k)), R15 3j for the
// current row j, AX the block index, BX the row's end, SI the block's values, DX
// 3k, CX 32k, DI out, Y0, Y1, X2 the row's lanes, Y7–Y9 x_j's entries broadcast,
// Y10 an accumulator, Y11 a rotated row. rows counts down in its slot; base and khi
// are kept ×3 in theirs.
TEXT ·sym33(SB), NOSPLIT, $0-104
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ acc+64(FP), R14
	MOVQ row0+72(FP), R15
	LEAQ (R15)(R15*2), R15
	MOVQ base+80(FP), AX
	MOVQ AX, CX
	SHLQ $5, CX
	SUBQ CX, R14
	LEAQ (AX)(AX*2), AX
	MOVQ AX, base+80(FP)
	MOVQ khi+88(FP), AX
	LEAQ (AX)(AX*2), AX
	MOVQ AX, khi+88(FP)
	MOVQ $0, bad+96(FP)
	MOVQ rows+32(FP), CX
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX

row:
	MOVQ 8(R8), BX
	CMPQ BX, R13
	JHI badrow
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	CMPQ AX, BX
	JGT badrow
	JEQ rowdone
	LEAQ (AX)(AX*8), SI
	LEAQ (R10)(SI*8), SI
	// The diagonal block: the row's sum only.
	MOVLQSX (R9)(AX*4), DX
	LEAQ (DX)(DX*2), DX
	CMPQ DX, R15
	JNE baddiag
	VBROADCASTSD 0(R11)(R15*8), Y7
	VBROADCASTSD 8(R11)(R15*8), Y8
	VBROADCASTSD 16(R11)(R15*8), Y9
	VMOVUPD 0(R11)(DX*8), X3
	VBLENDPD $0x0C, Y9, Y3, Y3
	VPERMPD $0x24, Y3, Y5
	VPERMPD $0x49, Y3, Y6
	VFMADD231PD 0(SI), Y5, Y0
	VFMADD231PD 32(SI), Y6, Y1
	VFMADD231SD 64(SI), X9, X2
	ADDQ $72, SI
	INCQ AX
	CMPQ AX, BX
	JEQ rowdone

blk:
	MOVLQSX (R9)(AX*4), DX
	CMPQ DX, R12
	JCC badcol
	MOVQ DX, CX
	SHLQ $5, CX
	LEAQ (DX)(DX*2), DX
	VMOVUPD 0(R11)(DX*8), X3
	VBROADCASTSD 16(R11)(DX*8), Y4
	VBLENDPD $0x0C, Y4, Y3, Y3
	VPERMPD $0x24, Y3, Y5
	VPERMPD $0x49, Y3, Y6
	VFMADD231PD 0(SI), Y5, Y0
	VFMADD231PD 32(SI), Y6, Y1
	VFMADD231SD 64(SI), X4, X2
	CMPQ DX, base+80(FP)
	JLT next
	CMPQ DX, khi+88(FP)
	JGE next
	VMOVUPD 0(R14)(CX*1), Y10
	VPERMPD $0x39, 40(SI), Y11
	VFMADD231PD 0(SI), Y7, Y10
	VFMADD231PD 24(SI), Y8, Y10
	VFMADD231PD Y11, Y9, Y10
	VMOVUPD Y10, 0(R14)(CX*1)

next:
	ADDQ $72, SI
	INCQ AX
	CMPQ AX, BX
	JLT blk

rowdone:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVSD X2, 64(DI)
	ADDQ $72, DI
	ADDQ $8, R8
	ADDQ $3, R15
	DECQ rows+32(FP)
	JNZ row

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+96(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+96(FP)
	VZEROUPPER
	RET

baddiag:
	MOVQ $3, bad+96(FP)
	VZEROUPPER
	RET

// func sym66(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int, acc *float64, row0, base, khi int) (bad int)
//
// sum66's registers and lanes (out[12r : 12r+12]). Each row's first block must be its
// diagonal (bad 3 otherwise), which goes into the row's sum only. And: R14 acc − 48·base, R15 6j,
// x_j's six entries broadcast into the frame (0(SP) … 160(SP), 32 bytes each: no
// register is left), Y14 and X15 the accumulator, Y12 and X12 a row of the block
// once the row sum is done with x_k. base and khi are kept ×6 in their slots.
TEXT ·sym66(SB), NOSPLIT, $192-104
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ acc+64(FP), R14
	MOVQ row0+72(FP), R15
	IMULQ $6, R15
	MOVQ base+80(FP), AX
	IMULQ $6, AX
	MOVQ AX, base+80(FP)
	SHLQ $3, AX
	SUBQ AX, R14
	MOVQ khi+88(FP), AX
	IMULQ $6, AX
	MOVQ AX, khi+88(FP)
	MOVQ $0, bad+96(FP)
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX

row:
	MOVQ 8(R8), BX
	CMPQ BX, R13
	JHI badrow
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	CMPQ AX, BX
	JGT badrow
	JEQ rowdone
	VBROADCASTSD 0(R11)(R15*8), Y12
	VMOVUPD Y12, 0(SP)
	VBROADCASTSD 8(R11)(R15*8), Y12
	VMOVUPD Y12, 32(SP)
	VBROADCASTSD 16(R11)(R15*8), Y12
	VMOVUPD Y12, 64(SP)
	VBROADCASTSD 24(R11)(R15*8), Y12
	VMOVUPD Y12, 96(SP)
	VBROADCASTSD 32(R11)(R15*8), Y12
	VMOVUPD Y12, 128(SP)
	VBROADCASTSD 40(R11)(R15*8), Y12
	VMOVUPD Y12, 160(SP)
	MOVQ AX, SI
	IMULQ $288, SI
	ADDQ R10, SI
	// The diagonal block first (the row's sum only, below).
	MOVLQSX (R9)(AX*4), DX
	IMULQ $6, DX
	CMPQ DX, R15
	JNE baddiag
	JMP diag

blk:
	MOVLQSX (R9)(AX*4), DX
	CMPQ DX, R12
	JCC badcol
	IMULQ $6, DX

diag:
	VMOVUPD 0(R11)(DX*8), Y12
	VMOVUPD 32(R11)(DX*8), X13
	PROD66F64
	CMPQ DX, R15
	JEQ next
	CMPQ DX, base+80(FP)
	JLT next
	CMPQ DX, khi+88(FP)
	JGE next
	VMOVUPD 0(R14)(DX*8), Y14
	VMOVUPD 32(R14)(DX*8), X15
	VMOVUPD 0(SI), Y12
	VFMADD231PD 0(SP), Y12, Y14
	VMOVUPD 32(SI), X12
	VFMADD231PD 0(SP), X12, X15
	VMOVUPD 48(SI), Y12
	VFMADD231PD 32(SP), Y12, Y14
	VMOVUPD 80(SI), X12
	VFMADD231PD 32(SP), X12, X15
	VMOVUPD 96(SI), Y12
	VFMADD231PD 64(SP), Y12, Y14
	VMOVUPD 128(SI), X12
	VFMADD231PD 64(SP), X12, X15
	VMOVUPD 144(SI), Y12
	VFMADD231PD 96(SP), Y12, Y14
	VMOVUPD 176(SI), X12
	VFMADD231PD 96(SP), X12, X15
	VMOVUPD 192(SI), Y12
	VFMADD231PD 128(SP), Y12, Y14
	VMOVUPD 224(SI), X12
	VFMADD231PD 128(SP), X12, X15
	VMOVUPD 240(SI), Y12
	VFMADD231PD 160(SP), Y12, Y14
	VMOVUPD 272(SI), X12
	VFMADD231PD 160(SP), X12, X15
	VMOVUPD Y14, 0(R14)(DX*8)
	VMOVUPD X15, 32(R14)(DX*8)

next:
	ADDQ $288, SI
	INCQ AX
	CMPQ AX, BX
	JLT blk

rowdone:
	FOLD66
	ADDQ $8, R8
	ADDQ $6, R15
	DECQ CX
	JNZ row

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+96(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+96(FP)
	VZEROUPPER
	RET

baddiag:
	MOVQ $3, bad+96(FP)
	VZEROUPPER
	RET
