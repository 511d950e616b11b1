//go:build !purego

#include "textflag.h"

// NEXTTRI steps SI to the next of a leaf's triangles (36 bytes on),
// clamped to the last one (DX): lanes past the leaf's n repeat its last
// triangle, which changes neither its bounds nor its finiteness.
#define NEXTTRI \
	ADDQ    $36, SI \
	CMPQ    SI, DX \
	CMOVQHI DX, SI

// MINE sets d to Go's min(a, b) lane by lane, for operands that are not
// NaN: VMINPS both ways, ORed (either order alone gives its second
// operand for two zeros; see refBounds in bounds_amd64.s). t may not be
// a or b; d may.
#define MINE(a, b, d, t) \
	VMINPS b, a, t \
	VMINPS a, b, d \
	VORPS  t, d, d

// MAXE sets d to Go's max(a, b) likewise: VMAXPS both ways, ANDed (+0
// above -0).
#define MAXE(a, b, d, t) \
	VMAXPS b, a, t \
	VMAXPS a, b, d \
	VANDPS t, d, d

// ROWS07 stores rows 0 to 7 (Y10-Y15, Y6, Y7) from DI on, 4n bytes
// apart (CX), each with store (PLAINROW or MASKEDROW), leaving DI at row
// 7.
#define ROWS07(store) \
	store(Y10) \
	ADDQ CX, DI \
	store(Y11) \
	ADDQ CX, DI \
	store(Y12) \
	ADDQ CX, DI \
	store(Y13) \
	ADDQ CX, DI \
	store(Y14) \
	ADDQ CX, DI \
	store(Y15) \
	ADDQ CX, DI \
	store(Y6) \
	ADDQ CX, DI \
	store(Y7)

// PLAINROW stores all eight lanes of row y at DI; MASKEDROW only the
// first n (Y9's lanes).
#define PLAINROW(y) VMOVUPS y, (DI)
#define MASKEDROW(y) VMASKMOVPS y, Y9, (DI)

// func leafRowsAVX(tris *triVerts, n int, rows *float32, box *AABB) (finite bool)
//
// The leaf rows' coordinates of the leaf of n triangles (1 to 8) at tris:
// row 3*vertex+axis, n floats, at rows+4*n*(3*vertex+axis), as
// putLeafRows' Go loop writes them, with masked stores that touch nothing
// past each row's n floats (the primitive id row and the next leaf's rows
// are left alone). Triangle k's first eight floats are one load, the
// eight of them an 8x8 transpose (unpack, shuffle, lane permute: rows 0
// to 7); row 8, the last vertex's z, is gathered with inserts. Then, if
// every coordinate is finite (x - x is +0 for each), it stores the
// union of the triangles' boxes in *box, Go's min and max exactly as
// leafBounds folds them, and returns true; else it leaves *box alone and
// returns false. With box nil it only lays out the rows (and returns
// true).
TEXT ·leafRowsAVX(SB), NOSPLIT|NOFRAME, $0-33
	MOVQ  tris+0(FP), SI
	MOVQ  n+8(FP), CX
	MOVQ  rows+16(FP), DI
	LEAQ  -1(CX), DX
	IMULQ $36, DX
	ADDQ  SI, DX            // the last triangle

	VMOVUPS     (SI), Y0
	VMOVSS      32(SI), X8
	NEXTTRI
	VMOVUPS     (SI), Y1
	VINSERTPS   $0x10, 32(SI), X8, X8
	NEXTTRI
	VMOVUPS     (SI), Y2
	VINSERTPS   $0x20, 32(SI), X8, X8
	NEXTTRI
	VMOVUPS     (SI), Y3
	VINSERTPS   $0x30, 32(SI), X8, X8
	NEXTTRI
	VMOVUPS     (SI), Y4
	VMOVSS      32(SI), X9
	NEXTTRI
	VMOVUPS     (SI), Y5
	VINSERTPS   $0x10, 32(SI), X9, X9
	NEXTTRI
	VMOVUPS     (SI), Y6
	VINSERTPS   $0x20, 32(SI), X9, X9
	NEXTTRI
	VMOVUPS     (SI), Y7
	VINSERTPS   $0x30, 32(SI), X9, X9
	VINSERTF128 $1, X9, Y8, Y8  // row 8

	// Triangle k's floats 0-7 are in Yk: transpose.
	VUNPCKLPS  Y1, Y0, Y9       // t0: 0 and 1 interleaved, floats 0, 1 | 4, 5
	VUNPCKHPS  Y1, Y0, Y0       // t1: floats 2, 3 | 6, 7
	VUNPCKLPS  Y3, Y2, Y1       // t2
	VUNPCKHPS  Y3, Y2, Y2       // t3
	VUNPCKLPS  Y5, Y4, Y3       // t4
	VUNPCKHPS  Y5, Y4, Y4       // t5
	VUNPCKLPS  Y7, Y6, Y5       // t6
	VUNPCKHPS  Y7, Y6, Y6       // t7
	VSHUFPS    $0x44, Y1, Y9, Y7 // s0: float 0 | 4 of triangles 0-3
	VSHUFPS    $0xee, Y1, Y9, Y9 // s1: 1 | 5
	VSHUFPS    $0x44, Y2, Y0, Y1 // s2: 2 | 6
	VSHUFPS    $0xee, Y2, Y0, Y0 // s3: 3 | 7
	VSHUFPS    $0x44, Y5, Y3, Y2 // s4: float 0 | 4 of triangles 4-7
	VSHUFPS    $0xee, Y5, Y3, Y3 // s5
	VSHUFPS    $0x44, Y6, Y4, Y5 // s6
	VSHUFPS    $0xee, Y6, Y4, Y4 // s7
	VPERM2F128 $0x20, Y2, Y7, Y10 // row 0
	VPERM2F128 $0x31, Y2, Y7, Y14 // row 4
	VPERM2F128 $0x20, Y3, Y9, Y11 // row 1
	VPERM2F128 $0x31, Y3, Y9, Y15 // row 5
	VPERM2F128 $0x20, Y5, Y1, Y12 // row 2
	VPERM2F128 $0x31, Y5, Y1, Y6  // row 6
	VPERM2F128 $0x20, Y4, Y0, Y13 // row 3
	VPERM2F128 $0x31, Y4, Y0, Y7  // row 7

	// The rows, n lanes each, 4n bytes apart.
	LEAQ       leafLaneMask<>+32(SB), AX
	SHLQ       $2, CX
	SUBQ       CX, AX
	VMOVUPS    (AX), Y9          // lanes 0 to n-1 set
	CMPQ       CX, $16
	JLT        masked
	// From four triangles on, rows 0 to 7 stored whole, in order, end
	// within the first 9n floats (7n+8 <= 9n), and each row's n floats
	// are the last written over them: eight plain stores.
	ROWS07(PLAINROW)
	ADDQ       CX, DI
	CMPQ       CX, $32
	JNE        tail
	VMOVUPS    Y8, (DI)          // eight triangles: row 8 fills the rest
	JMP        stored

tail:
	// Row 8 as the last eight floats of the nine rows, [9n-8, 9n), one
	// plain store too: its n floats in the high lanes, row 7's last 8-n
	// (9n-8 >= 7n) in the low ones, each rotated into place.
	LEAQ       leafRotations<>(SB), AX
	VMOVUPS    -32(AX)(CX*2), Y0 // lane i: i+2n-8 mod 8
	VMOVUPS    (AX)(CX*1), Y1    // lane i: i+n mod 8
	VPERMPS    Y7, Y0, Y2
	VPERMPS    Y8, Y1, Y3
	LEAQ       leafLaneMask<>+32(SB), AX
	VMOVUPS    (AX)(CX*1), Y4    // lanes 8-n to 7 set
	VBLENDVPS  Y4, Y3, Y2, Y2
	LEAQ       -32(DI)(CX*1), DI // the nine rows' end, less eight floats
	VMOVUPS    Y2, (DI)
	JMP        stored

masked:
	ROWS07(MASKEDROW)
	ADDQ       CX, DI
	MASKEDROW(Y8)

stored:
	MOVQ      box+24(FP), DI
	TESTQ     DI, DI
	JEQ       laidout           // no box wanted (a build's rows)

	// Finite: x - x is +0 for every coordinate.
	VSUBPS    Y10, Y10, Y0
	VSUBPS    Y11, Y11, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y12, Y12, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y13, Y13, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y14, Y14, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y15, Y15, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y6, Y6, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y7, Y7, Y1
	VORPS     Y1, Y0, Y0
	VSUBPS    Y8, Y8, Y1
	VORPS     Y1, Y0, Y0
	VXORPS    Y1, Y1, Y1
	VCMPPS    $0, Y1, Y0, Y0     // equal, ordered
	VMOVMSKPS Y0, AX
	CMPL      AX, $0xff
	JNE       notfinite

	// Each axis's minima and maxima over the rows of its three vertices,
	// the maxima negated so that one reduction of minima takes all six.
	MINE(Y10, Y13, Y0, Y9)
	MINE(Y0, Y6, Y0, Y9)         // a: min x
	MINE(Y11, Y14, Y1, Y9)
	MINE(Y1, Y7, Y1, Y9)         // b: min y
	MINE(Y12, Y15, Y2, Y9)
	MINE(Y2, Y8, Y2, Y9)         // c: min z
	MAXE(Y10, Y13, Y3, Y9)
	MAXE(Y3, Y6, Y3, Y9)
	MAXE(Y11, Y14, Y4, Y9)
	MAXE(Y4, Y7, Y4, Y9)
	MAXE(Y12, Y15, Y5, Y9)
	MAXE(Y5, Y8, Y5, Y9)
	VBROADCASTSS leafSignBit<>(SB), Y10
	VXORPS     Y10, Y3, Y3       // d: -max x
	VXORPS     Y10, Y4, Y4       // e: -max y
	VXORPS     Y10, Y5, Y5       // f: -max z
	// Halves: ab = [a's, b's], cd, ef, four lanes each.
	VPERM2F128 $0x20, Y1, Y0, Y6
	VPERM2F128 $0x31, Y1, Y0, Y7
	MINE(Y6, Y7, Y0, Y9)
	VPERM2F128 $0x20, Y3, Y2, Y6
	VPERM2F128 $0x31, Y3, Y2, Y7
	MINE(Y6, Y7, Y1, Y9)
	VPERM2F128 $0x20, Y5, Y4, Y6
	VPERM2F128 $0x31, Y5, Y4, Y7
	MINE(Y6, Y7, Y2, Y9)
	// Pairs: [a a c c | b b d d] and [e e e e | f f f f].
	VSHUFPS    $0x44, Y1, Y0, Y6
	VSHUFPS    $0xee, Y1, Y0, Y7
	MINE(Y6, Y7, Y0, Y9)
	VSHUFPS    $0x44, Y2, Y2, Y6
	VSHUFPS    $0xee, Y2, Y2, Y7
	MINE(Y6, Y7, Y1, Y9)
	// Singles: a, c, b, d in lanes 0, 2, 4, 6 of Y0; e, f in 0, 4 of Y1.
	VSHUFPS    $0xb1, Y0, Y0, Y6
	MINE(Y0, Y6, Y0, Y9)
	VSHUFPS    $0xb1, Y1, Y1, Y6
	MINE(Y1, Y6, Y1, Y9)

	// DI: the AABB, min x, y, z, max x, y, z.
	VMOVSS       X0, 0(DI)
	VEXTRACTPS   $2, X0, 8(DI)
	VEXTRACTF128 $1, Y0, X2
	VMOVSS       X2, 4(DI)
	VXORPS       X10, X2, X2
	VEXTRACTPS   $2, X2, 12(DI)
	VXORPS       Y10, Y1, Y1
	VMOVSS       X1, 16(DI)
	VEXTRACTF128 $1, Y1, X1
	VMOVSS       X1, 20(DI)
	MOVB         $1, finite+32(FP)
	VZEROUPPER
	RET

