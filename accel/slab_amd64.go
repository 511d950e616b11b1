//go:build !purego

package accel

import "github.com/raypipe/raypipe/vec"

// slabAsm says whether slabTest is the assembly one: the scalar walks use
// it in place of their per-child loops.
const slabAsm = true

// slabTest tests the eight children of n against the ray of q over
// [tMin, tMax] with the robust slab test of rayBox.hitWideFinite, for
// rays whose slab distances cannot be NaN (rayBox.finite), and returns
// the mask of the children hit; near receives every child's entry
// distance. Unused slots (empty boxes) are never hit. The entry distance
// is max(tMin, near x, near y, near z) with MAXPS where the Go loops
// negate a min: the two differ at most in the sign of a zero, which no
// comparison sees, so masks and the order of equal distances agree.
//
//go:noescape
func slabTest(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) (mask uint)

// slabTestSpans is slabTest that also stores every child's exit
// distance at far (hitWideSpans).
//
//go:noescape
func slabTestSpans(n *wideNode, q *slabRay, tMin, tMax float32, near, far *wideRow) (mask uint)

// slabBroadcast sets q's broadcasts (ox, oy, oz, ix, iy, iz, fx, fy, fz)
// to the components of org, inv and far.
//
//go:noescape
func slabBroadcast(q *slabRay, org, inv, far *vec.Vec3)
