package accel

import (
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// A BLAS of up to eight triangles is one leaf under the wide root, and
// the assembly walks test that leaf without the root's box (ROOTLEAF in
// fused_amd64.s), where the Go walks test the box first: the box holds
// the leaf's triangles, so the answers must be the same. Checked for
// 1 to 12 triangles (from 9 on, the root has two children and the walks
// take the box test again) against the brute-force oracle and the
// Traversal: the BLAS's own queries, a top level of one instance (which
// answers from the BLAS's walk) and of many (whose walk enters each
// instance's BLAS at its root), rays both through and beside the boxes.
func TestRootLeafWalksMatchTheOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for n := 1; n <= 12; n++ {
		pos, idx := randomSoup(rng, n, 0.4)
		b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
		if s := b.TreeStats(); (n <= maxLeafCount) != (s.Leaves == 1 && s.WideNodes == 1) {
			t.Fatalf("%d triangles: %d leaves under %d wide nodes", n, s.Leaves, s.WideNodes)
		}
		rays := reviewRays(rng, 600, 1.2)
		if hits := oracleBLAS(t, b, rays); hits == 0 {
			t.Fatalf("%d triangles: no ray hits", n)
		}
		self := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}
		for i, r := range rays {
			_, want := bruteClosest(self, r, 0xff)
			if got := b.Occluded(r, 0); got != want {
				t.Fatalf("%d triangles, ray %d %+v: Occluded %v, oracle %v", n, i, r, got, want)
			}
		}
		checkTLASQueries(t, "one instance", mustTLAS(t, self, 0), rays)
		var many []Instance
		for i := range 40 {
			xf := randomRotation(rng)
			xf[0][3], xf[1][3], xf[2][3] = float32(i%4)-1.5, float32(i/4%4)-1.5, float32(i/16)-1
			many = append(many, Instance{Transform: xf, InstanceMask: 0xff, InstanceID: uint32(i), BLAS: b})
		}
		tl := mustTLAS(t, many, 0)
		checkTLASQueries(t, "40 instances", tl, reviewRays(rng, 600, 2.5))
		oracleTLAS(t, tl, many, reviewRays(rng, 300, 2.5))
	}
}
