//go:build !purego

#include "textflag.h"
#include "funcdata.h"
#include "prefetch_amd64.h"
#include "nodewalk_amd64.h"

// The scalar walks' loops whole, in AVX2: their steps (WALKSTEPS,
// OCCLUDESTEPS) serve walkAVX2 and occludeAVX2, which Go's walks call and
// which return to Go only at the entries Go must take (see
// fused_amd64.go), and walkYieldAVX2, the Traversal's, which also returns
// at each leaf with candidates; rayWalkAVX2 and rayOccludeAVX2, a whole query with the
// ray's set-up (RAYSETUP) in one call, and rayIntersectAVX2 and
// rayOccludedAVX2, the same for a Ray they check and place themselves;
// and batchWalkAVX2 and
// batchOccludeAVX2, which interleave eight such walks. The steps keep the
// ray in registers from node to node and from node to leaf, test a
// node's eight children in one 256-bit slab test and a leaf's triangles
// (up to eight) in one 256-bit leaf test. Every operation is the SSE
// kernels' (slabTest, leafTest) in the same order on eight lanes instead
// of four, so every value is theirs bit for bit; no FMA is used (the Go
// loops round every product). Only VEX instructions run between the
// first 256-bit one and the VZEROUPPER before each return, so no SSE
// code runs with dirty upper register halves. R14 is left alone; Y15
// holds oz during a leaf test (LEAFEDGES): these are ABI0 functions, and
// Go's compiler zeroes X15, its zero register, after every call from Go
// into ABI0 code (cmd/compile/internal/amd64/ssa.go, zeroX15).
//
// The layout constants mirror fused_amd64.go (fusedWalk), slab.go
// (slabRay: six 16-byte broadcasts, three 32-byte ones, then the six row
// offsets),
// triangle.go (watertightRay: kx, ky, kz at 16, 24, 32; ox, oy, oz, sx,
// sy, sz at 64 to 84), fast.go (fastHit: t, u, v, slot, front, id) and wide.go
// (wideNode: 256 bytes, ref at 192, n at 224; leaf references).

// The frame of the steps (every routine that runs them starts its frame
// so): the entry distances of a node's children, &stack[limit], the leaf
// entry while a leaf is tested, 8-lane broadcasts of the triangle test's
// constants, tMin and tMax, 128 spare bytes (the leaf test's t, ev, ew
// and det were stored there for COMMIT until it took them from their
// registers; taking the bytes out would renumber every frame built on
// this one; EXOWNS keeps two vertices' refined coordinates in the first
// 32), (WALKSTEPS) the lanes a node test hit, and the exact path's
// (LEAFEDGECASE): each lane's t, u and v (times the sign of det) and the
// sign of det, the lanes it decided and the lanes in use while it runs,
// the lane it is on and that lane's vertices.
#define NEAR 0
#define LIMP 32
#define CURN 40
#define CURF 44
#define OX 64
#define OY 96
#define OZ 128
#define SX 160
#define SY 192
#define SZ 224
#define TMIN 256
#define TMAX 288
#define SPARE 320 /* 128 bytes: EXOWNS's refined vertices (see above) */
#define HITV 448
#define EXT 480
#define EXU 512
#define EXV 544
#define EXD 576
#define EXM 608
#define EXR9 616
#define EXJ 624
#define EXVX 632
#define WALKFRAME 672

// SETUP loads the fusedWalk at w+0(FP) into DI and the slab test's
// constants into registers (LOADNODE); the triangle test's frame waits
// for the first leaf (FRAMELEAF).
#define SETUP \
	MOVQ w+0(FP), DI \
	MOVB $0, FRAMED(DI) \
	LOADNODE

// TRIFRAME broadcasts the triangle test's constants of the
// watertightRay at DX into the frame (OX to SZ), through Y0.
#define TRIFRAME TRIFRAMEY(Y0)

// TRIFRAMEY is TRIFRAME through the register y.
#define TRIFRAMEY(y) \
	VBROADCASTSS 64(DX), y \
	VMOVUPS      y, OX(SP) \
	VBROADCASTSS 68(DX), y \
	VMOVUPS      y, OY(SP) \
	VBROADCASTSS 72(DX), y \
	VMOVUPS      y, OZ(SP) \
	VBROADCASTSS 76(DX), y \
	VMOVUPS      y, SX(SP) \
	VBROADCASTSS 80(DX), y \
	VMOVUPS      y, SY(SP) \
	VBROADCASTSS 84(DX), y \
	VMOVUPS      y, SZ(SP)

// PREFETCHCHILD prefetches what the walk reads when it takes the child
// reference in AX: the four lines of the node it names in the wideNode
// array at wide, or the first four lines from the first triangle of a
// leaf in the leaf rows at rows, choosing the address without a branch,
// and the fifth line from there as well (it was PREFETCH4 until then).
// The leaf tests read a leaf's nine coordinate rows (n floats each) with
// 32-byte loads from its start, 40 bytes a slot into the rows, so not
// aligned to a line: a leaf of six to eight triangles reads 224-288 bytes,
// five lines or more from most starts, and such leaves hold 90% of the
// 100k terrain's triangles and 65% of the 100k soup's. For a node the
// fifth line is the next node's first, prefetched for nothing (a
// conditional move to skip it made no difference). On Zen 3 (fourth
// session, docs/performance.md) a fifth line measured within the swing;
// embreecmp on Zen 5, one thread, raypipe ÷ Embree medium, against four
// lines: single rays, four rounds alternated on the 100k to 2M scenes, the
// engine and the 1k instances, incoherent 1.00-1.06x (the 100k soup 0.95
// -> 0.99, the engine 1.14 -> 1.20), shadow 0.98-1.03x, primary
// 0.99-1.02x, and four more rounds over the 10k to 1M scenes and the OBJ
// meshes, the 1M terrain's shadow and incoherent rays 1.08x and 1.05x, the
// rest 0.95-1.03x (the 100k terrain's, which swung most from round to
// round, 0.95-0.99x); batches (three rounds, 10k to 1M, WusonOBJ.obj) the
// 1M terrain 1.09-1.17x, the 1M soup's incoherent rays 1.22x, the rest
// 0.97-1.02x. It clobbers AX, CX and DX.
#define PREFETCHCHILD(wide, rows) \
	MOVL       AX, CX \
	ANDL       $0x7fffffff, CX \
	SHRL       $3, CX \
	LEAQ       (CX)(CX*4), CX \
	SHLQ       $3, CX \
	ADDQ       rows, CX \
	MOVL       AX, DX \
	SHLQ       $8, DX \
	ADDQ       wide, DX \
	TESTL      AX, AX \
	CMOVQMI    CX, DX \
	PREFETCHT0 (DX) \
	PREFETCHT0 64(DX) \
	PREFETCHT0 128(DX) \
	PREFETCHT0 192(DX) \
	PREFETCHT0 256(DX)

// PREFETCHENDS prefetches (PREFETCHCHILD) what the walk reads of the first
// and the last child in the hit mask AX of the node at SI, CX holding the
// first's slot: of two children, both. The walks' single rays call it
// where a node hits two children or more, before they order them
// (PICKBRANCH's networks, OCCPICKBRANCH's REACH: 10-20 cycles on the way
// from the node test to the next node's loads), so that (of two) the
// child taken next and the one pushed come in while the order is worked
// out, not after it; before, only the entry pushed on top was
// prefetched, once pushed.
// embreecmp (AMD Zen 3, one thread, raypipe ÷ Embree medium, medians of
// three or four rounds alternated): the occlusion walks' alone, shadow
// rays on the 10k to 2M terrains and soups 1.04-1.15x (the 10k terrain
// 0.89 -> 0.94, the 100k terrain 0.90 -> 0.98, the 1M soup 1.08 ->
// 1.24), the engine 1.04x, the instances 1.00-1.03x, spider.obj and
// WusonOBJ.obj 0.97-1.01x; the closest-hit walks' on top, incoherent rays
// 1.00-1.11x (the 100k terrain 0.84 -> 0.89, the 100k soup 0.85 -> 0.94,
// the engine 1.01 -> 1.07), primary rays 0.96-1.03x. It keeps AX and CX
// (in ma and mc while it runs) and clobbers DX.
#define PREFETCHENDS(ma, mc) \
	MOVQ  AX, ma \
	MOVQ  CX, mc \
	MOVL  192(SI)(CX*4), AX \
	PREFETCHCHILD(0(DI), 16(DI)) \
	BSRQ  ma, CX \
	MOVL  192(SI)(CX*4), AX \
	PREFETCHCHILD(0(DI), 16(DI)) \
	MOVQ  ma, AX \
	MOVQ  mc, CX

// RANK adds to the ranks in Y3 the lanes that the child in lane j, if
// hit (HITV(SP)), puts above itself on the stack: with the entry
// distances in Y2, those whose distance is less than lane j's, or equal
// and in an earlier slot. It clobbers Y0, Y1, Y4 and Y5.
#define RANK(j) \
	VMOVDQU   laneIndex<>+(32*j)(SB), Y0 \
	VPERMPS   Y2, Y0, Y4 \
	VPERMPS   HITV(SP), Y0, Y0 \
	VCMPPS    $0x1e, Y2, Y4, Y1 \
	VCMPPS    $0, Y2, Y4, Y5 \
	VPAND     slotsBelow<>+(32*j)(SB), Y5, Y5 \
	VPOR      Y5, Y1, Y1 \
	VPAND     Y0, Y1, Y1 \
	VPSUBD    Y1, Y3, Y3

// PUTENTRY stores the 8-byte stack entry in quadword q of xe at
// &stack[sp + rank], the rank in dword d of xr. It clobbers CX and DX.
#define PUTENTRY(xe, xr, q, d) \
	VPEXTRD $d, xr, CX \
	VPEXTRQ $q, xe, DX \
	MOVQ    DX, (BX)(CX*8)

// LOADSLAB loads the slab test's constants from the slabRay at DX: ox,
// oy, oz, ix, iy, iz in Y6-Y11 (SLAB8 reads the far planes' inverse
// direction, fx, fy, fz, from the slabRay itself; tMin goes in Y12, tMax
// in Y14 and tMax times robustScale in Y13, FARMAX).
#define LOADSLAB \
	VBROADCASTSS 0(DX), Y6 \
	VBROADCASTSS 16(DX), Y7 \
	VBROADCASTSS 32(DX), Y8 \
	VBROADCASTSS 48(DX), Y9 \
	VBROADCASTSS 64(DX), Y10 \
	VBROADCASTSS 80(DX), Y11

// FARMAX sets Y13 to tMax (Y14) times robustScale, the slab test's bound
// on far distances.
#define FARMAX \
	VBROADCASTSS robust<>(SB), Y13 \
	VMULPS       Y14, Y13, Y13

// LOADNODE is LOADSLAB for the walk's slabRay, tMin and current tMax.
#define LOADNODE \
	MOVQ         40(DI), DX \
	LOADSLAB \
	VBROADCASTSS 80(DI), Y12 \
	VBROADCASTSS 84(DI), Y14 \
	FARMAX

// PLANE sets dst to the slab distances of the eight children's planes in
// the row at byte offset off of the node at SI: (plane - o) * inv.
#define PLANE(off, o, inv, dst) \
	VMOVUPS (SI)(off*1), dst \
	VSUBPS  o, dst, dst \
	VMULPS  inv, dst, dst

// SLAB8 is slabTest on the node at SI for the slabRay at DX (its
// constants loaded by LOADSLAB), all eight children at once: the hit mask
// in AX, the entry distances in Y0 (SLABSPANS, then the compare). It
// clobbers Y1-Y5 and R8-R13.
#define SLAB8 \
	SLABSPANS \
	HITMASK

// SLAB8SEG is SLAB8 that keeps the children's exit distances, for
// REACH: the hit mask in AX (and its lanes, all ones, in Y3), the entry
// distances in Y0, the exit distances in Y1.
#define SLAB8SEG \
	SLABSPANS \
	HITMASKSEG

// HITMASK and HITMASKSEG end SLAB8 and SLAB8SEG (and ROOTTEST): the
// children whose entry distance (Y0) is not past their exit distance (Y1)
// in AX, and for HITMASKSEG their lanes in Y3 too.
#define HITMASK \
	VCMPPS    $2, Y1, Y0, Y1 \
	VMOVMSKPS Y1, AX

#define HITMASKSEG \
	VCMPPS    $2, Y1, Y0, Y3 \
	VMOVMSKPS Y3, AX

// SLAB8NAN is SLAB8 for rays whose inverse direction may have infinite
// components (a zero or tiny direction component), whose slab distances
// are NaN where the origin lies on a plane (0 times infinity): it takes
// each child's entry and exit distances as rayBox.hitWide does for such
// rays, from tMin and tMax times robustScale, one axis after another,
// keeping the distance so far unless the next is greater (smaller): a
// NaN one is passed over, so the origin counts as inside that slab. So
// VMAXPS and VMINPS take them, the distance so far as the second source,
// which they return on a NaN or a tie. It clobbers Y1-Y5 and R8-R13.
#define SLAB8NAN \
	SLABPLANES \
	VMAXPS    Y12, Y0, Y0 /* x's if greater than tMin */ \
	VMAXPS    Y0, Y2, Y0 \
	VMAXPS    Y0, Y4, Y0 \
	VMINPS    Y13, Y1, Y1 \
	VMINPS    Y1, Y3, Y1 \
	VMINPS    Y1, Y5, Y1 \
	VCMPPS    $2, Y1, Y0, Y1 \
	VMOVMSKPS Y1, AX

// SLABPLANES sets Y0-Y5 to the slab distances of the six planes of the
// children of the node at SI for the slabRay at DX: the near and far
// planes of x, y and z in turn, (plane - o) * inv, the far planes'
// inverse the slabRay's 32-byte fx, fy, fz as memory operands. It
// clobbers R8-R13.
#define SLABPLANES \
	MOVQ      192(DX), R8 \
	MOVQ      200(DX), R9 \
	MOVQ      208(DX), R10 \
	MOVQ      216(DX), R11 \
	MOVQ      224(DX), R12 \
	MOVQ      232(DX), R13 \
	PLANE(R8, Y6, Y9, Y0) \
	PLANE(R9, Y6, 96(DX), Y1) \
	PLANE(R10, Y7, Y10, Y2) \
	PLANE(R11, Y7, 128(DX), Y3) \
	PLANE(R12, Y8, Y11, Y4) \
	PLANE(R13, Y8, 160(DX), Y5)

// SLABSPANS sets Y0 and Y1 to the entry and exit distances of the
// children of the node at SI, as SLAB8 compares them. The far planes take
// the slabRay's 32-byte fx, fy, fz as memory operands. The three planes
// and tMin (tMax times robustScale) are reduced as a tree, max(max(x, y),
// max(z, tMin)): finite rays have no NaN distances, and on the rest max
// and min are associative up to the sign of a zero, which no comparison
// sees. It clobbers Y2-Y5 and R8-R13.
#define SLABSPANS \
	SLABPLANES \
	SPANS

// SPANS is SLABSPANS' reduction of the six planes' distances in Y0-Y5
// (x near, x far, y near, ...) with tMin (Y12) and tMax times robustScale
// (Y13) to the entry and exit distances in Y0 and Y1.
#define SPANS \
	VMAXPS    Y2, Y0, Y0 \
	VMAXPS    Y12, Y4, Y4 \
	VMAXPS    Y4, Y0, Y0 \
	VMINPS    Y3, Y1, Y1 \
	VMINPS    Y13, Y5, Y5 \
	VMINPS    Y5, Y1, Y1

// REACH sets CX to the slot of the hit child (AX, lanes in Y3) whose
// crossing reaches farthest, (far - near) + far with far in Y1 and near
// in Y0 (each operation rounded, as reachChild rounds them), the first on
// a tie, as reachChild picks it. A hit lane's reach is not negative, so
// its bits, sign cleared (-0 is 0), order as integers as the reaches do;
// lanes not hit count 0 and drop out of the tie mask. It clobbers Y1,
// Y3-Y5.
#define REACH \
	VSUBPS     Y0, Y1, Y4 \
	VADDPS     Y1, Y4, Y1 \
	VPSRLD     $1, Y3, Y3 \
	VPAND      Y3, Y1, Y1 \
	VPERM2I128 $1, Y1, Y1, Y4 \
	VPMAXSD    Y4, Y1, Y4 \
	VPSHUFD    $0x4E, Y4, Y5 \
	VPMAXSD    Y5, Y4, Y4 \
	VPSHUFD    $0xB1, Y4, Y5 \
	VPMAXSD    Y5, Y4, Y4 \
	VPCMPEQD   Y4, Y1, Y4 \
	VMOVMSKPS  Y4, CX \
	ANDL       AX, CX \
	BSFL       CX, CX

// VERTEX translates and shears one vertex of the eight triangles, whose
// rows start at base (R8, R9, R10: kx, ky, kz times the row stride), as
// intersect does: z = v[kz] - oz, x = (v[kx] - ox) - sx*z, y = (v[ky] -
// oy) - sy*z, with oz, sx and sy in Y15, Y13 and Y14 (LEAFEDGES). It
// clobbers Y12.
#define VERTEX(base, z, x, y) \
	VMOVUPS (base)(R10*1), z \
	VSUBPS  Y15, z, z \
	VMOVUPS (base)(R8*1), x \
	VSUBPS  OX(SP), x, x \
	VMULPS  Y13, z, Y12 \
	VSUBPS  Y12, x, x \
	VMOVUPS (base)(R9*1), y \
	VSUBPS  OY(SP), y, y \
	VMULPS  Y14, z, Y12 \
	VSUBPS  Y12, y, y

// CROSS sets dst to a*b - c*d, each product rounded (an edge function).
// It clobbers Y12.
#define CROSS(a, b, c, d, dst) \
	VMULPS  b, a, dst \
	VMULPS  d, c, Y12 \
	VSUBPS  Y12, dst, dst

// LEAFEDGES is the first part of leafTest's LEAFGROUP on all eight lanes
// of the leaf whose rows start at SI (R8, R9, R10: kx, ky, kz times the
// row stride; R11 three strides), with the constants in the frame: the
// vertices' sheared z in Y0-Y2 and the edge functions eu, ev, ew in
// Y9-Y11, the edge cases (an edge function of zero) in Y4 and the sign
// of the lanes whose origin lies outside the triangle in Y5. It clobbers
// Y3, Y6-Y8, Y12 and AX, and leaves sx and sy in Y13 and Y14 and oz in
// Y15: the walks hold tMax and its far bound in Y13 and Y14 between
// leaves (LOADNODE sets them again after one), and in registers the
// shear's two constants spare each leaf six of VERTEX's 24 loads for two
// (about 1% on the soups' single rays, BenchmarkTrace and embreecmp
// alternated; the rest within their swing), oz three more for one (17
// loads a leaf; embreecmp, six rounds alternated: raypipe's incoherent
// rays 1.003-1.022x on every scene and thread count, the rest
// 0.989-1.027x, median 1.005).
#define LEAFEDGES \
	VMOVUPS SX(SP), Y13 \
	VMOVUPS SY(SP), Y14 \
	VMOVUPS OZ(SP), Y15 \
	VERTEX(SI, Y0, Y3, Y4) \
	LEAQ    (SI)(R11*1), AX \
	VERTEX(AX, Y1, Y5, Y6) \
	ADDQ    R11, AX \
	VERTEX(AX, Y2, Y7, Y8) \
	CROSS(Y7, Y6, Y8, Y5, Y9) \
	CROSS(Y3, Y8, Y4, Y7, Y10) \
	CROSS(Y5, Y4, Y6, Y3, Y11) \
	VXORPS  Y3, Y3, Y3 \
	VCMPPS  $0, Y3, Y9, Y4 \
	VCMPPS  $0, Y3, Y10, Y5 \
	VORPS   Y5, Y4, Y4 \
	VCMPPS  $0, Y3, Y11, Y5 \
	VORPS   Y5, Y4, Y4 \
	VXORPS  Y10, Y9, Y5 \
	VXORPS  Y11, Y9, Y6 \
	VORPS   Y6, Y5, Y5