notfinite:
	MOVB $0, finite+32(FP)
	VZEROUPPER
	RET

laidout:
	MOVB $1, finite+32(FP)
	VZEROUPPER
	RET

// leafLaneMask is eight set lanes, eight clear ones and eight set: the
// eight lanes from 32-4n bytes in have the first n set, from 32+4n bytes
// the last n.
DATA leafLaneMask<>+0(SB)/8, $-1
DATA leafLaneMask<>+8(SB)/8, $-1
DATA leafLaneMask<>+16(SB)/8, $-1
DATA leafLaneMask<>+24(SB)/8, $-1
DATA leafLaneMask<>+32(SB)/8, $0
DATA leafLaneMask<>+40(SB)/8, $0
DATA leafLaneMask<>+48(SB)/8, $0
DATA leafLaneMask<>+56(SB)/8, $0
DATA leafLaneMask<>+64(SB)/8, $-1
DATA leafLaneMask<>+72(SB)/8, $-1
DATA leafLaneMask<>+80(SB)/8, $-1
DATA leafLaneMask<>+88(SB)/8, $-1
GLOBL leafLaneMask<>(SB), RODATA|NOPTR, $96

// leafRotations is 0 to 7 twice: the eight lanes from 4k bytes in are
// VPERMPS's indices of a rotation by k lanes.
DATA leafRotations<>+0(SB)/4, $0
DATA leafRotations<>+4(SB)/4, $1
DATA leafRotations<>+8(SB)/4, $2
DATA leafRotations<>+12(SB)/4, $3
DATA leafRotations<>+16(SB)/4, $4
DATA leafRotations<>+20(SB)/4, $5
DATA leafRotations<>+24(SB)/4, $6
DATA leafRotations<>+28(SB)/4, $7
DATA leafRotations<>+32(SB)/4, $0
DATA leafRotations<>+36(SB)/4, $1
DATA leafRotations<>+40(SB)/4, $2
DATA leafRotations<>+44(SB)/4, $3
DATA leafRotations<>+48(SB)/4, $4
DATA leafRotations<>+52(SB)/4, $5
DATA leafRotations<>+56(SB)/4, $6
DATA leafRotations<>+60(SB)/4, $7
GLOBL leafRotations<>(SB), RODATA|NOPTR, $64

DATA leafSignBit<>+0(SB)/4, $0x80000000
GLOBL leafSignBit<>(SB), RODATA|NOPTR, $4
