package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestReviewGridsAllPathsAgree checks, on many small grids (random cell
// sizes from 2^-10 to 2^9, random diagonals, so rays through shared edges
// and vertices at every scale) seen directly and through mirrored, rotated
// and scaled instances, that the batch queries, the plain queries and the
// Traversal give the same answers, with random masks and stack limits.
func TestReviewGridsAllPathsAgree(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 20
	}
	defer func(v, l int) { batchMinBytes, batchStackLimit = v, l }(batchMinBytes, batchStackLimit)
	batchMinBytes = 0
	hits := 0
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 1000))
		// grid with random cell size and offset, plus soup
		n := 2 + rng.IntN(12)
		cs := float32(math.Ldexp(1, rng.IntN(20)-10))
		var pos []vec.Vec3
		var idx []uint32
		for j := 0; j <= n; j++ {
			for i := 0; i <= n; i++ {
				pos = append(pos, vec.V3(float32(i)*cs, float32(j)*cs, 0))
			}
		}
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				a := uint32(j*(n+1) + i)
				if rng.IntN(2) == 0 {
					idx = append(idx, a, a+1, a+uint32(n)+2, a, a+uint32(n)+2, a+uint32(n)+1)
				} else {
					idx = append(idx, a, a+1, a+uint32(n)+1, a+1, a+uint32(n)+2, a+uint32(n)+1)
				}
			}
		}
		flags := allBuildFlags[rng.IntN(len(allBuildFlags))]
		b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, flags)
		var insts []Instance
		for k := 0; k < 4; k++ {
			xf := vec.Identity3x4
			switch k {
			case 1:
				xf = vec.Scale3x4(vec.V3(-1, 1, 1))
			case 2:
				xf = randomRotation(rng)
			case 3:
				xf = vec.Scale3x4(vec.V3(2, 0.5, -4))
			}
			insts = append(insts, Instance{Transform: xf, InstanceMask: uint8(1 << k), BLAS: b})
		}
		tl := mustTLAS(t, insts, 0)
		rays := make([]Ray, 500)
		for i := range rays {
			p := vec.V3(float32(rng.IntN(2*n+1))/2*cs, float32(rng.IntN(2*n+1))/2*cs, 0)
			var o, d vec.Vec3
			switch rng.IntN(4) {
			case 0:
				o = p.Add(vec.V3(0, 0, cs*float32(1+rng.IntN(3))))
				d = p.Sub(o)
			case 1:
				o = p.Add(randVec(rng, 4*cs))
				d = p.Sub(o)
			case 2:
				o = p.Add(vec.V3(float32(rng.IntN(3)-1)*cs, float32(rng.IntN(3)-1)*cs, cs))
				d = p.Sub(o)
			default:
				o = randVec(rng, float32(n)*cs)
				d = randVec(rng, 1)
			}
			rays[i] = Ray{Origin: o, Direction: d, TMax: float32(math.Inf(1))}
			if rng.IntN(5) == 0 {
				rays[i].TMax = 1
			}
		}
		batchStackLimit = []int{smallStack - 3, 3, 7}[rng.IntN(3)]
		for _, fl := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
			hs, fs, os := make([]Hit, len(rays)), make([]bool, len(rays)), make([]bool, len(rays))
			th, tf, to := make([]Hit, len(rays)), make([]bool, len(rays)), make([]bool, len(rays))
			b.IntersectBatch(rays, fl, hs, fs)
			b.OccludedBatch(rays, fl, os)
			mask := uint32(rng.IntN(16))
			tl.IntersectBatch(rays, fl, mask, th, tf)
			tl.OccludedBatch(rays, fl, mask, to)
			for i, r := range rays {
				h, ok := b.Intersect(r, fl)
				wh, wok := traverseClosest(nil, b, r, fl, 0)
				if h != hs[i] || ok != fs[i] || h != wh || ok != wok {
					t.Fatalf("seed %d BLAS ray %d %+v: batch %v %+v single %v %+v trav %v %+v", seed, i, r, fs[i], hs[i], ok, h, wok, wh)
				}
				if ok {
					hits++
				}
				_, wo := traverseClosest(nil, b, r, RayFlagAcceptFirstHitAndEndSearch, 0)
				if o := b.Occluded(r, fl); o != os[i] || o != wo {
					t.Fatalf("seed %d BLAS occ ray %d", seed, i)
				}
				h, ok = tl.Intersect(r, fl, mask)
				wh, wok = traverseClosest(tl, nil, r, fl, mask)
				if h != th[i] || ok != tf[i] || h != wh || ok != wok {
					t.Fatalf("seed %d TLAS ray %d %+v: batch %v %+v single %v %+v trav %v %+v", seed, i, r, tf[i], th[i], ok, h, wok, wh)
				}
				_, wo = traverseClosest(tl, nil, r, RayFlagAcceptFirstHitAndEndSearch, mask)
				if o := tl.Occluded(r, fl, mask); o != to[i] || o != wo {
					t.Fatalf("seed %d TLAS occ ray %d", seed, i)
				}
			}
		}
	}
	if hits < 20*seeds {
		t.Fatalf("only %d hits: test too weak", hits)
	}
}
