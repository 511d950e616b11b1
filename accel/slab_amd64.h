// GROUP tests children 4*off/16 .. 4*off/16+3: their slab distances from
// the rows at SI+off, entry distances stored at DX+off, hit bits in AX.
#define GROUP(off) \
	MOVUPS off(SI)(R8*1), X0 \
	SUBPS X6, X0 \
	MULPS X9, X0 \
	MOVUPS off(SI)(R9*1), X1 \
	SUBPS X6, X1 \
	MULPS X9, X1 \
	MOVUPS off(SI)(R10*1), X2 \
	SUBPS X7, X2 \
	MULPS X10, X2 \
	MOVUPS off(SI)(R11*1), X3 \
	SUBPS X7, X3 \
	MULPS X10, X3 \
	MOVUPS off(SI)(R12*1), X4 \
	SUBPS X8, X4 \
	MULPS X11, X4 \
	MOVUPS off(SI)(R13*1), X5 \
	SUBPS X8, X5 \
	MULPS X11, X5 \
	MAXPS X2, X0 \
	MAXPS X4, X0 \
	MAXPS X12, X0 \
	MINPS X3, X1 \
	MINPS X5, X1 \
	MINPS X14, X1 \
	MULPS X13, X1 \
	MOVUPS X0, off(DX) \
	CMPPS X1, X0, $2 \
	MOVMSKPS X0, AX
