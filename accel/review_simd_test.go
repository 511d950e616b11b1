//go:build goexperiment.simd && amd64

package accel

import (
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestReviewSIMDMatchesScalarOddCases compares the vector and scalar walks
// (plain and batch queries) on what TestSIMDWalkMatchesScalar leaves out:
// TMin > 0, TMin == TMax, negative zero directions, far origins, tiny and
// huge coordinates, refitted BLASes with inactive triangles, and the
// two-level walks through rotated and scaled instances.
func TestReviewSIMDMatchesScalarOddCases(t *testing.T) {
	if !simdAvailable {
		t.Skip("no AVX2")
	}
	defer func(v bool) { useSIMD = v }(useSIMD)
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0
	rng := rand.New(rand.NewPCG(91, 92))
	type answer struct {
		h   Hit
		ok  bool
		occ bool
	}
	for _, s := range []float32{1e-30, 1e-3, 1, 1e10, 1e15, 1e37} {
		pos, idx := randomSoup(rng, 1200, 0.3)
		for i := range pos {
			pos[i] = pos[i].Scale(s)
		}
		idx = append(idx, idx[:201]...)
		b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildAllowUpdate)
		for p := 0; p < len(idx)/3; p += 7 {
			pos[idx[3*p+2]] = vec.V3(0, 0, nanF())
		}
		u := b.Clone()
		if err := u.Update([]Geometry{TriangleGeometry(pos, idx)}); err != nil {
			t.Fatal(err)
		}
		insts := []Instance{
			{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b},
			{Transform: randomRotation(rng), InstanceMask: 2, BLAS: u},
			{Transform: vec.Scale3x4(vec.V3(2, -0.5, 1)), InstanceMask: 4, BLAS: b},
		}
		tl := mustTLAS(t, insts, 0)
		rays := reviewRays(rng, 2000, 1.5*s)
		for i := range rays {
			rays[i].Direction = rays[i].Direction.Scale(s)
			rays[i].TMin /= s
			if rays[i].TMax <= 3 {
				rays[i].TMax /= s
			}
		}
		n := len(rays)
		run := func() (bh, uh, th [2][]answer) {
			for k, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
				for _, tgt := range []*[2][]answer{&bh, &uh, &th} {
					tgt[k] = make([]answer, 0, 2*n)
				}
				for _, r := range rays {
					h, ok := b.Intersect(r, flags)
					bh[k] = append(bh[k], answer{h, ok, b.Occluded(r, flags)})
					h, ok = u.Intersect(r, flags)
					uh[k] = append(uh[k], answer{h, ok, u.Occluded(r, flags)})
					h, ok = tl.Intersect(r, flags, 0xff)
					th[k] = append(th[k], answer{h, ok, tl.Occluded(r, flags, 0xff)})
				}
				hs, fs, os := make([]Hit, n), make([]bool, n), make([]bool, n)
				for _, x := range []struct {
					b   *BLAS
					tgt *[]answer
				}{{b, &bh[k]}, {u, &uh[k]}} {
					if err := x.b.IntersectBatch(rays, flags, hs, fs); err != nil {
						t.Fatal(err)
					}
					if err := x.b.OccludedBatch(rays, flags, os); err != nil {
						t.Fatal(err)
					}
					for i := range rays {
						*x.tgt = append(*x.tgt, answer{hs[i], fs[i], os[i]})
					}
				}
				if err := tl.IntersectBatch(rays, flags, 0xff, hs, fs); err != nil {
					t.Fatal(err)
				}
				if err := tl.OccludedBatch(rays, flags, 0xff, os); err != nil {
					t.Fatal(err)
				}
				for i := range rays {
					th[k] = append(th[k], answer{hs[i], fs[i], os[i]})
				}
			}
			return
		}
		useSIMD = false
		sb, su, st := run()
		useSIMD = true
		vb, vu, vt := run()
		hits := 0
		for k := range 2 {
			for i := range sb[k] {
				for j, p := range [3][2]answer{{sb[k][i], vb[k][i]}, {su[k][i], vu[k][i]}, {st[k][i], vt[k][i]}} {
					if p[0] != p[1] {
						t.Fatalf("scale %g flags %d structure %d ray %d %+v: scalar %+v, vector %+v", s, k, j, i%n, rays[i%n], p[0], p[1])
					}
					if p[0].ok {
						hits++
					}
				}
			}
		}
		t.Logf("scale %g: %d hits", s, hits)
	}
}
