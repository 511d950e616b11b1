//go:build !amd64 || purego

package accel

import (
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// fusedAVX2 is false off amd64 and in purego builds: the walks take their
// Go loops (a variable, as on amd64, so that tests can set it).
var fusedAVX2 = false

// haveAVX2 is false off amd64 and in purego builds.
const haveAVX2 = false

func walkAVX2(w *fusedWalk) bool    { panic("accel: no AVX2 walk on this architecture") }
func occludeAVX2(w *fusedWalk) bool { panic("accel: no AVX2 walk on this architecture") }
func walkYieldAVX2(w *fusedWalk) bool {
	panic("accel: no AVX2 walk on this architecture")
}
func occludeYieldAVX2(w *fusedWalk) bool {
	panic("accel: no AVX2 walk on this architecture")
}

func beginWalkYieldAVX2(w *fusedWalk) bool {
	panic("accel: no AVX2 walk on this architecture")
}
func beginOccludeYieldAVX2(w *fusedWalk) bool {
	panic("accel: no AVX2 walk on this architecture")
}

// setupRayAVX2 refuses every ray off amd64: the Go set-up runs.
func setupRayAVX2(o, d *vec.Vec3, r *rayBox, w *watertightRay, root *AABB, tMin, tMax float32) (near float32, status uint8) {
	return 0, setupRefused
}

const (
	rayMiss = iota
	rayHit
	rayGoMust
	rayAnswered
	rayNotFinite
)

func rayWalkAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, h *fastHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

func rayOccludeAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, first bool, h *fastHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

func rayIntersectAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, h *fastHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

func rayOccludedAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, first bool, h *fastHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

type topHit struct {
	h        fastHit
	slot     uint32
	org, dir vec.Vec3
}

func rayTLASWalkAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, out *topHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

func rayTLASOccludeAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, first bool, out *topHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

func rayTLASWalkNaNAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, out *topHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

func rayTLASOccludeNaNAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, first bool, out *topHit) int {
	panic("accel: no AVX2 walk on this architecture")
}

type batchQuery struct {
	blasArrays
	rays          *Ray
	n, next       int
	status        *uint8
	hits          *fastHit
	first, placed bool
	steps         int
}

func batchWalkAVX2(q *batchQuery)       { panic("accel: no AVX2 walk on this architecture") }
func batchOccludeAVX2(q *batchQuery)    { panic("accel: no AVX2 walk on this architecture") }
func batchWalkNaNAVX2(q *batchQuery)    { panic("accel: no AVX2 walk on this architecture") }
func batchOccludeNaNAVX2(q *batchQuery) { panic("accel: no AVX2 walk on this architecture") }

func slabTestAVX2(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) uint {
	panic("accel: no AVX2 slab test on this architecture")
}

func leafTestAVX2(w *watertightRay, leaf unsafe.Pointer, n int, tMin, tMax float32, out *leafHits) (cand, edge uint) {
	panic("accel: no AVX2 leaf test on this architecture")
}

// compressSlots is occludeAVX2's table; off amd64 nothing reads it.
var compressSlots [256][wideWidth]uint32
