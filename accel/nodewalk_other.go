//go:build !amd64

package accel

import "unsafe"

// nodeWalk is never called where slabAsm is false (nodeWalkAsm).
func nodeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool) {
	panic("accel: no assembly node walk on this architecture")
}
