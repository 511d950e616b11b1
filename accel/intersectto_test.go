package accel

import (
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestIntersectToOverwritesTheWholeHit checks that the pointer forms
// leave nothing of what out held before: every field of a hit, and Hit{}
// on a miss. (Intersect is IntersectTo into a zeroed Hit, so their
// answers are the same by construction, and every Intersect test checks
// IntersectTo's walks; what only this test sees is a stale field.) Over a
// BLAS, a TLAS of one identity instance (its shortcut to the BLAS) and of
// several transformed ones, with the flags of the fast path (none,
// ACCEPT_FIRST_HIT_AND_END_SEARCH) and of the Traversal (culling), an
// instance mask that excludes some, and broken rays among them (which
// simply miss).
func TestIntersectToOverwritesTheWholeHit(t *testing.T) {
	rng := rand.New(rand.NewPCG(95, 96))
	pos, idx := randomSoup(rng, 2000, 0.3)
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	sole := mustTLAS(t, []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}, 0)
	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0x01, BLAS: b}}
	for i := 0; i < 4; i++ {
		insts = append(insts, Instance{Transform: randomRotation(rng), InstanceMask: 0x02, BLAS: b})
	}
	many := mustTLAS(t, insts, 0)
	garbage := Hit{Kind: KindTriangle, T: 7, U: 0.5, V: 0.25, PrimitiveIndex: 99, InstanceIndex: 3}
	hits, misses := 0, 0
	rays := randRays(rng, 500, 2)
	for i := range rays {
		spoilRay(&rays[i], i%12) // broken rays (NaN, infinite, TMin > TMax, zero direction) must store Hit{} too
	}
	broken := 0
	for i, r := range rays {
		if r.TMin > r.TMax || !rayUsable(&r) {
			broken++
		}
		for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch, RayFlagCullBackFacingTriangles} {
			want, wok := b.Intersect(r, flags)
			got := garbage
			if ok := b.IntersectTo(&r, flags, &got); ok != wok || got != want {
				t.Fatalf("BLAS ray %d flags %#x: IntersectTo %v %+v, Intersect %v %+v", i, flags, ok, got, wok, want)
			}
			for _, tc := range []struct {
				name string
				tl   *TLAS
				mask uint32
			}{{"sole", sole, 0xff}, {"many", many, 0xff}, {"many masked", many, 0x02}} {
				want, wok := tc.tl.Intersect(r, flags, tc.mask)
				got := garbage
				if ok := tc.tl.IntersectTo(&r, flags, tc.mask, &got); ok != wok || got != want {
					t.Fatalf("%s TLAS ray %d flags %#x: IntersectTo %v %+v, Intersect %v %+v", tc.name, i, flags, ok, got, wok, want)
				}
				if wok {
					hits++
				} else {
					misses++
				}
			}
		}
	}
	if broken < 100 {
		t.Fatalf("only %d broken rays", broken)
	}
	if hits < 500 || misses < 500 {
		t.Fatalf("%d hits, %d misses: too few of one to compare", hits, misses)
	}
}
