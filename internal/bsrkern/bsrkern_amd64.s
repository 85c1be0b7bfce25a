//go:build !noasm

#include "textflag.h"
#include "kern_amd64.h"

// The float64 and float32 kernels of one block shape share their row loop (ROWS33,
// ROWS66): only the loads of a block's values and the products (MAC) differ, and the
// values' size. Labels are scoped to their TEXT, so each expands the loop once.

// func sum33(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)
//
// For each of rows block rows r (blocks rowPtr[r] … rowPtr[r+1] of 3×3, row-major):
// with the block's column c and x_c = (x0, x1, x2), accumulate over the row's blocks
//   Y0 += a[0:4]·(x0, x1, x2, x0)    Y1 += a[4:8]·(x1, x2, x0, x1)    X2 += a[8]·x2
// (fused), then store Y0, Y1, X2's low lane as out[9r : 9r+9]: the row's product is
// (out0+out1+out2, out3+out4+out5, out6+out7+out8), summed by the caller.
// Registers: R8 the row pointer, R9 colIdx, R10 val, R11 x, CX rows left, DI out,
// AX the block index, BX the row's end, SI the block's values, DX x_c, R12 ncols,
// R13 nblk.
//
// It checks what it dereferences, so a malformed matrix cannot make it read outside
// its slices: bad is 1 when a block column is not below ncols (x's block count), 2
// when a row's end exceeds nblk (the blocks colIdx and val hold) or falls before its
// start; the caller turns either into a panic. Both checks are a compare per block or
// row, free next to the loads.

// ROWS33 is sum33's row loop: SCALE the bytes of a value, MAC one block's products.
#define ROWS33(SCALE, MAC) \
row: \
	MOVQ 8(R8), BX; \
	CMPQ BX, R13; \
	JHI badrow; \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	CMPQ AX, BX; \
	JGT badrow; \
	JEQ rowdone; \
	LEAQ (AX)(AX*8), SI; \
	LEAQ (R10)(SI*SCALE), SI; \
blk: \
	MOVLQSX (R9)(AX*4), DX; \
	CMPQ DX, R12; \
	JCC badcol; \
	LEAQ (DX)(DX*2), DX; \
	LEAQ (R11)(DX*8), DX; \
	VMOVUPD 0(DX), X3; \
	VBROADCASTSD 16(DX), Y4; \
	VBLENDPD $0x0C, Y4, Y3, Y3; \
	VPERMPD $0x24, Y3, Y5; \
	VPERMPD $0x49, Y3, Y6; \
	MAC; \
	INCQ AX; \
	CMPQ AX, BX; \
	JLT blk; \
rowdone: \
	VMOVUPD Y0, 0(DI); \
	VMOVUPD Y1, 32(DI); \
	VMOVSD X2, 64(DI); \
	ADDQ $72, DI; \
	ADDQ $8, R8; \
	DECQ CX; \
	JNZ row

#define MAC33F64 \
	VFMADD231PD 0(SI), Y5, Y0; \
	VFMADD231PD 32(SI), Y6, Y1; \
	VFMADD231SD 64(SI), X4, X2; \
	ADDQ $72, SI

