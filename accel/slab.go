package accel

import "unsafe"

// slabRay is a ray's slab-test constants for slabTest: the origin and
// inverse direction broadcast to four lanes, the far planes' inverse
// direction (rayBox.invFar) to eight (the AVX2 walks take them as 32-byte
// memory operands; SSE reads the first four), and the byte offsets in
// wideNode.b of the rows that hold each axis' near and far planes for the
// ray's direction signs. Every rayBox sets its own up where slabAsm holds
// (rayBox.setup), so that the walks and the general traversal share one
// per ray (or instance).
type slabRay struct {
	ox, oy, oz, ix, iy, iz       [4]float32
	fx, fy, fz                   [8]float32
	nxo, fxo, nyo, fyo, nzo, fzo uintptr
}

// init sets q up for r. The broadcasts are written with 16-byte stores
// (slabBroadcast): slabTest reads each with one 16-byte load, which the
// processor cannot forward from four 4-byte stores still in flight, and
// such a stall on every ray cost more than the first node test.
func (q *slabRay) init(r *rayBox) {
	slabBroadcast(q, &r.org, &r.inv, &r.invFar)
	const row = unsafe.Sizeof(wideRow{})
	q.nxo, q.fxo = uintptr(r.nearX)*row, uintptr(r.nearX^1)*row
	q.nyo, q.fyo = uintptr(r.nearY)*row, uintptr(r.nearY^1)*row
	q.nzo, q.fzo = uintptr(r.nearZ)*row, uintptr(r.nearZ^1)*row
}

// The assembly hard-codes the layout: these fail to compile if it changes.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.fx)-96]
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.nxo)-192]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.b)]
	_ = [1]struct{}{}[unsafe.Sizeof(wideRow{})-32]
)
