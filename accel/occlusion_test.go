package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestOcclusionStartsOverOnTheFullStack checks the small-stack occlusion
// walks (BLAS.occludesFiniteOn, TLAS.occludedOn): on a stack too small for
// the walk they give up without an answer, never a wrong one, and the
// full-stack walks they then start over with (occludesFiniteDeep,
// occludedDeep) answer as the Traversal does; the BLAS walks that commit
// the hit they stop at (firstHit's) commit the Traversal's
// ACCEPT_FIRST_HIT_AND_END_SEARCH hit.
func TestOcclusionStartsOverOnTheFullStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	pos, idx := randomSoup(rng, 3000, 0.3)
	blas := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastTrace)
	var insts []Instance
	for i := 0; i < 40; i++ {
		m := vec.Identity3x4
		m[0][3], m[1][3], m[2][3] = rng.Float32()*0.5, rng.Float32()*0.5, rng.Float32()*0.5
		insts = append(insts, Instance{Transform: m, InstanceMask: 0xff, BLAS: blas})
	}
	tl := mustTLAS(t, insts, 0)
	rays := randRays(rng, 400, 2)
	gaveUp := [2]int{}
	for i, r := range rays {
		wantHit, want := traverseClosest(nil, blas, r, RayFlagAcceptFirstHitAndEndSearch, 0xff)
		var o objectRay
		o.setupSelf(&r)
		if !o.rb.finite {
			continue
		}
		sameHit := func(h *fastHit) bool {
			return h.t == wantHit.T && h.u == wantHit.U && h.v == wantHit.V && blas.primIndex[h.slot] == wantHit.PrimitiveIndex
		}
		for size := wideWidth - 1; size <= 2*wideWidth; size++ {
			if hit, done := blas.occludesFiniteOn(&o, r.TMin, r.TMax, make([]uint32, size), nil); !done {
				gaveUp[0]++
			} else if hit != want {
				t.Fatalf("BLAS ray %d, stack %d: occluded %v, traversal %v", i, size, hit, want)
			}
			var h fastHit
			if hit, done := blas.occludesFiniteOn(&o, r.TMin, r.TMax, make([]uint32, size), &h); done && (hit != want || hit && !sameHit(&h)) {
				t.Fatalf("BLAS ray %d, stack %d: first hit %v %+v, traversal %v %+v", i, size, hit, h, want, wantHit)
			}
		}
		if got := blas.occludesFiniteDeep(&o, r.TMin, r.TMax, nil); got != want {
			t.Fatalf("BLAS ray %d: deep walk %v, traversal %v", i, got, want)
		}
		var h fastHit
		if got := blas.occludesFiniteDeep(&o, r.TMin, r.TMax, &h); got != want || got && !sameHit(&h) {
			t.Fatalf("BLAS ray %d: deep first hit %v %+v, traversal %v %+v", i, got, h, want, wantHit)
		}

		wantHit, want = traverseClosest(tl, nil, r, RayFlagAcceptFirstHitAndEndSearch, 0xff)
		sameFound := func(f *firstFound) bool {
			return f.idx == wantHit.InstanceIndex && f.h.t == wantHit.T && f.h.u == wantHit.U && f.h.v == wantHit.V &&
				blas.primIndex[f.h.slot] == wantHit.PrimitiveIndex
		}
		for size := wideWidth - 1; size <= 2*wideWidth; size++ {
			if hit, done := tl.occludedOn(&r, 0xff, make([]uint32, size), nil); !done {
				gaveUp[1]++
			} else if hit != want {
				t.Fatalf("TLAS ray %d, stack %d: occluded %v, traversal %v", i, size, hit, want)
			}
			var f firstFound
			if hit, done := tl.occludedOn(&r, 0xff, make([]uint32, size), &f); done && (hit != want || hit && !sameFound(&f)) {
				t.Fatalf("TLAS ray %d, stack %d: first hit %v %+v, traversal %v %+v", i, size, hit, f, want, wantHit)
			}
		}
		if got := tl.occludedDeep(&r, 0xff, nil); got != want {
			t.Fatalf("TLAS ray %d: deep walk %v, traversal %v", i, got, want)
		}
		var f firstFound
		if got := tl.occludedDeep(&r, 0xff, &f); got != want || got && !sameFound(&f) {
			t.Fatalf("TLAS ray %d: deep first hit %v %+v, traversal %v %+v", i, got, f, want, wantHit)
		}
	}
	if gaveUp[0] == 0 || gaveUp[1] == 0 {
		t.Fatalf("no walk outgrew its stack (BLAS %d, TLAS %d): the test does not reach the fallback", gaveUp[0], gaveUp[1])
	}
	t.Logf("walks that gave up: BLAS %d, TLAS %d", gaveUp[0], gaveUp[1])
}

