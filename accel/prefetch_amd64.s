//go:build !purego

#include "textflag.h"

#include "prefetch_amd64.h"

// func prefetchRef(wide, rows unsafe.Pointer, ref uint32)
//
// The body is PREFETCHREF (prefetch_amd64.h), which nodeStep shares.
TEXT ·prefetchRef(SB), NOSPLIT|NOFRAME, $0-20
	MOVL ref+16(FP), AX
	PREFETCHREF(wide+0(FP), rows+8(FP), done)

done:
	RET

// func prefetchLine(p unsafe.Pointer)
TEXT ·prefetchLine(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET
