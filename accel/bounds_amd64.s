//go:build !purego

#include "textflag.h"
#include "minexact_amd64.h"

// func refBounds(refs *bref, n int, box *binBox, cent *centroids)
//
// rangeBounds and centroidBounds in one pass, four lanes at a time with
// SSE (part of the amd64 baseline). The layout constants mirror build.go:
// bref is minX, minY, minZ, nmaxX, nmaxY, nmaxZ, id (28 bytes); binBox
// is minX, minY, minZ, a pad, nmaxX, nmaxY, nmaxZ, a pad; centroids are
// six floats. box may be nil (centroids only).
//
// The box is a fold of Go's min: MINPS(a, b) OR MINPS(b, a) is min(a, b)
// exactly, -0 below +0 included (MINPS alone gives its second operand for
// two zeros), and any NaN stays a NaN. The centroid bounds take MINPS and
// MAXPS as centroidBounds takes its comparisons: they may differ from it
// only in the sign of a zero, which cannot move a ref to another bin.
TEXT ·refBounds(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ   refs+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVL   $0x7f800000, AX  // +Inf
	MOVQ   AX, X8
	SHUFPS $0, X8, X8
	MOVAPS X8, X9           // nmaxX, nmaxY, nmaxZ, (id)
	MOVAPS X8, X10          // centroid minima
	MOVL   $0xff800000, AX  // -Inf
	MOVQ   AX, X11
	SHUFPS $0, X11, X11     // centroid maxima
	PCMPEQL X12, X12
	PSRLDQ  $4, X12         // lanes 0-2 set
	TESTQ  CX, CX
	JEQ    done

loop:
	MOVUPS 0(SI), X0        // minX, minY, minZ, nmaxX
	MOVUPS 12(SI), X1       // nmaxX, nmaxY, nmaxZ, id
	MOVAPS X0, X4
	SUBPS  X1, X4           // doubled centroids in lanes 0-2
	ANDPS  X12, X4          // not nmaxX - id: it may be subnormal, which is slow
	MOVAPS X8, X2
	MINPS  X0, X2
	MINPS  X8, X0
	ORPS   X0, X2
	MOVAPS X2, X8
	MOVAPS X9, X3
	MINPS  X1, X3
	MINPS  X9, X1
	ORPS   X1, X3
	MOVAPS X3, X9
	MINPS  X4, X10
	MAXPS  X4, X11
	ADDQ   $28, SI
	DECQ   CX
	JNE    loop

done:
	MOVQ    box+16(FP), DI
	TESTQ   DI, DI
	JEQ     cent
	MOVSD   X8, 0(DI)       // minX, minY, minZ at 0, nmaxX, nmaxY, nmaxZ at 16
	MOVHLPS X8, X8
	MOVSS   X8, 8(DI)
	MOVSD   X9, 16(DI)
	MOVHLPS X9, X9
	MOVSS   X9, 24(DI)

cent:
	MOVQ    cent+24(FP), DI
	MOVSD   X10, 0(DI)
	MOVHLPS X10, X10
	MOVSS   X10, 8(DI)
	MOVL    $0x80000000, AX
	MOVQ    AX, X0
	SHUFPS  $0, X0, X0
	XORPS   X0, X11         // the maxima, negated
	MOVSD   X11, 12(DI)
	MOVHLPS X11, X11
	MOVSS   X11, 20(DI)
	RET

// BINAXIS adds the ref in X0 (minX, minY, minZ, nmaxX) and X1 (nmaxX,
// nmaxY, nmaxZ, id) to the padded box at off(DI) plus 32 times the bin
// index held (as a sign-extended int32) in reg, clamped to the last bin
// (R9) and masked as binIndex does, and counts it at coff(R10). It
// clobbers reg, BX and X3-X5.
#define BINAXIS(reg, off, coff) \
	CMPQ    reg, R9 \
	CMOVQGT R9, reg \
	ANDQ    $31, reg \
	INCL    coff(R10)(reg*4) \
	SHLQ    $5, reg \
	LEAQ    off(DI)(reg*1), BX \
	MOVUPS  0(BX), X4 \
	MOVAPS  X4, X5 \
	MINPS   X0, X5 \
	MOVAPS  X0, X3 \
	MINPS   X4, X3 \
	ORPS    X3, X5 \
	MOVUPS  X5, 0(BX) \
	MOVUPS  16(BX), X4 \
	MOVAPS  X4, X5 \
	MINPS   X1, X5 \
	MOVAPS  X1, X3 \
	MINPS   X4, X3 \
	ORPS    X3, X5 \
	MOVUPS  X5, 16(BX)

// func binRefsSSE(refs *bref, n, stride int, bn *binning, boxes *[3][maxBins][8]float32, counts *[3][maxBins]int32)
//
// binRefs' loop over n refs, stride refs apart, with SSE: each ref's bin
// on each axis as binIndex computes it (CVTTPS2DQ truncates as Go's
// conversion does; the out-of-range result, a negative number, lands in
// bin 0 as Go's does), its box folded into the bin's with Go's min
// (MINPS both ways, ORed; see refBounds). A binBox's pads take junk.
// The layout constants mirror build.go: binning is lo, k (three
// floats each) and nb.
TEXT ·binRefsSSE(SB), NOSPLIT|NOFRAME, $0-48
	MOVQ   refs+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   stride+16(FP), R8
	IMULQ  $28, R8
	MOVQ   bn+24(FP), DX
	MOVUPS 0(DX), X6         // lo
	MOVUPS 12(DX), X7        // k
	PCMPEQL X8, X8
	PSRLDQ  $4, X8           // lanes 0-2 set: the fourth lane of bref is id, of binning nb
	ANDPS   X8, X6
	ANDPS   X8, X7
	MOVQ   24(DX), R9
	DECQ   R9                // the last bin
	MOVQ   boxes+32(FP), DI
	MOVQ   counts+40(FP), R10
	TESTQ  CX, CX
	JEQ    done

loop:
	MOVUPS    0(SI), X0
	MOVUPS    12(SI), X1
	MOVAPS    X0, X2
	MOVAPS    X1, X3
	ANDPS     X8, X2         // lanes 0-2: the fourth lanes hold nmaxX and
	ANDPS     X8, X3         // id, which may be subnormal (slow)
	SUBPS     X3, X2         // doubled centroid
	SUBPS     X6, X2
	MULPS     X7, X2
	CVTTPS2PL X2, X2
	MOVQ      X2, AX
	PSHUFD    $2, X2, X2
	MOVQ      X2, DX
	MOVLQSX   AX, R11
	SARQ      $32, AX
	MOVLQSX   DX, R12
	BINAXIS(R11, 0, 0)
	BINAXIS(AX, 1024, 128)
	BINAXIS(R12, 2048, 256)
	ADDQ      R8, SI
	DECQ      CX
	JNE       loop

done:
	RET

// func triRefsSSE(tris *triVerts, n int, firstID uint32, refs *bref) (inactive int)
//
// The refs of n triangles (triVerts, 36 bytes: three vertices of three
// floats) as the Go loop in BLAS.build makes them, with SSE: ref i gets
// the triangle's bounds (minima, and negated maxima: Go's min and max
// exactly, -0 below +0, folded as triBounds folds them) and id firstID+i,
// or, for a triangle with a coordinate that is not finite, only the id
// inactiveID (its box stays as it was). It returns the number of those.
// Each triangle is read with three 16-byte loads inside its 36 bytes.
TEXT ·triRefsSSE(SB), NOSPLIT|NOFRAME, $0-40
	MOVQ  tris+0(FP), SI
	MOVQ  n+8(FP), CX
	MOVL  firstID+16(FP), DX
	MOVQ  refs+24(FP), DI
	XORQ  AX, AX
	MOVL  $0x80000000, BX
	MOVQ  BX, X7
	SHUFPS $0, X7, X7       // sign bits
	XORPS X6, X6
	TESTQ CX, CX
	JEQ   tdone

tloop:
	MOVUPS 0(SI), X0        // x0 y0 z0 x1
	MOVUPS 12(SI), X1       // x1 y1 z1 x2
	MOVUPS 20(SI), X2       // z1 x2 y2 z2
	SHUFPS $0x39, X2, X2    // x2 y2 z2 z1
	// Every lane holds a coordinate of this triangle: x - x is +0 for
	// each exactly when all are finite.
	MOVAPS X0, X3
	SUBPS  X0, X3
	MOVAPS X1, X4
	SUBPS  X1, X4
	ORPS   X4, X3
	MOVAPS X2, X4
	SUBPS  X2, X4
	ORPS   X4, X3
	PCMPEQL X6, X3
	MOVMSKPS X3, BX
	CMPL   BX, $15
	JNE    tinactive
	// Negated vertices for the maxima: -max(a, b) is min(-a, -b) exactly.
	MOVAPS X0, X3
	XORPS  X7, X3
	MOVAPS X1, X4
	XORPS  X7, X4
	MOVAPS X2, X5
	XORPS  X7, X5
	MINEXACT(X1, X0, X8)    // X0 = min(v0, v1)
	MINEXACT(X2, X0, X8)    // X0 = min(v0, v1, v2)
	MINEXACT(X4, X3, X8)
	MINEXACT(X5, X3, X8)    // X3 = -max(v0, v1, v2)
	MOVUPS X0, 0(DI)        // minX, minY, minZ, (junk, overwritten next)
	MOVUPS X3, 12(DI)       // nmaxX, nmaxY, nmaxZ, (junk, overwritten next)
	MOVL   DX, 24(DI)
	JMP    tnext

tinactive:
	MOVL   $0xffffffff, 24(DI)
	INCQ   AX

tnext:
	ADDQ   $36, SI
	ADDQ   $28, DI
	INCL   DX
	DECQ   CX
	JNE    tloop

tdone:
	MOVQ   AX, inactive+32(FP)
	RET
