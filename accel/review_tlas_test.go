package accel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// checkTLASQueries checks tl's plain queries against the Traversal and its
// batch queries against the plain ones.
func checkTLASQueries(t *testing.T, name string, tl *TLAS, rays []Ray) (hits int) {
	t.Helper()
	masks := []uint32{0xff, 0x0f, 0x81}
	for i, r := range rays {
		mask := masks[i%len(masks)]
		for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
			want, wok := traverseClosest(tl, nil, r, flags, mask)
			got, gok := tl.Intersect(r, flags, mask)
			if wok != gok || got != want {
				t.Fatalf("%s ray %d %+v flags %v: Intersect %v %+v, traversal %v %+v", name, i, r, flags, gok, got, wok, want)
			}
			if flags == 0 && gok {
				hits++
			}
		}
		_, wok := traverseClosest(tl, nil, r, RayFlagAcceptFirstHitAndEndSearch, mask)
		if occ := tl.Occluded(r, 0, mask); occ != wok {
			t.Fatalf("%s ray %d: Occluded %v, traversal %v", name, i, occ, wok)
		}
	}
	defer func(v, l int) { batchMinBytes, batchStackLimit = v, l }(batchMinBytes, batchStackLimit)
	batchMinBytes = 0
	for _, limit := range []int{defaultBatchStackLimit, 4} {
		batchStackLimit = limit
		for _, mask := range masks {
			for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
				hs := make([]Hit, len(rays))
				fs := make([]bool, len(rays))
				occ := make([]bool, len(rays))
				if err := tl.IntersectBatch(rays, flags, mask, hs, fs); err != nil {
					t.Fatal(err)
				}
				if err := tl.OccludedBatch(rays, flags, mask, occ); err != nil {
					t.Fatal(err)
				}
				for i, r := range rays {
					h, ok := tl.Intersect(r, flags, mask)
					if ok != fs[i] || h != hs[i] {
						t.Fatalf("%s limit %d mask %#x flags %v ray %d %+v: batch %v %+v, alone %v %+v", name, limit, mask, flags, i, r, fs[i], hs[i], ok, h)
					}
					if o := tl.Occluded(r, flags, mask); o != occ[i] {
						t.Fatalf("%s limit %d mask %#x ray %d: batch occluded %v, alone %v", name, limit, mask, i, occ[i], o)
					}
				}
			}
		}
	}
	return hits
}

