package accel

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestReviewConcurrentBatches runs batch queries on one BLAS and one TLAS
// from several goroutines at once (lanes come from a shared pool) and
// checks every answer against the single-ray query.
func TestReviewConcurrentBatches(t *testing.T) {
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0
	rng := rand.New(rand.NewPCG(95, 96))
	pos, idx := randomSoup(rng, 1500, 0.3)
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	var insts []Instance
	for i := 0; i < 6; i++ {
		insts = append(insts, Instance{Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: b})
	}
	tl := mustTLAS(t, insts, 0)
	rays := reviewRays(rng, 800, 1.5)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 3; it++ {
				hs, fs, os := make([]Hit, len(rays)), make([]bool, len(rays)), make([]bool, len(rays))
				th, tf, to := make([]Hit, len(rays)), make([]bool, len(rays)), make([]bool, len(rays))
				if b.IntersectBatch(rays, 0, hs, fs) != nil || b.OccludedBatch(rays, 0, os) != nil ||
					tl.IntersectBatch(rays, 0, 0xff, th, tf) != nil || tl.OccludedBatch(rays, 0, 0xff, to) != nil {
					errs <- "batch error"
					return
				}
				for i, r := range rays {
					h, ok := b.Intersect(r, 0)
					h2, ok2 := tl.Intersect(r, 0, 0xff)
					if h != hs[i] || ok != fs[i] || os[i] != b.Occluded(r, 0) || h2 != th[i] || ok2 != tf[i] || to[i] != tl.Occluded(r, 0, 0xff) {
						errs <- "mismatch"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
