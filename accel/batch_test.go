package accel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
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
			case 7:
				rays[i].Origin.Y = float32(math.Copysign(0, -1)) // -0: ObjectRayOrigin has +0
			}
		}
		if coherent(rays) {
			t.Fatalf("scene %d: the test's rays look coherent, so batches would not interleave them", si)
		}
		for _, limit := range []int{defaultBatchStackLimit, 3, 5} {
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
						if ok != found[i] || h != hits[i] || bits3(h.ObjectRayOrigin) != bits3(hits[i].ObjectRayOrigin) {
							t.Fatalf("scene %d limit %d flags %v ray %d %+v: batch %v %+v, alone %v %+v", si, limit, flags, i, r, found[i], hits[i], ok, h)
						}
						if o := b.Occluded(r, flags); o != occ[i] {
							t.Fatalf("scene %d limit %d flags %v ray %d: batch occluded %v, alone %v", si, limit, flags, i, occ[i], o)
						}
					}
				}
			}
		}
		batchStackLimit = defaultBatchStackLimit
	}
}

// bits3 returns the bits of v's components, which tell -0 from +0.
func bits3(v vec.Vec3) [3]uint32 {
	return [3]uint32{math.Float32bits(v.X), math.Float32bits(v.Y), math.Float32bits(v.Z)}
}

