//go:build !amd64 || purego

package accel

import "unsafe"

// leafAsm is false where there is no assembly leaf test: the scalar walks
// test a leaf's triangles one by one.
const leafAsm = false

// leafTest is never called where leafAsm is false.
func leafTest(w *watertightRay, leaf unsafe.Pointer, n int, tMin, tMax float32, out *leafHits) (cand, edge uint) {
	panic("accel: no assembly leaf test on this architecture")
}
