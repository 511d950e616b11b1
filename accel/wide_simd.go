//go:build goexperiment.simd && amd64

package accel

import (
	"simd/archsimd"
	"unsafe"
)

// simdAvailable reports AVX2, which the vector walks need (leafCandidates
// compares integers in 256-bit registers); BLASes keep leaf rows for them
// only then.
var simdAvailable = archsimd.X86.AVX2()

// useSIMD selects the vector walks (walkFiniteOnSIMD, occludesFiniteOnSIMD)
// and hitWideSIMD for rays whose slab distances cannot be NaN. They give the
// same answers as the scalar ones (VMAXPS/VMINPS differ from min/max only
// on NaN and the sign of zero, which no comparison sees). Tests switch it
// off to compare.
var useSIMD = simdAvailable

func (r *rayBox) hitWideSIMD(n *wideNode, tMin, tMax float32, near *wideRow) uint {
	ox := archsimd.BroadcastFloat32x8(r.org.X)
	oy := archsimd.BroadcastFloat32x8(r.org.Y)
	oz := archsimd.BroadcastFloat32x8(r.org.Z)
	ix := archsimd.BroadcastFloat32x8(r.inv.X)
	iy := archsimd.BroadcastFloat32x8(r.inv.Y)
	iz := archsimd.BroadcastFloat32x8(r.inv.Z)
	fx := archsimd.BroadcastFloat32x8(r.invFar.X)
	fy := archsimd.BroadcastFloat32x8(r.invFar.Y)
	fz := archsimd.BroadcastFloat32x8(r.invFar.Z)
	b := &n.b
	tnx := archsimd.LoadFloat32x8(&b[r.nearX]).Sub(ox).Mul(ix)
	tny := archsimd.LoadFloat32x8(&b[r.nearY]).Sub(oy).Mul(iy)
	tnz := archsimd.LoadFloat32x8(&b[r.nearZ]).Sub(oz).Mul(iz)
	tfx := archsimd.LoadFloat32x8(&b[r.nearX^1]).Sub(ox).Mul(fx)
	tfy := archsimd.LoadFloat32x8(&b[r.nearY^1]).Sub(oy).Mul(fy)
	tfz := archsimd.LoadFloat32x8(&b[r.nearZ^1]).Sub(oz).Mul(fz)
	nr := archsimd.BroadcastFloat32x8(tMin).Max(tnx).Max(tny).Max(tnz)
	fr := archsimd.BroadcastFloat32x8(tMax).Mul(archsimd.BroadcastFloat32x8(robustScale)).Min(tfx).Min(tfy).Min(tfz)
	nr.Store(near)
	mask := uint(nr.LessEqual(fr).ToBits())
	archsimd.ClearAVXUpperBits()
	return mask
}

