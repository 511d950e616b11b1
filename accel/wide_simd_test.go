//go:build goexperiment.simd && amd64

package accel

import (
	"math/rand/v2"
	"testing"
)

// TestHit4SIMDMatchesScalar checks that the SIMD slab test gives the
// scalar test's masks and entry distances.
func TestHit4SIMDMatchesScalar(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 200000; it++ {
		var n node4
		n.clear()
		for i := 0; i < rng.IntN(5); i++ {
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
		var n1, n2 [4]float32
		m1 := rb.hit4Finite(&n, tMin, tMax, &n1)
		m2 := rb.hit4SIMD(&n, tMin, tMax, &n2)
		if m1 != m2 {
			t.Fatalf("iteration %d: mask %b (scalar) vs %b (SIMD)", it, m1, m2)
		}
		for i := 0; i < 4; i++ {
			if m1&(1<<i) != 0 && n1[i] != n2[i] {
				t.Fatalf("iteration %d child %d: near %g vs %g", it, i, n1[i], n2[i])
			}
		}
	}
}
