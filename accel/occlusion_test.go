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
// occludedDeep) answer as the Traversal does.
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
		_, want := traverseClosest(nil, blas, r, RayFlagAcceptFirstHitAndEndSearch, 0xff)
		var o objectRay
		o.setupSelf(&r)
		if !o.rb.finite {
			continue
		}
		for size := wideWidth - 1; size <= 2*wideWidth; size++ {
			if hit, done := blas.occludesFiniteOn(&o, r.TMin, r.TMax, make([]uint32, size)); !done {
				gaveUp[0]++
			} else if hit != want {
				t.Fatalf("BLAS ray %d, stack %d: occluded %v, traversal %v", i, size, hit, want)
			}
		}
		if got := blas.occludesFiniteDeep(&o, r.TMin, r.TMax); got != want {
			t.Fatalf("BLAS ray %d: deep walk %v, traversal %v", i, got, want)
		}

		_, want = traverseClosest(tl, nil, r, RayFlagAcceptFirstHitAndEndSearch, 0xff)
		for size := wideWidth - 1; size <= 2*wideWidth; size++ {
			if hit, done := tl.occludedOn(&r, 0xff, make([]uint32, size)); !done {
				gaveUp[1]++
			} else if hit != want {
				t.Fatalf("TLAS ray %d, stack %d: occluded %v, traversal %v", i, size, hit, want)
			}
		}
		if got := tl.occludedDeep(&r, 0xff); got != want {
			t.Fatalf("TLAS ray %d: deep walk %v, traversal %v", i, got, want)
		}
	}
	if gaveUp[0] == 0 || gaveUp[1] == 0 {
		t.Fatalf("no walk outgrew its stack (BLAS %d, TLAS %d): the test does not reach the fallback", gaveUp[0], gaveUp[1])
	}
	t.Logf("walks that gave up: BLAS %d, TLAS %d", gaveUp[0], gaveUp[1])
}

// TestLongestChildIsTheLongestCrossing checks longestChild against its
// definition, computed apart: of the children in the mask, the one whose
// exit minus entry distance is greatest (compared as float64 values, so
// that -0 and +0 tie), the lowest slot among equals. Distances come from
// a small lattice so that ties are common, with signed zeros among them.
func TestLongestChildIsTheLongestCrossing(t *testing.T) {
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
			length := float64(far[i] - near[i])
			if length > best {
				want, best, n = i, length, 1
			} else if length == best {
				n++
			}
		}
		if n > 1 {
			ties++
		}
		if got := longestChild(mask, &near, &far); got != want {
			t.Fatalf("mask %08b, near %v, far %v: longestChild %d, want %d", mask, near, far, got, want)
		}
	}
	if ties < 1000 {
		t.Fatalf("only %d masks with tied lengths", ties)
	}
}
