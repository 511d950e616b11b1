//go:build !purego

#include "textflag.h"

// LEAFGROUP tests the four triangles of lanes off/4 .. off/4+3 of a leaf
// whose rows start at SI (row stride in BX: R8, R9, R10 hold kx, ky, kz
// times the stride, R11 three strides), with the operations of
// leafCandidates in the same order. It leaves the candidate bits in AX
// and the edge bits in CX and stores t, ev, ew and det at DI+off.
#define LEAFGROUP(off) \
	MOVSS  64(DX), X8 \
	SHUFPS $0, X8, X8 \
	MOVSS  68(DX), X9 \
	SHUFPS $0, X9, X9 \
	MOVSS  72(DX), X10 \
	SHUFPS $0, X10, X10 \
	MOVSS  76(DX), X11 \
	SHUFPS $0, X11, X11 \
	MOVSS  80(DX), X12 \
	SHUFPS $0, X12, X12 \
	LEAQ   off(SI), AX \
	MOVUPS (AX)(R10*1), X0 \
	SUBPS  X10, X0 \
	MOVUPS X0, 0(SP) \
	MOVUPS (AX)(R8*1), X1 \
	SUBPS  X8, X1 \
	MOVAPS X11, X6 \
	MULPS  X0, X6 \
	SUBPS  X6, X1 \
	MOVUPS (AX)(R9*1), X2 \
	SUBPS  X9, X2 \
	MOVAPS X12, X6 \
	MULPS  X0, X6 \
	SUBPS  X6, X2 \
	ADDQ   R11, AX \
	MOVUPS (AX)(R10*1), X3 \
	SUBPS  X10, X3 \
	MOVUPS X3, 16(SP) \
	MOVUPS (AX)(R8*1), X4 \
	SUBPS  X8, X4 \
	MOVAPS X11, X6 \
	MULPS  X3, X6 \
	SUBPS  X6, X4 \
	MOVUPS (AX)(R9*1), X5 \
	SUBPS  X9, X5 \
	MOVAPS X12, X6 \
	MULPS  X3, X6 \
	SUBPS  X6, X5 \
	ADDQ   R11, AX \
	MOVUPS (AX)(R10*1), X6 \
	SUBPS  X10, X6 \
	MOVUPS X6, 32(SP) \
	MOVUPS (AX)(R8*1), X0 \
	SUBPS  X8, X0 \
	MOVAPS X11, X3 \
	MULPS  X6, X3 \
	SUBPS  X3, X0 \
	MOVUPS (AX)(R9*1), X3 \
	SUBPS  X9, X3 \
	MULPS  X12, X6 \
	SUBPS  X6, X3 \
	MOVAPS X0, X8 \
	MULPS  X5, X8 \
	MOVAPS X3, X9 \
	MULPS  X4, X9 \
	SUBPS  X9, X8 \
	MOVAPS X1, X9 \
	MULPS  X3, X9 \
	MOVAPS X2, X10 \
	MULPS  X0, X10 \
	SUBPS  X10, X9 \
	MOVAPS X4, X10 \
	MULPS  X2, X10 \
	MOVAPS X5, X11 \
	MULPS  X1, X11 \
	SUBPS  X11, X10 \
	XORPS  X0, X0 \
	MOVAPS X8, X1 \
	CMPPS  X0, X1, $0 \
	MOVAPS X9, X2 \
	CMPPS  X0, X2, $0 \
	ORPS   X2, X1 \
	MOVAPS X10, X2 \
	CMPPS  X0, X2, $0 \
	ORPS   X2, X1 \
	MOVAPS X8, X2 \
	XORPS  X9, X2 \
	MOVAPS X8, X3 \
	XORPS  X10, X3 \
	ORPS   X3, X2 \
	MOVAPS X8, X3 \
	ADDPS  X9, X3 \
	ADDPS  X10, X3 \
	MOVUPS 0(SP), X4 \
	MULPS  X8, X4 \
	MOVUPS 16(SP), X5 \
	MULPS  X9, X5 \
	ADDPS  X5, X4 \
	MOVUPS 32(SP), X5 \
	MULPS  X10, X5 \
	ADDPS  X5, X4 \
	MULPS  X13, X4 \
	DIVPS  X3, X4 \
	MOVAPS X14, X5 \
	CMPPS  X4, X5, $1 \
	MOVAPS X4, X6 \
	CMPPS  X7, X6, $1 \
	ANDPS  X6, X5 \
	MOVUPS X4, off(DI) \
	MOVUPS X9, (32+off)(DI) \
	MOVUPS X10, (64+off)(DI) \
	MOVUPS X3, (96+off)(DI) \
	MOVMSKPS X5, AX \
	MOVMSKPS X2, CX \
	NOTQ   CX \
	ANDQ   CX, AX \
	MOVMSKPS X1, CX \
	ORQ    CX, AX

// func leafTest(w *watertightRay, leaf unsafe.Pointer, n int, tMin, tMax float32, out *leafHits) (cand, edge uint)
//
// leafCandidates with SSE, four triangles per register, for the scalar
// walks: the same operations in the same order on the same rows
// (leafRows; leaf points at the leaf's first row, n is its triangle
// count, 1 to 8). The layout constants mirror triangle.go and the
// assertions in leaftest_amd64.go. X15 (Go's zero register) is left alone.
TEXT ·leafTest(SB), NOSPLIT, $48-56
	MOVQ   w+0(FP), DX
	MOVQ   leaf+8(FP), SI
	MOVQ   n+16(FP), BX
	MOVSS  tMin+24(FP), X14
	SHUFPS $0, X14, X14
	MOVSS  tMax+28(FP), X7
	SHUFPS $0, X7, X7
	MOVQ   out+32(FP), DI
	MOVSS  84(DX), X13
	SHUFPS $0, X13, X13
	SHLQ   $2, BX          // row stride in bytes
	MOVQ   16(DX), R8      // kx
	IMULQ  BX, R8
	MOVQ   24(DX), R9      // ky
	IMULQ  BX, R9
	MOVQ   32(DX), R10     // kz
	IMULQ  BX, R10
	LEAQ   (BX)(BX*2), R11 // three rows: the next vertex
	LEAFGROUP(0)
	MOVQ   AX, R12         // candidates of lanes 0-3
	MOVQ   CX, R13         // edges of lanes 0-3
	CMPQ   BX, $16
	JLE    done
	LEAFGROUP(16)
	SHLQ   $4, AX
	ORQ    AX, R12
	SHLQ   $4, CX
	ORQ    CX, R13

done:
	MOVQ   n+16(FP), CX
	MOVQ   $1, AX
	SHLQ   CX, AX
	DECQ   AX              // the n lanes in use
	ANDQ   AX, R12
	ANDQ   AX, R13
	MOVQ   R12, cand+40(FP)
	MOVQ   R13, edge+48(FP)
	RET
