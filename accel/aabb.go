package accel

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// emptyAABB is the identity of Union.
func emptyAABB() AABB {
	inf := float32(math.Inf(1))
	return AABB{vec.V3(inf, inf, inf), vec.V3(-inf, -inf, -inf)}
}

// Union returns the smallest box containing a and b.
func (a AABB) Union(b AABB) AABB { return AABB{a.Min.Min(b.Min), a.Max.Max(b.Max)} }

// Extend returns the smallest box containing a and p.
func (a AABB) Extend(p vec.Vec3) AABB { return AABB{a.Min.Min(p), a.Max.Max(p)} }

// intersection returns the box of the points in both a and b (empty when
// there is none).
func (a AABB) intersection(b AABB) AABB { return AABB{a.Min.Max(b.Min), a.Max.Min(b.Max)} }

// IsEmpty reports whether a contains no point.
func (a AABB) IsEmpty() bool {
	return !(a.Min.X <= a.Max.X && a.Min.Y <= a.Max.Y && a.Min.Z <= a.Max.Z)
}

// Contains reports whether b lies inside a.
func (a AABB) Contains(b AABB) bool {
	return a.Min.X <= b.Min.X && a.Min.Y <= b.Min.Y && a.Min.Z <= b.Min.Z &&
		a.Max.X >= b.Max.X && a.Max.Y >= b.Max.Y && a.Max.Z >= b.Max.Z
}

// HalfArea returns half the surface area, the SAH's measure.
func (a AABB) HalfArea() float32 {
	if a.IsEmpty() {
		return 0
	}
	d := a.Max.Sub(a.Min)
	return d.X*d.Y + d.Y*d.Z + d.Z*d.X
}

// Transform returns a box containing a's eight corners mapped by m, padded
// by a few ulps so that rounding never makes it smaller than the exact image.
//
// Each bound is found as Arvo ("Transforming axis-aligned bounding
// boxes", Graphics Gems, 1990) finds it, from the smaller (or larger) of
// each matrix entry's two products with the box's extremes, summed in
// TransformPoint's order: rounding is monotonic (with -0 below +0, as min
// orders them), so that sum is the least (greatest) of the eight corners'
// as TransformPoint rounds them, bit for bit, in a third of the products.
// Where a product overflows, the corners are mapped one by one.
func (a AABB) Transform(m vec.Mat3x4) AABB {
	lo := [3]float32{a.Min.X, a.Min.Y, a.Min.Z}
	hi := [3]float32{a.Max.X, a.Max.Y, a.Max.Z}
	var rmin, rmax [3]float32
	for row := range 3 {
		r := &m[row]
		var pmin, pmax [3]float32
		for j := range 3 {
			p, q := float32(r[j]*lo[j]), float32(r[j]*hi[j])
			pmin[j], pmax[j] = min(p, q), max(p, q)
		}
		rmin[row] = pmin[0] + pmin[1] + pmin[2] + r[3]
		rmax[row] = pmax[0] + pmax[1] + pmax[2] + r[3]
	}
	out := AABB{vec.V3(rmin[0], rmin[1], rmin[2]), vec.V3(rmax[0], rmax[1], rmax[2])}
	if !out.Min.IsFinite() || !out.Max.IsFinite() {
		return a.transformCorners(m)
	}
	return out.pad()
}

// transformCorners is Transform mapping the eight corners one by one.
func (a AABB) transformCorners(m vec.Mat3x4) AABB {
	r := emptyAABB()
	for i := range 8 {
		r = r.Extend(m.TransformPoint(vec.BoxCorner(a.Min, a.Max, i)))
	}
	return r.pad()
}

// pad grows a by a relative 2^-20 of its coordinates' magnitude.
func (a AABB) pad() AABB {
	e := func(lo, hi float32) float32 { return (abs32(lo) + abs32(hi)) * (1.0 / (1 << 20)) }
	d := vec.V3(e(a.Min.X, a.Max.X), e(a.Min.Y, a.Max.Y), e(a.Min.Z, a.Max.Z))
	return AABB{a.Min.Sub(d), a.Max.Add(d)}
}

func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

func triBounds(t *triVerts) AABB {
	return AABB{t[0].Min(t[1]).Min(t[2]), t[0].Max(t[1]).Max(t[2])}
}

// triFinite reports whether every coordinate of t is finite, so that t is
// an active triangle: x - x is 0 for a finite x and NaN for an infinity or
// a NaN, and a NaN term makes the sum NaN (one compare, not nine pairs).
func triFinite(t *triVerts) bool {
	z := (t[0].X - t[0].X) + (t[0].Y - t[0].Y) + (t[0].Z - t[0].Z) +
		(t[1].X - t[1].X) + (t[1].Y - t[1].Y) + (t[1].Z - t[1].Z) +
		(t[2].X - t[2].X) + (t[2].Y - t[2].Y) + (t[2].Z - t[2].Z)
	return z == 0
}

// boxFinite reports whether every coordinate of b is finite (as
// triFinite).
func boxFinite(b *AABB) bool {
	z := (b.Min.X - b.Min.X) + (b.Min.Y - b.Min.Y) + (b.Min.Z - b.Min.Z) +
		(b.Max.X - b.Max.X) + (b.Max.Y - b.Max.Y) + (b.Max.Z - b.Max.Z)
	return z == 0
}
