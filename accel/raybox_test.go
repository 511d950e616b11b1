package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestRayBoxHitWithoutBranchesIsHit checks rayBox.hit on finite rays
// (hitFinite: planes by index, distances by min and max) against hitAny,
// the branch per plane, over random rays and boxes: directions with
// negative and tiny components, tMin of +0 and -0, flat boxes and boxes
// with a face through the origin. The answers must be the same, and the
// entry distances equal; and both must agree with the exact slab test, in
// float64, wherever a margin decides it.
func TestRayBoxHitWithoutBranchesIsHit(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	coord := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return float32(rng.IntN(5)-2) * 0.5 // on a lattice, to meet box faces
		}
		return rng.Float32()*4 - 2
	}
	hits, misses, finite := 0, 0, 0
	for i := range 200000 {
		a, b := vec.V3(coord(), coord(), coord()), vec.V3(coord(), coord(), coord())
		if i%5 == 0 {
			b.Z = a.Z // flat
		}
		box := AABB{Min: vec.V3(min(a.X, b.X), min(a.Y, b.Y), min(a.Z, b.Z)), Max: vec.V3(max(a.X, b.X), max(a.Y, b.Y), max(a.Z, b.Z))}
		o := vec.V3(coord(), coord(), coord())
		d := vec.V3(coord(), coord(), coord())
		if i%2 == 0 { // at a point of the box
			p := vec.V3(box.Min.X+(box.Max.X-box.Min.X)*rng.Float32(), box.Min.Y+(box.Max.Y-box.Min.Y)*rng.Float32(), box.Min.Z+(box.Max.Z-box.Min.Z)*rng.Float32())
			d = p.Sub(o)
		}
		if i%7 == 0 {
			d.Y = float32(rng.NormFloat64()) * 1e-30 // an inverse near the largest float32
		}
		if d == (vec.Vec3{}) {
			continue
		}
		var r rayBox
		r.setup(o, d)
		tMin, tMax := float32(0), float32(math.Inf(1))
		switch i % 4 {
		case 1:
			tMin = float32(math.Copysign(0, -1))
		case 2:
			tMin, tMax = rng.Float32(), 1+rng.Float32()*3
		case 3:
			// Just short of the entry: the far bound's robustScale keeps
			// the box.
			if e, ok := r.hitAny(&box, 0, tMax); ok && e > 0 {
				tMax = e * (1 - 0x1p-23)
			}
		}
		near, ok := r.hit(&box, tMin, tMax)
		wantNear, wantOK := r.hitAny(&box, tMin, tMax)
		if ok != wantOK || ok && near != wantNear {
			t.Fatalf("ray %v along %v over [%v, %v], box %v: hit %v at %v, the branch per plane says %v at %v", o, d, tMin, tMax, box, ok, near, wantOK, wantNear)
		}
		if !r.finite {
			continue
		}
		finite++
		// The exact slab test; undecided within the margin.
		lo, hi := float64(tMin), float64(tMax)
		for k, dk := range [3]float32{d.X, d.Y, d.Z} {
			ok := [3]float32{o.X, o.Y, o.Z}[k]
			bl, bh := [3]float32{box.Min.X, box.Min.Y, box.Min.Z}[k], [3]float32{box.Max.X, box.Max.Y, box.Max.Z}[k]
			t0, t1 := (float64(bl)-float64(ok))/float64(dk), (float64(bh)-float64(ok))/float64(dk)
			lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
		}
		const margin = 1e-4
		switch {
		case hi-lo > margin*max(1, math.Abs(lo)):
			hits++
			if !ok {
				t.Fatalf("ray %v along %v over [%v, %v] misses box %v, which it crosses over [%v, %v]", o, d, tMin, tMax, box, lo, hi)
			}
		case lo-hi > margin*max(1, math.Abs(hi)):
			misses++
			if ok {
				t.Fatalf("ray %v along %v over [%v, %v] hits box %v, which it misses", o, d, tMin, tMax, box)
			}
		}
	}
	if hits < 20000 || misses < 20000 || finite < 100000 {
		t.Fatalf("only %d decided hits, %d decided misses, %d finite rays", hits, misses, finite)
	}
}