// TestReviewTLASVariants traces TLASes with inactive instances (nil BLAS,
// zero mask, empty BLAS), procedural instances, BLASes updated after the
// TLAS was built (moved, partly and wholly inactive), and the TLAS's
// clones, compacted and deserialized copies, and empty TLASes.
func TestReviewTLASVariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	var blases []*BLAS
	var poss [][]vec.Vec3
	var idxs [][]uint32
	for m := 0; m < 3; m++ {
		pos, idx := randomSoup(rng, 600, 0.25)
		g := TriangleGeometry(pos, idx)
		poss, idxs = append(poss, pos), append(idxs, idx)
		blases = append(blases, mustBLAS(t, []Geometry{g}, BuildAllowUpdate|allBuildFlags[m]))
	}
	empty := mustBLAS(t, []Geometry{TriangleGeometry(nil, nil)}, 0)
	proc := mustBLAS(t, []Geometry{AABBGeometry([]AABB{{vec.V3(-0.3, -0.3, -0.3), vec.V3(0.3, 0.3, 0.3)}})}, 0)
	var insts []Instance
	for i := 0; i < 20; i++ {
		xf := randomRotation(rng)
		for r := range xf {
			xf[r][3] *= 0.1
		}
		in := Instance{Transform: xf, InstanceMask: uint8(1 << (i % 8)), BLAS: blases[i%3]}
		switch i % 9 {
		case 5:
			in.BLAS = proc
		case 6:
			in.BLAS = empty
		case 7:
			in.BLAS = nil
		case 8:
			in.InstanceMask = 0
		}
		insts = append(insts, in)
	}
	// Instances whose object-space rays are not finite for some world rays
	// (huge and tiny scales: directions and inverses overflow) or have
	// exact zero components (axis-aligned transforms).
	for i, sc := range []vec.Vec3{{X: 1e-30, Y: 1, Z: 1}, {X: 1e30, Y: 1e30, Z: 1e30}, {X: -1, Y: 1, Z: 1}, {X: 1, Y: 1, Z: 1}} {
		insts = append(insts, Instance{Transform: vec.Scale3x4(sc), InstanceMask: uint8(1 << (i % 8)), BLAS: blases[i%3]})
	}
	tl := mustTLAS(t, insts, BuildAllowUpdate|BuildAllowCompaction)
	rays := reviewRays(rng, 1200, 2)
	for i := range rays {
		if i%17 == 0 {
			rays[i].Direction = vec.V3(0, 0, rays[i].Direction.Z) // axis-aligned
		}
		if i%19 == 0 {
			rays[i].Direction = rays[i].Direction.Scale(1e30)
		}
	}
	if h := checkTLASQueries(t, "built", tl, rays); h < 200 {
		t.Fatalf("built: only %d hits", h)
	}
	checkTLASQueries(t, "clone", tl.Clone(), rays)
	c, err := tl.Compact()
	if err != nil {
		t.Fatal(err)
	}
	checkTLASQueries(t, "compact", c, rays)
	d, err := DeserializeTLAS(tl.Serialize(), tl.BottomLevels())
	if err != nil {
		t.Fatal(err)
	}
	checkTLASQueries(t, "deserialized", d, rays)

	// Update BLAS 0 in place after the TLAS build: moved, every third
	// triangle inactive; BLAS 1 wholly inactive. The TLAS is stale but
	// still usable: every query walks the same stale boxes.
	moved := slices.Clone(poss[0])
	for i := range moved {
		moved[i] = moved[i].Add(randVec(rng, 0.03))
	}
	idx0 := idxs[0]
	for p := 0; p < len(idx0)/3; p += 3 {
		moved[idx0[3*p+1]] = vec.V3(0, nanF(), 0)
	}
	if err := blases[0].Update([]Geometry{TriangleGeometry(moved, idx0)}); err != nil {
		t.Fatal(err)
	}
	dead := slices.Clone(poss[1])
	for i := range dead {
		dead[i] = vec.V3(nanF(), nanF(), nanF())
	}
	if err := blases[1].Update([]Geometry{TriangleGeometry(dead, idxs[1])}); err != nil {
		t.Fatal(err)
	}
	checkTLASQueries(t, "stale", tl, rays)
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	checkTLASQueries(t, "updated", tl, rays)

	// Empty TLASes.
	for _, e := range [][]Instance{nil, {{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: empty}}, {{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: proc}}} {
		et := mustTLAS(t, e, 0)
		if h := checkTLASQueries(t, "empty", et, rays); h != 0 {
			t.Fatalf("empty TLAS: %d hits", h)
		}
	}
}

// TestReviewEmptyAndProceduralBLASBatches checks the BLAS batches on an
// empty BLAS and on a procedural one (which the plain queries never hit).
func TestReviewEmptyAndProceduralBLASBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	rays := reviewRays(rng, 300, 1)
	empty := mustBLAS(t, []Geometry{TriangleGeometry(nil, nil)}, 0)
	if h := checkBLASAgainstTraversal(t, "empty", empty, rays); h != 0 {
		t.Fatalf("empty BLAS: %d hits", h)
	}
	proc := mustBLAS(t, []Geometry{AABBGeometry(randomBoxes(rng, 50))}, 0)
	defer func(v int) { batchMinBytes = v }(batchMinBytes)
	batchMinBytes = 0
	hs := make([]Hit, len(rays))
	fs := make([]bool, len(rays))
	occ := make([]bool, len(rays))
	if err := proc.IntersectBatch(rays, 0, hs, fs); err != nil {
		t.Fatal(err)
	}
	if err := proc.OccludedBatch(rays, 0, occ); err != nil {
		t.Fatal(err)
	}
	for i, r := range rays {
		h, ok := proc.Intersect(r, 0)
		if ok != fs[i] || h != hs[i] || occ[i] != proc.Occluded(r, 0) {
			t.Fatalf("procedural ray %d: batch %v %+v %v, alone %v %+v", i, fs[i], hs[i], occ[i], ok, h)
		}
	}
}

