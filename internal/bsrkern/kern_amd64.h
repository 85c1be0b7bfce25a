// Macros shared by bsrkern_amd64.s and sym_amd64.s (their registers as those files
// document them).

// PROD66F64 adds one 6×6 float64 block's products to the row lanes: with the block at
// SI (row-major) and x_c in Y12 (x0 … x3) and X13 (x4, x5), Y_p += a[6p : 6p+4]·Y12
// and X_{6+p} += a[6p+4 : 6p+6]·X13 for p < 6, fused.
#define PROD66F64 \
	VFMADD231PD 0(SI), Y12, Y0; \
	VFMADD231PD 32(SI), X13, X6; \
	VFMADD231PD 48(SI), Y12, Y1; \
	VFMADD231PD 80(SI), X13, X7; \
	VFMADD231PD 96(SI), Y12, Y2; \
	VFMADD231PD 128(SI), X13, X8; \
	VFMADD231PD 144(SI), Y12, Y3; \
	VFMADD231PD 176(SI), X13, X9; \
	VFMADD231PD 192(SI), Y12, Y4; \
	VFMADD231PD 224(SI), X13, X10; \
	VFMADD231PD 240(SI), Y12, Y5; \
	VFMADD231PD 272(SI), X13, X11

// FOLD66 folds the six row lanes to two each, (Y_p.lo + Y_p.hi) + X_{6+p}, stores them
// as out[2p : 2p+2] at DI (X14 scratch) and moves DI to the next row's 12.
#define FOLD66 \
	VEXTRACTF128 $1, Y0, X14; \
	VADDPD X14, X0, X0; \
	VADDPD X6, X0, X0; \
	VMOVUPD X0, 0(DI); \
	VEXTRACTF128 $1, Y1, X14; \
	VADDPD X14, X1, X1; \
	VADDPD X7, X1, X1; \
	VMOVUPD X1, 16(DI); \
	VEXTRACTF128 $1, Y2, X14; \
	VADDPD X14, X2, X2; \
	VADDPD X8, X2, X2; \
	VMOVUPD X2, 32(DI); \
	VEXTRACTF128 $1, Y3, X14; \
	VADDPD X14, X3, X3; \
	VADDPD X9, X3, X3; \
	VMOVUPD X3, 48(DI); \
	VEXTRACTF128 $1, Y4, X14; \
	VADDPD X14, X4, X4; \
	VADDPD X10, X4, X4; \
	VMOVUPD X4, 64(DI); \
	VEXTRACTF128 $1, Y5, X14; \
	VADDPD X14, X5, X5; \
	VADDPD X11, X5, X5; \
	VMOVUPD X5, 80(DI); \
	ADDQ $96, DI