// LEAFT is the rest of LEAFGROUP, after LEAFEDGES: det in Y6, t in Y7
// and the lanes whose t lies in (tMin, tMax), tMax from TMAX(SP), in Y8.
// It clobbers Y12.
#define LEAFT \
	VADDPS  Y10, Y9, Y6 \
	VADDPS  Y11, Y6, Y6 \
	VMULPS  Y9, Y0, Y7 \
	VMULPS  Y10, Y1, Y8 \
	VADDPS  Y8, Y7, Y7 \
	VMULPS  Y11, Y2, Y8 \
	VADDPS  Y8, Y7, Y7 \
	VMULPS  SZ(SP), Y7, Y7 \
	VDIVPS  Y6, Y7, Y7 \
	VCMPPS  $0x1e, TMIN(SP), Y7, Y8 \
	VCMPPS  $1, TMAX(SP), Y7, Y12 \
	VANDPS  Y12, Y8, Y8

// LEAFSETUP takes the leaf reference in R10 (its entry near distance in
// X0): it saves the entry at CURN/CURF, and goes on at out when Go must
// test the leaf (no triangle test yet, or rows out of range). Else it
// leaves the leaf's first slot in R13, its triangle count in R12, &rows
// of the leaf in SI and the row offsets LEAF8 takes in R8-R11.
#define LEAFSETUP(out) \
	MOVL   R10, CURN(SP) \
	VMOVSS X0, CURF(SP) \
	MOVQ   48(DI), DX \
	TESTQ  DX, DX \
	JZ     out \
	MOVL   R10, R12 \
	ANDL   $7, R12 \
	INCL   R12 \
	MOVL   R10, R13 \
	ANDL   $0x7fffffff, R13 \
	SHRL   $3, R13 \
	LEAQ   (R13)(R12*1), AX \
	LEAQ   (AX)(AX*4), AX \
	LEAQ   8(AX)(AX*1), AX /* rowsPerSlot*(first+n) + 8 */ \
	CMPQ   AX, 24(DI) \
	JHI    out \
	LEAQ   (R13)(R13*4), SI \
	SHLQ   $3, SI /* 40 bytes a slot */ \
	ADDQ   16(DI), SI \
	MOVQ   R12, R11 \
	SHLQ   $2, R11 \
	MOVQ   16(DX), R8 \
	IMULQ  R11, R8 \
	MOVQ   24(DX), R9 \
	IMULQ  R11, R9 \
	MOVQ   32(DX), R10 \
	IMULQ  R11, R10 \
	LEAQ   (R11)(R11*2), R11

// LEAFLANES sets R9 to the mask of the R12 lanes in use.
#define LEAFLANES \
	MOVQ R12, CX \
	MOVL $1, R9 \
	SHLQ CX, R9 \
	DECQ R9

// NODE tests cur's node (R10) unless Go must (an index out of range, a
// stack that could overflow: on at out), leaving the node at SI, the hit
// mask in AX and the entry distances in Y0; with no child hit it goes on
// at pop. The line of the node's references, read only after the test,
// is prefetched with the rows: a node the walk did not push (the nearest
// child, taken at once) would else miss twice in a row.
#define NODE(out, pop) NODEBY(SLAB8, out, pop)

// NODEBY is NODE with the node test slab (SLAB8 or SLAB8SEG).
#define NODEBY(slab, out, pop) \
	CMPQ  R10, 8(DI) \
	JCC   out \
	CMPQ  BX, LIMP(SP) \
	JHI   out \
	MOVQ  R10, SI \
	SHLQ  $8, SI \
	ADDQ  0(DI), SI \
	PREFETCHT0 192(SI) \
	MOVQ  40(DI), DX \
	slab \
	TESTQ AX, AX \
	JZ    pop

// ENTRY takes the walk's stack (entries of size bytes) and cur's node:
// &stack[sp] in BX, &stack[limit] at LIMP(SP), the node in R10; it goes
// on at out when limit leaves no room for a node, at leaf when cur is a
// leaf, and else falls through to the node loop.
#define ENTRY(size, out, leaf) \
	MOVQ  56(DI), DX \
	MOVQ  96(DI), AX \
	LEAQ  (DX)(AX*size), BX \
	MOVL  88(DI), R10 \
	MOVQ  64(DI), AX \
	TESTQ AX, AX \
	JS    out \
	LEAQ  (DX)(AX*size), AX \
	MOVQ  AX, LIMP(SP) \
	TESTL R10, R10 \
	JS    leaf

// LEAFCANDS tests the leaf in R10 (near distance in X0): it goes on at
// out when Go must (LEAFSETUP's cases), at edge when a lane is an edge
// case (LEAFEDGECASE, which comes back to edgeback when none is left to
// decide, and else to ready), at none when no triangle hits over (tMin,
// tMax), and else goes on at ready (the end) with the candidates (the
// lanes whose origin lies inside and whose t is in range, and the edge
// cases that hit) in AX and LEAFEDGES' and LEAFT's vectors (t, ev, ew
// and det in Y7, Y10, Y11 and Y6; the edge cases' in their lanes).
#define LEAFCANDS(out, edge, edgeback, none, ready) \
	LEAFSETUP(out) \
	LEAFEDGES \
	LEAFLANES \
	VMOVMSKPS Y4, CX \
	ANDQ      R9, CX \
	JNZ       edge \
edgeback: \
	VMOVMSKPS Y5, AX \
	NOTQ      AX \
	ANDQ      R9, AX \
	JZ        none \
	LEAFT \
	VMOVMSKPS Y8, CX \
	ANDQ      CX, AX \
	JZ        none \
ready:

// VERTEX1 is VERTEX for one lane, the one whose rows start at base
// (R8, DX, R10: the kx, ky and kz rows' offsets), with scalar float32
// operations in VERTEX's order, so that z, x and y are its lane's values
// bit for bit. It clobbers X12.
#define VERTEX1(base, z, x, y) \
	VMOVSS (base)(R10*1), z \
	VSUBSS OZ(SP), z, z \
	VMOVSS (base)(R8*1), x \
	VSUBSS OX(SP), x, x \
	VMULSS SX(SP), z, X12 \
	VSUBSS X12, x, x \
	VMOVSS (base)(DX*1), y \
	VSUBSS OY(SP), y, y \
	VMULSS SY(SP), z, X12 \
	VSUBSS X12, y, y

// The lane's vertices at EXVX: x and y of a, b and c, then their z.
#define EAX EXVX+0
#define EAY EXVX+4
#define EBX EXVX+8
#define EBY EXVX+12
#define ECX EXVX+16
#define ECY EXVX+20
#define EAZ EXVX+24
#define EBZ EXVX+28
#define ECZ EXVX+32

// EXCROSS sets dst to the float64 a*b - c*d of the float32 values at
// a, b, c, d (frame offsets): the products are exact, the difference
// rounded once, as intersectExact computes an edge function. It
// clobbers X13 and X14.
#define EXCROSS(a, b, c, d, dst) \
	VMOVSS    a(SP), X13 \
	VCVTSS2SD X13, X13, X13 \
	VMOVSS    b(SP), X14 \
	VCVTSS2SD X14, X14, X14 \
	VMULSD    X14, X13, dst \
	VMOVSS    c(SP), X13 \
	VCVTSS2SD X13, X13, X13 \
	VMOVSS    d(SP), X14 \
	VCVTSS2SD X14, X14, X14 \
	VMULSD    X14, X13, X13 \
	VSUBSD    X13, dst, dst

// EXSIGNS ORs into R9 bit 0 a negative e (float64, against 0 in X7) and
// bit 1 a positive one. It clobbers AX.
#define EXSIGNS(e) \
	VUCOMISD X7, e \
	SETCS    AL \
	ORB      AL, R9B \
	VUCOMISD X7, e /* again: ORB set the flags */ \
	SETHI    AL \
	SHLB     $1, AL \
	ORB      AL, R9B

// EXTOPLEFT goes on at miss unless the edge from (px, py) to (qx, qy)
// (float32 frame values) owns points on it (topLeft): dx = qx - px and
// dy = qy - py in float32, negated where det < 0 (R9 nonzero), and
// then dy > 0 or dy == 0 and dx > 0. owned and kept are labels of its
// own, a distinct pair at each use. It clobbers X12-X14 and AX.
#define EXTOPLEFT(px, py, qx, qy, owned, kept, miss) \
	VMOVSS   qy(SP), X13 \
	VSUBSS   py(SP), X13, X13 \
	VMOVSS   qx(SP), X14 \
	VSUBSS   px(SP), X14, X14 \
	TESTQ    R9, R9 \
	JZ       kept \
	MOVL     $0x80000000, AX \
	VMOVD    AX, X12 \
	VXORPS   X12, X13, X13 \
	VXORPS   X12, X14, X14 \
kept: \
	VXORPS   X12, X12, X12 \
	VUCOMISS X12, X13 \
	JHI      owned /* dy > 0 */ \
	JNE      miss \
	JPS      miss \
	VUCOMISS X12, X14 \
	JLS      miss \
owned:

// EXREFINED stores into off(SP) and off+8(SP) watertightRay.refined's
// float64 x and y of the lane's vertex whose rows start at addr (from AX,
// the lane's first vertex: (AX), (AX)(R11*1) or (AX)(R11*2)): its float32
// differences from the origin, as VERTEX1 takes them, less the shear
// times its z, a product exact in float64, rounded once. It clobbers
// X12-X14 and AX.
#define EXREFINED(addr, off) \
	MOVQ      EXJ(SP), AX \
	LEAQ      (SI)(AX*4), AX \
	LEAQ      addr, AX \
	VMOVSS    (AX)(R10*1), X12 \
	VSUBSS    OZ(SP), X12, X12 \
	VCVTSS2SD X12, X12, X12 /* z */ \
	EXREFAXIS(R8, OX, SX, off) \
	EXREFAXIS(DX, OY, SY, off+8)

// EXREFAXIS is EXREFINED's coordinate on the axis whose row offset is in
// row (origin component at o, shear at s, both frame broadcasts), z in
// X12, stored at dst(SP). It clobbers X13 and X14.
#define EXREFAXIS(row, o, s, dst) \
	VMOVSS    (AX)(row*1), X13 \
	VSUBSS    o(SP), X13, X13 \
	VCVTSS2SD X13, X13, X13 \
	VMOVSS    s(SP), X14 \
	VCVTSS2SD X14, X14, X14 \
	VMULSD    X12, X14, X14 \
	VSUBSD    X14, X13, X13 \
	VMOVSD    X13, dst(SP)

// EXOWNS goes on at miss unless the edge from the lane's vertex at paddr
// to the one at qaddr (EXREFINED's addresses; their float32 projections
// at px, py and qx, qy), on which the exact path puts the ray, owns the
// ray, as watertightRay.ownsEdge decides: the refined edge function
// qX*pY - qY*pX (in SPARE's first 32 bytes) where it is not zero (nor
// NaN), the triangle's side when its sign is det's (R9: det < 0), and
// else EXTOPLEFT. tl, owned and kept are labels of its own, a distinct
// triple at each use. It clobbers X12-X14 and AX.
#define EXOWNS(paddr, qaddr, px, py, qx, qy, tl, owned, kept, miss) \
	EXREFINED(paddr, SPARE) \
	EXREFINED(qaddr, SPARE+16) \
	VMOVSD   SPARE+16(SP), X12 \
	VMULSD   SPARE+8(SP), X12, X12 /* qX*pY */ \
	VMOVSD   SPARE+24(SP), X13 \
	VMULSD   SPARE+0(SP), X13, X13 /* qY*pX */ \
	VSUBSD   X13, X12, X12 \
	VUCOMISD X7, X12 \
	JEQ      tl /* zero or NaN: the top-left rule */ \
	SETCS    AL /* e < 0 */ \
	CMPB     AL, R9B \
	JNE      miss \
	JMP      owned \
tl: \
	EXTOPLEFT(px, py, qx, qy, owned, kept, miss)

// EXACTLANE decides lane EXJ(SP) of the leaf at SI as
// watertightRay.intersectExact decides it: its vertices as VERTEX1
// computes them, the edge functions in float64 (EXCROSS), a miss where
// two have opposite signs or det (their sum) is zero, or where a zero
// edge function's edge does not own the ray (EXOWNS), else t =
// float32(tt / det), tt the z's weighted by the edge functions times
// sz, a hit over (tMin, tMax) whose t, u = float32(ev / det) and v =
// float32(ew / det), times det's sign, and that sign go to EXT, EXU, EXV
// and EXD. It goes on at miss for a miss. It clobbers X3, X4, X6-X8,
// X12-X14, AX and R9.
#define EXACTLANE(miss) \
	LEAQ   (SI)(AX*4), R9 \
	VERTEX1(R9, X3, X4, X6) \
	VMOVSS X4, EAX(SP) \
	VMOVSS X6, EAY(SP) \
	VMOVSS X3, EAZ(SP) \
	ADDQ   R11, R9 \
	VERTEX1(R9, X3, X4, X6) \
	VMOVSS X4, EBX(SP) \
	VMOVSS X6, EBY(SP) \
	VMOVSS X3, EBZ(SP) \
	ADDQ   R11, R9 \
	VERTEX1(R9, X3, X4, X6) \
	VMOVSS X4, ECX(SP) \
	VMOVSS X6, ECY(SP) \
	VMOVSS X3, ECZ(SP) \
	EXCROSS(ECX, EBY, ECY, EBX, X3) /* eu */ \
	EXCROSS(EAX, ECY, EAY, ECX, X4) /* ev */ \
	EXCROSS(EBX, EAY, EBY, EAX, X6) /* ew */ \
	VXORPD   X7, X7, X7 \
	XORL     R9, R9 \
	EXSIGNS(X3) \
	EXSIGNS(X4) \
	EXSIGNS(X6) \
	CMPB     R9B, $3 \
	JEQ      miss /* signs differ: outside */ \
	VADDSD   X4, X3, X8 \
	VADDSD   X6, X8, X8 /* det */ \
	VUCOMISD X7, X8 \
	JEQ      miss /* degenerate in projection */ \
	SETCS    R9B \
	MOVBQZX  R9B, R9 /* det < 0 */ \
	VUCOMISD X7, X3 \
	JNE      exl1 \
	EXOWNS((AX)(R11*1), (AX)(R11*2), EBX, EBY, ECX, ECY, ext1, exf1, exk1, miss) \
exl1: \
	VUCOMISD X7, X4 \
	JNE      exl2 \
	EXOWNS((AX)(R11*2), (AX), ECX, ECY, EAX, EAY, ext2, exf2, exk2, miss) \
exl2: \
	VUCOMISD X7, X6 \
	JNE      exl3 \
	EXOWNS((AX), (AX)(R11*1), EAX, EAY, EBX, EBY, ext3, exf3, exk3, miss) \
exl3: \
	VMOVSS    EAZ(SP), X12 \
	VCVTSS2SD X12, X12, X12 \
	VMULSD    X12, X3, X7 \
	VMOVSS    EBZ(SP), X12 \
	VCVTSS2SD X12, X12, X12 \
	VMULSD    X12, X4, X12 \
	VADDSD    X12, X7, X7 \
	VMOVSS    ECZ(SP), X12 \
	VCVTSS2SD X12, X12, X12 \
	VMULSD    X12, X6, X12 \
	VADDSD    X12, X7, X7 \
	VMOVSS    SZ(SP), X12 \
	VCVTSS2SD X12, X12, X12 \
	VMULSD    X12, X7, X7 /* tt */ \
	VDIVSD    X8, X7, X7 \
	VCVTSD2SS X7, X7, X7 /* t */ \
	VUCOMISS  TMIN(SP), X7 \
	JLS       miss /* not t > tMin */ \
	VMOVSS    TMAX(SP), X12 \
	VUCOMISS  X7, X12 \
	JLS       miss /* not t < tMax */ \
	MOVQ      EXJ(SP), AX \
	VMOVSS    X7, EXT(SP)(AX*4) \
	VDIVSD    X8, X4, X4 \
	VCVTSD2SS X4, X4, X4 /* u */ \
	VDIVSD    X8, X6, X6 \
	VCVTSD2SS X6, X6, X6 /* v */ \
	TESTQ     R9, R9 \
	MOVL      $0x3f800000, R9 /* +1 */ \
	JZ        exs \
	MOVL      $0x80000000, R9 \
	VMOVD     R9, X12 \
	VXORPS    X12, X4, X4 \
	VXORPS    X12, X6, X6 \
	MOVL      $0xbf800000, R9 /* -1 */ \
exs: \
	VMOVSS    X4, EXU(SP)(AX*4) \
	VMOVSS    X6, EXV(SP)(AX*4) \
	MOVL      R9, EXD(SP)(AX*4)

// LEAFEDGECASE takes LEAFCANDS' edge cases, the lanes in use with an
// edge function of zero (in CX). A lane two of whose edge functions have
// opposite signs is a miss (watertightRay.intersectExact's first test): a
// product or difference rounded to float32 keeps the sign of the exact
// one or is zero, so a nonzero edge function has the sign of its exact
// value. Such lanes (a triangle with two vertices at the same place, for
// one: its other two edge functions are each other's negations) are
// misses already among LEAFEDGES' sign differences (Y5). The others it
// decides as intersectExact does (EXACTLANE); when there are none it
// goes back to edgeback, and else it runs LEAFT for the others and goes
// on at ready (or none) as LEAFCANDS would, with the edge cases that hit
// among the candidates and their t, u and v (times the sign of det: with
// det's sign, ±1, as COMMIT divides them) in the lanes of Y7, Y10, Y11
// and Y6. It clobbers Y3, Y4, Y6-Y8, Y12-Y14, AX, CX, DX, R12 and the
// exact path's frame.
#define LEAFEDGECASE(edgeback, none, ready) \
	VXORPS    Y3, Y3, Y3 \
	VCMPPS    $1, Y3, Y9, Y6 \
	VCMPPS    $1, Y3, Y10, Y7 \
	VORPS     Y7, Y6, Y6 \
	VCMPPS    $1, Y3, Y11, Y7 \
	VORPS     Y7, Y6, Y6 /* a negative edge function */ \
	VCMPPS    $1, Y9, Y3, Y7 \
	VCMPPS    $1, Y10, Y3, Y3 \
	VORPS     Y3, Y7, Y7 \
	VXORPS    Y3, Y3, Y3 \
	VCMPPS    $1, Y11, Y3, Y3 \
	VORPS     Y3, Y7, Y7 /* a positive one */ \
	VANDPS    Y7, Y6, Y6 \
	VMOVMSKPS Y6, AX \
	NOTQ      AX \
	ANDQ      AX, CX \
	JZ        edgeback \
	MOVQ      R9, EXR9(SP) \
	MOVQ      CX, EXM(SP) \
	MOVQ      R12, AX /* the ky row's offset: ky times the row stride */ \
	SHLQ      $2, AX \
	IMULQ     24(DX), AX \
	MOVQ      AX, DX \
	XORL      R12, R12 \