// TestReachChildIsTheFarthestReach checks reachChild against its
// definition, computed apart: of the children in the mask, the one whose
// reach, its crossing's length plus its exit distance, (far - near) + far
// in float32, is greatest (compared as float64 values, so that -0 and +0
// tie), the lowest slot among equals. Distances come from
// a small lattice so that ties are common, with signed zeros among them.
func TestReachChildIsTheFarthestReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	lattice := []float32{0, float32(math.Copysign(0, -1)), 0.5, 1, 1.5, 2, 3}
	ties := 0
	for iter := 0; iter < 20000; iter++ {
		var near, far wideRow
		mask := uint(rng.IntN(255) + 1)
		for i := range wideWidth {
			near[i] = lattice[rng.IntN(len(lattice))]
			if rng.IntN(4) == 0 {
				near[i] = rng.Float32() * 3
			}
			// A hit child's exit is at least its entry.
			far[i] = near[i] + lattice[rng.IntN(len(lattice))]
			if rng.IntN(8) == 0 {
				far[i] = float32(math.Copysign(0, -1))
				near[i] = 0
			}
		}
		want, best, n := -1, -1.0, 0
		for i := range wideWidth {
			if mask&(1<<i) == 0 {
				continue
			}
			length := far[i] - near[i]
			reach := float64(length + far[i])
			if reach > best {
				want, best, n = i, reach, 1
			} else if reach == best {
				n++
			}
		}
		if n > 1 {
			ties++
		}
		if got := reachChild(mask, &near, &far); got != want {
			t.Fatalf("mask %08b, near %v, far %v: reachChild %d, want %d", mask, near, far, got, want)
		}
	}
	if ties < 1000 {
		t.Fatalf("only %d masks with tied reaches", ties)
	}
}

// TestAcceptFirstHitCommitsAHitOfTheRay checks
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH (D3D12 raytracing spec, "Ray
// flags": the first hit traversal finds is accepted and the search ends)
// against a brute-force oracle: Intersect with the flag, ray by ray and in
// batches, finds a hit exactly when some triangle is hit over (TMin, TMax),
// and the hit it commits is one of those triangles' own intersections (its
// t and barycentrics), though not necessarily the closest. It counts the
// rays whose first hit is not the closest: the flag's walk (the occlusion
// walk's order) must not be the closest-hit walk in disguise.
func TestAcceptFirstHitCommitsAHitOfTheRay(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	pos, idx := randomSoup(rng, 4000, 0.3)
	blas := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastTrace)
	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}
	for i := 0; i < 5; i++ {
		insts = append(insts, Instance{Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: blas})
	}
	tl := mustTLAS(t, insts, 0)
	rays := randRays(rng, raceRays(600), 2)
	const first = RayFlagAcceptFirstHitAndEndSearch
	// hitsOf lists every triangle hit of r over (TMin, TMax) in the given
	// instances, as the oracle finds them.
	hitsOf := func(insts []Instance, r Ray) []Hit {
		var all []Hit
		for ii := range insts {
			in := &insts[ii]
			inv, _ := in.Transform.Inverse()
			var w watertightRay
			w.setup(inv.TransformPoint(r.Origin), inv.TransformVector(r.Direction))
			for s := range blas.tris {
				if t, u, v, _, ok := w.intersect(&blas.tris[s], r.TMin, r.TMax); ok {
					all = append(all, Hit{T: t, U: u, V: v, InstanceIndex: uint32(ii), PrimitiveIndex: blas.primIndex[s]})
				}
			}
		}
		return all
	}
	check := func(what string, i int, all []Hit, got Hit, ok bool) (notClosest bool) {
		if ok != (len(all) > 0) {
			t.Fatalf("%s ray %d: found %v, oracle has %d hits", what, i, ok, len(all))
		}
		if !ok {
			return false
		}
		closest := all[0].T
		match := false
		for _, h := range all {
			closest = min(closest, h.T)
			if h.InstanceIndex == got.InstanceIndex && h.PrimitiveIndex == got.PrimitiveIndex && h.T == got.T && h.U == got.U && h.V == got.V {
				match = true
			}
		}
		if !match {
			t.Fatalf("%s ray %d: committed %+v is none of the ray's %d hits", what, i, got, len(all))
		}
		return got.T != closest
	}
	bh, bf := make([]Hit, len(rays)), make([]bool, len(rays))
	th, tf := make([]Hit, len(rays)), make([]bool, len(rays))
	if err := blas.IntersectBatch(rays, first, bh, bf); err != nil {
		t.Fatal(err)
	}
	if err := tl.IntersectBatch(rays, first, 0xff, th, tf); err != nil {
		t.Fatal(err)
	}
	notClosest := 0
	for i, r := range rays {
		own := hitsOf(insts[:1], r)
		h, ok := blas.Intersect(r, first)
		if check("BLAS", i, own, h, ok) {
			notClosest++
		}
		check("BLAS batch", i, own, bh[i], bf[i])
		all := hitsOf(insts, r)
		h, ok = tl.Intersect(r, first, 0xff)
		if check("TLAS", i, all, h, ok) {
			notClosest++
		}
		check("TLAS batch", i, all, th[i], tf[i])
	}
	if notClosest < len(rays)/12 {
		t.Fatalf("only %d first hits were not the closest: the test cannot tell the walks apart", notClosest)
	}
	t.Logf("%d of %d first hits were not the closest", notClosest, 2*len(rays))
}
