//go:build !amd64 || purego

package accel

import "unsafe"

// nodeWalk is never called where slabAsm is false (nodeWalkAsm).
func nodeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool) {
	panic("accel: no assembly node walk on this architecture")
}

// occludeWalk is never called where slabAsm is false (nodeWalkAsm).
func occludeWalk(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *uint32, limit int, cur uint32, sp int) (next uint32, newSp int, ok bool) {
	panic("accel: no assembly node walk on this architecture")
}

// nodeWalkAVX2 is never called where slabAsm is false (nodeWalkAsm).
func nodeWalkAVX2(wide unsafe.Pointer, nwide int, q *slabRay, tMin, tMax float32, leaves unsafe.Pointer, stack *stackEntry, limit int, cur stackEntry, sp int) (next stackEntry, newSp int, ok bool) {
	panic("accel: no assembly node walk on this architecture")
}
