package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// slabKernel is one of the assembly slab tests.
type slabKernel struct {
	name string
	test func(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) uint
}

// slabKernels returns the assembly slab tests this processor runs: the
// SSE one, and the AVX2 one where it has AVX2.
func slabKernels() []slabKernel {
	ks := []slabKernel{{"slabTest", slabTest}}
	if haveAVX2 {
		ks = append(ks, slabKernel{"slabTestAVX2", slabTestAVX2})
	}
	return ks
}

// slabTest and slabTestAVX2 (assembly on amd64) must give exactly the mask of
// rayBox.hitWideFinite, the scalar walks' reference, and the same entry
// distances up to the sign of a zero, for finite rays against nodes of
// 1 to 8 children: random boxes, boxes the origin lies in or on, flat and
// point boxes, boxes met exactly at tMin or tMax, and huge coordinates.
func TestSlabTestMatchesScalarLoop(t *testing.T) {
	if !slabAsm {
		t.Skip("no assembly slab test on this architecture")
	}
	rng := rand.New(rand.NewPCG(41, 42))
	comp := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return float32(rng.IntN(5) - 2) // lattice values: exact ties
		case 2:
			return float32((rng.Float64()*2 - 1) * 1e30)
		default:
			return float32(rng.Float64()*4 - 2)
		}
	}
	dirComp := func() float32 {
		for {
			x := comp()
			if rng.IntN(6) == 0 {
				x = float32(rng.Float64()*2-1) * 1e-30
			}
			if x != 0 && !math.IsInf(float64(1/x), 0) {
				return x
			}
		}
	}
	checked := 0
	for iter := 0; iter < 200000; iter++ {
		var n wideNode
		n.clear()
		kids := 1 + rng.IntN(wideWidth)
		for i := 0; i < kids; i++ {
			a, b := vec.V3(comp(), comp(), comp()), vec.V3(comp(), comp(), comp())
			box := AABB{a.Min(b), a.Max(b)}
			n.set(i, &box, uint32(i))
		}
		n.n = uint32(kids)
		var r rayBox
		r.setup(vec.V3(comp(), comp(), comp()), vec.V3(dirComp(), dirComp(), dirComp()))
		if !r.finite {
			continue
		}
		tMin := max(0, comp())
		tMax := tMin + float32(rng.IntN(3))*float32(rng.Float64()*10)
		if rng.IntN(4) == 0 {
			tMax = float32(math.Inf(1))
		}
		var wantNear, gotNear wideRow
		want := r.hitWideFinite(&n, tMin, tMax, &wantNear)
		r.slab.init(&r) // rayBox.setup leaves it to the vector walks' builds
		// The occlusion walks' tests, which keep the exit distances too
		// (hitWideSpans): the same mask and entries, and exits that
		// agree between the Go loop and the assembly.
		var spanNear, spanFar, asmNear, asmFar wideRow
		if got := r.hitWideSpansGo(&n, tMin, tMax, &spanNear, &spanFar); got != want || spanNear != wantNear {
			t.Fatalf("iteration %d: hitWideSpansGo mask %08b entries %v, want %08b %v", iter, got, spanNear, want, wantNear)
		}
		if got := slabTestSpans(&n, &r.slab, tMin, tMax, &asmNear, &asmFar); got != want {
			t.Fatalf("iteration %d: slabTestSpans mask %08b, want %08b", iter, got, want)
		}
		for i := 0; i < kids; i++ {
			if asmNear[i] != spanNear[i] || asmFar[i] != spanFar[i] { // -0 == +0
				t.Fatalf("iteration %d child %d: slabTestSpans entry, exit %g, %g; want %g, %g", iter, i, asmNear[i], asmFar[i], spanNear[i], spanFar[i])
			}
		}
		if want != 0 && reachChild(want, &asmNear, &asmFar) != reachChild(want, &spanNear, &spanFar) {
			t.Fatalf("iteration %d: reachChild differs between slabTestSpans and the Go loop", iter)
		}
		for _, k := range slabKernels() {
			got := k.test(&n, &r.slab, tMin, tMax, &gotNear)
			if got != want {
				t.Fatalf("%s, iteration %d: mask %08b, want %08b (ray %+v, tMin %g, tMax %g, node %+v)", k.name, iter, got, want, r, tMin, tMax, n.b)
			}
			for i := 0; i < kids; i++ {
				if gotNear[i] != wantNear[i] { // -0 == +0
					t.Fatalf("%s, iteration %d child %d: entry %g, want %g", k.name, iter, i, gotNear[i], wantNear[i])
				}
			}
		}
		checked++
	}
	if checked < 100000 {
		t.Fatalf("only %d finite rays checked", checked)
	}
}
