package accel

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// "Determinism based on fixed acceleration structure build input": builds
// of the same input give the same structure whatever GOMAXPROCS is (the
// scenes are larger than parallelGrain, so the parallel builder really
// splits), and the same hits in the same order.
func TestDeterminismAcrossGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(61, 62))
	pos, idx := randomSoup(rng, 40000, 0.02)
	geoms := []Geometry{TriangleGeometry(pos, idx)}
	small := mustBLAS(t, soupGeoms(rng, 1, 20), 0)
	var insts []Instance
	for i := 0; i < 20000; i++ {
		insts = append(insts, Instance{Transform: randomRotation(rng), InstanceID: uint32(i), InstanceMask: 0xff, BLAS: small})
	}
	rays := randRays(rng, 400, 2)
	type result struct {
		b    *BLAS
		tl   *TLAS
		hits [][]hitKey
	}
	run := func(procs int) result {
		runtime.GOMAXPROCS(procs)
		var r result
		r.b = mustBLAS(t, geoms, 0)
		r.tl = mustTLAS(t, insts, 0)
		for _, ray := range rays {
			r.hits = append(r.hits, traceBLAS(r.b, ray, RayFlagForceNonOpaque))
			r.hits = append(r.hits, traceTLAS(r.tl, ray, 0, 0xff))
		}
		return r
	}
	// 12 processors: past wideWidth, widen numbers two levels of
	// subtrees in parallel. 12 and 16: the builder chunks the partitions
	// of the top two and three levels (chunksFor).
	one := run(1)
	for _, procs := range []int{2, 12, 16} {
		two := run(procs)
		if !slices.Equal(one.b.nodes, two.b.nodes) || !slices.Equal(one.b.primIndex, two.b.primIndex) || !slices.Equal(one.b.wide, two.b.wide) || !slices.Equal(one.b.rows, two.b.rows) {
			t.Fatalf("BLAS node arrays differ between GOMAXPROCS 1 and %d", procs)
		}
		if !slices.Equal(one.tl.nodes, two.tl.nodes) || !slices.Equal(one.tl.order, two.tl.order) || !slices.Equal(one.tl.wide, two.tl.wide) {
			t.Fatalf("TLAS node arrays differ between GOMAXPROCS 1 and %d", procs)
		}
		for i := range one.hits {
			if !equalKeys(one.hits[i], two.hits[i]) {
				t.Fatalf("GOMAXPROCS %d, ray %d: hit sequences differ", procs, i/2)
			}
		}
	}
	if len(one.b.nodes) <= planGrain || len(one.tl.nodes) <= planGrain {
		t.Fatal("trees too small for widen's parallel plan: weak test")
	}
	n := 0
	for i := range one.hits {
		for _, k := range one.hits[i] {
			if k.Kind != KindNone {
				n++
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d hit records: weak test", n)
	}
}

// Nodes of parallelSplit refs or more are binned and partitioned in one
// chunk per GOMAXPROCS, and decode, primitive boxes and slot copies run in
// chunks: the result must be the serial one exactly.
func TestChunkedSplitMatchesSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("large build")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(63, 64))
	// Over tempMapMin of refs: the refs and the builder's second buffer
	// are mapped memory (tempSlice), released after the build.
	pos, idx := randomSoup(rng, 2*parallelSplit+40000, 0.01)
	// Some inactive triangles (squeezed out after the chunked box pass) and
	// a second geometry (ids map back to geometry and primitive).
	for k := 0; k < len(idx)/3; k += 997 {
		pos[idx[3*k]].X = nanF()
	}
	pos2, idx2 := randomSoup(rng, workGrain+77, 0.01)
	geoms := []Geometry{TriangleGeometry(pos, idx), TriangleGeometry(pos2, idx2)}
	var ref *BLAS
	for _, procs := range []int{1, 2, 3, 7} {
		runtime.GOMAXPROCS(procs)
		b := mustBLAS(t, geoms, BuildPreferFastBuild)
		if err := b.checkInvariants(); err != nil {
			t.Fatalf("GOMAXPROCS %d: %v", procs, err)
		}
		if ref == nil {
			ref = b
			continue
		}
		if !slices.Equal(ref.nodes, b.nodes) || !slices.Equal(ref.primIndex, b.primIndex) || !slices.Equal(ref.primGeom, b.primGeom) || !slices.Equal(ref.wide, b.wide) {
			t.Fatalf("GOMAXPROCS %d: BLAS differs from GOMAXPROCS 1", procs)
		}
	}
}