exactlane: \
	BSFQ      CX, AX \
	MOVQ      AX, EXJ(SP) \
	EXACTLANE(exactmiss) \
	MOVQ      EXJ(SP), AX \
	BTSQ      AX, R12 \
exactmiss: \
	MOVQ      EXJ(SP), AX \
	BTRQ      AX, CX \
	TESTQ     CX, CX \
	JNZ       exactlane \
	MOVQ      EXR9(SP), R9 \
	VMOVMSKPS Y5, AX \
	NOTQ      AX \
	ANDQ      R9, AX \
	MOVQ      EXM(SP), CX \
	NOTQ      CX \
	ANDQ      CX, AX /* the vector test's lanes */ \
	LEAFT \
	VMOVMSKPS Y8, CX \
	ANDQ      CX, AX \
	ORQ       R12, AX /* and the edge cases that hit */ \
	JZ        none \
	VMOVQ        R12, X12 \
	VPBROADCASTD X12, Y12 \
	VPAND        laneBits<>(SB), Y12, Y12 \
	VPCMPEQD     laneBits<>(SB), Y12, Y12 /* their lanes */ \
	VBLENDVPS    Y12, EXT(SP), Y7, Y7 \
	VBLENDVPS    Y12, EXU(SP), Y10, Y10 \
	VBLENDVPS    Y12, EXV(SP), Y11, Y11 \
	VBLENDVPS    Y12, EXD(SP), Y6, Y6 \
	JMP          ready

// A lane: one walk's state for walkAVX2 or occludeAVX2 (a fusedWalk at
// 0), its ray's slab test (a slabRay: the first float of each 16-byte
// broadcast, all that LOADSLAB reads, the 32-byte far inverses SLAB8
// reads whole, and the row offsets), its triangle test (the
// fields of a watertightRay that the walks read: kx, ky, kz and ox to
// sz), its stack (64 stackEntry or 128 uint32 entries) and, in a batch,
// the index of its ray (-1: none).
#define LSLAB 128
#define LWT 384
#define LSTK 480
#define LRAY 992
#define LANESHIFT 10

// ROWS sets the byte offsets of an axis' near and far rows in a
// wideNode for the sign bit at bit of DX (the inverse direction's signs):
// the rows at base and base+32, swapped when the sign is negative, stored
// at off(DI) and off+8(DI). It clobbers AX and CX.
#define ROWS(bit, base, off) \
	MOVL DX, AX \
	SHRL $bit, AX \
	ANDL $1, AX \
	SHLL $5, AX \
	LEAQ base(AX), CX \
	MOVQ CX, off(DI) \
	MOVL $(base+32), CX \
	SUBL AX, CX \
	MOVQ CX, off+8(DI)

// RAYSETUP sets the lane at DI up for the ray with origin and tMin in X0,
// direction and tMax in X1: what rayBox.setup, slabRay.init and
// watertightRay.setup compute, with the same operations, and a walk from
// the root (cur = (0, tMin), an empty stack, nothing found). The root's
// box is not tested first: the children's boxes lie inside it, so a ray
// that misses it misses them. A ray whose inverse direction is not finite
// in every component (rayBox.finite: the origin is, and a finite
// direction's inverse is never zero), or with a direction component that
// the shear takes as zero (RAYINVFINITE), goes on at bad. It leaves the fields
// that do not depend on the ray alone and clobbers AX, CX, DX, R8-R10
// and X2-X13.
#define RAYSETUP(bad) \
	RAYINV \
	RAYINVFINITE(bad, setupfine) \
	RAYPLACE

// RAYINV sets X4 to the ray's inverse direction (X1), X3 to ones and X5
// to the mask of a float's magnitude bits, and copies the origin (X0) to
// X2: the first part of RAYSETUP.
#define RAYINV \
	VMOVAPS      X0, X2 \
	MOVL         $0x3f800000, CX \
	VMOVD        CX, X3 \
	VBROADCASTSS X3, X3      /* ones */ \
	VDIVPS       X1, X3, X4  /* inv = 1 / direction */ \
	MOVL         $0x7fffffff, CX \
	VMOVD        CX, X5 \
	VBROADCASTSS X5, X5      /* |x| mask */

// DIRMASK sets t1 to the lanes (0-2) of the direction in X1 (the
// magnitude mask in X5) whose components the watertight test's shear takes
// as zero, as unshearable (traverse.go) finds them: |d|*2^75*2^75 <=
// max|d|. It clobbers t2, t3 and CX.
#define DIRMASK(t1, t2, t3) \
	VANDPS       X5, X1, t1 /* |d| */ \
	VPERMILPS    $0xc9, t1, t2 /* |d| in the order y, z, x */ \
	VMAXPS       t2, t1, t2 \
	VPERMILPS    $0xd2, t1, t3 /* z, x, y */ \
	VMAXPS       t3, t2, t2 /* max|d| in lanes 0-2 */ \
	MOVL         $0x65000000, CX /* 2^75 */ \
	VMOVD        CX, t3 \
	VBROADCASTSS t3, t3 \
	VMULPS       t3, t1, t1 \
	VMULPS       t3, t1, t1 \
	VCMPPS       $2, t2, t1, t1 /* |d|*2^150 <= max|d| */ \
	VINSERTPS    $0x08, t1, t1, t1 /* not lane 3 */

// DIRFLUSH is unshearable for the direction in X1 (lane 3, tMax, left
// alone) and its inverse in X4: the components DIRMASK finds become zeros
// of their sign, and their inverses infinities of that sign, 1/d of the
// zero. The walks that take a finite inverse never see such a ray
// (RAYINVFINITE, SETUPRAYIN's test); the NaN walks' set-ups flush it. It
// clobbers t1-t4 and CX.
#define DIRFLUSH(t1, t2, t3, t4) \
	DIRMASK(t1, t2, t3) \
	VANDPS       X5, t1, t4 \
	VANDNPS      X1, t4, X1 /* flushed to a zero of its sign */ \
	VANDNPS      X1, X5, t4 /* its sign */ \
	MOVL         $0x7f800000, CX \
	VMOVD        CX, t3 \
	VBROADCASTSS t3, t3 \
	VORPS        t3, t4, t4 /* an infinity of that sign */ \
	VBLENDVPS    t1, t4, X4, X4

// INVBELOW22 goes on at below when every component (lanes 0-2) of abs,
// the inverse direction's magnitudes, is below 2^22: then no direction
// component is one the shear takes as zero (RAYINVFINITE). It clobbers t
// and CX.
#define INVBELOW22(abs, t, below) \
	VCMPPS       $1, two22<>(SB), abs, t /* |inv| < 2^22 */ \
	VMOVMSKPS    t, CX \
	ANDL         $7, CX \
	CMPL         CX, $7 \
	JEQ          below

// RAYINVFINITE goes on at bad unless every component of the inverse
// direction (X4) is at most maxFiniteInverse, so that the far planes'
// inverse (times robustScale) is finite too: the node tests' distances
// could else be NaN (SLAB8NAN's walks take such rays), and unless no
// component of the direction (X1) is one the shear takes as zero (DIRMASK),
// which the NaN walks' set-ups flush (DIRFLUSH); else it goes on at fine,
// a label of its own at each use. Only a direction component below 2^-22
// can be such a one (|d|*2^150 >= 2^128, above any max|d|), so an inverse
// below 2^22 in every component passes at once, in as many instructions
// as the finite test alone took; DIRMASK on every ray had cost 1.5-3 ns
// of a ray's 14-18 ns (BenchmarkRayFixedCost). It clobbers X6-X8 and CX.
#define RAYINVFINITE(bad, fine) \
	VANDPS       X5, X4, X6 \
	INVBELOW22(X6, X7, fine) \
	MOVL         $0x7f7ffff7, CX /* maxFiniteInverse */ \
	VMOVD        CX, X7 \
	VBROADCASTSS X7, X7 \
	VCMPPS       $2, X7, X6, X6 \
	VMOVMSKPS    X6, CX \
	ANDL         $7, CX \
	CMPL         CX, $7 \
	JNE          bad \
	DIRMASK(X6, X7, X8) \
	VMOVMSKPS    X6, CX \
	TESTL        $7, CX \
	JNZ          bad \
fine:

// SHEARAXES picks the watertight test's axes for the direction in X1
// (its magnitude mask in X5): kz the axis of the largest |d| (the first
// of equal ones), kx and ky from shearTab by the sign of d[kz], in R8,
// R9 and R10, and shearTab's entry (kx, ky, kz, kz) in X9, storing kx,
// ky and kz into the watertightRay at off(base). It clobbers AX, CX and
// X6-X8.
#define SHEARAXES(off, base) \
	VANDPS       X5, X1, X6 /* |d| */ \
	VPERMILPS    $0x55, X6, X7 /* ay */ \
	VPERMILPS    $0xaa, X6, X8 /* az */ \
	XORL         R8, R8 \
	VUCOMISS     X6, X7 \
	SETHI        R8B /* k1 = ay > ax */ \
	VMAXSS       X6, X7, X9 \
	MOVL         $2, R10 \
	VUCOMISS     X9, X8 \
	CMOVLLS      R8, R10 /* kz = az > max(ax, ay) ? 2 : k1 */ \
	VMOVMSKPS    X1, AX \
	MOVL         R10, CX \
	BTL          R10, AX /* d[kz] < 0 (d[kz] is not zero) */ \
	ADCL         CX, CX \
	SHLL         $4, CX \
	LEAQ         shearTab<>(SB), AX \
	ADDQ         CX, AX /* shearTab's entry 2*kz + (d[kz] < 0) */ \
	MOVL         0(AX), R8 /* kx */ \
	MOVL         4(AX), R9 /* ky */ \
	VMOVDQU      (AX), X9 /* kx, ky, kz, kz */ \
	MOVQ         R8, (off+16)(base) \
	MOVQ         R9, (off+24)(base) \
	MOVQ         R10, (off+32)(base)

// RAYPLACE is the rest of RAYSETUP, after RAYINV: the slabRay, the
// watertightRay and the walk's start.
#define RAYPLACE \
	/* slabRay: origin, inverse, the far planes' inverse, and each axis' near and */ \
	/* far row offsets from the inverse's signs. */ \
	VMOVSS       X2, LSLAB+0(DI) \
	VEXTRACTPS   $1, X2, LSLAB+16(DI) \
	VEXTRACTPS   $2, X2, LSLAB+32(DI) \
	VMOVSS       X4, LSLAB+48(DI) \
	VEXTRACTPS   $1, X4, LSLAB+64(DI) \
	VEXTRACTPS   $2, X4, LSLAB+80(DI) \
	VBROADCASTSS robust<>(SB), X6 \
	VMULPS       X6, X4, X6 /* the far planes' inverse: inv times robustScale */ \
	VBROADCASTSS X6, Y7 \
	VMOVUPS      Y7, LSLAB+96(DI) \
	VPERMILPS    $0x55, X6, X7 \
	VBROADCASTSS X7, Y7 \
	VMOVUPS      Y7, LSLAB+128(DI) \
	VPERMILPS    $0xaa, X6, X7 \
	VBROADCASTSS X7, Y7 \
	VMOVUPS      Y7, LSLAB+160(DI) \
	VMOVMSKPS    X4, DX \
	ROWS(0, 0, LSLAB+192) \
	ROWS(1, 64, LSLAB+208) \
	ROWS(2, 128, LSLAB+224) \
	/* watertightRay: kz the axis of the largest |d| (the first of */ \
	/* equal ones), kx and ky from shearAxes by the sign of d[kz], the */ \
	/* origin's components in that order and the shear sx, sy, sz. */ \
	SHEARAXES(LWT, DI) \
	VPERMILPS    X9, X2, X10 /* ox, oy, oz */ \
	VPERMILPS    X9, X1, X11 /* d[kx], d[ky], d[kz], d[kz] */ \
	VBLENDPS     $0xc, X3, X11, X12 /* d[kx], d[ky], 1, 1 */ \
	VPERMILPS    $0xaa, X11, X13 \
	VDIVPS       X13, X12, X12 /* sx, sy, sz */ \
	VMOVUPS      X10, LWT+64(DI) \
	VMOVUPS      X12, LWT+76(DI) \
	/* The walk from the root: cur = (0, tMin), an empty stack. */ \
	LEAQ         LSLAB(DI), AX \
	MOVQ         AX, 40(DI) \
	LEAQ         LWT(DI), AX \
	MOVQ         AX, 48(DI) \
	LEAQ         LSTK(DI), AX \
	MOVQ         AX, 56(DI) \
	VEXTRACTPS   $3, X0, 80(DI) /* tMin */ \
	VEXTRACTPS   $3, X1, 84(DI) /* tMax */ \
	MOVL         $0, 88(DI) \
	VEXTRACTPS   $3, X0, 92(DI) \
	MOVQ         $0, 96(DI) \
	MOVB         $0, 105(DI) /* found */

// LANECONSTS sets the fields of the lane at DI that do not depend on its
// ray from the blasArrays at SI (rayWalkAVX2's first arguments, a
// batchQuery's first fields): the arrays, the stack limit and
// compressSlots.
#define LANECONSTS(limit) \
	MOVQ 0(SI), AX \
	MOVQ AX, 0(DI) \
	MOVQ 8(SI), AX \
	MOVQ AX, 8(DI) \
	MOVQ 16(SI), AX \
	MOVQ AX, 16(DI) \
	MOVQ 24(SI), AX \
	MOVQ AX, 24(DI) \
	MOVQ $limit, 64(DI) \
	LEAQ ·compressSlots(SB), AX \
	MOVQ AX, 112(DI)

// The frame of the batch walks: the walks' (to HITV), the lane whose
// turn it is, the lanes with a ray (a bit each), the steps taken (yields,
// added to q.steps at the end) and the lanes (from the next 64-byte
// boundary, LANEBASE).
#define BLANE 672
#define BLIVE 680
#define BSTEPS 688
#define BLANES 704

// LANEBASE points DI at the first 64-byte boundary from off(SP), where a
// frame's lanes start: Go aligns SP to 8 bytes only, and a lane's 16-byte
// stores that straddle a cache line (RAYSETUP's shear) cannot be forwarded
// to the loads that follow them. The frames leave 64 bytes for it. It
// clobbers the flags.
#define LANEBASE(off) \
	LEAQ off+63(SP), DI \
	ANDQ $-64, DI

// BATCHINIT sets every lane up without a ray, with the walk's
// arguments of the batchQuery at q (the stack limit limit, first), and
// goes on at lanedone with lane 0: each lane takes its first ray there.
#define BATCHINIT(limit) \
	MOVQ    q+0(FP), SI \
	LANEBASE(BLANES) \
	XORL    CX, CX \
lanes: \
	LANECONSTS(limit) \
	MOVB    80(SI), AX \
	MOVB    AX, 104(DI)      /* first */ \
	MOVQ    $-1, LRAY(DI) \
	ADDQ    $(1<<LANESHIFT), DI \
	INCQ    CX \
	CMPQ    CX, $8 \
	JLT     lanes \
	MOVQ    $0xff, BLIVE(SP) \
	MOVQ    $0, BLANE(SP) \
	MOVQ    $0, BSTEPS(SP) \
	LANEBASE(BLANES) \
	JMP     lanedone

// RESUME is where a lane steps: a lane without a ray takes one
// (lanedone), else its walk goes on from cur (stack entries of size
// bytes) with what the step needs: a node the slab test's registers
// (LOADNODE), a leaf the triangle test's frame (a leaf step ends with
// LOADNODE).
#define RESUME(size) \
resumeleaf: \
	MOVQ         48(DI), DX \
	TRIFRAME \
	VBROADCASTSS 80(DI), Y0 \
	VMOVUPS      Y0, TMIN(SP) \
	VBROADCASTSS 84(DI), Y0 \
	VMOVUPS      Y0, TMAX(SP) \
	JMP          leaf \
resume: \
	CMPQ   LRAY(DI), $0 \
	JLT    lanedone \
	ENTRY(size, lanego, resumeleaf) \
	LOADNODE

// RAYCHECK goes on at bad unless the ray with origin and tMin in X0,
// direction and tMax in X1 passes the checks of rayUsable that RAYSETUP
// does not make (a finite origin and direction; TMin and TMax not NaN)
// and has TMin <= TMax. It clobbers CX, X2, X3, X5 and X7.
#define RAYCHECK(bad) \
	MOVL    $0x7fffffff, CX \
	VMOVD   CX, X5 \
	VBROADCASTSS X5, X5 \
	MOVL    $0x7f7fffff, CX \
	VMOVD   CX, X7 \
	VBROADCASTSS X7, X7 \
	VANDPS  X5, X0, X2 \
	VCMPPS  $2, X7, X2, X2 \
	VANDPS  X5, X1, X3 \
	VCMPPS  $2, X7, X3, X3 \
	VANDPS  X3, X2, X2 \
	VMOVMSKPS X2, CX \
	ANDL    $7, CX \
	CMPL    CX, $7 \
	JNE     bad              /* origin or direction not finite */ \
	VPERMILPS $0xff, X0, X2 \
	VPERMILPS $0xff, X1, X3 \
	VUCOMISS X3, X2 \
	JPS     bad              /* TMin or TMax NaN */ \
	JHI     bad              /* TMin > TMax */

// BATCHLANES is the batch walks' lane handling, after their steps (stack
// entries of 1<<shift bytes). At yield a lane has found its next node or
// leaf: it counts the step, saves cur's node and the stack height (cur's
// near distance has passed its check, and no step reads it again),
// prefetches cur and lets the next lane step. At lanedone a lane's walk is over (its answer:
// found), at lanego Go must walk its ray (rayGoMust); either way the lane
// takes the next ray of the batch (placed as BLAS.Intersect places it,
// unless q.placed; RAYSETUP, after the checks of rayUsable and TMin <=
// TMax; rays that fail them are left to Go) and goes on at resume, or,
// with none left, drops out. nextlane moves to the next lane with a ray,
// in turn; the call returns when no lane has one, adding its steps to
// q.steps.
#define BATCHLANES(shift, setup) \
yield: \
	INCQ    BSTEPS(SP) \
	MOVL    R10, 88(DI) \
	MOVQ    BX, AX \
	SUBQ    56(DI), AX \
	SHRQ    $shift, AX \
	MOVQ    AX, 96(DI) \
	MOVL    R10, AX \
	PREFETCHCHILD(0(DI), 16(DI)) \
	JMP     nextlane \
lanedone: \
	MOVQ    LRAY(DI), AX \
	TESTQ   AX, AX \
	JS      refill \
	MOVBQZX 105(DI), CX      /* rayHit or rayMiss */ \
	MOVQ    q+0(FP), DX \
	MOVQ    64(DX), DX \
	MOVB    CX, (DX)(AX*1) \
	JMP     refill \
lanego: \
	MOVQ    LRAY(DI), AX \
	MOVQ    q+0(FP), DX \
	MOVQ    64(DX), DX \
	MOVB    $2, (DX)(AX*1) \
refill: \
	MOVQ    q+0(FP), SI \
take: \
	MOVQ    56(SI), R11      /* q.next */ \
	CMPQ    R11, 48(SI) \
	JGE     idle \
	LEAQ    1(R11), AX \
	MOVQ    AX, 56(SI) \
	MOVQ    R11, LRAY(DI) \
	MOVQ    R11, AX \
	SHLQ    $5, AX \
	ADDQ    40(SI), AX       /* &rays[i] */ \
	VMOVUPS 0(AX), X0 \
	VMOVUPS 16(AX), X1 \
	CMPB    81(SI), $0 \
	JNE     placed           /* rays already in object space */ \
	VADDPS  plusZero<>(SB), X0, X0 /* identityPoint; tMin + -0 is tMin */ \
placed: \
	RAYCHECK(badray) \
	setup \
	MOVQ    72(SI), AX \
	LEAQ    (R11)(R11*2), CX \
	LEAQ    (AX)(CX*8), AX   /* &hits[i]: fastHit is 24 bytes */ \
	MOVQ    AX, 72(DI) \
	JMP     resume \
badray: \
	MOVQ    64(SI), DX \
	MOVB    $2, (DX)(R11*1) \
	JMP     take \
lanenotfinite: \
	MOVQ    64(SI), DX \
	MOVB    $4, (DX)(R11*1) \
	JMP     take \
idle: \
	MOVQ    $-1, LRAY(DI) \
	MOVQ    BLANE(SP), CX \
	MOVQ    BLIVE(SP), AX \
	BTRQ    CX, AX \
	MOVQ    AX, BLIVE(SP) \
	TESTQ   AX, AX \
	JNZ     nextlane \
	MOVQ    BSTEPS(SP), AX \
	MOVQ    q+0(FP), CX \
	ADDQ    AX, 88(CX)       /* q.steps */ \
	VZEROUPPER \
	RET \
nextlane: \
	MOVQ    BLANE(SP), CX \
	MOVQ    BLIVE(SP), DX \
seek: \
	INCQ    CX \
	ANDQ    $7, CX \
	BTQ     CX, DX \
	JCC     seek \
	MOVQ    CX, BLANE(SP) \
	SHLQ    $LANESHIFT, CX \
	LANEBASE(BLANES) \
	ADDQ    CX, DI \
	JMP     resume

// The frame of the one-call queries: the walks' (to HITV), then a lane
// (from the next 64-byte boundary, LANEBASE).
#define RLANE 672

// RAYQUERY sets the lane of a one-call query up for its ray (the
// arguments of rayWalkAVX2): the ray read one float at a time (callers
// have just stored it so, and wider loads could not be forwarded from
// those stores), then RAYSTART (the hit at hp: the argument h, whose
// offset differs between the entries). A ray RAYSETUP refuses goes on at
// gomust.
#define RAYQUERY(start, limit, hp) \
	MOVQ         org+32(FP), AX \
	VMOVSS       0(AX), X0 \
	VINSERTPS    $0x10, 4(AX), X0, X0 \
	VINSERTPS    $0x20, 8(AX), X0, X0 \
	VINSERTPS    $0x30, tMin+48(FP), X0, X0 /* origin, tMin */ \
	MOVQ         dir+40(FP), AX \
	VMOVSS       0(AX), X1 \
	VINSERTPS    $0x10, 4(AX), X1, X1 \
	VINSERTPS    $0x20, 8(AX), X1, X1 \
	VINSERTPS    $0x30, tMax+52(FP), X1, X1 /* direction, tMax */ \
	start(limit, hp)

// LOADRAY loads the Ray at AX a float at a time, as RAYQUERY reads its
// arguments: origin and tMin in X0, direction and tMax in X1.
#define LOADRAY \
	VMOVSS       0(AX), X0 \
	VINSERTPS    $0x10, 4(AX), X0, X0 \
	VINSERTPS    $0x20, 8(AX), X0, X0 \
	VINSERTPS    $0x30, 12(AX), X0, X0 /* origin, tMin */ \
	VMOVSS       16(AX), X1 \
	VINSERTPS    $0x10, 20(AX), X1, X1 \
	VINSERTPS    $0x20, 24(AX), X1, X1 \
	VINSERTPS    $0x30, 28(AX), X1, X1 /* direction, tMax */

// RAYQUERYRAY is RAYQUERY for the Ray at r (the arguments of
// rayIntersectAVX2): read a float at a time as RAYQUERY reads it, checked
// (RAYCHECK: rays that fail go on at gomust) and placed as BLAS.Intersect
// places it (its origin plus +0, as identityPoint; its direction as it
// is, which identityVector leaves alone for a direction without zero
// components, the only ones RAYSETUP takes).
#define RAYQUERYRAY(start, limit, hp) \
	MOVQ         r+32(FP), AX \
	LOADRAY \
	RAYCHECK(gomust) \
	VADDPS       plusZero<>(SB), X0, X0 \
	start(limit, hp)

// RAYSTART sets the lane of a one-call query up for the ray with origin
// and tMin in X0, direction and tMax in X1: RAYSETUP, the lane's
// constants (stack limit limit; the hit at hp) and the registers of the
// walk's first step, which is the root's. The triangle test's frame waits
// for the first leaf (FRAMELEAF). A ray RAYSETUP refuses goes on at gomust.
#define RAYSTART(limit, hp) RAYSTARTBY(STARTFINITE, limit, hp)

// RAYSTARTBY is RAYSTART with check (STARTFINITE, STARTNAN) between the
// inverse direction and the rest of the set-up.
#define RAYSTARTBY(check, limit, hp) \
	LANEBASE(RLANE) \
	RAYINV \
	check(rayfine) \
	RAYPLACE \
	LEAQ         wide+0(FP), SI \
	LANECONSTS(limit) \
	MOVQ         hp, AX \
	MOVQ         AX, 72(DI) \
	MOVB         $0, FRAMED(DI) \
	REGNODE

// REGNODE is LOADNODE for the lane RAYSETUP has just set up, from the
// registers that it stored the lane from (origin and tMin in X0 and X2,
// direction and tMax in X1, the inverse direction in X4): the same values,
// without waiting for the stores to reach the loads.
#define REGNODE \
	LEAQ         LSLAB(DI), DX \
	VBROADCASTSS X2, Y6 \
	VMOVSHDUP    X2, X7 \
	VBROADCASTSS X7, Y7 \
	VMOVHLPS     X2, X2, X8 \
	VBROADCASTSS X8, Y8 \
	VBROADCASTSS X4, Y9 \
	VMOVSHDUP    X4, X10 \
	VBROADCASTSS X10, Y10 \
	VMOVHLPS     X4, X4, X11 \
	VBROADCASTSS X11, Y11 \
	VPERMILPS    $0xff, X0, X12 \
	VBROADCASTSS X12, Y12 \
	VPERMILPS    $0xff, X1, X14 \
	VBROADCASTSS X14, Y14 \
	FARMAX

// ROOTTEST is ENTRY and the root's NODE for a one-call query whose lane
// RAYSTART has just set up (stack entries of size bytes, limit of them):
// the walk from the root with an empty stack, and the root's children
// tested as SLAB8 tests them (then cmp: HITMASK or HITMASKSEG), but with
// the row offsets and the far planes' inverse direction computed in
// registers, as RAYPLACE computes the ones it stores, instead of loaded
// from those stores: a ray's first node test waited for them. It goes on
// at pop when no child is hit and else at rooted, in the walk's steps
// after their node test; first, rootleaf (ROOTLEAFOCC or NOP) may take a
// root that is one leaf as that leaf. It clobbers AX, DX, R8-R13 and
// Y0-Y5 (and Y13, which it sets to FARMAX's bound again).
#define ROOTTEST(limit, size, cmp, rootleaf) \
	LEAQ    LSTK(DI), BX \
	LEAQ    LSTK+(limit*size)(DI), AX \
	MOVQ    AX, LIMP(SP) \
	MOVQ    wide+0(FP), SI \
	PREFETCHT0 192(SI) \
	rootleaf \
rootnode: \
	VMOVMSKPS X4, DX \
	ROWREG(1, 5, 0, R8, R9) \
	ROWREG(2, 4, 64, R10, R11) \
	ROWREG(4, 3, 128, R12, R13) \
	VBROADCASTSS robust<>(SB), X13 \
	VMULPS       X13, X4, X13 /* the far planes' inverse */ \
	PLANE(R8, Y6, Y9, Y0) \
	PLANE(R10, Y7, Y10, Y2) \
	PLANE(R12, Y8, Y11, Y4) \
	FARREG(R9, Y6, X13, Y1, Y3) \
	VMOVSHDUP X13, X3 \
	FARREG(R11, Y7, X3, Y3, Y5) \
	VMOVHLPS  X13, X13, X5 \
	FARREG(R13, Y8, X5, Y5, Y13) \
	FARMAX \
	SPANS \
	cmp \
	TESTQ     AX, AX \
	JZ        pop \
	JMP       rooted

// ROOTLEAF goes on at node, or, when the wide root at SI has one child
// and it is a leaf (a BLAS of one leaf, up to eight triangles), with
// that leaf as cur (R10; near distance tMin, lane 0 of tmin) at rleaf:
// Embree's root is such a leaf, and the root's box, which holds the
// leaf's, would only cull rays the triangle test rejects anyway. For the
// occlusion walks (ROOTLEAFOCC, ENTERLEAFOCC): shadow rays on
// embreecmp's 8-triangle terrain and soup 1.19-1.21x, on a tetrahedron
// 1.14x (three rounds alternated), on 1000 rotated instances of an
// 8-triangle soup 1.08-1.16x. It clobbers AX (and R10 and X0 when it
// takes the leaf).
#define ROOTLEAF(node, tmin) \
	CMPL    224(SI), $1 \
	JNE     node \
	MOVL    192(SI), AX \
	TESTL   AX, AX \
	JNS     node \
	MOVL    AX, R10 \
	VMOVAPS tmin, X0 \
	JMP     rleaf

// ROWREG sets near and far to the byte offsets of an axis' near and far
// rows in a wideNode, as ROWS computes them, for the sign bit bit (a mask)
// of DX: base + 32 and base where the inverse direction is negative, else
// base and base + 32.
#define ROWREG(bit, shift, base, near, far) \
	MOVL DX, near \
	ANDL $bit, near \
	SHLL $shift, near \
	ADDL $base, near \
	MOVL $(2*base+32), far \
	SUBL near, far

// FARREG is PLANE for a far plane (row offset off, origin o) whose
// inverse is lane 0 of x, broadcast into dst, which ends with the
// distances; tmp is clobbered.
#define FARREG(off, o, x, dst, tmp) \
	VBROADCASTSS x, dst \
	VMOVUPS      (SI)(off*1), tmp \
	VSUBPS       o, tmp, tmp \
	VMULPS       dst, tmp, dst

// The starts of the one-call queries' walks (RAYCLOSEST's and
// RAYOCCLUDE's start): the root tested at once (ROOTTEST), or, for the NaN
// walks, whose node test is SLAB8NAN's, from ENTRY.
#define ROOTCLOSEST ROOTTEST(56, 8, HITMASK, NOP)
#define ROOTOCCLUDE ROOTTEST(120, 4, HITMASKSEG, ROOTLEAFOCC)

// ROOTLEAFOCC is ROOTTEST's rootleaf for the occlusion walks: a root
// that is one leaf is tested as that leaf. The closest-hit walks keep the
// root's box test (NOP): without it the 8-triangle terrain's and soup's
// primary rays ran 0.97-0.99x (their incoherent rays 1.07-1.09x), 1000
// rotated instances of an 8-triangle soup 0.98x.
#define ROOTLEAFOCC ROOTLEAF(rootnode, X12)
#define ENTRYCLOSEST ENTRY(8, gomust, rleaf)
#define ENTRYOCCLUDE ENTRY(4, gomust, rleaf)

// STARTFINITE and STARTNAN are RAYSTART's and RAYSTARTNAN's checks (the
// latter with INVCLAMP).
#define STARTFINITE(fine) RAYINVFINITE(nonfinite, fine)
#define STARTNAN(fine) DIRNONZERO(gomust) DIRFLUSH(X6, X7, X8, X9) INVCLAMP

// INVCLAMP is inverse (traverse.go) for the NaN walks' set-up: a component
// of the inverse direction (X4) that is infinite where the direction's
// (X1) is not zero, a subnormal one, becomes the largest float32 of its
// sign; the far planes' inverse, that times robustScale, is then infinite
// (RAYPLACE). Lane 3 (1/tMax) is left as it is. It takes RAYINV's
// magnitude mask in X5 and clobbers X6-X9 and CX.
#define INVCLAMP \
	VANDPS       X5, X4, X6 /* |inv| */ \
	MOVL         $0x7f7fffff, CX \
	VMOVD        CX, X7 \
	VBROADCASTSS X7, X7 /* math.MaxFloat32 */ \
	VCMPPS       $1, X6, X7, X6 /* |inv| infinite */ \
	VANDPS       X5, X1, X8 \
	VXORPS       X9, X9, X9 \
	VCMPPS       $4, X9, X8, X8 /* direction not zero */ \
	VANDPS       X8, X6, X6 \
	VINSERTPS    $0x08, X6, X6, X6 /* not lane 3 */ \
	VANDNPS      X4, X5, X9 /* inv's sign */ \
	VORPS        X7, X9, X9 \
	VBLENDVPS    X6, X9, X4, X4

// LANESETUP and LANESETUPNAN are BATCHLANES' set-ups of a lane's ray:
// RAYSETUP, with a ray whose inverse direction has an infinite component
// (rayNotFinite) at lanenotfinite, and its NaN walks', as RAYSTARTNAN's,
// with a zero direction at badray.
#define LANESETUP RAYSETUP(lanenotfinite)

#define LANESETUPNAN \
	RAYINV \
	DIRNONZERO(badray) \
	DIRFLUSH(X6, X7, X8, X9) \
	INVCLAMP \
	RAYPLACE

// DIRNONZERO goes on at bad when every component of the direction (X1,
// X5 the magnitude mask of RAYINV) is zero. It clobbers X6, X7 and CX.
#define DIRNONZERO(bad) \
	VANDPS       X5, X1, X6 \
	VXORPS       X7, X7, X7 \
	VCMPPS       $0, X7, X6, X6 /* direction components of zero */ \
	VMOVMSKPS    X6, CX \
	ANDL         $7, CX \
	CMPL         CX, $7 \
	JEQ          bad

// RAYSTARTNAN is RAYSTART for the walks of SLAB8NAN, which take a ray
// whose inverse direction has infinite components as well, but not a
// zero direction (rayUsable's last check, which RAYINVFINITE makes for
// the others): it goes on at gomust.
#define RAYSTARTNAN(limit, hp) RAYSTARTBY(STARTNAN, limit, hp)

// FRAMED is fusedWalk.framed: set once the walk's frame holds the
// triangle test's constants.
#define FRAMED 106

// FRAMELEAF is where a walk that sets its frame up lazily (walkAVX2,
// occludeAVX2 and the one-call queries) reaches a leaf (rleaf): the first
// time, it broadcasts the triangle test's constants, tMin and tMax into
// the frame (TRIFRAME, when wt is set), then goes on at leaf. Storing
// them before the root's test made that test wait on them at some stack
// depths: Go places the frame anywhere, and when those 256 bytes lay at
// the root node's offset in a 4 KB page, the processor took the node's
// loads for loads of the stores (4K aliasing). Over the 10k terrain a
// ray cost 30% more at about one depth in sixteen.
#define FRAMELEAF(leaf) \
rleaf: \
	CMPB         FRAMED(DI), $0 \
	JNE          leaf \
	MOVQ         48(DI), DX \
	TESTQ        DX, DX \
	JZ           leaf /* LEAFSETUP leaves the leaf to Go */ \
	MOVB         $1, FRAMED(DI) \
	TRIFRAMEY(Y1) \
	VBROADCASTSS 80(DI), Y1 \
	VMOVUPS      Y1, TMIN(SP) \
	VBROADCASTSS 84(DI), Y1 \
	VMOVUPS      Y1, TMAX(SP) \
	JMP          leaf

// RAYDONE ends a one-call query: at finished the walk is over (rayHit
// if it found a hit, else rayMiss), at gomust Go must walk the ray
// (rayGoMust); the status goes to st. A ray whose inverse direction is
// not finite (nonfinite) goes on in its query's NaN walk (tonan).
#define RAYDONE(st, tonan) \
finished: \
	MOVBQZX 105(DI), AX \
	VZEROUPPER \
	MOVQ    AX, st \
	RET \
gomust: \
	VZEROUPPER \
	MOVQ    $2, st \
	RET \
nonfinite: \
	VZEROUPPER \
	tonan

// The tonan of RAYDONE: each finite query's NaN walk, which takes the
// same arguments and starts over with them (a tail call: RET with a
// target leaves the frame and jumps); the NaN walks never go there.
#define TOWALKNAN RET ·rayWalkNaNAVX2(SB)
#define TOOCCLUDENAN RET ·rayOccludeNaNAVX2(SB)
#define TOINTERSECTNAN RET ·rayIntersectNaNAVX2(SB)
#define TOOCCLUDEDNAN RET ·rayOccludedNaNAVX2(SB)
#define NANWALK JMP gomust

// PREFETCHBELOW prefetches the entry below the top of the closest-hit
// walk's stack at BX, the next one popped (the stack's first when there
// is none). Entries are prefetched when pushed, but only the one on top
// of a node's pushes, and a deep entry may have left the cache by its
// pop: single-ray soup incoherent rays 1.07-1.12x. It clobbers AX, CX,
// DX and R8.
#define PREFETCHBELOW \
	MOVQ    56(DI), DX \
	LEAQ    -8(BX), R8 \
	CMPQ    R8, DX \
	CMOVQCS DX, R8 \
	MOVL    0(R8), AX \
	PREFETCHCHILD(0(DI), 16(DI))

// OCCPREFETCHBELOW is PREFETCHBELOW for the occlusion walk's stack of
// 4-byte references.
#define OCCPREFETCHBELOW \
	MOVQ    56(DI), DX \
	LEAQ    -4(BX), R8 \
	CMPQ    R8, DX \
	CMOVQCS DX, R8 \
	MOVL    0(R8), AX \
	PREFETCHCHILD(0(DI), 16(DI))

// SWAP puts the nearer of two children first: a (distance xa, reference
// ra) and b (xb, rb) change places only when b is strictly nearer, so
// that equal ones keep their slot order, as pushSorted keeps it (a
// network of such swaps between neighbours is a stable sort). It clobbers
// AX and X5.
#define SWAP(xa, ra, xb, rb) \
	VUCOMISS xa, xb /* b < a */ \
	MOVL     ra, AX \
	CMOVLCS  rb, ra \
	CMOVLCS  AX, rb \
	VMINSS   xa, xb, X5 \
	VMAXSS   xb, xa, xb \
	VMOVAPS  X5, xa

// PICKTWO makes the nearer of the children in slots CX and R9 cur (R10,
// X0; the first on a tie), chosen without a branch, and stores the
// other's entry at 0(BX), its reference left in R11.
#define PICKTWO \
	MOVL     192(SI)(CX*4), R10 \
	MOVL     192(SI)(R9*4), R11 \
	VMOVD    CX, X2 \
	VMOVD    R9, X3 \
	VPERMPS  Y0, Y3, Y1 \
	VPERMPS  Y0, Y2, Y0 \
	SWAP(X0, R10, X1, R11) \
	MOVL     R11, 0(BX) \
	VMOVSS   X1, 4(BX)

// CHILD loads the reference of the hit child in slot r (a register)
// into r and its entry distance (lane r of Y0) into x (y: the same
// register's 256-bit name).
#define CHILD(r, x, y) \
	VMOVD   r, x \
	VPERMPS Y0, y, y \
	MOVL    192(SI)(r*4), r

// PUTCHILD stores the stack entry of a child (reference r, distance x)
// at off(BX).
#define PUTCHILD(r, x, off) \
	MOVL   r, off(BX) \
	VMOVSS x, off+4(BX)

// NETCUR ends NET3 and NET4: the nearest child (CX, X1) is cur, R12 ends
// at top(BX), one past the entries pushed, and the top one (R9) is
// prefetched.
#define NETCUR(top) \
	LEAQ    top(BX), R12 \
	MOVL    CX, R10 \
	VMOVAPS X1, X0 \
	MOVL    R9, AX \
	PREFETCHCHILD(0(DI), 16(DI))

// NET3 takes three hit children, in slots CX, R9 and R13, as the rank
// path would: sorted by entry distance (ties in slot order) by a network
// of three swaps, the nearest is cur (R10, X0), the others are pushed
// farthest first, R12 ends one past them and the top one is prefetched.
// Three and four children are most of the nodes that hit more than two
// (soup rays: 3 in 11-16% of node tests, 4 in 6-9%, more in 3-7%), and a
// network takes about half the ranks' instructions. It clobbers AX, CX,
// DX, R9, R13 and X1-X5.
#define NET3 \
	CHILD(CX, X1, Y1) \
	CHILD(R9, X2, Y2) \
	CHILD(R13, X3, Y3) \
	SWAP(X1, CX, X2, R9) \
	SWAP(X2, R9, X3, R13) \
	SWAP(X1, CX, X2, R9) \
	PUTCHILD(R13, X3, 0) \
	PUTCHILD(R9, X2, 8) \
	NETCUR(16)

// NET4 is NET3 for four children, in slots CX, R9, R13 and R8, sorted by
// odd-even transposition (six swaps). It clobbers R8 and X1-X5 as well.
#define NET4 \
	CHILD(CX, X1, Y1) \
	CHILD(R9, X2, Y2) \
	CHILD(R13, X3, Y3) \
	CHILD(R8, X4, Y4) \
	SWAP(X1, CX, X2, R9) \
	SWAP(X3, R13, X4, R8) \
	SWAP(X2, R9, X3, R13) \
	SWAP(X1, CX, X2, R9) \
	SWAP(X3, R13, X4, R8) \
	SWAP(X2, R9, X3, R13) \
	PUTCHILD(R8, X4, 0) \
	PUTCHILD(R13, X3, 8) \
	PUTCHILD(R9, X2, 16) \
	NETCUR(24)

// PICKBRANCH and PICKMERGED take the children a node test hit in AX
// (entry distances in Y0) when there are one or two, and jump to three
// when there are more; R12 starts at BX and ends one past the top entry
// pushed. One child is cur; of two, the nearer is cur (the first on a
// tie) and the other is pushed and prefetched. PICKBRANCH branches
// between one and two, PICKMERGED takes both on one path, storing an
// entry for one as well and growing the stack only for two: in a batch,
// whose eight walks take turns, that branch is beyond prediction
// (incoherent batches 1.05-1.10x merged), while one walk predicts it well
// enough that the longer path for one child costs more (1k scenes
// 0.95-0.98x).
#define PICKBRANCH \
	MOVQ  BX, R12 \
	BSFQ  AX, CX \
	LEAQ  -1(AX), R8 \
	ANDQ  AX, R8 \
	JNZ   several \
	MOVL    192(SI)(CX*4), R10 \
	VMOVD   CX, X1 \
	VPERMPS Y0, Y1, Y0 /* near[CX] in lane 0 */ \
	JMP   done \
several: \
	PREFETCHENDS(R13, R10) \
	BSFQ  R8, R9 \
	LEAQ  -1(R8), R11 \
	TESTQ R8, R11 \
	JNZ   three \
	PICKTWO \
	ADDQ     $8, R12 \
	MOVL     R11, AX /* the pushed child again, after PREFETCHENDS: */ \
	PREFETCHCHILD(0(DI), 16(DI)) /* without it 0.97-1.02x, no gain */ \
	JMP      done

#define PICKMERGED \
	MOVQ  BX, R12 \
	BSFQ  AX, CX \
	LEAQ  -1(AX), R8 \
	ANDQ  AX, R8 \
	BSFQ  R8, R9 \
	CMOVQEQ CX, R9 /* one child: the second is the first */ \
	LEAQ  -1(R8), R11 \
	TESTQ R8, R11 \
	JNZ   three \
	PICKTWO \
	LEAQ     8(BX), DX \
	TESTQ    R8, R8 \
	CMOVQNE  DX, R12 /* the stack grows for two only */ \
	MOVL     R11, AX \
	PREFETCHCHILD(0(DI), 16(DI)) \
	JMP      done

// COMMIT commits the hit of lane R8 (t in X1) of the leaf whose first
// slot is in R13 (its rows at SI, R11 three rows' bytes), as leafHits.hit
// gives it, into the fastHit at 72(DI), with the primitive id from the
// leaf's tenth row (leafRows): found, tMax and the frame's TMAX follow it.
// (Go read primIndex[slot] after the walk, a miss of its own on large
// scenes even when prefetched here: the 1M terrain's incoherent rays ran
// 1.17x and its primary rays 1.11x without it, cmd/embreecmp.) It takes
// the lane's det, ev and ew from
// LEAFCANDS' vectors, still in Y6, Y10 and Y11 (a permute a lane), as
// the candidate loop takes t from Y7: storing the four vectors to the
// frame and reading a lane back, as both did before, put a 32-byte store
// and a 4-byte load on the way to every commit (primary rays 1.03-1.05x
// without them on an AMD Zen 3, BenchmarkTrace). It clobbers AX, DX,
// X2-X6 and Y0.
#define COMMIT \
	VMOVD      R8, X5 \
	VPERMPS    Y6, Y5, Y2 /* det of lane R8 */ \
	VPERMPS    Y10, Y5, Y4 /* ev */ \
	VPERMPS    Y11, Y5, Y5 /* ew */ \
	MOVL       $0x3f800000, DX \
	VMOVD      DX, X3 \
	VDIVSS     X2, X3, X3 /* 1 / det */ \
	VMULSS     X4, X3, X4 \
	VMULSS     X5, X3, X5 \
	MOVQ       72(DI), DX \
	VMOVSS     X1, 0(DX) \
	VMOVSS     X4, 4(DX) \
	VMOVSS     X5, 8(DX) \
	LEAQ       (R13)(R8*1), AX \
	MOVL       AX, 12(DX) \
	LEAQ       (R11)(R11*2), AX /* the primitive id row, past nine */ \
	ADDQ       SI, AX \
	MOVL       (AX)(R8*4), AX \
	XORL       $0x40000000, AX /* primRowBias */ \
	MOVL       AX, 20(DX) \
	VXORPS     X6, X6, X6 \
	VUCOMISS   X6, X2 /* det > 0: front */ \
	SETHI      16(DX) \
	MOVB       $1, 105(DI) \
	VMOVSS     X1, 84(DI) \
	VBROADCASTSS X1, Y0 \
	VMOVUPS    Y0, TMAX(SP)

// WALKSTEPS is walkAVX2's loop from the node test on, with DI at the
// walk's state: a node (loop) or a leaf (leaf) of cur in R10 and X0, the
// stack at BX. When cur is next a leaf it goes on at toleaf, a node at
// tonode, or, when cur was popped off the stack, after onpop at popleaf
// and popnode (walkAVX2 goes round, batchWalkAVX2 moves to another ray,
// which prefetches cur at the switch); at
// gomust where Go must take over (cur saved, or at CURN and CURF for a
// leaf) and at finished when the walk is over. The children hit, as
// walkFiniteOn takes them (nodeWalk's PUSHHITS): one is cur; of two, the
// nearer is cur (the first on a tie) and the other is pushed (both by
// pick, PICKBRANCH or PICKMERGED); more are
// pushed as pushSorted pushes them and cur is popped off the top. The
// pushed entries left on the stack are prefetched. Three or four are
// sorted by a network of swaps (NET3, NET4, out of the way at the end:
// inline, they moved the loop enough to cost terrain primary rays 2%);
// more are pushed without a branch per child: each hit lane's place on the stack is
// its rank, the number of hit children that pushSorted puts below it
// (farther, or as near and in a later slot), from one broadcast compare
// per child; lanes not hit take the eighth place, above the hit ones
// (there are at most seven then), which the walk overwrites later. All
// eight entries are stored, the nearest one is popped as cur, and the one
// below it, next to be popped, is prefetched (the second below too cost
// the soups' single rays 1-3%, BenchmarkTrace). Leaves commit as the Go
// loop does: each candidate in slot order whose t is below the current
// tMax.
#define WALKSTEPS(slab, pick, toleaf, tonode, popleaf, popnode, onpop, gomust, finished) \
	WALKSTEPSAT(slab, pick, toleaf, tonode, popleaf, popnode, onpop, gomust, finished, COMMITNEAREST)

// COMMITNEAREST is what WALKSTEPS does with a leaf's candidates (in AX,
// their t in Y7): it commits the one with the least t below the current
// tMax, the first in slot order on a tie, as the Go loop does, and goes
// on at leafdone.
#define COMMITNEAREST \
	VMOVSS   84(DI), X1 \
	MOVQ     $-1, R8 \
cand: \
	BSFQ     AX, CX \
	VMOVD    CX, X2 \
	VPERMPS  Y7, Y2, Y0 /* t of lane CX, from LEAFCANDS' Y7 */ \
	VUCOMISS X1, X0 /* t < tMax */ \
	JCC      nextcand \
	VMOVAPS  X0, X1 \
	MOVQ     CX, R8 \
nextcand: \
	LEAQ  -1(AX), CX \
	ANDQ  CX, AX \
	JNZ   cand \
	TESTQ R8, R8 \
	JS    leafdone \
	COMMIT

// YIELDCANDS is what the yield walks do with a leaf that has candidates
// (in AX; t, ev, ew and det in Y7, Y10, Y11 and Y6, the edge cases
// decided): they store the test's values to the walk's leafHits, as
// leafTestAVX2 does, and the candidates to its cand, and leave the leaf
// to Go (at gomust, through leafout), which decides each candidate.
#define YIELDCANDS \
	MOVQ    120(DI), DX \
	VMOVUPS Y7, 0(DX) \
	VMOVUPS Y10, 32(DX) \
	VMOVUPS Y11, 64(DX) \
	VMOVUPS Y6, 96(DX) \
	MOVQ    AX, 128(DI) \
	JMP     leafout

// WALKSTEPSAT is WALKSTEPS with atcands run on a leaf's candidates
// (COMMITNEAREST, YIELDCANDS); it goes on at leafdone.
#define WALKSTEPSAT(slab, pick, toleaf, tonode, popleaf, popnode, onpop, gomust, finished, atcands) \
loop: \
	/* cur (R10, X0) is an inner node that passed the tMax check. */ \
	NODEBY(slab, gomust, pop) \
rooted: \
	/* R12 ends one past the top entry pushed. */ \
	pick \
three: \
	/* Three or four: a stable network (NET3, NET4); more: by rank. */ \
	ANDQ  R8, R11 /* the lanes past the first two */ \
	BSFQ  R11, R13 \
	LEAQ  -1(R11), DX \
	ANDQ  R11, DX /* past the first three */ \
	JZ    net3 \
	LEAQ  -1(DX), R11 \
	TESTQ DX, R11 \
	JZ    net4 \
	POPCNTQ   AX, R12 /* the children hit */ \
	VMOVDQU   Y1, HITV(SP) /* the lanes hit */ \
	VMOVAPS   Y0, Y2 /* the entry distances */ \
	VPXOR     Y3, Y3, Y3 \
	RANK(0) \
	RANK(1) \
	RANK(2) \
	RANK(3) \
	RANK(4) \
	RANK(5) \
	RANK(6) \
	RANK(7) \
	VMOVDQU     HITV(SP), Y1 \
	VMOVDQU     sevens<>(SB), Y0 \
	VBLENDVPS   Y1, Y3, Y0, Y3 /* lanes not hit: the eighth place, above the top */ \
	VMOVDQU     192(SI), Y1 \
	VPUNPCKLDQ  Y2, Y1, Y4 /* entries of lanes 0, 1, 4, 5 */ \
	VPUNPCKHDQ  Y2, Y1, Y5 /* entries of lanes 2, 3, 6, 7 */ \
	PUTENTRY(X4, X3, 0, 0) \
	PUTENTRY(X4, X3, 1, 1) \
	PUTENTRY(X5, X3, 0, 2) \
	PUTENTRY(X5, X3, 1, 3) \
	VEXTRACTI128 $1, Y3, X3 \
	VEXTRACTI128 $1, Y4, X4 \
	VEXTRACTI128 $1, Y5, X5 \
	PUTENTRY(X4, X3, 0, 0) \
	PUTENTRY(X4, X3, 1, 1) \
	PUTENTRY(X5, X3, 0, 2) \
	PUTENTRY(X5, X3, 1, 3) \
	LEAQ  (BX)(R12*8), BX \
	MOVL  -16(BX), AX \
	PREFETCHCHILD(0(DI), 16(DI)) \
	JMP   pop \
done: \
	MOVQ     R12, BX \
	VUCOMISS X0, X14 /* cur.near <= tMax */ \
	JCS      pop \
	TESTL    R10, R10 \
	JS       toleaf \
	JMP      tonode \
pop: \
	CMPQ     BX, 56(DI) \
	JLS      finished \
	SUBQ     $8, BX \
	MOVL     0(BX), R10 \
	VMOVSS   4(BX), X0 \
	VUCOMISS X0, X14 \
	JCS      pop \
	onpop \
	TESTL    R10, R10 \
	JS       popleaf \
	JMP      popnode \
leaf: \
	/* cur is a leaf that passed the check: test its triangles. */ \
	LEAFCANDS(leafout, leafedge, leafedgeback, leafdone, leafcands) \
	atcands \
leafdone: \
	LOADNODE \
	JMP pop \
leafedge: \
	LEAFEDGECASE(leafedgeback, leafdone, leafcands) \
leafout: \
	MOVL   CURN(SP), R10 \
	VMOVSS CURF(SP), X0 \
	JMP    gomust \
net4: \
	BSFQ  DX, R8 \
	NET4 \
	JMP   done \
net3: \
	NET3 \
	JMP   done

// OCCPICKBRANCH and OCCPICKMERGED take the child a node test hit in AX
// (lanes in Y3, entry and exit distances in Y0 and Y1) whose crossing
// reaches farthest (REACH) into CX and the others into R8.
// OCCPICKBRANCH skips REACH when one child is hit: one walk predicts
// that branch well, and REACH, some 12 cycles on the way to the next
// node, would else slow the rays that miss everything (single shadow
// rays over the 1k terrain 0.91x without the branch, 0.99x with it).
// Where it runs REACH, it first prefetches the first and the last child
// hit (PREFETCHENDS). OCCPICKMERGED always runs REACH: in a batch, whose
// walks take turns, the branch is beyond prediction (terrain shadow
// batches 0.89-0.92x with it); it does not prefetch (the batches, whose
// walks' steps interleave, were not timed with PREFETCHENDS).
#define OCCPICKBRANCH \
	BSFQ  AX, CX \
	LEAQ  -1(AX), R8 \
	ANDQ  AX, R8 \
	JZ    chosen \
	PREFETCHENDS(R11, R13) \
	REACH \
	MOVQ  AX, R8 \
	BTRQ  CX, R8 \
chosen:

#define OCCPICKMERGED \
	REACH \
	MOVQ  AX, R8 \
	BTRQ  CX, R8

// OCCPICKFIRST takes the first child hit (AX) into CX and the others
// into R8: the order of the occlusion walks of rays whose slab distances
// may be NaN (BLAS.firstHit), where reaches order nothing (SLAB8NAN).
#define OCCPICKFIRST \
	BSFQ AX, CX \
	MOVQ AX, R8 \
	BTRQ CX, R8

// OCCLUDESTEPS is occludeAVX2's loop from the node test on, as
// WALKSTEPS (with the same parameters, pick one of OCCPICKBRANCH and
// OCCPICKMERGED): the child whose crossing reaches farthest is cur
// (reachChild) and the others are pushed last slot first, so that they
// are popped in slot order: children are ordered by decreasing primitive
// count, and the larger subtrees are the likelier to hold an occluder
// (popping them so made the soups' single shadow rays 1.07-1.10x at 1M).
// Taking the longest crossing first made the soups' shadow rays
// 1.03-1.11x one at a time and 1.04-1.17x in batches, the terrains'
// within 2% (BenchmarkTrace*, four rounds); adding the exit distance to
// the length (REACH) took the 1M and 2M soups' 1.25x again (embreecmp). No branch: all eight references are
// compressed by the table's indices for the hit mask and stored at once;
// the entry on top, the next one popped, is prefetched. The walk usually finds an occluder under cur
// and pops nothing: prefetching the second entry too cost shadow rays
// 1-2% one at a time and 2-9% in batches (BenchmarkTrace*). A leaf with a triangle that hits sets
// found and ends the walk (finished); with first (the walk of firstHit)
// it commits its first candidate in slot order, as firstCandidate does.
#define OCCLUDESTEPS(slab, pick, toleaf, tonode, popleaf, popnode, onpop, gomust, finished) \
	OCCLUDESTEPSAT(slab, pick, toleaf, tonode, popleaf, popnode, onpop, gomust, finished, OCCLUDEHIT(finished))

// OCCLUDEHIT is what OCCLUDESTEPS does with a leaf's candidates (in AX,
// their t in Y7): it sets found and, with first, commits the first
// candidate in slot order, and goes on at finished.
#define OCCLUDEHIT(finished) \
	MOVB $1, 105(DI) /* a triangle hits */ \
	CMPB 104(DI), $0 \
	JEQ  finished \
	BSFQ   AX, R8 \
	VMOVD  R8, X2 \
	VPERMPS Y7, Y2, Y1 /* t of lane R8 */ \
	COMMIT \
	JMP  finished

// OCCLUDESTEPSAT is OCCLUDESTEPS with atcands run on a leaf's candidates
// (OCCLUDEHIT, YIELDCANDS).
#define OCCLUDESTEPSAT(slab, pick, toleaf, tonode, popleaf, popnode, onpop, gomust, finished, atcands) \
loop: \
	NODEBY(slab, gomust, pop) \
rooted: \
	pick /* cur: the child reaching farthest; R8: the others */ \
	MOVL    192(SI)(CX*4), R10 \
	POPCNTQ R8, R9 /* without a branch: all eight refs */ \
	SHLQ    $5, R8 /* compressed by the table's indices */ \
	ADDQ    112(DI), R8 /* for the mask, stored at once */ \
	VMOVDQU (R8), Y1 \
	VMOVDQU 192(SI), Y2 \
	VPERMD  Y2, Y1, Y2 \
	VMOVDQU Y2, 0(BX) \
	LEAQ    (BX)(R9*4), BX \
	/* Prefetch the entry on top, the next one popped (when none was */ \
	/* pushed, one already there or the stack's first). */ \
	MOVQ    56(DI), DX \
	LEAQ    -4(BX), R8 \
	CMPQ    R8, DX \
	CMOVQCS DX, R8 \
	MOVL    0(R8), AX \
	PREFETCHCHILD(0(DI), 16(DI)) \
next: \
	TESTL R10, R10 \
	JS    toleaf \
	JMP   tonode \
pop: \
	CMPQ BX, 56(DI) \
	JLS  finished \
	SUBQ $4, BX \
	MOVL 0(BX), R10 \
	onpop \
	TESTL R10, R10 \
	JS    popleaf \
	JMP   popnode \
leaf: \
	VXORPS X0, X0, X0 \
	LEAFCANDS(leafout, leafedge, leafedgeback, leafdone, leafcands) \
	atcands \
leafdone: \
	LOADNODE \
	JMP   pop \
leafedge: \
	LEAFEDGECASE(leafedgeback, leafdone, leafcands) \
leafout: \
	MOVL CURN(SP), R10 \
	JMP  gomust

// RAYCLOSEST and RAYOCCLUDE are the rest of a one-call query once its
// lane is set up (RAYQUERY or RAYQUERYRAY): walkAVX2's steps or
// occludeAVX2's (first read from the argument first) from the root,
// leaves through FRAMELEAF, the status to status (RAYDONE).
#define RAYCLOSEST(slab, status, tonan, start) \
	start \
	WALKSTEPS(slab, PICKBRANCH, rleaf, loop, rleaf, loop, PREFETCHBELOW, gomust, finished) \
	FRAMELEAF(leaf) \
	RAYDONE(status, tonan)

#define RAYOCCLUDE(slab, pick, first, status, tonan, start) \
	MOVB  first, AX \
	MOVB  AX, 104(DI) \
	start \
	OCCLUDESTEPS(slab, pick, rleaf, loop, rleaf, loop, OCCPREFETCHBELOW, gomust, finished) \
	FRAMELEAF(leaf) \
	RAYDONE(status, tonan)

// NWSLAB8AVX2 is nodeWalkAVX2's node test for NODEWALKLOOP
// (nodewalk_amd64.h): SLAB8 with the entry distances stored to the frame.
#define NWSLAB8AVX2 \
	MOVQ    q+16(FP), DX \
	SLAB8 \
	VMOVUPS Y0, 0(SP)

// WALKEXITS are the returns of walkAVX2 and walkYieldAVX2: at out, cur
// (R10, X0) and the stack's height (BX, 8-byte entries) saved to the
// fusedWalk at DI and more true; at empty, an empty stack and more false.
#define WALKEXITS EXITSBY(3, SAVENEAR)

// OCCLUDEEXITS are WALKEXITS for occludeAVX2 and occludeYieldAVX2, whose
// stacks hold 4-byte references (cur's node alone saved).
#define OCCLUDEEXITS EXITSBY(2, NOP)

// SAVENEAR saves cur's near distance (X0) to the fusedWalk at DI.
#define SAVENEAR VMOVSS X0, 92(DI)

// EXITSBY are the walks' returns for entries of 1<<shift bytes, with
// savecur saving what cur holds besides its node.
#define EXITSBY(shift, savecur) \
out: \
	MOVL R10, 88(DI) \
	savecur \
	SUBQ 56(DI), BX \
	SHRQ $shift, BX \
	MOVQ BX, 96(DI) \
	VZEROUPPER \
	MOVB $1, more+8(FP) \
	RET \
empty: \
	MOVQ $0, 96(DI) \
	VZEROUPPER \
	MOVB $0, more+8(FP) \
	RET

// func walkAVX2(w *fusedWalk) (more bool)
//
// The loop keeps cur's node in R10 and near distance in X0, &stack[sp] in
// BX and w in DI.
TEXT ·walkAVX2(SB), NOSPLIT, $672-9
	SETUP
	VMOVSS 92(DI), X0
	ENTRY(8, out, rleaf)

	WALKSTEPS(SLAB8, PICKBRANCH, rleaf, loop, rleaf, loop, PREFETCHBELOW, out, empty)
	FRAMELEAF(leaf)

	WALKEXITS

// func walkYieldAVX2(w *fusedWalk) (more bool)
//
// walkAVX2 that leaves each leaf with candidates to Go instead of
// committing one (YIELDCANDS): the Traversal's walk.
TEXT ·walkYieldAVX2(SB), NOSPLIT, $672-9
	SETUP
	VMOVSS 92(DI), X0
	ENTRY(8, out, rleaf)

	WALKSTEPSAT(SLAB8, PICKBRANCH, rleaf, loop, rleaf, loop, PREFETCHBELOW, out, empty, YIELDCANDS)
	FRAMELEAF(leaf)

	WALKEXITS

// func occludeAVX2(w *fusedWalk) (more bool)
//
// The loop keeps cur in R10, &stack[sp] in BX (uint32 entries), the hit
// mask, once cur is taken from it, in R8, and w in DI.
TEXT ·occludeAVX2(SB), NOSPLIT, $672-9
	SETUP
	ENTRY(4, out, rleaf)

	OCCLUDESTEPS(SLAB8SEG, OCCPICKBRANCH, rleaf, loop, rleaf, loop, OCCPREFETCHBELOW, out, empty)
	FRAMELEAF(leaf)

	OCCLUDEEXITS

// func occludeYieldAVX2(w *fusedWalk) (more bool)
//
// occludeAVX2 that leaves each leaf with candidates to Go instead of
// ending the walk (YIELDCANDS): the Traversal's first-hit walk.
TEXT ·occludeYieldAVX2(SB), NOSPLIT, $672-9
	SETUP
	ENTRY(4, out, rleaf)

	OCCLUDESTEPSAT(SLAB8SEG, OCCPICKBRANCH, rleaf, loop, rleaf, loop, OCCPREFETCHBELOW, out, empty, YIELDCANDS)
	FRAMELEAF(leaf)

	OCCLUDEEXITS

// func rayWalkAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, h *fastHit) (status int)
//
// It sets a lane up for the ray (RAYQUERY) and runs walkAVX2's steps on
// it from the root, in its own frame.
TEXT ·rayWalkAVX2(SB), $1760-72
	NO_LOCAL_POINTERS
	RAYQUERY(RAYSTART, 56, h+56(FP))
	RAYCLOSEST(SLAB8, status+64(FP), TOWALKNAN, ROOTCLOSEST)

// func rayOccludeAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, first bool, h *fastHit) (status int)
//
// rayWalkAVX2 for occludeAVX2's steps: rayHit for a ray that hits a
// triangle, which, with first, it commits into h (firstHit's walk).
TEXT ·rayOccludeAVX2(SB), $1760-80
	NO_LOCAL_POINTERS
	RAYQUERY(RAYSTART, 120, h+64(FP))
	RAYOCCLUDE(SLAB8SEG, OCCPICKBRANCH, first+56(FP), status+72(FP), TOOCCLUDENAN, ROOTOCCLUDE)

// func rayIntersectAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, h *fastHit) (status int)
//
// rayWalkAVX2 for the Ray at r, which it checks and places itself
// (RAYQUERYRAY).
TEXT ·rayIntersectAVX2(SB), $1760-56
	NO_LOCAL_POINTERS
	RAYQUERYRAY(RAYSTART, 56, h+40(FP))
	RAYCLOSEST(SLAB8, status+48(FP), TOINTERSECTNAN, ROOTCLOSEST)

// func rayOccludedAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, first bool, h *fastHit) (status int)
//
// rayOccludeAVX2 for the Ray at r, as rayIntersectAVX2.
TEXT ·rayOccludedAVX2(SB), $1760-64
	NO_LOCAL_POINTERS
	RAYQUERYRAY(RAYSTART, 120, h+48(FP))
	RAYOCCLUDE(SLAB8SEG, OCCPICKBRANCH, first+40(FP), status+56(FP), TOOCCLUDEDNAN, ROOTOCCLUDE)

// func rayWalkNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, h *fastHit) (status int)
//
// rayWalkAVX2 for rays whose inverse direction has infinite components
// (a zero or tiny direction component), with SLAB8NAN's node test.
TEXT ·rayWalkNaNAVX2(SB), $1760-72
	NO_LOCAL_POINTERS
	RAYQUERY(RAYSTARTNAN, 56, h+56(FP))
	RAYCLOSEST(SLAB8NAN, status+64(FP), NANWALK, ENTRYCLOSEST)

// func rayOccludeNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, first bool, h *fastHit) (status int)
//
// rayOccludeAVX2 as rayWalkNaNAVX2, taking each node's first child hit
// first (OCCPICKFIRST).
TEXT ·rayOccludeNaNAVX2(SB), $1760-80
	NO_LOCAL_POINTERS
	RAYQUERY(RAYSTARTNAN, 120, h+64(FP))
	RAYOCCLUDE(SLAB8NAN, OCCPICKFIRST, first+56(FP), status+72(FP), NANWALK, ENTRYOCCLUDE)

// func rayIntersectNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, h *fastHit) (status int)
TEXT ·rayIntersectNaNAVX2(SB), $1760-56
	NO_LOCAL_POINTERS
	RAYQUERYRAY(RAYSTARTNAN, 56, h+40(FP))
	RAYCLOSEST(SLAB8NAN, status+48(FP), NANWALK, ENTRYCLOSEST)

// func rayOccludedNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, first bool, h *fastHit) (status int)
TEXT ·rayOccludedNaNAVX2(SB), $1760-64
	NO_LOCAL_POINTERS
	RAYQUERYRAY(RAYSTARTNAN, 120, h+48(FP))
	RAYOCCLUDE(SLAB8NAN, OCCPICKFIRST, first+40(FP), status+56(FP), NANWALK, ENTRYOCCLUDE)

// func batchWalkAVX2(q *batchQuery)
//
// It walks q's rays as walkAVX2 walks one, eight at a time, each in a
// lane of its own, one node or leaf of each in turn: a lane that has
// found its next node or leaf prefetches it and yields to the next, so
// that the eight walks' cache misses overlap. Each walk takes the steps it
// would take alone, so every answer is walkAVX2's. It writes each ray's
// result to q.status (rayMiss, rayHit, or rayGoMust for a ray Go must
// trace) and the hit of each rayHit to q.hits.
TEXT ·batchWalkAVX2(SB), $8960-8
	NO_LOCAL_POINTERS
	BATCHINIT(56)
	RESUME(8)
	WALKSTEPS(SLAB8, PICKMERGED, yield, yield, yield, yield, NOP, lanego, lanedone)
	BATCHLANES(3, LANESETUP)

// func batchOccludeAVX2(q *batchQuery)
//
// batchWalkAVX2 for occludeAVX2's walks: status rayHit for a ray that a
// triangle occludes.
TEXT ·batchOccludeAVX2(SB), $8960-8
	NO_LOCAL_POINTERS
	BATCHINIT(120)
	RESUME(4)
	// A walk yields after a node, not after a pop: occlusion batches ran
	// 1.05-1.06x faster so, closest-hit ones 0.85-0.99x (their popped
	// entries are more often cold).
	OCCLUDESTEPS(SLAB8SEG, OCCPICKMERGED, yield, yield, resumeleaf, loop, OCCPREFETCHBELOW, lanego, lanedone)
	BATCHLANES(2, LANESETUP)

// func batchWalkNaNAVX2(q *batchQuery)
//
// batchWalkAVX2 for rays whose inverse direction has infinite components,
// with rayWalkNaNAVX2's walks (SLAB8NAN); batchWalkAVX2 answers them
// rayNotFinite.
TEXT ·batchWalkNaNAVX2(SB), $8960-8
	NO_LOCAL_POINTERS
	BATCHINIT(56)
	RESUME(8)
	WALKSTEPS(SLAB8NAN, PICKMERGED, yield, yield, yield, yield, NOP, lanego, lanedone)
	BATCHLANES(3, LANESETUPNAN)

// func batchOccludeNaNAVX2(q *batchQuery)
//
// batchOccludeAVX2 with rayOccludeNaNAVX2's walks (SLAB8NAN,
// OCCPICKFIRST).
TEXT ·batchOccludeNaNAVX2(SB), $8960-8
	NO_LOCAL_POINTERS
	BATCHINIT(120)
	RESUME(4)
	OCCLUDESTEPS(SLAB8NAN, OCCPICKFIRST, yield, yield, resumeleaf, loop, OCCPREFETCHBELOW, lanego, lanedone)
	BATCHLANES(2, LANESETUPNAN)

// laneBits holds 1 << j in lane j: a mask's lanes, broadcast and
// compared with it (LEAFEDGECASE).
DATA laneBits<>+0(SB)/4, $1
DATA laneBits<>+4(SB)/4, $2
DATA laneBits<>+8(SB)/4, $4
DATA laneBits<>+12(SB)/4, $8
DATA laneBits<>+16(SB)/4, $16
DATA laneBits<>+20(SB)/4, $32
DATA laneBits<>+24(SB)/4, $64
DATA laneBits<>+28(SB)/4, $128
GLOBL laneBits<>(SB), RODATA|NOPTR, $32

// plusZero is added to a ray's origin and tMin: +0 to the origin, as
// identityPoint adds it, and -0 to tMin, which leaves it as it is.
DATA plusZero<>+0(SB)/4, $0
DATA plusZero<>+4(SB)/4, $0
DATA plusZero<>+8(SB)/4, $0
DATA plusZero<>+12(SB)/4, $0x80000000
GLOBL plusZero<>(SB), RODATA|NOPTR, $16

// robust is robustScale as a float32 (TestRayAVX2Constants).
DATA robust<>+0(SB)/4, $0x3f800004
GLOBL robust<>(SB), RODATA|NOPTR, $4

// two22 is 2^22 in four lanes (RAYINVFINITE).
DATA two22<>+0(SB)/4, $0x4a800000
DATA two22<>+4(SB)/4, $0x4a800000
DATA two22<>+8(SB)/4, $0x4a800000
DATA two22<>+12(SB)/4, $0x4a800000
GLOBL two22<>(SB), RODATA|NOPTR, $16

// shearTab is shearAxes as 16-byte entries kx, ky, kz, kz (4 bytes each,
// the origin's and direction's permutation in watertightRay's order),
// indexed by 2*kz + (d[kz] < 0).
DATA shearTab<>+0(SB)/4, $1
DATA shearTab<>+4(SB)/4, $2
DATA shearTab<>+8(SB)/4, $0
DATA shearTab<>+12(SB)/4, $0
DATA shearTab<>+16(SB)/4, $2
DATA shearTab<>+20(SB)/4, $1
DATA shearTab<>+24(SB)/4, $0
DATA shearTab<>+28(SB)/4, $0
DATA shearTab<>+32(SB)/4, $2
DATA shearTab<>+36(SB)/4, $0
DATA shearTab<>+40(SB)/4, $1
DATA shearTab<>+44(SB)/4, $1
DATA shearTab<>+48(SB)/4, $0
DATA shearTab<>+52(SB)/4, $2
DATA shearTab<>+56(SB)/4, $1
DATA shearTab<>+60(SB)/4, $1
DATA shearTab<>+64(SB)/4, $0
DATA shearTab<>+68(SB)/4, $1
DATA shearTab<>+72(SB)/4, $2
DATA shearTab<>+76(SB)/4, $2
DATA shearTab<>+80(SB)/4, $1
DATA shearTab<>+84(SB)/4, $0
DATA shearTab<>+88(SB)/4, $2
DATA shearTab<>+92(SB)/4, $2
GLOBL shearTab<>(SB), RODATA|NOPTR, $96

// func slabTestAVX2(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) (mask uint)
TEXT ·slabTestAVX2(SB), NOSPLIT, $0-40
	MOVQ    n+0(FP), SI
	PREFETCHT0 192(SI)       // the references, which the caller reads next
	MOVQ    q+8(FP), DX
	LOADSLAB
	VMOVSS       tMin+16(FP), X12
	VBROADCASTSS X12, Y12
	VMOVSS       tMax+20(FP), X14
	VBROADCASTSS X14, Y14
	FARMAX
	SLAB8
	MOVQ    near+24(FP), DX
	VMOVUPS Y0, 0(DX)
	VZEROUPPER
	MOVQ    AX, mask+32(FP)
	RET

// func leafTestAVX2(w *watertightRay, leaf unsafe.Pointer, n int, tMin, tMax float32, out *leafHits) (cand, edge uint)
TEXT ·leafTestAVX2(SB), NOSPLIT, $448-56
	MOVQ         w+0(FP), DX
	TRIFRAME
	VMOVSS       tMin+24(FP), X0
	VBROADCASTSS X0, Y0
	VMOVUPS      Y0, TMIN(SP)
	VMOVSS       tMax+28(FP), X0
	VBROADCASTSS X0, Y0
	VMOVUPS      Y0, TMAX(SP)
	MOVQ         leaf+8(FP), SI
	MOVQ         n+16(FP), R12
	MOVQ         R12, R11
	SHLQ         $2, R11     // row stride in bytes
	MOVQ         16(DX), R8
	IMULQ        R11, R8
	MOVQ         24(DX), R9
	IMULQ        R11, R9
	MOVQ         32(DX), R10
	IMULQ        R11, R10
	LEAQ         (R11)(R11*2), R11
	LEAFEDGES
	LEAFT
	MOVQ         out+32(FP), DX
	VMOVUPS      Y7, 0(DX)
	VMOVUPS      Y10, 32(DX)
	VMOVUPS      Y11, 64(DX)
	VMOVUPS      Y6, 96(DX)
	LEAFLANES
	VMOVMSKPS    Y8, AX
	VMOVMSKPS    Y5, CX
	NOTQ         CX
	ANDQ         CX, AX
	VMOVMSKPS    Y4, CX
	ORQ          CX, AX
	ANDQ         R9, AX
	ANDQ         R9, CX
	VZEROUPPER
	MOVQ         AX, cand+40(FP)
	MOVQ         CX, edge+48(FP)
	RET

