package accel

import (
	"math"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestTraversalDegenerateRaysMiss checks rayUsable's rule on every way a
// Traversal begins (BeginBLAS; Begin on a TLAS's sole instance, which it
// enters at once; Begin on a top level of several) and every walk
// (closest-hit and first-hit, the candidates decided in the loop, in
// assembly where it runs and in Go): rays
// with a NaN or infinite origin or direction component, a zero direction
// of either sign, a NaN TMin or TMax, or TMin > TMax end at once with
// nothing committed, where the same BLAS's usable rays hit.
func TestTraversalDegenerateRaysMiss(t *testing.T) {
	sc := nodeWalkScenes(t)["terrain"]
	sole := mustTLAS(t, []Instance{{Transform: vec.Translate3x4(vec.V3(0.1, 0, 0)), InstanceMask: 0xff, BLAS: sc.b}}, 0)
	two := mustTLAS(t, []Instance{
		{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: sc.b},
		{Transform: vec.Translate3x4(vec.V3(0, 0, 3)), InstanceMask: 0xff, BLAS: sc.b},
	}, 0)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	c := sc.b.Bounds().Min.Add(sc.b.Bounds().Max).Scale(0.5)
	above := c.Add(vec.V3(0, 10, 0))
	good := Ray{Origin: above, Direction: vec.V3(0, -1, 0), TMax: inf}
	bad := []Ray{
		{Origin: vec.V3(nan, above.Y, above.Z), Direction: good.Direction, TMax: inf},
		{Origin: vec.V3(above.X, inf, above.Z), Direction: good.Direction, TMax: inf},
		{Origin: above, Direction: vec.V3(0, float32(math.Inf(-1)), 0), TMax: inf},
		{Origin: above, Direction: vec.V3(0, nan, 0), TMax: inf},
		{Origin: above, Direction: vec.V3(0, 0, 0), TMax: inf},
		{Origin: above, Direction: vec.V3(float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1)), 0), TMax: inf},
		{Origin: above, Direction: good.Direction, TMin: nan, TMax: inf},
		{Origin: above, Direction: good.Direction, TMax: nan},
		{Origin: above, Direction: good.Direction, TMin: 5, TMax: 1},
	}
	begins := map[string]func(tr *Traversal, r Ray, f RayFlags){
		"BeginBLAS":            func(tr *Traversal, r Ray, f RayFlags) { tr.BeginBLAS(sc.b, r, f) },
		"Begin, sole":          func(tr *Traversal, r Ray, f RayFlags) { tr.Begin(sole, r, f, 0xff) },
		"Begin, two instances": func(tr *Traversal, r Ray, f RayFlags) { tr.Begin(two, r, f, 0xff) },
	}
	trace := func(begin func(tr *Traversal, r Ray, f RayFlags), r Ray, f RayFlags) (candidates int, committed Hit) {
		var tr Traversal
		begin(&tr, r, f)
		for tr.Next() {
			candidates++
			tr.Commit()
		}
		return candidates, *tr.Committed()
	}
	defer func(old bool) { fusedAVX2 = old }(fusedAVX2)
	for _, asm := range []bool{haveAVX2, false} {
		fusedAVX2 = asm
		for name, begin := range begins {
			for _, f := range []RayFlags{RayFlagForceNonOpaque, RayFlagForceNonOpaque | RayFlagAcceptFirstHitAndEndSearch} {
				if n, h := trace(begin, good, f); n == 0 || h.Kind != KindTriangle {
					t.Fatalf("%s, assembly %v, flags %v: the usable ray gives %d candidates and %+v, want a hit", name, asm, f, n, h)
				}
				for i, r := range bad {
					if n, h := trace(begin, r, f); n != 0 || h.Kind != KindNone {
						t.Errorf("%s, assembly %v, flags %v, ray %d %+v: %d candidates, committed %+v; want none", name, asm, f, i, r, n, h)
					}
				}
			}
		}
	}
}
