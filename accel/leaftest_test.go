package accel

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// The assembly leaf tests (leafTest, and leafTestAVX2 where the processor
// has AVX2, on alternate leaves) must answer as the scalar triangle test
// (watertightRay.intersect) on every triangle of a leaf: a candidate off
// the edge cases with the same t, u, v and facing (leafHits.hit), edge
// cases flagged (intersect's exact path decides them), and no other hit.
// Leaves of 1 to 8 triangles: random ones, fans and grids on integer
// lattices whose shared edges and vertices the rays pass through exactly
// (edge functions of zero), degenerate and huge triangles, and t at the
// ends of the interval.
func TestLeafTestMatchesIntersect(t *testing.T) {
	if !leafAsm {
		t.Skip("no assembly leaf test on this architecture")
	}
	rng := rand.New(rand.NewPCG(51, 52))
	lattice := func() vec.Vec3 {
		return vec.V3(float32(rng.IntN(5)-2), float32(rng.IntN(5)-2), float32(rng.IntN(3)-1))
	}
	vertex := func(kind int) vec.Vec3 {
		switch kind {
		case 0:
			return lattice()
		case 1:
			return randVec(rng, 1e20)
		default:
			return randVec(rng, 2)
		}
	}
	var hits, edges int
	for it := 0; it < 100000; it++ {
		n := 1 + rng.IntN(maxLeafCount)
		kind := rng.IntN(4)
		tris := make([]triVerts, n)
		for k := range tris {
			tris[k] = triVerts{vertex(kind), vertex(kind), vertex(kind)}
			if rng.IntN(10) == 0 {
				tris[k][2] = tris[k][1] // degenerate
			}
		}
		leaf := BLAS{nodes: []node{{first: 0, count: uint32(n)}}, tris: tris, geoms: []geomInfo{{prims: n}}, primIndex: make([]uint32, n)}
		rows := leaf.leafRows()
		var o objectRay
		r := Ray{Origin: vec.V3(float32(rng.IntN(5)-2), float32(rng.IntN(5)-2), 3), Direction: vec.V3(0, 0, -1), TMax: float32(math.Inf(1))}
		if kind != 0 || rng.IntN(2) == 0 {
			r.Origin, r.Direction = randVec(rng, 3), randVec(rng, 1)
		}
		if rng.IntN(3) == 0 {
			r.TMin, r.TMax = float32(rng.Float64()*2), float32(rng.Float64()*6)
		}
		o.setupSelf(&r)
		w := o.tri()
		var lh leafHits
		kernels := []func(*watertightRay, unsafe.Pointer, int, float32, float32, *leafHits) (uint, uint){leafTest}
		if haveAVX2 {
			kernels = append(kernels, leafTestAVX2)
		}
		kernel := kernels[it%len(kernels)]
		cand, edge := kernel(w, unsafe.Pointer(&rows[0]), n, r.TMin, r.TMax, &lh)
		if edge&^cand != 0 || cand>>n != 0 {
			t.Fatalf("iteration %d: edge %b not within candidates %b of %d lanes", it, edge, cand, n)
		}
		for k := 0; k < n; k++ {
			wt, wu, wv, wf, wok := w.intersect(&tris[k], r.TMin, r.TMax)
			if cand&(1<<k) == 0 {
				if wok {
					t.Fatalf("iteration %d triangle %d: intersect hits at t=%g, the leaf test drops it", it, k, wt)
				}
				continue
			}
			if edge&(1<<k) != 0 {
				edges++
				continue // intersect's exact path decides
			}
			gt, gu, gv, gf, gok := lh.hit(k, r.TMin, r.TMax)
			if gok != wok || gok && (gt != wt || gu != wu || gv != wv || gf != wf) {
				t.Fatalf("iteration %d triangle %d: leaf test (%g %g %g %v %v), intersect (%g %g %g %v %v)", it, k, gt, gu, gv, gf, gok, wt, wu, wv, wf, wok)
			}
			if gok {
				hits++
			}
		}
	}
	if hits < 1000 || edges < 100 {
		t.Fatalf("only %d hits and %d edge cases checked", hits, edges)
	}
}
