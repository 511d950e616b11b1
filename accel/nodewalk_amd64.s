//go:build !purego

#include "textflag.h"

#include "slab_amd64.h"
#include "prefetch_amd64.h"
#include "nodewalk_amd64.h"

// The layout constants mirror wide.go, traverse.go and slab.go (asserted
// in nodewalk_amd64.go): wideNode is 256 bytes with ref at offset 192,
// stackEntry is 8 bytes (node, then near), slabRay holds six 16-byte
// broadcasts, three 32-byte ones and then the six row offsets. X15 and
// R14 are left alone.

// LOADRAY loads the slab-test constants of the slabRay at DI into X6-X11,
// tMin and tMax broadcast into X12 and X14 and tMax times robustScale into
// X13. It clobbers AX.
#define LOADRAY(tmin, tmax) \
	MOVSS  tmin, X12 \
	SHUFPS $0, X12, X12 \
	MOVSS  tmax, X14 \
	SHUFPS $0, X14, X14 \
	SLABRAY \
	FARMAX

// SLAB8 is slabTest on the node at SI for the slabRay at DI, with the
// constants of LOADRAY: the hit mask in AX, the entry distances at 0(SP)
// .. 31(SP). It clobbers X0-X5, R8-R13, CX and DX.
#define SLAB8 \
	SLABROWS \
	MOVQ SP, DX \
	GROUP(0) \
	MOVQ AX, CX \
	GROUP(16) \
	SHLQ $4, AX \
	ORQ  CX, AX

// SLAB8SPANS is SLAB8 that also stores the exit distances at 40(SP) ..
// 71(SP), for REACH.
#define SLAB8SPANS \
	SLABROWS \
	MOVQ   SP, DX \
	GROUP(0) \
	MOVUPS X1, 40(SP) \
	MOVQ   AX, CX \
	GROUP(16) \
	MOVUPS X1, 56(SP) \
	SHLQ   $4, AX \
	ORQ    CX, AX

// REACH sets CX to the slot of the child in the hit mask AX (not empty)
// whose crossing reaches farthest, its length plus its exit distance,
// (far - near) + far, with the exit distances at 40(SP) and the entry
// distances at 0(SP), the first on a tie, as reachChild picks it, and R8
// to the mask without it. It clobbers DX, R9, R11, R12, X0 and X1.
#define REACH \
	BSFQ  AX, CX \
	LEAQ  -1(AX), R8 \
	ANDQ  AX, R8 \
	JZ    chosen \
	XORL  R9, R9 /* the greatest reach so far: none above 0 */ \
	MOVQ  AX, R11 \
scan: \
	BSFQ  R11, DX \
	MOVSS 40(SP)(DX*4), X1 \
	MOVSS X1, X0 \
	SUBSS (SP)(DX*4), X0 \
	ADDSS X1, X0 \
	MOVQ  X0, R12 \
	ANDL  $0x7fffffff, R12 \
	CMPL  R12, R9 \
	JLS   shorter \
	MOVL  R12, R9 \
	MOVQ  DX, CX \
shorter: \
	LEAQ  -1(R11), R12 \
	ANDQ  R12, R11 \
	JNZ   scan \
	MOVQ  AX, R8 \
	BTRQ  CX, R8 \
chosen:

// NWSLAB8 is nodeWalk's node test for NODEWALKLOOP (nodewalk_amd64.h).
#define NWSLAB8 \
	MOVQ q+16(FP), DI \
	SLAB8

// func nodeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool)
//
// NODEWALKLOOP (nodewalk_amd64.h) with the SSE node test and instructions.
TEXT ·nodeWalk(SB), NOSPLIT, $40-89
	MOVQ q+16(FP), DI
	LOADRAY(tMin+24(FP), tMax+28(FP))
	NODEWALKLOOP(NWSLAB8, MOVSS, UCOMISS, MOVAPS, NOP)

// func occludeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *uint32, limit int, cur uint32, sp int) (next uint32, newSp int, ok bool)
//
// The loop keeps cur in R10, &stack[sp] in BX and the hit mask, once cur
// is taken from it, in R8; the frame holds the entry distances (0(SP)),
// &stack[limit] (32(SP)) and the exit distances (40(SP)).
TEXT ·occludeWalk(SB), NOSPLIT, $72-89
	MOVQ q+16(FP), DI
	LOADRAY(tMin+24(FP), tMax+28(FP))
	MOVQ  stack+40(FP), DX
	MOVQ  sp+64(FP), AX
	LEAQ  (DX)(AX*4), BX
	MOVL  cur+56(FP), R10
	MOVQ  limit+48(FP), AX
	TESTQ AX, AX
	JS    out               // no room for any node
	LEAQ  (DX)(AX*4), AX
	MOVQ  AX, 32(SP)

loop:
	// cur (R10) is an inner node: test it here unless Go must (an index
	// out of range, a stack that could overflow).
	CMPQ R10, nwide+8(FP)
	JCC  out
	CMPQ BX, 32(SP)
	JHI  out
	MOVQ R10, SI
	SHLQ $8, SI
	ADDQ wide+0(FP), SI
	PREFETCHT0 192(SI)       // the references, read after the test
	MOVQ q+16(FP), DI
	SLAB8SPANS
	TESTQ AX, AX
	JZ    pop
	REACH                   // the child whose crossing reaches farthest is cur
	MOVL  192(SI)(CX*4), R10

push:
	// The others are pushed last slot first (popped in slot order), each
	// prefetched.
	TESTQ R8, R8
	JZ    next
	BSRQ  R8, CX
	MOVL  192(SI)(CX*4), AX
	MOVL  AX, 0(BX)
	ADDQ  $4, BX
	BTRQ  CX, R8
	PREFETCHREF(wide+0(FP), leaves+32(FP), push)
	JMP   push

next:
	TESTL R10, R10
	JS    out               // a leaf: back to Go
	JMP   loop

pop:
	CMPQ BX, stack+40(FP)
	JLS  empty
	SUBQ $4, BX
	MOVL 0(BX), R10
	JMP  next

out:
	MOVL R10, next+72(FP)
	SUBQ stack+40(FP), BX
	SHRQ $2, BX
	MOVQ BX, newSp+80(FP)
	MOVB $1, ok+88(FP)
	RET

empty:
	MOVL $0, next+72(FP)
	MOVQ $0, newSp+80(FP)
	MOVB $0, ok+88(FP)
	RET
