// PREFETCHREF issues the prefetches of prefetchRef for the child reference
// in AX: PREFETCHT0 of the four lines of the node it names in the wideNode
// array at wide, or of every line of a leaf's triangles (36 bytes each) in
// the array at tris. wide and tris are registers or memory operands other
// than AX, CX and DX, which it clobbers; it goes on at done. The layout
// constants mirror wide.go and geometry.go: wideNode is 256 bytes, triVerts
// 36; a leaf reference is leafBit | first<<3 | count-1. Its labels
// (pfleaf, pfloop) allow one use per TEXT.
#define PREFETCHREF(wide, tris, done) \
	TESTL AX, AX \
	JS   pfleaf \
	SHLQ $8, AX \
	ADDQ wide, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 64(AX) \
	PREFETCHT0 128(AX) \
	PREFETCHT0 192(AX) \
	JMP  done \
pfleaf: \
	MOVL AX, CX \
	ANDL $7, CX \
	INCL CX \
	ANDL $0x7fffffff, AX \
	SHRL $3, AX \
	LEAQ (AX)(AX*8), AX \
	SHLQ $2, AX \
	LEAQ (CX)(CX*8), CX \
	SHLQ $2, CX \
	ADDQ tris, AX \
	LEAQ (AX)(CX*1), DX \
	ANDQ $~63, AX \
pfloop: \
	PREFETCHT0 (AX) \
	ADDQ $64, AX \
	CMPQ AX, DX \
	JB   pfloop
