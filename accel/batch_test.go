package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestBatchMatchesSingleRays checks that IntersectBatch and OccludedBatch
// give Intersect's and Occluded's answers bit for bit: on a grid whose rays
// pass through shared edges and vertices, on a soup with every triangle
// twice (ties in t), with rays that miss, start inside, are non-finite or
// degenerate, with the ray flags of the fast and the general walks, batch
// sizes around the lane count, and stacks small enough that walks
// overflow and are traced again alone.
func TestBatchMatchesSingleRays(t *testing.T) {
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0 // interleave on these small scenes too
	rng := rand.New(rand.NewPCG(41, 42))
	var gpos []vec.Vec3
	var gidx []uint32
	for j := 0; j <= 12; j++ {
		for i := 0; i <= 12; i++ {
			gpos = append(gpos, vec.V3(float32(i), float32(j), 0))
		}
	}
	for j := 0; j < 12; j++ {
		for i := 0; i < 12; i++ {
			a := uint32(j*13 + i)
			gidx = append(gidx, a, a+1, a+14, a, a+14, a+13)
		}
	}
	spos, sidx := randomSoup(rng, 2000, 0.3)
	sidx = append(sidx, sidx...)
	inf := float32(math.Inf(1))
	for si, g := range []Geometry{TriangleGeometry(gpos, gidx), TriangleGeometry(spos, sidx)} {
		b, err := BuildBLAS([]Geometry{g}, 0)
		if err != nil {
			t.Fatal(err)
		}
		rays := make([]Ray, 3000)
		for i := range rays {
			if si == 0 {
				p := vec.V3(float32(rng.IntN(25))/2, float32(rng.IntN(25))/2, 0)
				o := p.Add(randVec(rng, 4)).Add(vec.V3(0, 0, 5))
				rays[i] = Ray{Origin: o, Direction: p.Sub(o), TMax: inf}
			} else {
				rays[i] = Ray{Origin: randVec(rng, 1.5), Direction: randVec(rng, 1), TMax: inf}
			}
			switch i % 11 {
			case 1:
				rays[i].TMax = float32(rng.Float64() * 3)
			case 2:
				rays[i].Direction = vec.V3(0, 0, rays[i].Direction.Z) // zero components
			case 3:
				rays[i].Direction.X = float32(1e-38) // inverse overflows: the general walk
			case 4:
				rays[i].Direction = vec.Vec3{} // unusable
			case 5:
				rays[i].TMin, rays[i].TMax = 2, 1 // empty interval
			case 6:
				rays[i].Origin.X = inf // non-finite
			}
		}
		for _, limit := range []int{smallStack - 3, 3, 5} {
			batchStackLimit = limit
			for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch, RayFlagForceNonOpaque, RayFlagCullBackFacingTriangles} {
				for _, n := range []int{0, 1, batchLanes - 1, batchLanes + 1, len(rays)} {
					hits := make([]Hit, n)
					found := make([]bool, n)
					occ := make([]bool, n)
					if err := b.IntersectBatch(rays[:n], flags, hits, found); err != nil {
						t.Fatal(err)
					}
					if err := b.OccludedBatch(rays[:n], flags, occ); err != nil {
						t.Fatal(err)
					}
					for i, r := range rays[:n] {
						h, ok := b.Intersect(r, flags)
						if ok != found[i] || h != hits[i] {
							t.Fatalf("scene %d limit %d flags %v ray %d %+v: batch %v %+v, alone %v %+v", si, limit, flags, i, r, found[i], hits[i], ok, h)
						}
						if o := b.Occluded(r, flags); o != occ[i] {
							t.Fatalf("scene %d limit %d flags %v ray %d: batch occluded %v, alone %v", si, limit, flags, i, occ[i], o)
						}
					}
				}
			}
		}
		batchStackLimit = smallStack - 3
	}
}

// Batches check their output lengths instead of writing past them.
func TestBatchRejectsShortOutputs(t *testing.T) {
	b, err := BuildBLAS([]Geometry{TriangleGeometry([]vec.Vec3{{}, {X: 1}, {Y: 1}}, nil)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rays := make([]Ray, 3)
	if err := b.IntersectBatch(rays, 0, make([]Hit, 2), make([]bool, 3)); err == nil {
		t.Error("IntersectBatch accepted 2 hit slots for 3 rays")
	}
	if err := b.IntersectBatch(rays, 0, make([]Hit, 3), make([]bool, 2)); err == nil {
		t.Error("IntersectBatch accepted 2 found slots for 3 rays")
	}
	if err := b.OccludedBatch(rays, 0, make([]bool, 2)); err == nil {
		t.Error("OccludedBatch accepted 2 results for 3 rays")
	}
}
