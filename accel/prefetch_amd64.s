#include "textflag.h"

// func prefetchRef(wide, tris unsafe.Pointer, ref uint32)
//
// The layout constants mirror wide.go and geometry.go: wideNode is 256 bytes,
// triVerts 36; a leaf reference is leafBit | first<<3 | count-1.
TEXT ·prefetchRef(SB), NOSPLIT|NOFRAME, $0-20
	MOVL ref+16(FP), AX
	TESTL AX, AX
	JS   leaf              // leafBit is the sign bit
	SHLQ $8, AX            // ref * sizeof(wideNode)
	ADDQ wide+0(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	RET

leaf:
	MOVL AX, CX
	ANDL $7, CX
	INCL CX                // count
	ANDL $0x7fffffff, AX
	SHRL $3, AX            // first
	LEAQ (AX)(AX*8), AX
	SHLQ $2, AX            // first * 36
	LEAQ (CX)(CX*8), CX
	SHLQ $2, CX            // count * 36
	ADDQ tris+8(FP), AX
	LEAQ (AX)(CX*1), DX    // end of the leaf's triangles
	ANDQ $~63, AX          // first line

loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, DX
	JB   loop
	RET

// func prefetchLine(p unsafe.Pointer)
TEXT ·prefetchLine(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET
