package accel

import (
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// fusedWalk is the state of a walk in walkAVX2 or occludeAVX2: what
// walkFiniteOn and occludesFiniteOn keep in registers, passed by pointer.
// The assembly hard-codes its layout (asserted in fused_amd64.go). Off
// amd64 and in purego builds it only lets the Go code that would set it
// up compile: the walks are never called there.
type fusedWalk struct {
	blasArrays
	slab *slabRay
	// wt is the ray's triangle test, nil until it is set up: the walk
	// leaves the leaves it reaches before to Go.
	wt    *watertightRay
	stack unsafe.Pointer // &stack[0]: stackEntry (walkAVX2) or uint32 (occludeAVX2)
	// limit is the height above which the walk leaves an inner node to
	// Go, so that its pushes cannot overflow the stack.
	limit int
	h     *fastHit // walkAVX2 commits hits here
	tMin  float32
	tMax  float32    // in and out: shrinks to each committed hit
	cur   stackEntry // in and out: the entry to take next (node only for occludeAVX2)
	sp    int        // in and out: the stack height
	first bool       // occludeAVX2 commits the hit it stops at into h (firstHit)
	found bool       // out: walkAVX2 committed a hit, occludeAVX2 found one
	// framed is the assembly's own: set once the walk's frame holds the
	// triangle test's constants (FRAMELEAF).
	framed bool
	// compress is compressSlots, for occludeAVX2's pushes.
	compress *[256][wideWidth]uint32
	// The yield walks leave the leaf test's values of a leaf they stop at
	// for its candidates in lh, and the candidates in cand (nonzero: zero
	// says Go must test the leaf itself).
	lh   *leafHits
	cand uint
	// beginWalkYieldAVX2's set-up: the ray placed in the object space
	// (org, dir) and its box (box, whose slab is slab), the root box to
	// test first (nil: none), and, out, what it ran (began).
	org, dir *vec.Vec3
	box      *rayBox
	root     *AABB
	began    uint8
}
