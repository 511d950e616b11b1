//go:build !amd64 || purego

package accel

import "github.com/raypipe/raypipe/vec"

// slabAsm is false where there is no assembly slab test: the scalar
// walks keep their per-child loops.
const slabAsm = false

// slabTest is never called where slabAsm is false.
func slabTest(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) (mask uint) {
	panic("accel: no assembly slab test on this architecture")
}

// slabTestSpans is never called where slabAsm is false.
func slabTestSpans(n *wideNode, q *slabRay, tMin, tMax float32, near, far *wideRow) (mask uint) {
	panic("accel: no assembly slab test on this architecture")
}

// slabBroadcast is never called where slabAsm is false.
func slabBroadcast(q *slabRay, org, inv, far *vec.Vec3) {
	panic("accel: no assembly slab test on this architecture")
}