// coherent takes a camera's primary rays (one origin, neighbouring
// pixels) and nothing else: rays from scattered origins in one direction
// (shadow rays toward a distant light), rays in random directions, and a
// camera batch whose neighbours were shuffled.
func TestCoherentTellsCameraRays(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	const side = 64
	camera := make([]Ray, side*side)
	for i := range camera {
		u, v := float32(i%side)/side*2-1, float32(i/side)/side*2-1
		camera[i] = Ray{Origin: vec.V3(0, -0.5, 3), Direction: vec.V3(u*0.4, v*0.4, -1), TMax: 10}
	}
	shadow := make([]Ray, 4096)
	random := make([]Ray, 4096)
	for i := range shadow {
		shadow[i] = Ray{Origin: randVec(rng, 1), Direction: vec.V3(0.3, 0.2, 1), TMax: 10}
		random[i] = Ray{Origin: vec.V3(0, 0, 0), Direction: randVec(rng, 1), TMax: 10}
	}
	shuffled := slices.Clone(camera)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name string
		rays []Ray
		want bool
	}{
		{"camera", camera, true},
		{"camera, a row", camera[:side], true},
		{"shadow", shadow, false},
		{"random directions from one origin", random, false},
		{"camera shuffled", shuffled, false},
		{"one ray", camera[:1], false},
		{"none", nil, false},
	} {
		if got := coherent(c.rays); got != c.want {
			t.Errorf("%s: coherent = %v, want %v", c.name, got, c.want)
		}
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

// TestTLASBatchMatchesSingleRays is TestBatchMatchesSingleRays for
// TLAS.IntersectBatch and OccludedBatch: instances with rotations,
// mirrors and masks over several BLASes (one procedural, which the plain
// queries skip), ray masks, flags, and overflowing stacks.
func TestTLASBatchMatchesSingleRays(t *testing.T) {
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0
	rng := rand.New(rand.NewPCG(43, 44))
	var blases []*BLAS
	for m := 0; m < 3; m++ {
		pos, idx := randomSoup(rng, 500+400*m, 0.25)
		if m == 1 {
			idx = append(idx, idx...) // ties
		}
		b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, allBuildFlags[m])
		if err != nil {
			t.Fatal(err)
		}
		blases = append(blases, b)
	}
	boxes := []AABB{{vec.V3(-0.2, -0.2, -0.2), vec.V3(0.2, 0.2, 0.2)}}
	proc, err := BuildBLAS([]Geometry{AABBGeometry(boxes)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var insts []Instance
	for i := 0; i < 24; i++ {
		xf := randomRotation(rng)
		for r := range xf { // overlapping instances: rays cross several
			xf[r][3] *= 0.1
		}
		if i%5 == 4 {
			xf = xf.Mul(vec.Scale3x4(vec.V3(-1, 1, 1)))
		}
		b := blases[i%3]
		if i%7 == 6 {
			b = proc
		}
		insts = append(insts, Instance{Transform: xf, InstanceMask: uint8(1 << (i % 8)), BLAS: b})
	}
	tl, err := BuildTLAS(insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	rays := make([]Ray, 2000)
	for i := range rays {
		rays[i] = Ray{Origin: randVec(rng, 4), Direction: randVec(rng, 1), TMax: inf}
		switch i % 7 {
		case 1:
			rays[i].TMax = float32(rng.Float64() * 4)
		case 2:
			rays[i].Direction = vec.V3(0, rays[i].Direction.Y, 0)
		case 3:
			rays[i].Direction.X = float32(1e-38)
		case 4:
			rays[i].TMin = 1
		}
	}
	hitCount := 0
	for _, limit := range []int{defaultBatchStackLimit, 3, 6} {
		batchStackLimit = limit
		for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch, RayFlagCullFrontFacingTriangles} {
			for _, mask := range []uint32{0xff, 0x0f, 0x81} {
				for _, n := range []int{1, batchLanes + 3, len(rays)} {
					hits := make([]Hit, n)
					found := make([]bool, n)
					occ := make([]bool, n)
					if err := tl.IntersectBatch(rays[:n], flags, mask, hits, found); err != nil {
						t.Fatal(err)
					}
					if err := tl.OccludedBatch(rays[:n], flags, mask, occ); err != nil {
						t.Fatal(err)
					}
					for i, r := range rays[:n] {
						h, ok := tl.Intersect(r, flags, mask)
						if ok != found[i] || h != hits[i] {
							t.Fatalf("limit %d flags %v mask %#x ray %d: batch %v %+v, alone %v %+v", limit, flags, mask, i, found[i], hits[i], ok, h)
						}
						if ok {
							hitCount++
						}
						if o := tl.Occluded(r, flags, mask); o != occ[i] {
							t.Fatalf("limit %d flags %v mask %#x ray %d: batch occluded %v, alone %v", limit, flags, mask, i, occ[i], o)
						}
					}
				}
			}
		}
	}
	batchStackLimit = defaultBatchStackLimit
	t.Logf("hits %d", hitCount)
	if hitCount < 1000 {
		t.Fatalf("only %d hits: test too weak", hitCount)
	}
}

// A TLAS with one instance batches as its BLAS, on the rays placed in the
// instance's object space (soleInstance): the answers must still be
// TLAS.Intersect's and Occluded's, hit for hit, with the instance's
// transform (a rotation, a mirror, a translation), its flags and masks,
// and rays that the assembly leaves to Go.
func TestTLASBatchSoleInstanceMatchesSingleRays(t *testing.T) {
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0
	rng := rand.New(rand.NewPCG(45, 46))
	pos, idx := randomSoup(rng, 3000, 0.25)
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	rays := make([]Ray, 2000)
	for i := range rays {
		rays[i] = Ray{Origin: randVec(rng, 3), Direction: randVec(rng, 1), TMax: inf}
		switch i % 9 {
		case 1:
			rays[i].TMax = float32(rng.Float64() * 3)
		case 2:
			rays[i].Direction = vec.V3(0, 0, rays[i].Direction.Z)
		case 3:
			rays[i].TMin, rays[i].TMax = 2, 1
		case 4:
			rays[i].Origin.X = float32(math.NaN())
		}
	}
	xf := randomRotation(rng).Mul(vec.Scale3x4(vec.V3(-1, 1, 1)))
	xf[0][3], xf[1][3], xf[2][3] = 0.5, -0.25, 0.125
	for _, flags := range []InstanceFlags{0, InstanceTriangleFrontCounterClockwise | InstanceForceOpaque} {
		tl, err := BuildTLAS([]Instance{{Transform: xf, InstanceMask: 0x0f, Flags: flags, BLAS: b}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, mask := range []uint32{0xff, 0x01, 0xf0} {
			for _, rf := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
				if sole := tl.soleInstance(rf, uint8(mask)) != nil; sole != (haveAVX2 && !useSIMD && mask != 0xf0) {
					t.Fatalf("mask %#x: soleInstance %v", mask, sole)
				}
				hits := make([]Hit, len(rays))
				found := make([]bool, len(rays))
				occ := make([]bool, len(rays))
				if err := tl.IntersectBatch(rays, rf, mask, hits, found); err != nil {
					t.Fatal(err)
				}
				if err := tl.OccludedBatch(rays, rf, mask, occ); err != nil {
					t.Fatal(err)
				}
				n := 0
				for i, r := range rays {
					h, ok := tl.Intersect(r, rf, mask)
					if ok != found[i] || h != hits[i] || bits3(h.ObjectRayOrigin) != bits3(hits[i].ObjectRayOrigin) {
						t.Fatalf("flags %v mask %#x ray flags %v ray %d %+v: batch %v %+v, alone %v %+v", flags, mask, rf, i, r, found[i], hits[i], ok, h)
					}
					if o := tl.Occluded(r, rf, mask); o != occ[i] {
						t.Fatalf("flags %v mask %#x ray %d: batch occluded %v, alone %v", flags, mask, i, occ[i], o)
					}
					if ok {
						n++
					}
				}
				if mask != 0xf0 && n < 200 {
					t.Fatalf("mask %#x: only %d hits", mask, n)
				}
			}
		}
	}
}

// TestCoherentBatchChoosesByStepsPerHit checks walkCoherent on a camera's
// primary rays: over a terrain, whose walks take about 8 steps per hit,
// every ray stays interleaved; over a triangle soup, about 17, the rays
// after the sample are traced alone. Either way every answer is the
// single-ray query's (and IntersectBatch's, Intersect's).
func TestCoherentBatchChoosesByStepsPerHit(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("the assembly batch walks run in the scalar amd64 build on AVX2 processors only")
	}
	for _, c := range []struct {
		name      string
		pos       []vec.Vec3
		idx       []uint32
		wantAlone bool
	}{
		{"terrain", nil, nil, false},
		{"soup", nil, nil, true},
	} {
		if c.name == "terrain" {
			c.pos, c.idx = meshgen.Terrain(100000, 3)
		} else {
			c.pos, c.idx = meshgen.Soup(100000, 3)
		}
		b, err := BuildBLAS([]Geometry{TriangleGeometry(c.pos, c.idx)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		var rays []Ray
		for _, r := range raygen.Primary(raygen.BoundsOf(c.pos), 96, 96) {
			rays = append(rays, Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax})
		}
		if !coherent(rays) || !b.interleaves() {
			t.Fatalf("%s: coherent %v, interleaves %v: the test needs both", c.name, coherent(rays), b.interleaves())
		}
		var res batchResults
		q, _ := res.query(&b.self, rays, false)
		var alone []int
		res.walkCoherent(&q, func(i int) { alone = append(alone, i) })
		if got := len(alone) > 0; got != c.wantAlone {
			t.Errorf("%s: %d of %d rays traced alone, %d steps over the batch; want alone %v", c.name, len(alone), len(rays), q.steps, c.wantAlone)
		}
		if c.wantAlone && len(alone) < len(rays)/2 {
			t.Errorf("%s: only %d of %d rays traced alone", c.name, len(alone), len(rays))
		}
		for _, i := range alone {
			if res.status[i] != rayAnswered {
				t.Fatalf("%s: ray %d traced alone has status %d", c.name, i, res.status[i])
			}
		}
		for i, r := range rays {
			if res.status[i] == rayAnswered {
				continue
			}
			var h fastHit
			if want := checkedQuery(b, &r, rayClosest, &h); int(res.status[i]) != want || (want == rayHit && !sameFastHit(&res.hits[i], &h)) {
				t.Fatalf("%s ray %d: batch status %d hit %+v, alone %d %+v", c.name, i, res.status[i], res.hits[i], want, h)
			}
		}
		hits, found := make([]Hit, len(rays)), make([]bool, len(rays))
		if err := b.IntersectBatch(rays, 0, hits, found); err != nil {
			t.Fatal(err)
		}
		for i, r := range rays {
			if h, ok := b.Intersect(r, 0); ok != found[i] || h != hits[i] {
				t.Fatalf("%s ray %d: IntersectBatch %v %+v, Intersect %v %+v", c.name, i, found[i], hits[i], ok, h)
			}
		}
	}
}
