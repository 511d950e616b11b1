package accel

import (
	"math"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// watertightRay holds the per-ray constants of the watertight ray/triangle
// test of Woop, Benthin and Wald, "Watertight Ray/Triangle Intersection"
// (JCGT 2013), which the spec names as the reference implementation
// ("Watertightness"): the ray is translated to the origin and sheared so
// that it runs along +z, and a triangle is hit when the origin lies inside
// its 2D projection.
type watertightRay struct {
	org        [3]float32
	kx, ky, kz int
	// Byte offsets of components kx, ky, kz in a vec.Vec3, and the origin's
	// components in that order.
	kxo, kyo, kzo uintptr
	ox, oy, oz    float32
	sx, sy, sz    float32
	// The vector leaf test broadcasts ox..sz with 4-float loads; this
	// keeps the one at sz inside the struct.
	_ [3]float32
}

func comps(v *vec.Vec3) *[3]float32 { return (*[3]float32)(unsafe.Pointer(v)) }

// shearAxes[kz][neg] are the axes kx, ky for the dominant axis kz: the
// next two in cyclic order, swapped when the direction's kz component is
// negative, to keep the winding of the projection.
var shearAxes = [3][2][2]uint8{{{1, 2}, {2, 1}}, {{2, 0}, {0, 2}}, {{0, 1}, {1, 0}}}

func (w *watertightRay) setup(org, dir vec.Vec3) {
	// Component by component: copying a vec.Vec3 as an array moves it in
	// 8- and 4-byte pieces, whose loads cannot be forwarded from the
	// 4-byte stores just made (a stall that cost as much as the rest).
	w.org[0], w.org[1], w.org[2] = org.X, org.Y, org.Z
	d := [3]float32{dir.X, dir.Y, dir.Z}
	// kz is the axis of the largest |d| (the first of equal ones), chosen
	// without branches: incoherent rays would mispredict them.
	ax, ay, az := abs32(d[0]), abs32(d[1]), abs32(d[2])
	k1 := b2u(ay > ax)
	k2 := b2u(az > max(ax, ay))
	kz := int(k1 + k2*(2-k1))
	ks := &shearAxes[kz][b2u(d[kz] < 0)]
	kx, ky := int(ks[0]), int(ks[1])
	w.kx, w.ky, w.kz = kx, ky, kz
	w.kxo, w.kyo, w.kzo = uintptr(kx)*4, uintptr(ky)*4, uintptr(kz)*4
	w.ox, w.oy, w.oz = w.org[kx], w.org[ky], w.org[kz]
	w.sx, w.sy, w.sz = d[kx]/d[kz], d[ky]/d[kz], 1/d[kz]
}

// intersect tests triangle tv against the ray over the open interval
// (tMin, tMax), the spec's rule for triangles. On a hit it returns t, the
// barycentrics of vertices 1 and 2 (u, v) and whether the triangle is
// front facing (clockwise seen from the origin in a left-handed system,
// before instance flags).
//
// Edges: when the ray passes exactly through an edge of the projection
// (an edge function is zero, decided exactly in float64 when float32
// gives zero), the edge belongs to the triangle if the ray runs on the
// triangle's side of it in the refined projection, whose shear products
// are exact (ownsEdge: it differs only where a product underflowed), and
// where the ray passes through the edge there too, only if it is a
// "top-left" edge of the projection, with edges oriented so that every
// triangle winds the same way. Two triangles that share an edge from
// opposite sides always see that edge with opposite directions, so
// exactly one owns it; at a shared vertex exactly one triangle of a closed
// fan owns both of its edges there.
//
// Precision: the edge functions are rounded float32 products of the
// vertices' sheared coordinates, so their error grows with those
// coordinates, and t, the vertices' distances along the ray weighed by
// them, lies within the span of those distances. For a sliver far longer
// than its distance from the origin, or seen nearly edge on, t can be off
// by much of that span, and a ray passing within the rounding of such a
// triangle can hit it (FuzzBuildBLAS: a sliver 10^22 long). Traversal's
// node test is exact for the geometry, so the closest hit then comes from
// the boxes the ray really crosses (robustScale).
func (w *watertightRay) intersect(tv *triVerts, tMin, tMax float32) (t, u, v float32, front, ok bool) {
	// Vertex components kx, ky, kz, loaded at the offsets set up per ray
	// (no bounds checks).
	p := unsafe.Pointer(tv)
	const vs = unsafe.Sizeof(vec.Vec3{})
	ld := func(off uintptr) float32 { return *(*float32)(unsafe.Add(p, off)) }
	kxo, kyo, kzo := w.kxo, w.kyo, w.kzo
	ox, oy, oz := w.ox, w.oy, w.oz
	aZ, bZ, cZ := ld(kzo)-oz, ld(vs+kzo)-oz, ld(2*vs+kzo)-oz
	// Explicit float32 conversions forbid fused multiply-adds, which would
	// break the exact antisymmetry of shared edge functions, and keep every
	// value equal to the vector filter's (leafCandidates).
	ax, ay := (ld(kxo)-ox)-float32(w.sx*aZ), (ld(kyo)-oy)-float32(w.sy*aZ)
	bx, by := (ld(vs+kxo)-ox)-float32(w.sx*bZ), (ld(vs+kyo)-oy)-float32(w.sy*bZ)
	cx, cy := (ld(2*vs+kxo)-ox)-float32(w.sx*cZ), (ld(2*vs+kyo)-oy)-float32(w.sy*cZ)
	eu := float32(cx*by) - float32(cy*bx)
	ev := float32(ax*cy) - float32(ay*cx)
	ew := float32(bx*ay) - float32(by*ax)
	if eu == 0 || ev == 0 || ew == 0 {
		return w.intersectExact(tv, ax, ay, bx, by, cx, cy, aZ, bZ, cZ, tMin, tMax)
	}
	// Signs differ: the origin is outside. No edge function is zero here;
	// a NaN one (overflow) may count either way, as its det and t are NaN
	// and the t test below rejects it anyway.
	su, sv, sw := math.Float32bits(eu), math.Float32bits(ev), math.Float32bits(ew)
	if int32((su^sv)|(su^sw)) < 0 {
		return
	}
	det := eu + ev + ew
	tt := (float32(eu*aZ) + float32(ev*bZ) + float32(ew*cZ)) * w.sz
	t = tt / det
	if !(t > tMin && t < tMax) {
		return 0, 0, 0, false, false
	}
	inv := 1 / det
	return t, ev * inv, ew * inv, det > 0, true
}

// intersectExact is the float64 path for origins on an edge or vertex:
// products of float32 values are exact in float64, so the signs of the edge
// functions, and so the tie-break, are exact. An edge function that is
// zero there too is decided by ownsEdge.
func (w *watertightRay) intersectExact(tv *triVerts, ax, ay, bx, by, cx, cy, aZ, bZ, cZ, tMin, tMax float32) (t, u, v float32, front, ok bool) {
	Ax, Ay, Bx, By, Cx, Cy := float64(ax), float64(ay), float64(bx), float64(by), float64(cx), float64(cy)
	eu := Cx*By - Cy*Bx
	ev := Ax*Cy - Ay*Cx
	ew := Bx*Ay - By*Ax
	if (eu < 0 || ev < 0 || ew < 0) && (eu > 0 || ev > 0 || ew > 0) {
		return
	}
	det := eu + ev + ew
	if det == 0 {
		return // degenerate in projection: never hit
	}
	if eu == 0 && !w.ownsEdge(&tv[1], &tv[2], bx, by, cx, cy, det) ||
		ev == 0 && !w.ownsEdge(&tv[2], &tv[0], cx, cy, ax, ay, det) ||
		ew == 0 && !w.ownsEdge(&tv[0], &tv[1], ax, ay, bx, by, det) {
		return
	}
	tt := (eu*float64(aZ) + ev*float64(bZ) + ew*float64(cZ)) * float64(w.sz)
	t = float32(tt / det)
	if !(t > tMin && t < tMax) {
		return 0, 0, 0, false, false
	}
	return t, float32(ev / det), float32(ew / det), det > 0, true
}

// ownsEdge decides a ray that the exact path puts on the projected edge
// p->q of a triangle (its edge function qx*py - qy*px zero; det the
// triangle's): by the edge's refined function where that is not zero, the
// ray on the triangle's side of the edge when its sign is det's, and else
// by topLeft on the float32 projections (px, py) of p and (qx, qy) of q.
//
// The float32 projection rounds each vertex's shear product,
// float32(sx*z): where the ray runs so close to a box's plane that the
// product underflows (its lateral drift along the vertex's distance z
// below 2^-150), the projection puts the ray on an edge in that plane
// whatever side it truly runs on, and the top-left rule may give the ray
// to the triangle on the other side, whose box the slab test has culled:
// the ray fell through the edge (robustScale;
// TestWatertightUnderflowingShearNoGaps). The refined function takes each
// vertex's coordinates in float64 from the same float32 differences and
// shear, the product exact there, so it has the side the shear says, and
// it is computed from the edge's two vertices alone, the same way from
// either of its triangles with the sign flipped for the opposite
// direction, so that exactly one of two triangles sharing the edge keeps
// the ray, as the top-left rule's choice is. Only the exact path runs
// it; EXOWNS is the assembly's.
func (w *watertightRay) ownsEdge(p, q *vec.Vec3, px, py, qx, qy float32, det float64) bool {
	pX, pY := w.refined(p)
	qX, qY := w.refined(q)
	e := float64(qX*pY) - float64(qY*pX)
	if e > 0 || e < 0 {
		return (e > 0) == (det > 0)
	}
	return topLeft(px, py, qx, qy, det)
}

// refined returns vertex v's coordinates in the ray's projection in
// float64: its float32 differences from the origin, as intersect takes
// them, less the shear times its distance along the dominant axis, a
// product exact in float64, rounded once.
func (w *watertightRay) refined(v *vec.Vec3) (x, y float64) {
	c := comps(v)
	z := float64(c[w.kz] - w.oz)
	x = float64(c[w.kx]-w.ox) - float64(w.sx)*z
	y = float64(c[w.ky]-w.oy) - float64(w.sy)*z
	return x, y
}

// topLeft reports whether the projected edge p->q, oriented as if its
// triangle wound positively (det > 0), owns points lying exactly on it.
// The rule is antisymmetric: exactly one of p->q and q->p owns the edge.
func topLeft(px, py, qx, qy float32, det float64) bool {
	dx, dy := qx-px, qy-py // float subtraction keeps the exact sign
	if det < 0 {
		dx, dy = -dx, -dy
	}
	return dy > 0 || (dy == 0 && dx > 0)
}