// TestTLASSoleInstanceMatchesTraversal checks the queries of a TLAS of
// one instance, which skip the top level (soleQuery: single queries and,
// the BLAS being past the size from which assembly batches interleave,
// batches too), against the Traversal, which tests the instance's world
// box first: the identity (whose rays take the BLAS's own entry),
// transforms that rotate, mirror, and scale so much that
// object-space rays overflow; an instance mask that some queries exclude;
// and a stale top level after the BLAS was updated to other bounds, whose
// box must still cull what it culled (the sole shortcut is off then).
func TestTLASSoleInstanceMatchesTraversal(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	pos, idx := randomSoup(rng, 70000, 0.05)
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildAllowUpdate)
	if haveAVX2 && !useSIMD && !b.interleaves() {
		t.Fatalf("the BLAS (%d bytes) is too small for the assembly batches", b.traversalBytes())
	}
	rays := reviewRays(rng, 900, 2)
	for i, xf := range []vec.Mat3x4{vec.Identity3x4, randomRotation(rng), vec.Scale3x4(vec.V3(-1, 1, 1)), vec.Scale3x4(vec.V3(1e30, 1e30, 1e30)), vec.Scale3x4(vec.V3(1e-30, 1, 1))} {
		for _, im := range []uint8{0xff, 0x10} {
			tl := mustTLAS(t, []Instance{{Transform: xf, InstanceMask: im, BLAS: b, Flags: InstanceTriangleFrontCounterClockwise}}, BuildAllowUpdate)
			if haveAVX2 && !useSIMD && tl.soleQuery(0xff) == nil {
				t.Fatalf("transform %d: no sole instance", i)
			}
			if id := tl.instances[0].identity; id != (i == 0) {
				t.Fatalf("transform %d: identity %v", i, id)
			}
			checkTLASQueries(t, "sole", tl, rays)
		}
	}
	tl := mustTLAS(t, []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}, BuildAllowUpdate)
	moved := slices.Clone(pos)
	for i := range moved {
		moved[i] = moved[i].Scale(1.6)
	}
	if err := b.Update([]Geometry{TriangleGeometry(moved, idx)}); err != nil {
		t.Fatal(err)
	}
	if tl.soleQuery(0xff) != nil {
		t.Fatal("a stale top level still skipped")
	}
	if h := checkTLASQueries(t, "stale", tl, rays); h < 100 {
		t.Fatalf("stale: only %d hits", h)
	}
	// Updating the top level catches up with the BLAS: the shortcut is on
	// again, and a BLAS updated into a copy (UpdateInto) leaves it on.
	if err := tl.Update([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}); err != nil {
		t.Fatal(err)
	}
	if haveAVX2 && !useSIMD && tl.soleQuery(0xff) == nil {
		t.Fatal("no sole instance after the top level's update")
	}
	if _, err := b.UpdateInto([]Geometry{TriangleGeometry(pos, idx)}); err != nil {
		t.Fatal(err)
	}
	if haveAVX2 && !useSIMD && tl.soleQuery(0xff) == nil {
		t.Fatal("UpdateInto made the top level stale")
	}
	if h := checkTLASQueries(t, "updated", tl, rays); h < 100 {
		t.Fatalf("updated: only %d hits", h)
	}
}