TEXT ·sum33(SB), NOSPLIT, $0-72
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ $0, bad+64(FP)
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX
	ROWS33(8, MAC33F64)

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+64(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+64(FP)
	VZEROUPPER
	RET

// func sum66(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)
//
// For each of rows block rows r (blocks of 6×6, row-major): with x_c = (x0 … x5),
// accumulate row p of every block as Y_p += a[6p : 6p+4]·(x0 … x3) and
// X_{6+p} += a[6p+4 : 6p+6]·(x4, x5) (fused), then fold each pair to two lanes,
// (Y_p.lo + Y_p.hi) + X_{6+p}, stored as out[12r + 2p : +2]: the row's product is
// out[2p] + out[2p+1], summed by the caller.
// Registers: Y0–Y5 and X6–X11 the accumulators, Y12 and X13 x_c, X14 a fold.

// ROWS66 is sum66's row loop: BYTES the bytes of a block, MAC one block's products.
#define ROWS66(BYTES, MAC) \
row: \
	MOVQ 8(R8), BX; \
	CMPQ BX, R13; \
	JHI badrow; \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7; \
	VXORPD Y8, Y8, Y8; \
	VXORPD Y9, Y9, Y9; \
	VXORPD Y10, Y10, Y10; \
	VXORPD Y11, Y11, Y11; \
	CMPQ AX, BX; \
	JGT badrow; \
	JEQ rowdone; \
	MOVQ AX, SI; \
	IMULQ $BYTES, SI; \
	ADDQ R10, SI; \
blk: \
	MOVLQSX (R9)(AX*4), DX; \
	CMPQ DX, R12; \
	JCC badcol; \
	IMULQ $48, DX; \
	ADDQ R11, DX; \
	VMOVUPD 0(DX), Y12; \
	VMOVUPD 32(DX), X13; \
	MAC; \
	INCQ AX; \
	CMPQ AX, BX; \
	JLT blk; \
rowdone: \
	FOLD66; \
	ADDQ $8, R8; \
	DECQ CX; \
	JNZ row

#define MAC66F64 \
	PROD66F64; \
	ADDQ $288, SI

TEXT ·sum66(SB), NOSPLIT, $0-72
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ $0, bad+64(FP)
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX
	ROWS66(288, MAC66F64)

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+64(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+64(FP)
	VZEROUPPER
	RET

// func sum36(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)
//
// sum66 for blocks of 3×6 (a prolongator's, row-major, 144 bytes): with x_c = (x0 … x5),
// Y_p += a[6p : 6p+4]·(x0 … x3) and X_{6+p} += a[6p+4 : 6p+6]·(x4, x5) for p < 3
// (fused), folded to out[6r + 2p : +2]; the row's product is out[2p] + out[2p+1].
// The same checks as sum33.
TEXT ·sum36(SB), NOSPLIT, $0-72
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ $0, bad+64(FP)
	TESTQ CX, CX
	JZ done36
	MOVQ 0(R8), AX

row36:
	MOVQ 8(R8), BX
	CMPQ BX, R13
	JHI badrow36
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	CMPQ AX, BX
	JGT badrow36
	JEQ rowdone36
	MOVQ AX, SI
	IMULQ $144, SI
	ADDQ R10, SI

blk36:
	MOVLQSX (R9)(AX*4), DX
	CMPQ DX, R12
	JCC badcol36
	IMULQ $48, DX
	ADDQ R11, DX
	VMOVUPD 0(DX), Y12
	VMOVUPD 32(DX), X13
	VFMADD231PD 0(SI), Y12, Y0
	VFMADD231PD 32(SI), X13, X6
	VFMADD231PD 48(SI), Y12, Y1
	VFMADD231PD 80(SI), X13, X7
	VFMADD231PD 96(SI), Y12, Y2
	VFMADD231PD 128(SI), X13, X8
	ADDQ $144, SI
	INCQ AX
	CMPQ AX, BX
	JLT blk36

rowdone36:
	VEXTRACTF128 $1, Y0, X14
	VADDPD X14, X0, X0
	VADDPD X6, X0, X0
	VMOVUPD X0, 0(DI)
	VEXTRACTF128 $1, Y1, X14
	VADDPD X14, X1, X1
	VADDPD X7, X1, X1
	VMOVUPD X1, 16(DI)
	VEXTRACTF128 $1, Y2, X14
	VADDPD X14, X2, X2
	VADDPD X8, X2, X2
	VMOVUPD X2, 32(DI)
	ADDQ $48, DI
	ADDQ $8, R8
	DECQ CX
	JNZ row36

done36:
	VZEROUPPER
	RET

badrow36:
	MOVQ $2, bad+64(FP)
	VZEROUPPER
	RET

badcol36:
	MOVQ $1, bad+64(FP)
	VZEROUPPER
	RET

// func sum33f32(rowPtr *int64, colIdx *int32, val *float32, x *float64, rows int, out *float64, ncols, nblk int) (bad int)
//
// sum33 for float32 block values (36 bytes a block): the same registers, lanes and
// checks, with each block's values widened to float64 as they are loaded (exactly, so
// the lanes hold the bits sum33 gives for the widened values). The loads cover the
// block's 36 bytes and nothing past them: 16 + 16 bytes for a[0:8], then a[8] alone
// with a 4-byte load, so the last block of val is never overrun.
// Registers: as sum33, with Y7, Y8 and X9 the widened a[0:4], a[4:8] and a[8].
#define MAC33F32 \
	VCVTPS2PD 0(SI), Y7; \
	VCVTPS2PD 16(SI), Y8; \
	VMOVSS 32(SI), X9; \
	VCVTSS2SD X9, X9, X9; \
	VFMADD231PD Y7, Y5, Y0; \
	VFMADD231PD Y8, Y6, Y1; \
	VFMADD231SD X9, X4, X2; \
	ADDQ $36, SI

TEXT ·sum33f32(SB), NOSPLIT, $0-72
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ $0, bad+64(FP)
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX
	ROWS33(4, MAC33F32)

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+64(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+64(FP)
	VZEROUPPER
	RET

// func sum66f32(rowPtr *int64, colIdx *int32, val *float32, x *float64, rows int, out *float64, ncols, nblk int) (bad int)
//
// sum66 for float32 block values (144 bytes a block): row p of a block is 6 floats at
// byte 24p, loaded as 16 bytes widened to Y14 and 8 bytes widened to X15, so no load
// reaches past the block. The same accumulators, fold and checks as sum66.
#define MAC66F32 \
	VCVTPS2PD 0(SI), Y14; \
	VCVTPS2PD 16(SI), X15; \
	VFMADD231PD Y14, Y12, Y0; \
	VFMADD231PD X15, X13, X6; \
	VCVTPS2PD 24(SI), Y14; \
	VCVTPS2PD 40(SI), X15; \
	VFMADD231PD Y14, Y12, Y1; \
	VFMADD231PD X15, X13, X7; \
	VCVTPS2PD 48(SI), Y14; \
	VCVTPS2PD 64(SI), X15; \
	VFMADD231PD Y14, Y12, Y2; \
	VFMADD231PD X15, X13, X8; \
	VCVTPS2PD 72(SI), Y14; \
	VCVTPS2PD 88(SI), X15; \
	VFMADD231PD Y14, Y12, Y3; \
	VFMADD231PD X15, X13, X9; \
	VCVTPS2PD 96(SI), Y14; \
	VCVTPS2PD 112(SI), X15; \
	VFMADD231PD Y14, Y12, Y4; \
	VFMADD231PD X15, X13, X10; \
	VCVTPS2PD 120(SI), Y14; \
	VCVTPS2PD 136(SI), X15; \
	VFMADD231PD Y14, Y12, Y5; \
	VFMADD231PD X15, X13, X11; \
	ADDQ $144, SI

TEXT ·sum66f32(SB), NOSPLIT, $0-72
	MOVQ rowPtr+0(FP), R8
	MOVQ colIdx+8(FP), R9
	MOVQ val+16(FP), R10
	MOVQ x+24(FP), R11
	MOVQ rows+32(FP), CX
	MOVQ out+40(FP), DI
	MOVQ ncols+48(FP), R12
	MOVQ nblk+56(FP), R13
	MOVQ $0, bad+64(FP)
	TESTQ CX, CX
	JZ done
	MOVQ 0(R8), AX
	ROWS66(144, MAC66F32)

done:
	VZEROUPPER
	RET

badrow:
	MOVQ $2, bad+64(FP)
	VZEROUPPER
	RET

badcol:
	MOVQ $1, bad+64(FP)
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
