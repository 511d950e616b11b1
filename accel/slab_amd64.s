//go:build !purego

#include "textflag.h"

#include "slab_amd64.h"

// SLABARGS loads slabTest's and slabTestSpans' common arguments: the
// node in SI (its line of references prefetched, which the caller reads
// next), the slabRay in DI and its constants (SLABRAY, SLABROWS), tMin
// and tMax broadcast into X12 and X14, tMax times robustScale into X13
// (FARMAX) and near in DX.
#define SLABARGS \
	MOVQ   n+0(FP), SI \
	PREFETCHT0 192(SI) \
	MOVQ   q+8(FP), DI \
	MOVSS  tMin+16(FP), X12 \
	SHUFPS $0, X12, X12 \
	MOVSS  tMax+20(FP), X14 \
	SHUFPS $0, X14, X14 \
	MOVQ   near+24(FP), DX \
	SLABRAY \
	FARMAX \
	SLABROWS

// func slabTest(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) (mask uint)
//
// slabRay.test with four children per SSE register (SSE2 is part of the
// amd64 baseline). The layout constants mirror wide.go and slab.go:
// wideNode.b is six 32-byte rows at offset 0; slabRay holds six 16-byte
// broadcasts (ox, oy, oz, ix, iy, iz), three 32-byte ones (fx, fy, fz) and
// then the six row offsets (nxo, fxo, nyo, fyo, nzo, fzo). X15 (Go's zero
// register) is left alone.
TEXT ·slabTest(SB), NOSPLIT|NOFRAME, $0-40
	SLABARGS
	GROUP(0)
	MOVQ   AX, BX
	GROUP(16)
	SHLQ   $4, AX
	ORQ    BX, AX
	MOVQ   AX, mask+32(FP)
	RET

// func slabTestSpans(n *wideNode, q *slabRay, tMin, tMax float32, near, far *wideRow) (mask uint)
//
// slabTest that also stores the exit distances at far.
TEXT ·slabTestSpans(SB), NOSPLIT|NOFRAME, $0-48
	SLABARGS
	MOVQ   far+32(FP), CX
	GROUP(0)
	MOVUPS X1, 0(CX)
	MOVQ   AX, BX
	GROUP(16)
	MOVUPS X1, 16(CX)
	SHLQ   $4, AX
	ORQ    BX, AX
	MOVQ   AX, mask+40(FP)
	RET

// BCAST stores the float at off(SI) in all four lanes of to(DI).
#define BCAST(off, to) \
	MOVSS  off(SI), X0 \
	SHUFPS $0, X0, X0 \
	MOVUPS X0, to(DI)

// BCAST8 stores the float at off(SI) in all eight lanes of to(DI).
#define BCAST8(off, to) \
	BCAST(off, to) \
	MOVUPS X0, to+16(DI)

// func slabBroadcast(q *slabRay, org, inv, far *vec.Vec3)
TEXT ·slabBroadcast(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ q+0(FP), DI
	MOVQ org+8(FP), SI
	BCAST(0, 0)
	BCAST(4, 16)
	BCAST(8, 32)
	MOVQ inv+16(FP), SI
	BCAST(0, 48)
	BCAST(4, 64)
	BCAST(8, 80)
	MOVQ far+24(FP), SI
	BCAST8(0, 96)
	BCAST8(4, 128)
	BCAST8(8, 160)
	RET