// leafCandidates runs the float32 part of the watertight test
// (watertightRay.intersect) on all triangles of the leaf with slots
// [first, first+n) at once, from their rows (leafRows). It returns a bit
// mask of the triangles that may hit over (tMin, tMax), cand, and among
// them those with an edge function of zero, edge, which intersect decides
// on its exact path; the others hit, with the values out holds (leafHits.hit).
// Every value comes from the same operations in the same order as in
// intersect, so the answers are those of the scalar loop.
func (w *watertightRay) leafCandidates(rows []float32, first, n uint32, tMin, tMax float32, out *leafHits) (cand, edge uint) {
	base := unsafe.Pointer(&rows[rowsPerSlot*first])
	row := func(vertex, axis int) archsimd.Float32x8 {
		return archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(base, uintptr(3*vertex+axis)*uintptr(n)*4)))
	}
	// The ray's scalars are broadcast from w in place with 4-float loads
	// (w has room after sz), not copied to a local array first; tMin and
	// tMax come in registers, which VBROADCASTSS takes (after a VEX move:
	// no SSE instruction runs here, which would be slow once the upper
	// register halves are in use).
	at := func(p *float32) archsimd.Float32x8 {
		return archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(p))).Broadcast1To8()
	}
	ox, oy, oz := at(&w.ox), at(&w.oy), at(&w.oz)
	sx, sy, sz := at(&w.sx), at(&w.sy), at(&w.sz)
	lo, hi := archsimd.BroadcastFloat32x8(tMin), archsimd.BroadcastFloat32x8(tMax)
	kx, ky, kz := w.kx, w.ky, w.kz
	aZ, bZ, cZ := row(0, kz).Sub(oz), row(1, kz).Sub(oz), row(2, kz).Sub(oz)
	ax, ay := row(0, kx).Sub(ox).Sub(sx.Mul(aZ)), row(0, ky).Sub(oy).Sub(sy.Mul(aZ))
	bx, by := row(1, kx).Sub(ox).Sub(sx.Mul(bZ)), row(1, ky).Sub(oy).Sub(sy.Mul(bZ))
	cx, cy := row(2, kx).Sub(ox).Sub(sx.Mul(cZ)), row(2, ky).Sub(oy).Sub(sy.Mul(cZ))
	eu := cx.Mul(by).Sub(cy.Mul(bx))
	ev := ax.Mul(cy).Sub(ay.Mul(cx))
	ew := bx.Mul(ay).Sub(by.Mul(ax))
	zero := archsimd.Float32x8{}
	onEdge := eu.Equal(zero).Or(ev.Equal(zero)).Or(ew.Equal(zero))
	su, sv, sw := eu.AsInt32x8(), ev.AsInt32x8(), ew.AsInt32x8()
	inside := su.Xor(sv).Or(su.Xor(sw)).GreaterEqual(archsimd.Int32x8{})
	det := eu.Add(ev).Add(ew)
	t := eu.Mul(aZ).Add(ev.Mul(bZ)).Add(ew.Mul(cZ)).Mul(sz).Div(det)
	inRange := t.Greater(lo).And(t.Less(hi))
	m := uint(inside.And(inRange).Or(onEdge).ToBits())
	e := uint(onEdge.ToBits())
	t.Store(&out.t)
	ev.Store(&out.ev)
	ew.Store(&out.ew)
	det.Store(&out.det)
	// The callers' scalar float code is SSE, which dirty upper halves
	// would slow down too.
	archsimd.ClearAVXUpperBits()
	all := uint(1)<<n - 1
	return m & all, e & all
}

// nodeRay holds a ray's slab test constants as vectors for the vector
// walks, which write the test out (hitWideSIMD with the broadcasts hoisted):
// the inliner would not take it as a method. Far distances are bounded
// by tMax times robustScale: the single-ray walks keep that product
// beside tMax, computed where tMax changes (scalar code, upper register
// halves clear), the batch steps take it as a vector product (robust).
// A scalar product among the vector operations is SSE code run with
// dirty upper halves, which made the walks 3-5x slower.
type nodeRay struct {
	ox, oy, oz, ix, iy, iz, fx, fy, fz, tMin, robust archsimd.Float32x8
	nxo, fxo, nyo, fyo, nzo, fzo                     uintptr
}

// init sets q up for the ray r over tMin. The vectors are stored, not
// returned, and the upper register halves cleared at the end: the scalar
// code around the walks is SSE, which runs several times slower while
// they are dirty.
func (q *nodeRay) init(r *rayBox, tMin float32) {
	const row = unsafe.Sizeof(wideRow{})
	bc := archsimd.BroadcastFloat32x8
	q.ox, q.oy, q.oz = bc(r.org.X), bc(r.org.Y), bc(r.org.Z)
	q.ix, q.iy, q.iz = bc(r.inv.X), bc(r.inv.Y), bc(r.inv.Z)
	q.fx, q.fy, q.fz = bc(r.invFar.X), bc(r.invFar.Y), bc(r.invFar.Z)
	q.tMin, q.robust = bc(tMin), bc(robustScale)
	q.nxo, q.fxo = uintptr(r.nearX)*row, uintptr(r.nearX^1)*row
	q.nyo, q.fyo = uintptr(r.nearY)*row, uintptr(r.nearY^1)*row
	q.nzo, q.fzo = uintptr(r.nearZ)*row, uintptr(r.nearZ^1)*row
	archsimd.ClearAVXUpperBits()
}

// load returns the row of node bounds at byte offset off from p.
func (q *nodeRay) load(p unsafe.Pointer, off uintptr) archsimd.Float32x8 {
	return archsimd.LoadFloat32x8((*wideRow)(unsafe.Add(p, off)))
}
