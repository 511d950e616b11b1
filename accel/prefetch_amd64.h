// PREFETCHREF issues the prefetches of prefetchRef for the child reference
// in AX: PREFETCHT0 of the four lines of the node it names in the wideNode
// array at wide, or of every line of a leaf's rows (40 bytes a triangle,
// rowsPerSlot floats) in the array at rows. wide and rows are registers or
// memory operands other than AX, CX and DX, which it clobbers; it goes on
// at done. The layout constants mirror wide.go and leafrows.go: wideNode
// is 256 bytes, a slot 40 bytes of rows; a leaf reference is leafBit |
// first<<3 | count-1. Its labels (pfleaf, pfloop) allow one use per TEXT.
#define PREFETCHREF(wide, rows, done) \
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
	LEAQ (AX)(AX*4), AX \
	SHLQ $3, AX \
	LEAQ (CX)(CX*4), CX \
	SHLQ $3, CX \
	ADDQ rows, AX \
	LEAQ (AX)(CX*1), DX \
	ANDQ $~63, AX \
pfloop: \
	PREFETCHT0 (AX) \
	ADDQ $64, AX \
	CMPQ AX, DX \
	JB   pfloop
