//go:build !purego

#include "textflag.h"
#include "minexact_amd64.h"

// AREA sets lane 0 of out to binBox.area of the box whose minima are lo
// and negated maxima hi: with s = lo + hi = -(extent), (sx*sy + sy*sz) +
// sz*sx, the products and sums area takes, in its order (the negations
// cancel in each product). The pads' lane is cleared with the mask in X8
// (binRefsSSE leaves junk there). It clobbers t.
#define AREA(lo, hi, out, t) \
	MOVAPS  lo, out \
	ADDPS   hi, out \
	ANDPS   X8, out \
	MOVAPS  out, t \
	SHUFPS  $0xC9, t, t \
	MULPS   t, out \
	MOVAPS  out, t \
	SHUFPS  $0x55, t, t \
	ADDSS   t, out \
	MOVHLPS out, t \
	ADDSS   t, out

// LOADBIN loads bin i's box (boxes at SI) into lo and hi. It clobbers BX.
#define LOADBIN(i, lo, hi) \
	MOVQ   i, BX \
	SHLQ   $5, BX \
	MOVUPS (SI)(BX*1), lo \
	MOVUPS 16(SI)(BX*1), hi

// func sweepSSE(boxes *[maxBins]binBox, counts *[maxBins]int32, idx *[maxBins]uint8, k int) (split int, cost float32)
//
// sweepAxis' two sweeps over the k >= 2 non-empty bins idx[:k], with SSE:
// a box union is two exact MINs (MINEXACT), an area a few vector
// operations and two scalar adds (AREA), the costs the same float32
// operations in the same order as sweepAxisGo's, so the split and cost
// are its own (TestSweepMatchesGo). The right sweep keeps each right
// side's cost (area times count) in the frame at its place in idx; the
// left sweep keeps the first least cost with CMOV and MINSS, without a
// branch on the comparison (it mispredicted about every other bin).
TEXT ·sweepSSE(SB), NOSPLIT, $128-44
	MOVQ    boxes+0(FP), SI
	MOVQ    counts+8(FP), DI
	MOVQ    idx+16(FP), R8
	MOVQ    k+24(FP), CX
	PCMPEQL X8, X8
	PSRLDQ  $4, X8           // lanes 0-2 set

	// Right sweep: j from k-1 down to 1, the box and count of bins
	// idx[j:k] in X0, X1 and R9.
	LEAQ     -1(CX), DX
	MOVBQZX  (R8)(DX*1), AX
	LOADBIN(AX, X0, X1)
	MOVL     (DI)(AX*4), R9

right:
	AREA(X0, X1, X2, X3)
	CVTSL2SS R9, X3
	MULSS    X3, X2
	MOVSS    X2, (SP)(DX*4)
	DECQ     DX
	JEQ      left
	MOVBQZX  (R8)(DX*1), AX
	LOADBIN(AX, X4, X5)
	MINEXACT(X4, X0, X6)
	MINEXACT(X5, X1, X6)
	ADDL     (DI)(AX*4), R9
	JMP      right

left:
	// Left sweep: the first split leaves bin idx[0] alone on the left;
	// then j from 2 to k-1 adds bin idx[j-1]. The best so far is split
	// R10 at cost X7.
	MOVBQZX  (R8), AX
	LEAQ     1(AX), R10
	LOADBIN(AX, X0, X1)
	MOVL     (DI)(AX*4), R9
	AREA(X0, X1, X2, X3)
	CVTSL2SS R9, X3
	MULSS    X3, X2
	ADDSS    4(SP), X2
	MOVSS    X2, X7
	MOVQ     $2, DX

leftloop:
	CMPQ     DX, CX
	JGE      done
	MOVBQZX  -1(R8)(DX*1), AX
	LOADBIN(AX, X4, X5)
	MINEXACT(X4, X0, X6)
	MINEXACT(X5, X1, X6)
	ADDL     (DI)(AX*4), R9
	AREA(X0, X1, X2, X3)
	CVTSL2SS R9, X3
	MULSS    X3, X2
	ADDSS    (SP)(DX*4), X2
	UCOMISS  X7, X2          // CF: X2 < X7 (or unordered: PF, never taken)
	JPS      next
	LEAQ     1(AX), R11
	CMOVQCS  R11, R10
	MINSS    X7, X2          // X2 < X7 ? X2 : X7, without a branch to mispredict
	MOVSS    X2, X7

next:
	INCQ     DX
	JMP      leftloop

done:
	MOVQ     R10, split+32(FP)
	MOVSS    X7, cost+40(FP)
	RET
