package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// latticeBox returns the faces of the box [0,k]^3 split into unit squares
// of two triangles each, the diagonal alternating: every vertex and edge
// lies on integer coordinates, so that rays between lattice points meet
// vertices and edges exactly (edge functions of zero).
func latticeBox(k int) ([]vec.Vec3, []uint32) {
	var pos []vec.Vec3
	var idx []uint32
	quad := func(a, b, c, d vec.Vec3, flip bool) {
		base := uint32(len(pos))
		pos = append(pos, a, b, c, d)
		if flip {
			idx = append(idx, base, base+1, base+3, base+1, base+2, base+3)
		} else {
			idx = append(idx, base, base+1, base+2, base, base+2, base+3)
		}
	}
	f := float32(k)
	for i := range k {
		for j := range k {
			x, y := float32(i), float32(j)
			flip := (i+j)%2 == 0
			quad(vec.V3(x, y, 0), vec.V3(x+1, y, 0), vec.V3(x+1, y+1, 0), vec.V3(x, y+1, 0), flip)
			quad(vec.V3(x, y, f), vec.V3(x, y+1, f), vec.V3(x+1, y+1, f), vec.V3(x+1, y, f), flip)
			quad(vec.V3(x, 0, y), vec.V3(x, 0, y+1), vec.V3(x+1, 0, y+1), vec.V3(x+1, 0, y), flip)
			quad(vec.V3(x, f, y), vec.V3(x+1, f, y), vec.V3(x+1, f, y+1), vec.V3(x, f, y+1), flip)
			quad(vec.V3(0, x, y), vec.V3(0, x+1, y), vec.V3(0, x+1, y+1), vec.V3(0, x, y+1), flip)
			quad(vec.V3(f, x, y), vec.V3(f, x, y+1), vec.V3(f, x+1, y+1), vec.V3(f, x+1, y), flip)
		}
	}
	return pos, idx
}

// latticeRays returns rays from lattice points (and half-lattice ones) in
// and around [0,k]^3 in small integer directions, axis-aligned ones among
// them, over (0, +Inf) or a finite TMax.
func latticeRays(rng *rand.Rand, k, n int) []Ray {
	rays := make([]Ray, 0, n)
	for len(rays) < n {
		c := func() float32 { return float32(rng.IntN(2*k+5)-2) * 0.5 }
		d := vec.V3(float32(rng.IntN(5)-2), float32(rng.IntN(5)-2), float32(rng.IntN(5)-2))
		if d == (vec.Vec3{}) {
			continue
		}
		r := Ray{Origin: vec.V3(c(), c(), c()), Direction: d, TMax: float32(math.Inf(1))}
		if len(rays)%4 == 0 {
			r.TMax = float32(rng.IntN(3*k) + 1)
		}
		rays = append(rays, r)
	}
	return rays
}

// TestEdgeCasesDecidedInAssemblyMatchGo traces lattice rays through a
// lattice box, where most hits are on a vertex or an edge shared by
// several triangles (the exact path: EXACTLANE in the assembly,
// intersectExact in Go, and topLeft's tie rule), and compares every
// query of the assembly with the Go loops bit for bit: the one-call
// queries in every mode, the batches, and a TLAS of lattice-translated
// copies (rayTLASWalkAVX2) against the Traversal. Exactly one triangle of
// a closed lattice surface owns a point on its edges, so every hit is
// also checked against the brute-force oracle.
func TestEdgeCasesDecidedInAssemblyMatchGo(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("the assembly walks run in the scalar amd64 build on AVX2 processors only")
	}
	rng := rand.New(rand.NewPCG(101, 102))
	pos, idx := latticeBox(6)
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	rays := latticeRays(rng, 6, 4000)
	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}
	onEdge := 0
	for i := range rays {
		r := rays[i]
		want, wok := bruteClosest(insts, r, 0xff)
		got, gok := b.Intersect(r, 0)
		if wok != gok || wok && (got.T != want.T || got.PrimitiveIndex != want.PrimitiveIndex || got.U != want.U || got.V != want.V) {
			t.Fatalf("ray %d %+v: Intersect %v %+v, oracle %v %+v", i, r, gok, got, wok, want)
		}
		if gok && (got.U == 0 || got.V == 0 || got.U+got.V == 1) {
			onEdge++
		}
		if !rayUsable(&r) {
			continue
		}
		for mode := rayClosest; mode <= rayOcclude; mode++ {
			s, g, w, wantOK, _ := queryAndWalk(b, &r, mode)
			if s == rayGoMust {
				continue
			}
			if (s == rayHit) != wantOK || s == rayHit && mode != rayOcclude && !sameFastHit(&g, &w) {
				t.Fatalf("ray %d %+v mode %d: queryAVX2 %d %+v, Go loop %v %+v", i, r, mode, s, g, wantOK, w)
			}
		}
	}
	if onEdge < 300 {
		t.Errorf("%d hits on an edge or vertex: too few to check the exact path", onEdge)
	}
	// Batches against the queries alone (interleaving forced).
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0
	hs, fs := make([]Hit, len(rays)), make([]bool, len(rays))
	occ := make([]bool, len(rays))
	if err := b.IntersectBatch(rays, 0, hs, fs); err != nil {
		t.Fatal(err)
	}
	if err := b.OccludedBatch(rays, 0, occ); err != nil {
		t.Fatal(err)
	}
	for i, r := range rays {
		h, ok := b.Intersect(r, 0)
		if ok != fs[i] || h != hs[i] || occ[i] != b.Occluded(r, 0) {
			t.Fatalf("ray %d %+v: batch %v %+v occluded %v, alone %v %+v", i, r, fs[i], hs[i], occ[i], ok, h)
		}
	}
	// A TLAS of copies moved by lattice steps: the one-call TLAS walks
	// against the Traversal.
	var many []Instance
	for i := range 27 {
		m := vec.Identity3x4
		m[0][3], m[1][3], m[2][3] = float32(7*(i%3)), float32(7*(i/3%3)), float32(7*(i/9))
		many = append(many, Instance{Transform: m, InstanceMask: 0xff, BLAS: b})
	}
	tl := mustTLAS(t, many, 0)
	trays := latticeRays(rng, 20, 2000)
	checkTLASQueries(t, "lattice copies", tl, trays)
}
