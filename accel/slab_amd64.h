// SLABRAY loads the origin and inverse direction broadcasts of the
// slabRay at DI into X6-X11.
#define SLABRAY \
	MOVUPS 0(DI), X6 \
	MOVUPS 16(DI), X7 \
	MOVUPS 32(DI), X8 \
	MOVUPS 48(DI), X9 \
	MOVUPS 64(DI), X10 \
	MOVUPS 80(DI), X11

// SLABROWS loads the row offsets of the slabRay at DI (nxo, fxo, nyo,
// fyo, nzo, fzo) into R8-R13.
#define SLABROWS \
	MOVQ 192(DI), R8 \
	MOVQ 200(DI), R9 \
	MOVQ 208(DI), R10 \
	MOVQ 216(DI), R11 \
	MOVQ 224(DI), R12 \
	MOVQ 232(DI), R13

// GROUP tests children 4*off/16 .. 4*off/16+3 against the slabRay at
// DI (origin and inverse direction in X6-X11, tMin in X12, tMax times
// robustScale in X13): their slab distances from the rows at SI+off, the
// far planes' with the slabRay's fx, fy, fz (loaded once the near ones are
// reduced: SSE memory operands would need 16-byte alignment), entry
// distances stored at DX+off, hit bits in AX.
#define GROUP(off) \
	MOVUPS off(SI)(R8*1), X0 \
	SUBPS X6, X0 \
	MULPS X9, X0 \
	MOVUPS off(SI)(R10*1), X2 \
	SUBPS X7, X2 \
	MULPS X10, X2 \
	MOVUPS off(SI)(R12*1), X4 \
	SUBPS X8, X4 \
	MULPS X11, X4 \
	MAXPS X2, X0 \
	MAXPS X4, X0 \
	MAXPS X12, X0 \
	MOVUPS off(SI)(R9*1), X1 \
	SUBPS X6, X1 \
	MOVUPS 96(DI), X2 \
	MULPS X2, X1 \
	MOVUPS off(SI)(R11*1), X3 \
	SUBPS X7, X3 \
	MOVUPS 128(DI), X2 \
	MULPS X2, X3 \
	MOVUPS off(SI)(R13*1), X5 \
	SUBPS X8, X5 \
	MOVUPS 160(DI), X4 \
	MULPS X4, X5 \
	MINPS X3, X1 \
	MINPS X5, X1 \
	MINPS X13, X1 \
	MOVUPS X0, off(DX) \
	CMPPS X1, X0, $2 \
	MOVMSKPS X0, AX

// FARMAX sets X13 to X14 (tMax, broadcast) times robustScale. It
// clobbers AX.
#define FARMAX \
	MOVL   $0x3f800004, AX \
	MOVQ   AX, X13 \
	SHUFPS $0, X13, X13 \
	MULPS  X14, X13