// TestTLASTopLevelAVX2MatchesTraversal checks the AVX2 top-level walks
// (intersectTopAVX2, occludedTopAVX2: walkAVX2 and occludeAVX2 over the
// instances, each leaf handed back to enter its instance, and
// rayTLASWalkAVX2, which enters them itself) on a top level of 3000
// instances against the Traversal, the one-call walk against the loop
// bit for bit, with procedural instances (passed over) and instances
// whose placed rays Go must walk among them, and the loops on short
// stacks, where they must either give the same answers or report that
// they outgrew the stack (done false) for the callers' deep paths.
func TestTLASTopLevelAVX2MatchesTraversal(t *testing.T) {
	if !fusedAVX2 || useSIMD {
		t.Skip("the AVX2 top-level walks run in the scalar amd64 build on AVX2 processors only")
	}
	rng := rand.New(rand.NewPCG(91, 92))
	pos, idx := randomSoup(rng, 300, 0.3)
	bl := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	var insts []Instance
	for i := range 3000 {
		xf := randomRotation(rng)
		for r := range xf {
			for c := range 3 {
				xf[r][c] *= 0.08
			}
		}
		insts = append(insts, Instance{Transform: xf, InstanceMask: uint8(1 << (i % 8)), BLAS: bl})
	}
	// Among them instances the one-call walk passes over (procedural) or
	// leaves to Go (a scale whose placed rays have infinite inverse
	// components).
	proc := mustBLAS(t, []Geometry{AABBGeometry([]AABB{{vec.V3(-0.3, -0.3, -0.3), vec.V3(0.3, 0.3, 0.3)}})}, 0)
	for i := range 40 {
		xf := vec.Scale3x4(vec.V3(0.05, 0.05, 0.05))
		if i%2 == 1 {
			xf = vec.Scale3x4(vec.V3(1e-30, 0.05, 0.05))
		}
		xf[0][3], xf[1][3], xf[2][3] = float32(rng.Float64()*2-1), float32(rng.Float64()*2-1), float32(rng.Float64()*2-1)
		in := Instance{Transform: xf, InstanceMask: 0xff, BLAS: bl}
		if i%2 == 0 {
			in.BLAS = proc
		}
		insts = append(insts, in)
	}
	tl := mustTLAS(t, insts, 0)
	if !tl.topAVX2() {
		t.Fatalf("a top level of %d wide nodes is not walked by the AVX2 walks", len(tl.wide))
	}
	rays := reviewRays(rng, 600, 2)
	for i := 0; i < len(rays); i += 50 {
		rays[i].Direction.X = 0 // left to Go by the one-call walks
	}
	if h := checkTLASQueries(t, "3000 instances", tl, rays); h < 100 {
		t.Errorf("only %d hits", h)
	}
	// The one-call walks against the Go loops over the same top level.
	wide, nwide, slots, nslots := tl.topArgs()
	var status, ostatus [5]int
	nanAnswered := 0
	for i, r := range rays {
		var world rayBox
		world.setup(r.Origin, r.Direction)
		if !world.finite || r.TMin > r.TMax || !rayUsable(&r) {
			// Rays the checks refuse go to Go; rays with an infinite
			// inverse component on to the NaN walks (a tail call),
			// checked against the Traversal here, but for the occlusion
			// walk that commits its first hit, which leaves them to Go.
			var th topHit
			s := rayTLASWalkAVX2(wide, nwide, slots, nslots, &r, 0xff, &th)
			status[s]++
			if usable := r.TMin <= r.TMax && rayUsable(&r); !usable {
				if s != rayGoMust {
					t.Fatalf("ray %d %+v: a ray the checks refuse answered %d", i, r, s)
				}
				continue
			}
			want, wok := traverseClosest(tl, nil, r, 0, 0xff)
			var got Hit
			if s == rayHit {
				tl.setSlotHit(&got, th.slot, &th.org, &th.dir, &th.h, RayFlagSkipProceduralPrimitives)
			}
			if s == rayNotFinite || s != rayGoMust && ((s == rayHit) != wok || got != want) {
				t.Fatalf("ray %d %+v: walk %d %+v, traversal %v %+v", i, r, s, got, wok, want)
			}
			os := rayTLASOccludeAVX2(wide, nwide, slots, nslots, &r, 0xff, false, &th)
			_, wocc := traverseClosest(tl, nil, r, RayFlagAcceptFirstHitAndEndSearch, 0xff)
			if os == rayNotFinite || os != rayGoMust && (os == rayHit) != wocc {
				t.Fatalf("ray %d %+v: occlusion %d, traversal %v", i, r, os, wocc)
			}
			if fs := rayTLASOccludeAVX2(wide, nwide, slots, nslots, &r, 0xff, true, &th); fs != rayNotFinite && fs != rayGoMust {
				t.Fatalf("ray %d %+v: the first-hit occlusion walk answered %d, want it left to Go", i, r, fs)
			}
			nanAnswered++
			continue
		}
		for _, mask := range []uint32{0xff, 0x0f, 0x81} {
			var th topHit
			s := rayTLASWalkAVX2(wide, nwide, slots, nslots, &r, mask, &th)
			status[s]++
			var want Hit
			wok, done := tl.intersectTopAVX2(&r, &world, uint8(mask), RayFlagSkipProceduralPrimitives, make([]stackEntry, smallStack), &want)
			if !done || s == rayGoMust {
				continue
			}
			var got Hit
			if s == rayHit {
				tl.setSlotHit(&got, th.slot, &th.org, &th.dir, &th.h, RayFlagSkipProceduralPrimitives)
			}
			if (s == rayHit) != wok || got != want {
				t.Fatalf("ray %d %+v mask %#x: one-call walk %d %+v, top-level loop %v %+v", i, r, mask, s, got, wok, want)
			}
			for _, first := range []bool{false, true} {
				var oh topHit
				os := rayTLASOccludeAVX2(wide, nwide, slots, nslots, &r, mask, first, &oh)
				var f firstFound
				var fp *firstFound
				if first {
					fp = &f
				}
				wocc, odone := tl.occludedTopAVX2(&r, &world, uint8(mask), make([]uint32, smallStack), fp)
				if os == rayGoMust || !odone {
					continue
				}
				if (os == rayHit) != wocc || first && os == rayHit && (tl.slots[oh.slot].idx != f.idx || oh.org != f.org || oh.dir != f.dir || !sameFastHit(&oh.h, &f.h)) {
					t.Fatalf("ray %d %+v mask %#x first %v: one-call occlusion %d %+v, top-level loop %v %+v", i, r, mask, first, os, oh, wocc, f)
				}
				ostatus[os]++
			}
		}
	}
	if ostatus[rayMiss] < 100 || ostatus[rayHit] < 100 {
		t.Errorf("one-call occlusion [miss hit go] %v: too few of one to compare", ostatus)
	}
	if status[rayMiss] < 100 || status[rayHit] < 100 || nanAnswered < 5 {
		t.Errorf("one-call walk [miss hit go] %v: too few of one to compare", status)
	}
	t.Logf("one-call walk [miss hit go answered not-finite] %v, %d answered by the NaN walks", status, nanAnswered)
	outgrew := 0
	for i, r := range rays {
		var world rayBox
		world.setup(r.Origin, r.Direction)
		if !world.finite || r.TMin > r.TMax || !rayUsable(&r) {
			continue
		}
		want, wok := tl.Intersect(r, 0, 0xff)
		wocc := tl.Occluded(r, 0, 0xff)
		for _, size := range []int{wideWidth + 1, wideWidth + 4, 2 * wideWidth} {
			var got Hit
			if ok, done := tl.intersectTopAVX2(&r, &world, 0xff, RayFlagSkipProceduralPrimitives, make([]stackEntry, size), &got); !done {
				outgrew++
			} else if ok != wok || got != want {
				t.Fatalf("ray %d stack %d: %v %+v, want %v %+v", i, size, ok, got, wok, want)
			}
			if occ, done := tl.occludedTopAVX2(&r, &world, 0xff, make([]uint32, size), nil); !done {
				outgrew++
			} else if occ != wocc {
				t.Fatalf("ray %d stack %d: occluded %v, want %v", i, size, occ, wocc)
			}
		}
	}
	if outgrew == 0 {
		t.Errorf("no walk outgrew its stack: the deep paths went untested")
	}
}