// laneIndex holds, for each lane j, eight copies of j (VPERMPS indices
// that broadcast lane j); slotsBelow, for each j, all ones in the lanes
// below j.
DATA laneIndex<>+0(SB)/4, $0
DATA laneIndex<>+4(SB)/4, $0
DATA laneIndex<>+8(SB)/4, $0
DATA laneIndex<>+12(SB)/4, $0
DATA laneIndex<>+16(SB)/4, $0
DATA laneIndex<>+20(SB)/4, $0
DATA laneIndex<>+24(SB)/4, $0
DATA laneIndex<>+28(SB)/4, $0
DATA laneIndex<>+32(SB)/4, $1
DATA laneIndex<>+36(SB)/4, $1
DATA laneIndex<>+40(SB)/4, $1
DATA laneIndex<>+44(SB)/4, $1
DATA laneIndex<>+48(SB)/4, $1
DATA laneIndex<>+52(SB)/4, $1
DATA laneIndex<>+56(SB)/4, $1
DATA laneIndex<>+60(SB)/4, $1
DATA laneIndex<>+64(SB)/4, $2
DATA laneIndex<>+68(SB)/4, $2
DATA laneIndex<>+72(SB)/4, $2
DATA laneIndex<>+76(SB)/4, $2
DATA laneIndex<>+80(SB)/4, $2
DATA laneIndex<>+84(SB)/4, $2
DATA laneIndex<>+88(SB)/4, $2
DATA laneIndex<>+92(SB)/4, $2
DATA laneIndex<>+96(SB)/4, $3
DATA laneIndex<>+100(SB)/4, $3
DATA laneIndex<>+104(SB)/4, $3
DATA laneIndex<>+108(SB)/4, $3
DATA laneIndex<>+112(SB)/4, $3
DATA laneIndex<>+116(SB)/4, $3
DATA laneIndex<>+120(SB)/4, $3
DATA laneIndex<>+124(SB)/4, $3
DATA laneIndex<>+128(SB)/4, $4
DATA laneIndex<>+132(SB)/4, $4
DATA laneIndex<>+136(SB)/4, $4
DATA laneIndex<>+140(SB)/4, $4
DATA laneIndex<>+144(SB)/4, $4
DATA laneIndex<>+148(SB)/4, $4
DATA laneIndex<>+152(SB)/4, $4
DATA laneIndex<>+156(SB)/4, $4
DATA laneIndex<>+160(SB)/4, $5
DATA laneIndex<>+164(SB)/4, $5
DATA laneIndex<>+168(SB)/4, $5
DATA laneIndex<>+172(SB)/4, $5
DATA laneIndex<>+176(SB)/4, $5
DATA laneIndex<>+180(SB)/4, $5
DATA laneIndex<>+184(SB)/4, $5
DATA laneIndex<>+188(SB)/4, $5
DATA laneIndex<>+192(SB)/4, $6
DATA laneIndex<>+196(SB)/4, $6
DATA laneIndex<>+200(SB)/4, $6
DATA laneIndex<>+204(SB)/4, $6
DATA laneIndex<>+208(SB)/4, $6
DATA laneIndex<>+212(SB)/4, $6
DATA laneIndex<>+216(SB)/4, $6
DATA laneIndex<>+220(SB)/4, $6
DATA laneIndex<>+224(SB)/4, $7
DATA laneIndex<>+228(SB)/4, $7
DATA laneIndex<>+232(SB)/4, $7
DATA laneIndex<>+236(SB)/4, $7
DATA laneIndex<>+240(SB)/4, $7
DATA laneIndex<>+244(SB)/4, $7
DATA laneIndex<>+248(SB)/4, $7
DATA laneIndex<>+252(SB)/4, $7
GLOBL laneIndex<>(SB), RODATA|NOPTR, $256

DATA slotsBelow<>+0(SB)/4, $0
DATA slotsBelow<>+4(SB)/4, $0
DATA slotsBelow<>+8(SB)/4, $0
DATA slotsBelow<>+12(SB)/4, $0
DATA slotsBelow<>+16(SB)/4, $0
DATA slotsBelow<>+20(SB)/4, $0
DATA slotsBelow<>+24(SB)/4, $0
DATA slotsBelow<>+28(SB)/4, $0
DATA slotsBelow<>+32(SB)/4, $0xffffffff
DATA slotsBelow<>+36(SB)/4, $0
DATA slotsBelow<>+40(SB)/4, $0
DATA slotsBelow<>+44(SB)/4, $0
DATA slotsBelow<>+48(SB)/4, $0
DATA slotsBelow<>+52(SB)/4, $0
DATA slotsBelow<>+56(SB)/4, $0
DATA slotsBelow<>+60(SB)/4, $0
DATA slotsBelow<>+64(SB)/4, $0xffffffff
DATA slotsBelow<>+68(SB)/4, $0xffffffff
DATA slotsBelow<>+72(SB)/4, $0
DATA slotsBelow<>+76(SB)/4, $0
DATA slotsBelow<>+80(SB)/4, $0
DATA slotsBelow<>+84(SB)/4, $0
DATA slotsBelow<>+88(SB)/4, $0
DATA slotsBelow<>+92(SB)/4, $0
DATA slotsBelow<>+96(SB)/4, $0xffffffff
DATA slotsBelow<>+100(SB)/4, $0xffffffff
DATA slotsBelow<>+104(SB)/4, $0xffffffff
DATA slotsBelow<>+108(SB)/4, $0
DATA slotsBelow<>+112(SB)/4, $0
DATA slotsBelow<>+116(SB)/4, $0
DATA slotsBelow<>+120(SB)/4, $0
DATA slotsBelow<>+124(SB)/4, $0
DATA slotsBelow<>+128(SB)/4, $0xffffffff
DATA slotsBelow<>+132(SB)/4, $0xffffffff
DATA slotsBelow<>+136(SB)/4, $0xffffffff
DATA slotsBelow<>+140(SB)/4, $0xffffffff
DATA slotsBelow<>+144(SB)/4, $0
DATA slotsBelow<>+148(SB)/4, $0
DATA slotsBelow<>+152(SB)/4, $0
DATA slotsBelow<>+156(SB)/4, $0
DATA slotsBelow<>+160(SB)/4, $0xffffffff
DATA slotsBelow<>+164(SB)/4, $0xffffffff
DATA slotsBelow<>+168(SB)/4, $0xffffffff
DATA slotsBelow<>+172(SB)/4, $0xffffffff
DATA slotsBelow<>+176(SB)/4, $0xffffffff
DATA slotsBelow<>+180(SB)/4, $0
DATA slotsBelow<>+184(SB)/4, $0
DATA slotsBelow<>+188(SB)/4, $0
DATA slotsBelow<>+192(SB)/4, $0xffffffff
DATA slotsBelow<>+196(SB)/4, $0xffffffff
DATA slotsBelow<>+200(SB)/4, $0xffffffff
DATA slotsBelow<>+204(SB)/4, $0xffffffff
DATA slotsBelow<>+208(SB)/4, $0xffffffff
DATA slotsBelow<>+212(SB)/4, $0xffffffff
DATA slotsBelow<>+216(SB)/4, $0
DATA slotsBelow<>+220(SB)/4, $0
DATA slotsBelow<>+224(SB)/4, $0xffffffff
DATA slotsBelow<>+228(SB)/4, $0xffffffff
DATA slotsBelow<>+232(SB)/4, $0xffffffff
DATA slotsBelow<>+236(SB)/4, $0xffffffff
DATA slotsBelow<>+240(SB)/4, $0xffffffff
DATA slotsBelow<>+244(SB)/4, $0xffffffff
DATA slotsBelow<>+248(SB)/4, $0xffffffff
DATA slotsBelow<>+252(SB)/4, $0
GLOBL slotsBelow<>(SB), RODATA|NOPTR, $256

// sevens is eight copies of 7.
DATA sevens<>+0(SB)/4, $7
DATA sevens<>+4(SB)/4, $7
DATA sevens<>+8(SB)/4, $7
DATA sevens<>+12(SB)/4, $7
DATA sevens<>+16(SB)/4, $7
DATA sevens<>+20(SB)/4, $7
DATA sevens<>+24(SB)/4, $7
DATA sevens<>+28(SB)/4, $7
GLOBL sevens<>(SB), RODATA|NOPTR, $32

// The frame of rayTLASWalkAVX2: the walks' (to HITV), the top level's
// lane and the instance's lane (from the next 64-byte boundary), then the
// walk's own slots: the lanes' addresses, the top level's stack pointer
// and limit while an instance is walked, the world ray, the instance
// entered (its leaf slot), whether one committed a hit, and the entered
// instance's placed ray and BLAS.
#define TLANEOFF 672
#define XTOPDI 2784
#define XBOTDI 2792
#define XTOPBX 2800
#define XTOPLIM 2808
#define XWORG 2816
#define XWDIR 2832
#define XSLOT 2848
#define XFOUND 2852
#define XPORG 2856
#define XPDIR 2872
#define XBLAS 2888

// Layouts the walk reads (asserted in fused_amd64.go): a topSlot's
// worldToObject, blas and mask; a BLAS's typ, wide, rows and their
// lengths; topHit's fields.
#define SLOTW2O 0
#define SLOTBLAS 48
#define SLOTMASK 60
#define BLASTYP 4
#define BLASWIDE 56
#define BLASROWS 104
#define TOPSLOT 24
#define TOPORG 28
#define TOPDIR 40

// PLACECOL is PLACEVEC's step for the column at byte off of the
// matrix at SI and the ray's component at byte k: X0 += column × origin
// component, X1 += column × direction component, each product rounded.
#define PLACECOL(off, k) \
	VBLENDPS     $7, SLOTW2O+off(SI), X5, X2 /* the column, lane 3 zero */ \
	VBROADCASTSS XWORG+k(SP), X3 \
	VMULPS       X2, X3, X3 \
	VADDPS       X3, X0, X0 \
	VBROADCASTSS XWDIR+k(SP), X4 \
	VMULPS       X2, X4, X4 \
	VADDPS       X4, X1, X1

// PLACEVEC sets X0 to the point at XWORG(SP) placed by the matrix whose
// columns (12 bytes each) start at SI, as vec.Mat3x4.TransformPoint
// places it, (((m0*x + m1*y) + m2*z) + m3) with each product and sum
// rounded, a lane per row, and X1 to the vector at XWDIR(SP) as
// TransformVector does; lane 3 of both is zero (each column's fourth
// lane, the next column's first entry, is cleared first, so that no
// value but the matrix's and the ray's is computed). It clobbers X2-X5.
#define PLACEVEC \
	VXORPS       X5, X5, X5 \
	VBLENDPS     $7, SLOTW2O+0(SI), X5, X2 /* column 0, lane 3 zero */ \
	VBROADCASTSS XWORG+0(SP), X0 \
	VMULPS       X2, X0, X0 \
	VBROADCASTSS XWDIR+0(SP), X1 \
	VMULPS       X2, X1, X1 \
	PLACECOL(12, 4) \
	PLACECOL(24, 8) \
	VMOVUPS      SLOTW2O+32(SI), X2 \
	VPERMILPS    $0x39, X2, X2 /* column 3 in lanes 0-2 */ \
	VBLENDPS     $8, X5, X2, X2 /* lane 3 zero */ \
	VADDPS       X2, X0, X0

// TLASBEGIN starts the TLAS walks (rayTLASWalkAVX2 and the others): the lanes,
// the world ray (checked as TLAS.IntersectTo checks it, set up in the
// top lane), the top lane's arrays (the TLAS's nodes, no rows, no
// triangle test; stack entries of size bytes, the limit limit) and the
// walk's first step, the top level's root; first (TLASFIRST or NOP) sets
// the instance lane's first flag up (AX its address), and check
// (STARTFINITE, STARTNAN) takes the world ray's inverse direction as
// RAYSTARTBY takes it.
#define TLASBEGIN(limit, size, first, check) \
	LANEBASE(TLANEOFF) \
	MOVQ    DI, XTOPDI(SP) \
	LEAQ    1024(DI), AX \
	MOVQ    AX, XBOTDI(SP) \
	MOVB    $0, XFOUND(SP) \
	first \
	MOVQ    r+32(FP), AX \
	LOADRAY \
	RAYCHECK(gomust) \
	VMOVUPS X0, XWORG(SP) \
	VMOVUPS X1, XWDIR(SP) \
	RAYINV \
	check(worldfine) \
	RAYPLACE \
	MOVQ wide+0(FP), AX \
	MOVQ AX, 0(DI) \
	MOVQ nwide+8(FP), AX \
	MOVQ AX, 8(DI) \
	MOVQ $0, 16(DI) \
	MOVQ $0, 24(DI) \
	MOVQ $0, 48(DI) \
	MOVQ $limit, 64(DI) \
	MOVQ $0, 72(DI) \
	LEAQ ·compressSlots(SB), AX \
	MOVQ AX, 112(DI) \
	MOVB $0, FRAMED(DI) \
	LOADNODE \
	ENTRY(size, gomust, instleaf)

// TLASFIRST gives the instance lane (at AX) rayTLASOccludeAVX2's first.
#define TLASFIRST \
	MOVB first+44(FP), CX \
	MOVB CX, 104(AX)

// INSTENTER takes a leaf the walk reached (R10): in the instance's lane,
// a leaf of triangles (rleaf); in the top lane, an instance, which it
// passes over (pop) when its mask misses or it is not of triangles, and
// else enters: the ray placed as instance.place places it, set up in the
// instance's lane with the walk's tMax, the BLAS's arrays, and the walk's
// step at the BLAS's root (stack entries of size bytes, the limit limit).
// The top lane's stack pointer and limit wait at XTOPBX and XTOPLIM;
// check (STARTFINITE, STARTNAN) takes the placed ray's inverse, and enter
// (ENTERNODE, ENTERLEAFOCC) goes on into the BLAS.
#define INSTENTER(limit, size, check, enter) \
	CMPQ DI, XTOPDI(SP) \
	JNE  rleaf \
	MOVL  R10, AX \
	ANDL  $0x7fffffff, AX \
	SHRL  $3, AX /* the leaf's slot */ \
	MOVL  AX, XSLOT(SP) \
	SHLQ  $6, AX /* its topSlot, one line */ \
	MOVQ  slots+16(FP), SI \
	ADDQ  AX, SI \
	MOVBLZX SLOTMASK(SI), CX \
	ANDL  mask+40(FP), CX \
	JZ    pop /* masked out: passed over */ \
	MOVQ  SLOTBLAS(SI), DX \
	CMPB  BLASTYP(DX), $0 \
	JNE   pop /* not triangles: passed over */ \
	CMPQ  BLASROWS(DX), $0 \
	JEQ   gomust /* no leaf rows: Go walks it */ \
	MOVQ  DX, XBLAS(SP) \
	MOVQ  BX, XTOPBX(SP) \
	MOVQ  LIMP(SP), AX \
	MOVQ  AX, XTOPLIM(SP) \
	VMOVSS 84(DI), X6 /* the walk's tMax */ \
	PLACEVEC \
	VMOVUPS   X0, XPORG(SP) \
	VMOVUPS   X1, XPDIR(SP) \
	VINSERTPS $0x30, XWORG+12(SP), X0, X0 /* placed origin, tMin */ \
	VINSERTPS $0x30, X6, X1, X1 /* placed direction, tMax */ \
	MOVQ XBOTDI(SP), DI \
	RAYINV \
	check(placedfine) \
	RAYPLACE \
	MOVQ XBLAS(SP), DX \
	MOVQ BLASWIDE(DX), AX \
	MOVQ AX, 0(DI) \
	MOVQ BLASWIDE+8(DX), AX \
	MOVQ AX, 8(DI) \
	MOVQ BLASROWS(DX), AX \
	MOVQ AX, 16(DI) \
	MOVQ BLASROWS+8(DX), AX \
	MOVQ AX, 24(DI) \
	MOVQ $limit, 64(DI) \
	MOVQ out+48(FP), AX \
	MOVQ AX, 72(DI) \
	LEAQ ·compressSlots(SB), AX \
	MOVQ AX, 112(DI) \
	MOVB $0, FRAMED(DI) \
	LOADNODE \
	ENTRY(size, gomust, rleaf) \
	enter

// ENTERNODE and ENTERLEAFOCC are INSTENTER's ends: the walk goes on at
// the BLAS's root node, or, for the occlusion walks (as ROOTLEAFOCC),
// at its leaf when the root is one leaf.
#define ENTERNODE JMP loop
#define ENTERLEAFOCC \
	MOVQ 0(DI), SI /* the BLAS's wide root */ \
	ROOTLEAF(loop, X12)

// INSTHIT records the entered instance as the hit's: its leaf slot and
// placed ray in out, XFOUND set. It clobbers AX and CX.
#define INSTHIT \
	MOVQ   out+48(FP), AX \
	MOVL   XSLOT(SP), CX \
	MOVL   CX, TOPSLOT(AX) \
	MOVQ   XPORG+0(SP), CX \
	MOVQ   CX, TOPORG+0(AX) \
	MOVL   XPORG+8(SP), CX \
	MOVL   CX, TOPORG+8(AX) \
	MOVQ   XPDIR+0(SP), CX \
	MOVQ   CX, TOPDIR+0(AX) \
	MOVL   XPDIR+8(SP), CX \
	MOVL   CX, TOPDIR+8(AX) \
	MOVB   $1, XFOUND(SP)

// INSTLEAVE goes back to the top lane, with the tMax the instance's walk
// left, and pops the top level's next entry.
#define INSTLEAVE \
	MOVL 84(DI), CX \
	MOVQ XTOPDI(SP), DI \
	MOVL CX, 84(DI) \
	MOVQ XTOPBX(SP), BX \
	MOVQ XTOPLIM(SP), AX \
	MOVQ AX, LIMP(SP) \
	LOADNODE \
	JMP  pop

// TLASDONE returns XFOUND as the status (rayHit or rayMiss) and
// rayGoMust at gomust; a ray with an infinite inverse component, world or
// placed, goes on at nonfinite to tonan, as RAYDONE's.
#define TLASDONE(tonan) \
topdone: \
	MOVBQZX XFOUND(SP), AX \
	VZEROUPPER \
	MOVQ    AX, status+56(FP) \
	RET \
gomust: \
	VZEROUPPER \
	MOVQ $2, status+56(FP) \
	RET \
nonfinite: \
	VZEROUPPER \
	tonan

// The tonan of TLASDONE: the closest-hit walk starts over as
// rayTLASWalkNaNAVX2 (a tail call, as TOWALKNAN); the occlusion walk as
// rayTLASOccludeNaNAVX2 unless first, whose hit that walk's order would
// not give (BLAS.firstHit's for such rays), so it answers rayNotFinite
// and Go walks the ray.
#define TOTLASWALKNAN RET ·rayTLASWalkNaNAVX2(SB)
#define TOTLASOCCLUDENAN \
	CMPB first+44(FP), $0 \
	JNE  firstnan \
	RET  ·rayTLASOccludeNaNAVX2(SB) \
firstnan: \
	MOVQ $4, status+56(FP) \
	RET

// TLASWALKEND is where the closest-hit TLAS walks' steps go when a
// lane's stack is empty (levelend): the top lane's ends the walk, an
// instance's records its hit, if it committed one, and goes back to the
// top lane.
#define TLASWALKEND(tonan) \
levelend: \
	CMPQ DI, XTOPDI(SP) \
	JEQ  topdone \
	CMPB 105(DI), $0 /* the instance committed a hit */ \
	JEQ  leave \
	INSTHIT \
leave: \
	INSTLEAVE \
	TLASDONE(tonan)

// TLASOCCLUDEEND is TLASWALKEND for the occlusion walks: an instance in
// which a triangle hits ends the walk.
#define TLASOCCLUDEEND(tonan) \
levelend: \
	CMPQ DI, XTOPDI(SP) \
	JEQ  topdone \
	CMPB 105(DI), $0 /* a triangle of the instance hits */ \
	JEQ  leave \
	INSTHIT \
	JMP  topdone \
leave: \
	INSTLEAVE \
	TLASDONE(tonan)

// func rayTLASWalkAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, out *topHit) (status int)
//
// TLAS.IntersectTo's walk for a finite world ray in one call: the top
// level's nodes as intersectTopAVX2's walkAVX2 takes them (WALKSTEPS on
// the top lane, with no triangle test), and at each instance leaf, in
// the same walk, the instance's one-call query: the ray placed as
// instance.place places it, set up (RAYSETUP) in the instance's lane,
// and WALKSTEPS on that lane from the BLAS's root with the walk's tMax,
// back to the top lane when its stack is empty (levelend). Instances
// whose mask misses or that are not triangles are passed over, as the Go
// loop does; a BLAS without leaf rows and a deep stack leave the whole
// ray to Go (rayGoMust), a world or placed ray with an infinite inverse
// component to rayTLASWalkNaNAVX2 (a tail call, TLASDONE). The hit, its
// instance and its placed ray go to out.
TEXT ·rayTLASWalkAVX2(SB), $2912-64
	NO_LOCAL_POINTERS
	TLASBEGIN(56, 8, NOP, STARTFINITE)
	WALKSTEPS(SLAB8, PICKBRANCH, instleaf, loop, instleaf, loop, PREFETCHBELOW, gomust, levelend)
	FRAMELEAF(leaf)
