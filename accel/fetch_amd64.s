//go:build !purego

#include "textflag.h"

// FETCHTRI copies the triangle whose three 32-bit indices are the
// operands i0, i1 and i2 to DI, and steps DI to the next: each vertex's x
// and y as 8 bytes and z as 4, from SI plus the index times the stride
// (R8). An index above last (R11) ends the fetch at bad. It clobbers AX,
// DX, R12 and R13 (after reading the indices).
#define FETCHTRI(i0, i1, i2) \
	MOVL  i0, R12 \
	MOVL  i1, R13 \
	MOVL  i2, DX \
	CMPL  R12, R11 \
	JHI   bad \
	CMPL  R13, R11 \
	JHI   bad \
	CMPL  DX, R11 \
	JHI   bad \
	IMULQ R8, R12 \
	IMULQ R8, R13 \
	IMULQ R8, DX \
	MOVQ  (SI)(R12*1), AX \
	MOVL  8(SI)(R12*1), R12 \
	MOVQ  AX, 0(DI) \
	MOVL  R12, 8(DI) \
	MOVQ  (SI)(R13*1), AX \
	MOVL  8(SI)(R13*1), R13 \
	MOVQ  AX, 12(DI) \
	MOVL  R13, 20(DI) \
	MOVQ  (SI)(DX*1), AX \
	MOVL  8(SI)(DX*1), DX \
	MOVQ  AX, 24(DI) \
	MOVL  DX, 32(DI) \
	ADDQ  $36, DI

// func fetchR32x3U32Asm(tris *triVerts, n int, vb unsafe.Pointer, stride int, idx *uint32, order *uint32, last uint32) (ok bool)
//
// fetchR32x3U32Native's loop over n triangles: to tris[i], triangle
// order[i] of the 32-bit indices at idx (triangle i where order is nil),
// its vertices' nine floats copied as they are from vb at stride bytes a
// vertex. It stops and returns false at a triangle with an index above
// last, which validation rules out.
TEXT ·fetchR32x3U32Asm(SB), NOSPLIT|NOFRAME, $0-57
	MOVQ  tris+0(FP), DI
	MOVQ  n+8(FP), CX
	MOVQ  vb+16(FP), SI
	MOVQ  stride+24(FP), R8
	MOVQ  idx+32(FP), R9
	MOVQ  order+40(FP), R10
	MOVL  last+48(FP), R11
	LEAQ  (CX)(CX*8), CX
	LEAQ  (DI)(CX*4), CX   // the end of tris
	CMPQ  DI, CX
	JEQ   done
	TESTQ R10, R10
	JEQ   inorder

ordered:
	MOVL  (R10), AX
	ADDQ  $4, R10
	LEAQ  (AX)(AX*2), AX
	LEAQ  (R9)(AX*4), AX
	FETCHTRI(0(AX), 4(AX), 8(AX))
	CMPQ  DI, CX
	JNE   ordered
	JMP   done

inorder:
	FETCHTRI(0(R9), 4(R9), 8(R9))
	ADDQ  $12, R9
	CMPQ  DI, CX
	JNE   inorder

done:
	MOVB $1, ok+56(FP)
	RET

bad:
	MOVB $0, ok+56(FP)
	RET
