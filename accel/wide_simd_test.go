//go:build goexperiment.simd && amd64

package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestHitWideSIMDMatchesScalar checks that the SIMD slab test gives the
// scalar test's masks and entry distances.
func TestHitWideSIMDMatchesScalar(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 200000; it++ {
		var n wideNode
		n.clear()
		for i := 0; i < rng.IntN(wideWidth+1); i++ {
			c := randVec(rng, 2)
			e := randVec(rng, 0.5)
			lo, hi := c.Sub(e).Min(c.Add(e)), c.Sub(e).Max(c.Add(e))
			if it%3 == 0 { // flat boxes and shared planes
				hi.Y = lo.Y
			}
			n.set(i, &AABB{lo, hi}, uint32(i))
			n.n = uint32(i + 1)
		}
		var rb rayBox
		o, d := randVec(rng, 3), randVec(rng, 1)
		if it%5 == 0 {
			o.X = n.b[0][0] // origin on a slab plane
		}
		rb.setup(o, d)
		if !rb.finite {
			continue
		}
		tMin, tMax := float32(0), float32(rng.Float64()*8)
		var n1, n2 wideRow
		m1 := rb.hitWideFinite(&n, tMin, tMax, &n1)
		m2 := rb.hitWideSIMD(&n, tMin, tMax, &n2)
		if m1 != m2 {
			t.Fatalf("iteration %d: mask %b (scalar) vs %b (SIMD)", it, m1, m2)
		}
		for i := 0; i < wideWidth; i++ {
			if m1&(1<<i) != 0 && n1[i] != n2[i] {
				t.Fatalf("iteration %d child %d: near %g vs %g", it, i, n1[i], n2[i])
			}
		}
	}
}

// TestSIMDWalkMatchesScalar checks that the vector walks (walkFiniteOnSIMD,
// occludesFiniteOnSIMD with leafCandidates) answer exactly as the scalar
// walks, on the cases where the leaf filter could go wrong: a grid whose
// rays pass through shared edges and vertices (edge functions of exactly
// zero), duplicated triangles (ties in t), every leaf size the builders
// make, and intervals that end exactly at a hit.
func TestSIMDWalkMatchesScalar(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX2")
	}
	defer func(v bool) { useSIMD = v }(useSIMD)
	rng := rand.New(rand.NewPCG(21, 22))
	// A 16x16 grid in the z = 0 plane with integer vertices, and a soup
	// with every triangle twice.
	var gpos []vec.Vec3
	var gidx []uint32
	for j := 0; j <= 16; j++ {
		for i := 0; i <= 16; i++ {
			gpos = append(gpos, vec.V3(float32(i), float32(j), 0))
		}
	}
	for j := 0; j < 16; j++ {
		for i := 0; i < 16; i++ {
			a := uint32(j*17 + i)
			gidx = append(gidx, a, a+1, a+18, a, a+18, a+17)
		}
	}
	spos, sidx := randomSoup(rng, 3000, 0.3)
	sidx = append(sidx, sidx...)
	scenes := []Geometry{TriangleGeometry(gpos, gidx), TriangleGeometry(spos, sidx)}
	for si, g := range scenes {
		for _, flags := range allBuildFlags {
			b, err := BuildBLAS([]Geometry{g}, flags)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 20000; i++ {
				var r Ray
				if si == 0 {
					// From above toward a grid point, edge midpoint or cell.
					p := vec.V3(float32(rng.IntN(33))/2, float32(rng.IntN(33))/2, 0)
					r = Ray{Origin: p.Add(randVec(rng, 4)).Add(vec.V3(0, 0, 5)), TMax: float32(math.Inf(1))}
					r.Direction = p.Sub(r.Origin)
				} else {
					r = Ray{Origin: randVec(rng, 1.5), Direction: randVec(rng, 1), TMax: float32(math.Inf(1))}
				}
				useSIMD = false
				h1, ok1 := b.Intersect(r, 0)
				o1 := b.Occluded(r, 0)
				useSIMD = true
				h2, ok2 := b.Intersect(r, 0)
				o2 := b.Occluded(r, 0)
				if ok1 != ok2 || h1 != h2 || o1 != o2 {
					t.Fatalf("scene %d flags %v ray %d %+v: scalar %v %+v occluded %v, SIMD %v %+v occluded %v", si, flags, i, r, ok1, h1, o1, ok2, h2, o2)
				}
				if ok1 {
					// An interval ending exactly at the hit excludes it.
					r.TMax = h1.T
					useSIMD = false
					h1, ok1 = b.Intersect(r, 0)
					useSIMD = true
					h2, ok2 = b.Intersect(r, 0)
					if ok1 != ok2 || h1 != h2 {
						t.Fatalf("scene %d ray %d, TMax at the hit: scalar %v %+v, SIMD %v %+v", si, i, ok1, h1, ok2, h2)
					}
				}
			}
		}
	}
}