instleaf:
	INSTENTER(56, 8, STARTFINITE, ENTERNODE)
	TLASWALKEND(TOTLASWALKNAN)

// func rayTLASOccludeAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, first bool, out *topHit) (status int)
//
// rayTLASWalkAVX2 for TLAS.firstHit's walk (occludedTopAVX2's, each
// instance's walk rayOccludeAVX2's, first in each instance's lane): the
// first instance in which a triangle hits ends it, rayHit, with, for
// first, the hit committed into out.
TEXT ·rayTLASOccludeAVX2(SB), $2912-64
	NO_LOCAL_POINTERS
	TLASBEGIN(120, 4, TLASFIRST, STARTFINITE)
	OCCLUDESTEPS(SLAB8SEG, OCCPICKBRANCH, instleaf, loop, instleaf, loop, OCCPREFETCHBELOW, gomust, levelend)
	FRAMELEAF(leaf)
instleaf:
	INSTENTER(120, 4, STARTFINITE, ENTERLEAFOCC)
	TLASOCCLUDEEND(TOTLASOCCLUDENAN)

// func rayTLASWalkNaNAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, out *topHit) (status int)
//
// rayTLASWalkAVX2 for the rays it hands over: world and placed
// rays whose inverse directions may have infinite components, walked with
// SLAB8NAN at both levels, which on a ray without NaN distances gives
// SLAB8's hits and entry distances (up to the signs of zeros, which no
// order sees), so that the answers are the Go loops' for every ray.
TEXT ·rayTLASWalkNaNAVX2(SB), $2912-64
	NO_LOCAL_POINTERS
	TLASBEGIN(56, 8, NOP, STARTNAN)
	WALKSTEPS(SLAB8NAN, PICKBRANCH, instleaf, loop, instleaf, loop, PREFETCHBELOW, gomust, levelend)
	FRAMELEAF(leaf)
instleaf:
	INSTENTER(56, 8, STARTNAN, ENTERNODE)
	TLASWALKEND(NANWALK)

// func rayTLASOccludeNaNAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, first bool, out *topHit) (status int)
//
// rayTLASOccludeAVX2 for the rays it hands over (first false), with
// SLAB8NAN and the first child hit first (OCCPICKFIRST) at both levels:
// the order of the Go loops for such rays at the top level, not at a
// finite placed ray's, so it answers whether a triangle hits (first
// false) and nothing about which.
TEXT ·rayTLASOccludeNaNAVX2(SB), $2912-64
	NO_LOCAL_POINTERS
	TLASBEGIN(120, 4, TLASFIRST, STARTNAN)
	OCCLUDESTEPS(SLAB8NAN, OCCPICKFIRST, instleaf, loop, instleaf, loop, OCCPREFETCHBELOW, gomust, levelend)
	FRAMELEAF(leaf)
instleaf:
	INSTENTER(120, 4, STARTNAN, ENTERNODE)
	TLASOCCLUDEEND(NANWALK)

// func nodeWalkAVX2(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool)
//
// nodeWalk with the walks' AVX2 node test (SLAB8, the eight children at
// once, where nodeWalk tests two groups of four): the same nodes visited,
// the same entries pushed, the same result (TestNodeWalkMatchesGo):
// NODEWALKLOOP (nodewalk_amd64.h) in VEX encoding. The slabRay's constants
// stay in Y6-Y11, tMin in Y12, tMax in Y14 and its far bound in Y13.
TEXT ·nodeWalkAVX2(SB), NOSPLIT, $40-89
	MOVQ         q+16(FP), DX
	LOADSLAB
	VBROADCASTSS tMin+24(FP), Y12
	VBROADCASTSS tMax+28(FP), Y14
	FARMAX
	NODEWALKLOOP(NWSLAB8AVX2, VMOVSS, VUCOMISS, VMOVAPS, VZEROUPPER)

// STORE3 stores the three low lanes of x at off(base).
#define STORE3(x, off, base) \
	VMOVSS     x, off(base) \
	VEXTRACTPS $1, x, (off+4)(base) \
	VEXTRACTPS $2, x, (off+8)(base)

// SIGNROW takes the sign of one axis' inverse, bit bit of DX, into the
// rayBox at DI: its neg (the byte at negoff) and its near row, base plus
// the sign, at nearoff, left in reg too.
#define SIGNROW(bit, reg, base, negoff, nearoff) \
	MOVL DX, reg \
	SHRL $bit, reg \
	ANDL $1, reg \
	MOVB reg, negoff(DI) \
	ADDQ $base, reg \
	MOVQ reg, nearoff(DI)

// SETUPRAYIN is setupRayAVX2's set-up up to its root test, for the ray
// from the vec.Vec3 at AX along the one at BX into the rayBox at DI: the
// origin in X0, the direction in X1 and the inverse in X4 (both with
// DIRFLUSH's zeros and infinities), zeros in X2, ones in X3, the
// magnitude mask in X5, math.MaxFloat32 in X6, the far planes' inverse in
// X7, the lanes where the inverse is negative in X8 and the
// near rows in CX, R8 and R9, the rayBox's own fields stored; a ray that
// is not finite or has a zero direction goes to refuse, nothing stored.
#define SETUPRAYIN(refuse) \
	VMOVSS       0(AX), X0 \
	VINSERTPS    $0x10, 4(AX), X0, X0 \
	VINSERTPS    $0x20, 8(AX), X0, X0 /* o, then 0 */ \
	VMOVSS       0(BX), X1 \
	VINSERTPS    $0x10, 4(BX), X1, X1 \
	VINSERTPS    $0x20, 8(BX), X1, X1 /* d, then 0 */ \
	MOVL         $0x7fffffff, CX \
	VMOVD        CX, X5 \
	VBROADCASTSS X5, X5 /* |x| mask */ \
	MOVL         $0x7f7fffff, CX \
	VMOVD        CX, X6 \
	VBROADCASTSS X6, X6 /* math.MaxFloat32 */ \
	VXORPS       X2, X2, X2 \
	VANDPS       X5, X0, X7 \
	VCMPPS       $2, X6, X7, X7 /* |o| <= MaxFloat32 (not for NaN) */ \
	VANDPS       X5, X1, X8 \
	VCMPPS       $2, X6, X8, X9 /* |d| <= MaxFloat32 */ \
	VANDPS       X9, X7, X7 \
	VMOVMSKPS    X7, CX \
	ANDL         $7, CX \
	CMPL         CX, $7 \
	JNE          refuse \
	VCMPPS       $4, X2, X8, X9 /* |d| != 0 */ \
	VMOVMSKPS    X9, CX \
	TESTL        $7, CX \
	JZ           refuse \
	/* rayBox: inv is inverse(d): 1/d, and where d is not zero but 1/d */ \
	/* overflows, the largest float32 of its sign. */ \
	MOVL         $0x3f800000, CX \
	VMOVD        CX, X3 \
	VBROADCASTSS X3, X3 /* ones */ \
	VDIVPS       X1, X3, X4 /* 1 / d */ \
	VANDPS       X5, X4, X10 \
	VCMPPS       $0x1e, X6, X10, X11 /* |1/d| > MaxFloat32 */ \
	VCMPPS       $4, X2, X1, X12 /* d != 0 */ \
	VANDPS       X12, X11, X11 \
	VANDNPS      X4, X5, X12 /* the sign of 1/d */ \
	VORPS        X6, X12, X12 \
	VBLENDVPS    X11, X12, X4, X4 /* inverse(d) */ \
	VANDPS       X5, X4, X9 \
	INVBELOW22(X9, X9, shearable) \
	DIRFLUSH(X9, X10, X11, X12) \
shearable: \
	STORE3(X0, 0, DI) \
	STORE3(X4, 12, DI) \
	VBROADCASTSS robust<>(SB), X7 \
	VMULPS       X7, X4, X7 /* invFar: inv times robustScale */ \
	STORE3(X7, 24, DI) \
	VCMPPS       $1, X2, X4, X8 /* inv < 0 */ \
	VMOVMSKPS    X8, DX \
	SIGNROW(0, CX, 0, 36, 40) /* negX, nearX */ \
	SIGNROW(1, R8, 2, 37, 48) /* negY, nearY */ \
	SIGNROW(2, R9, 4, 38, 56) /* negZ, nearZ */

// SETUPRAYOUT is the rest of setupRayAVX2's set-up, from SETUPRAYIN's
// registers: the rayBox's finite, its slabRay where finite, and the
// watertightRay at SI. It clobbers AX, CX, R8-R10 and X6-X13.
#define SETUPRAYOUT \
	/* finite: |inv| <= maxFiniteInverse and inv != 0 (the origin is). */ \
	VANDPS       X5, X4, X8 \
	MOVL         $0x7f7ffff7, AX \
	VMOVD        AX, X9 \
	VBROADCASTSS X9, X9 \
	VCMPPS       $2, X9, X8, X8 \
	VCMPPS       $4, X2, X4, X9 \
	VANDPS       X9, X8, X8 \
	VMOVMSKPS    X8, AX \
	ANDL         $7, AX \
	CMPL         AX, $7 \
	SETEQ        39(DI) \
	JNE          tri \
	/* slabRay.init: the broadcasts, and each axis' near and far rows. */ \
	VBROADCASTSS X0, X8 \
	VMOVUPS      X8, 64(DI) \
	VPERMILPS    $0x55, X0, X8 \
	VMOVUPS      X8, 80(DI) \
	VPERMILPS    $0xaa, X0, X8 \
	VMOVUPS      X8, 96(DI) \
	VBROADCASTSS X4, X8 \
	VMOVUPS      X8, 112(DI) \
	VPERMILPS    $0x55, X4, X8 \
	VMOVUPS      X8, 128(DI) \
	VPERMILPS    $0xaa, X4, X8 \
	VMOVUPS      X8, 144(DI) \
	VBROADCASTSS X7, Y8 \
	VMOVUPS      Y8, 160(DI) \
	VPERMILPS    $0x55, X7, X8 \
	VBROADCASTSS X8, Y8 \
	VMOVUPS      Y8, 192(DI) \
	VPERMILPS    $0xaa, X7, X8 \
	VBROADCASTSS X8, Y8 \
	VMOVUPS      Y8, 224(DI) \
	MOVQ         CX, AX \
	SHLQ         $5, AX \
	MOVQ         AX, 256(DI) /* nxo */ \
	XORQ         $32, AX \
	MOVQ         AX, 264(DI) /* fxo */ \
	MOVQ         R8, AX \
	SHLQ         $5, AX \
	MOVQ         AX, 272(DI) /* nyo */ \
	XORQ         $32, AX \
	MOVQ         AX, 280(DI) /* fyo */ \
	MOVQ         R9, AX \
	SHLQ         $5, AX \
	MOVQ         AX, 288(DI) /* nzo */ \
	XORQ         $32, AX \
	MOVQ         AX, 296(DI) /* fzo */ \
tri: \
	/* watertightRay, as RAYPLACE sets it up. */ \
	STORE3(X0, 0, SI) \
	SHEARAXES(0, SI) \
	SHLQ         $2, R8 \
	MOVQ         R8, 40(SI) /* kxo */ \
	SHLQ         $2, R9 \
	MOVQ         R9, 48(SI) /* kyo */ \
	SHLQ         $2, R10 \
	MOVQ         R10, 56(SI) /* kzo */ \
	VPERMILPS    X9, X0, X10 /* ox, oy, oz */ \
	VPERMILPS    X9, X1, X11 /* d[kx], d[ky], d[kz], d[kz] */ \
	VBLENDPS     $0xc, X3, X11, X12 /* d[kx], d[ky], 1, 1 */ \
	VPERMILPS    $0xaa, X11, X13 \
	VDIVPS       X13, X12, X12 /* sx, sy, sz */ \
	STORE3(X10, 64, SI) \
	STORE3(X12, 76, SI)

// ROOTHIT is rayBox.hitAny of the box at R10 for the ray from X0 (its
// inverse direction in X4, that times robustScale in X7, the lanes where
// the inverse is negative in X8) over tMin in X13 and tMax in X14: each
// axis' near and far planes picked by the sign, the distances bounded in
// hitAny's order with VMAXSS and VMINSS, which take the bound where the
// distance is not beyond it (a NaN or the same value) as hitAny's
// comparisons do, so bit for bit. It leaves the entry distance in X13 and
// the flags of its comparison with the exit distance (above: the box is
// missed), and clobbers X9 to X12 and X14.
#define ROOTHIT \
	VMOVSD       0(R10), X9 \
	VINSERTPS    $0x20, 8(R10), X9, X9 /* Min */ \
	VMOVSD       12(R10), X10 \
	VINSERTPS    $0x20, 20(R10), X10, X10 /* Max */ \
	VBLENDVPS    X8, X10, X9, X11 /* near planes */ \
	VBLENDVPS    X8, X9, X10, X12 /* far planes */ \
	VSUBPS       X0, X11, X11 \
	VMULPS       X4, X11, X11 \
	VSUBPS       X0, X12, X12 \
	VMULPS       X7, X12, X12 \
	VMAXSS       X13, X11, X13 \
	VMOVSHDUP    X11, X9 \
	VMAXSS       X13, X9, X13 \
	VPERMILPS    $0xaa, X11, X9 \
	VMAXSS       X13, X9, X13 \
	VMULSS       robust<>(SB), X14, X14 \
	VMINSS       X14, X12, X14 \
	VMOVSHDUP    X12, X9 \
	VMINSS       X14, X9, X14 \
	VPERMILPS    $0xaa, X12, X9 \
	VMINSS       X14, X9, X14 \
	VUCOMISS     X14, X13

// func setupRayAVX2(o, d *vec.Vec3, r *rayBox, w *watertightRay, root *AABB, tMin, tMax float32) (near float32, status uint8)
//
// rayBox.setup (its slabRay.init too, where the ray's slab distances are
// finite) and watertightRay.setup for the ray from *o along *d, with the
// same operations on the same values (RAYINV's and RAYPLACE's), for a
// finite origin and a finite direction not zero; for any other ray it
// sets nothing and returns setupRefused. Where root is not nil it tests
// that box over [tMin, tMax] as rayBox.hitAny does (ROOTHIT) once the
// rayBox's own fields are set, and where the ray misses it returns
// setupMissed without setting up the rest. The layout constants mirror
// traverse.go (rayBox: org, inv, invFar at 0, 12, 24, the signs and
// finite at 36 to 39, the near rows at 40, 48, 56, the slabRay at 64) and
// triangle.go (watertightRay).
TEXT ·setupRayAVX2(SB), NOSPLIT, $0-53
	MOVQ         o+0(FP), AX
	MOVQ         d+8(FP), BX
	MOVQ         r+16(FP), DI
	MOVQ         w+24(FP), SI
	SETUPRAYIN(refuse)
	MOVQ         root+32(FP), R10
	VMOVSS       tMin+40(FP), X13
	TESTQ        R10, R10
	JZ           rootok
	VMOVSS       tMax+44(FP), X14
	ROOTHIT
	VMOVSS       X13, near+48(FP)
	JLS          rootok
	MOVB         $1, status+52(FP) // setupMissed
	RET

rootok:
	VMOVSS       X13, near+48(FP)
	SETUPRAYOUT
	VZEROUPPER
	MOVB         $2, status+52(FP) // setupDone
	RET

refuse:
	MOVL $0, near+48(FP)
	MOVB $0, status+52(FP) // setupRefused
	RET

// BEGINSETUP is the begin walks' set-up (beginWalkYieldAVX2,
// beginOccludeYieldAVX2) for the fusedWalk at R11: setupRayAVX2 for the
// ray at its org along its dir into its box and wt, with its root's test
// over its tMin and tMax where root is set; where the walk cannot follow
// it records why in began and goes on at notwalked, else it records
// beganWalk, the root as cur (its entry distance, or tMin) and an empty
// stack, and goes on.
#define BEGINSETUP(notwalked) \
	MOVQ         136(R11), AX \
	MOVQ         144(R11), BX \
	MOVQ         152(R11), DI \
	MOVQ         48(R11), SI \
	SETUPRAYIN(refuse) \
	MOVQ         160(R11), R10 \
	VMOVSS       80(R11), X13 \
	TESTQ        R10, R10 \
	JZ           rootok \
	VMOVSS       84(R11), X14 \
	ROOTHIT \
	JLS          rootok \
	MOVB         $1, 168(R11) /* beganMissed */ \
	JMP          notwalked \
refuse: \
	MOVB         $0, 168(R11) /* beganRefused */ \
	JMP          notwalked \
notfinite: \
	VZEROUPPER \
	MOVB         $3, 168(R11) /* beganSetUp: for the Go walks */ \
	JMP          notwalked \
rootok: \
	VMOVSS       X13, 92(R11) /* cur's near distance */ \
	SETUPRAYOUT \
	CMPB         39(DI), $0 /* the rayBox's finite */ \
	JEQ          notfinite \
	MOVB         $2, 168(R11) /* beganWalk */ \
	MOVL         $0, 88(R11) /* cur's node: the root */ \
	MOVQ         $0, 96(R11) /* an empty stack */

// func beginWalkYieldAVX2(w *fusedWalk) (more bool)
//
// setupRayAVX2 for the ray at w.org along w.dir into w.box and w.wt, with
// w.root's test over (w.tMin, w.tMax), then, for a finite ray that does
// not miss the root, walkYieldAVX2 from the root (its entry distance in
// w.cur, the stack empty), in one call; w.began says which ran. The
// fusedWalk's set-up fields start at 136 (fused_amd64.go).
TEXT ·beginWalkYieldAVX2(SB), NOSPLIT, $672-9
	MOVQ         w+0(FP), R11
	BEGINSETUP(notwalked)
	SETUP
	VMOVSS       92(DI), X0
	ENTRY(8, out, rleaf)

	WALKSTEPSAT(SLAB8, PICKBRANCH, rleaf, loop, rleaf, loop, PREFETCHBELOW, out, empty, YIELDCANDS)
	FRAMELEAF(leaf)

	WALKEXITS

notwalked:
	MOVB $0, more+8(FP)
	RET

// func beginOccludeYieldAVX2(w *fusedWalk) (more bool)
//
// beginWalkYieldAVX2 for the first-hit walk: occludeYieldAVX2 from the
// root, on w's stack of references (a refWalk's).
TEXT ·beginOccludeYieldAVX2(SB), NOSPLIT, $672-9
	MOVQ         w+0(FP), R11
	BEGINSETUP(notwalked)
	SETUP
	ENTRY(4, out, rleaf)

	OCCLUDESTEPSAT(SLAB8SEG, OCCPICKBRANCH, rleaf, loop, rleaf, loop, OCCPREFETCHBELOW, out, empty, YIELDCANDS)
	FRAMELEAF(leaf)

	OCCLUDEEXITS

notwalked:
	MOVB $0, more+8(FP)
	RET