// A Traversal places its ray in an instance from the instance's top-level
// slot (topSlot.place), as the plain queries' assembly does: the bits of
// worldToObject's TransformPoint and TransformVector, for random
// transforms (rotations, scales, translations) and rays.
func TestSlotPlacesRaysAsTheInstanceTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	f := func(s float64) float32 { return float32((rng.Float64()*2 - 1) * s) }
	var insts []Instance
	b := mustBLAS(t, []Geometry{TriangleGeometry([]vec.Vec3{{}, {X: 1}, {Y: 1}}, nil)}, 0)
	for range 64 {
		var xf vec.Mat3x4
		for i := range 3 {
			for j := range 4 {
				xf[i][j] = f(3)
			}
		}
		insts = append(insts, Instance{Transform: xf, InstanceMask: 0xff, BLAS: b})
	}
	tl := mustTLAS(t, insts, 0)
	for leaf := range tl.slots {
		s := &tl.slots[leaf]
		m := &tl.instances[s.idx].worldToObject
		for range 50 {
			o, d := vec.V3(f(100), f(100), f(100)), vec.V3(f(1), f(1), f(1))
			org, dir := s.place(o, d)
			wo, wd := m.TransformPoint(o), m.TransformVector(d)
			bits := func(v vec.Vec3) [3]uint32 {
				return [3]uint32{math.Float32bits(v.X), math.Float32bits(v.Y), math.Float32bits(v.Z)}
			}
			if bits(org) != bits(wo) || bits(dir) != bits(wd) {
				t.Fatalf("slot %d: %v, %v placed at %v, %v; the transform gives %v, %v", leaf, o, d, org, dir, wo, wd)
			}
		}
	}
}
