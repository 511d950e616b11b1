package rayquery

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// benchScene: 16 instances of four 20k-triangle soups (opaque), and rays
// aimed at the instances.
func benchScene(b *testing.B) (*accel.TLAS, []accel.Ray) {
	rng := rand.New(rand.NewPCG(71, 72))
	var blases []*accel.BLAS
	for m := 0; m < 4; m++ {
		pos := make([]vec.Vec3, 0, 60000)
		for i := 0; i < 20000; i++ {
			c := randVec(rng, 1)
			for k := 0; k < 3; k++ {
				pos = append(pos, c.Add(randVec(rng, 0.05)))
			}
		}
		bl, err := accel.BuildBLAS([]accel.Geometry{accel.TriangleGeometry(pos, nil)}, accel.BuildPreferFastTrace)
		if err != nil {
			b.Fatal(err)
		}
		blases = append(blases, bl)
	}
	var insts []accel.Instance
	for i := 0; i < 16; i++ {
		xf := randomTransform(rng)
		xf[0][3], xf[1][3], xf[2][3] = xf[0][3]*3, xf[1][3]*3, xf[2][3]*3
		insts = append(insts, accel.Instance{Transform: xf, InstanceMask: 0xff, BLAS: blases[i%4]})
	}
	tl, err := accel.BuildTLAS(insts, accel.BuildPreferFastTrace)
	if err != nil {
		b.Fatal(err)
	}
	rays := make([]accel.Ray, 4096)
	for i := range rays {
		o := randVec(rng, 8)
		in := insts[rng.IntN(len(insts))]
		target := vec.V3(in.Transform[0][3], in.Transform[1][3], in.Transform[2][3]).Add(randVec(rng, 1))
		rays[i] = accel.Ray{Origin: o, Direction: target.Sub(o), TMax: float32(math.Inf(1))}
	}
	return tl, rays
}

// BenchmarkClosestHit compares a RayQuery closest-hit loop with
// accel.(*TLAS).Intersect on the same rays, with opaque geometry (Proceed
// never stops: the system commits) and with RAY_FLAG_FORCE_NON_OPAQUE
// (every triangle returns to the loop, which commits it). Both paths are
// checked to agree before timing.
//
//	go test ./rayquery -run '^$' -bench ClosestHit -benchtime 2s
func BenchmarkClosestHit(b *testing.B) {
	tl, rays := benchScene(b)
	for _, mode := range []struct {
		name  string
		flags accel.RayFlags
	}{{"opaque", 0}, {"nonopaque", accel.RayFlagForceNonOpaque}} {
		var q RayQuery
		rq := func(r accel.Ray) (accel.Hit, bool) {
			q.TraceRayInline(tl, mode.flags, 0xff, r)
			for q.Proceed() {
				if q.CandidateType() == CandidateNonOpaqueTriangle {
					q.CommitNonOpaqueTriangleHit()
				}
			}
			h := q.Committed()
			return *h, h.Kind != accel.KindNone
		}
		hits := 0
		for _, r := range rays {
			a, aok := rq(r)
			w, wok := tl.Intersect(r, mode.flags, 0xff)
			if aok != wok || aok && (a.T != w.T || a.InstanceIndex != w.InstanceIndex || a.PrimitiveIndex != w.PrimitiveIndex) {
				b.Fatalf("%s: RayQuery and Intersect disagree", mode.name)
			}
			if aok {
				hits++
			}
		}
		if hits < len(rays)/4 {
			b.Fatalf("only %d of %d rays hit", hits, len(rays))
		}
		b.Run(mode.name+"/RayQuery", func(b *testing.B) {
			b.ReportAllocs()
			var sink float32
			b.ResetTimer()
			for range b.N {
				for _, r := range rays {
					q.TraceRayInline(tl, mode.flags, 0xff, r)
					for q.Proceed() {
						if q.CandidateType() == CandidateNonOpaqueTriangle {
							q.CommitNonOpaqueTriangleHit()
						}
					}
					sink += q.CommittedRayT()
				}
			}
			b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			_ = sink
		})
		b.Run(mode.name+"/Intersect", func(b *testing.B) {
			b.ReportAllocs()
			var sink float32
			b.ResetTimer()
			for range b.N {
				for _, r := range rays {
					h, _ := tl.Intersect(r, mode.flags, 0xff)
					sink += h.T
				}
			}
			b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			_ = sink
		})
	}
}

// BenchmarkFirstHit is BenchmarkClosestHit for shadow rays with an
// any-hit decision: RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH with
// RAY_FLAG_FORCE_NON_OPAQUE, every candidate back in the loop, which
// commits the first (the search then ends), beside accel.(*TLAS).Occluded
// on the same rays. Both are checked to agree before timing.
//
//	go test ./rayquery -run '^$' -bench FirstHit -benchtime 2s
func BenchmarkFirstHit(b *testing.B) {
	tl, rays := benchScene(b)
	const flags = accel.RayFlagForceNonOpaque | accel.RayFlagAcceptFirstHitAndEndSearch
	var q RayQuery
	occluded := func(r accel.Ray) bool {
		q.TraceRayInline(tl, flags, 0xff, r)
		for q.Proceed() {
			q.CommitNonOpaqueTriangleHit()
		}
		return q.CommittedStatus() != CommittedNothing
	}
	hits := 0
	for _, r := range rays {
		got := occluded(r)
		if got != tl.Occluded(r, 0, 0xff) {
			b.Fatal("RayQuery and Occluded disagree")
		}
		if got {
			hits++
		}
	}
	if hits < len(rays)/4 {
		b.Fatalf("only %d of %d rays hit", hits, len(rays))
	}
	b.Run("RayQuery", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for range b.N {
			for _, r := range rays {
				if occluded(r) {
					n++
				}
			}
		}
		b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
	})
	b.Run("Occluded", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for range b.N {
			for _, r := range rays {
				if tl.Occluded(r, 0, 0xff) {
					n++
				}
			}
		}
		b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
	})
}
