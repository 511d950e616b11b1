package rayquery

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// shade runs the inline "shader" loop the oracle models: non-opaque
// triangle candidates are committed when accept says so, procedural
// candidates are intersected as spheres and committed (non-opaque ones
// only when accept says so) at the first root in [RayTMin, CommittedRayT].
func shade(q *RayQuery, s *testScene, accept func(h *oracleHit) bool, procedural bool) {
	for q.Proceed() {
		switch q.CandidateType() {
		case CandidateNonOpaqueTriangle:
			h := oracleHit{inst: q.CandidateInstanceIndex(), geom: q.CandidateGeometryIndex(), prim: q.CandidatePrimitiveIndex()}
			if accept == nil || accept(&h) {
				q.CommitNonOpaqueTriangleHit()
			}
		case CandidateProceduralPrimitive:
			if !procedural {
				continue
			}
			sp := s.src[q.CandidateInstanceIndex()].geoms[q.CandidateGeometryIndex()].spheres[q.CandidatePrimitiveIndex()]
			t0, t1, ok := sphereRoots(to64(q.CandidateObjectRayOrigin()), to64(q.CandidateObjectRayDirection()), to64(sp.c), float64(sp.r))
			if !ok {
				continue
			}
			tmin, tcur := q.RayTMin(), q.CommittedRayT()
			t := float32(t0)
			if t < tmin {
				t = float32(t1)
			}
			if t < tmin || t > tcur {
				continue
			}
			h := oracleHit{inst: q.CandidateInstanceIndex(), geom: q.CandidateGeometryIndex(), prim: q.CandidatePrimitiveIndex(), procedural: true}
			if q.CandidateProceduralPrimitiveNonOpaque() && accept != nil && !accept(&h) {
				continue
			}
			q.CommitProceduralPrimitiveHit(t)
		}
	}
}

// checkAgainstOracle compares the committed state of q with the oracle's
// decided closest hit; it returns false when the oracle cannot decide.
func checkAgainstOracle(t *testing.T, where string, q *RayQuery, hs []oracleHit) bool {
	t.Helper()
	want, found, decided := closest(hs)
	if !decided {
		return false
	}
	st := q.CommittedStatus()
	switch {
	case !found:
		if st != CommittedNothing {
			t.Fatalf("%s: committed %v (inst %d geom %d prim %d t %g), oracle: no hit", where, st,
				q.CommittedInstanceIndex(), q.CommittedGeometryIndex(), q.CommittedPrimitiveIndex(), q.CommittedRayT())
		}
		if q.CommittedRayT() != q.Ray().TMax {
			t.Fatalf("%s: CommittedRayT %g with nothing committed, want TMax %g", where, q.CommittedRayT(), q.Ray().TMax)
		}
		return true
	case st == CommittedNothing:
		t.Fatalf("%s: nothing committed, oracle %+v", where, want)
	}
	wantSt := CommittedTriangleHit
	if want.procedural {
		wantSt = CommittedProceduralPrimitiveHit
	}
	if st != wantSt || q.CommittedInstanceIndex() != want.inst || q.CommittedGeometryIndex() != want.geom || q.CommittedPrimitiveIndex() != want.prim {
		t.Fatalf("%s: committed %v inst %d geom %d prim %d t %g, oracle %v %+v", where, st,
			q.CommittedInstanceIndex(), q.CommittedGeometryIndex(), q.CommittedPrimitiveIndex(), q.CommittedRayT(), wantSt, want)
	}
	if got := float64(q.CommittedRayT()); math.Abs(got-want.t) > 1e-4*math.Abs(want.t)+1e-5 {
		t.Fatalf("%s: CommittedRayT %g, oracle %g", where, got, want.t)
	}
	if !want.procedural {
		u, v := q.CommittedTriangleBarycentrics()
		if math.Abs(float64(u)-want.u) > 1e-3 || math.Abs(float64(v)-want.v) > 1e-3 {
			t.Fatalf("%s: barycentrics %g %g, oracle %g %g", where, u, v, want.u, want.v)
		}
		if q.CommittedTriangleFrontFace() != want.front {
			t.Fatalf("%s: front face %v, oracle %v", where, q.CommittedTriangleFrontFace(), want.front)
		}
	}
	return true
}

// TestClosestHitMatchesIntersectAndBruteForce: a Proceed loop that commits
// every triangle candidate finds exactly TLAS.Intersect's hit, and the
// float64 brute force agrees ("Inline raytracing": the committed hit after
// the search is the closest accepted one).
func TestClosestHitMatchesIntersectAndBruteForce(t *testing.T) {
	s := randomScene(t, 1, true)
	rng := rand.New(rand.NewPCG(2, 3))
	flagSets := []accel.RayFlags{0, accel.RayFlagCullBackFacingTriangles, accel.RayFlagCullFrontFacingTriangles,
		accel.RayFlagForceOpaque, accel.RayFlagForceNonOpaque, accel.RayFlagCullOpaque, accel.RayFlagCullNonOpaque}
	var q RayQuery
	hits, undecided, total := 0, 0, 0
	for _, flags := range flagSets {
		for i := 0; i < 800; i++ {
			r := s.randomRay(rng)
			mask := uint32(0xff)
			if i%5 == 0 {
				mask = uint32(rng.IntN(1 << 10)) // bits above 8 must not count
			}
			q.TraceRayInline(s.tlas, flags, mask, r)
			shade(&q, s, nil, false)
			want, wok := s.tlas.Intersect(r, flags, mask)
			got := q.Committed()
			if wok != (got.Kind != accel.KindNone) || wok && (got.T != want.T || got.U != want.U || got.V != want.V ||
				got.InstanceIndex != want.InstanceIndex || got.GeometryIndex != want.GeometryIndex ||
				got.PrimitiveIndex != want.PrimitiveIndex || got.FrontFace != want.FrontFace) {
				t.Fatalf("flags %#x ray %d: RayQuery %+v, Intersect %v %+v", flags, i, *got, wok, want)
			}
			total++
			if wok {
				hits++
			}
			hs := s.hits(r, oracleQuery{flags: flags, mask: mask, noProcedural: true})
			if !checkAgainstOracle(t, "ray", &q, hs) {
				undecided++
			}
		}
	}
	t.Logf("%d rays, %d hits, %d undecided by the oracle", total, hits, undecided)
	if hits < total/4 {
		t.Fatalf("only %d of %d rays hit: test too weak", hits, total)
	}
	if undecided > total/100 {
		t.Fatalf("%d of %d rays undecided: oracle too weak", undecided, total)
	}
}

// TestAnyHitFilterAndProceduralsMatchBruteForce: the loop rejects
// non-opaque candidates with odd PrimitiveIndex (an any-hit style filter)
// and intersects procedural spheres itself; the committed hit equals the
// brute force that skips the rejected primitives. Template and per-call
// flags are ORed.
func TestAnyHitFilterAndProceduralsMatchBruteForce(t *testing.T) {
	s := randomScene(t, 4, true)
	rng := rand.New(rand.NewPCG(5, 6))
	accept := func(h *oracleHit) bool { return h.prim%2 == 0 }
	combos := []struct{ template, call accel.RayFlags }{
		{0, 0},
		{accel.RayFlagCullBackFacingTriangles, 0},
		{0, accel.RayFlagCullBackFacingTriangles},
		{accel.RayFlagCullFrontFacingTriangles, accel.RayFlagForceNonOpaque},
		{accel.RayFlagForceOpaque, 0},
		{0, accel.RayFlagCullOpaque},
		{accel.RayFlagCullNonOpaque, accel.RayFlagCullBackFacingTriangles},
		{accel.RayFlagSkipTriangles, 0},
		{0, accel.RayFlagSkipProceduralPrimitives},
	}
	hits, procHits, undecided, total := 0, 0, 0, 0
	for _, c := range combos {
		q := New(c.template)
		for i := 0; i < 700; i++ {
			r := s.randomRay(rng)
			mask := uint32(0xff)
			if i%4 == 0 {
				mask = uint32(rng.IntN(256))
			}
			q.TraceRayInline(s.tlas, c.call, mask, r)
			if q.RayFlags() != c.template|c.call {
				t.Fatalf("RayFlags %#x, want %#x", q.RayFlags(), c.template|c.call)
			}
			shade(&q, s, accept, true)
			total++
			switch q.CommittedStatus() {
			case CommittedTriangleHit:
				hits++
				if !q.Committed().Opaque && q.CommittedPrimitiveIndex()%2 == 1 {
					t.Fatalf("a rejected non-opaque triangle was committed")
				}
			case CommittedProceduralPrimitiveHit:
				procHits++
			}
			hs := s.hits(r, oracleQuery{flags: c.template | c.call, mask: mask, accept: accept})
			if !checkAgainstOracle(t, "ray", &q, hs) {
				undecided++
			}
		}
	}
	t.Logf("%d rays, %d triangle hits, %d procedural hits, %d undecided", total, hits, procHits, undecided)
	if hits < total/5 || procHits < total/50 {
		t.Fatalf("too few hits (%d triangle, %d procedural of %d): test too weak", hits, procHits, total)
	}
	if undecided > total/100 {
		t.Fatalf("%d of %d rays undecided: oracle too weak", undecided, total)
	}
}

// TestTemplateAndCallFlagsAreEquivalent: a flag given as template or per
// call has the same effect.
func TestTemplateAndCallFlagsAreEquivalent(t *testing.T) {
	s := randomScene(t, 9, true)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, f := range []accel.RayFlags{accel.RayFlagCullBackFacingTriangles, accel.RayFlagForceNonOpaque, accel.RayFlagCullOpaque,
		accel.RayFlagAcceptFirstHitAndEndSearch, accel.RayFlagSkipProceduralPrimitives} {
		a, b := New(f), New(0)
		for i := 0; i < 300; i++ {
			r := s.randomRay(rng)
			a.TraceRayInline(s.tlas, 0, 0xff, r)
			b.TraceRayInline(s.tlas, f, 0xff, r)
			shade(&a, s, nil, true)
			shade(&b, s, nil, true)
			if *a.Committed() != *b.Committed() || a.RayFlags() != b.RayFlags() {
				t.Fatalf("flag %#x ray %d: template gives %+v, per-call %+v", f, i, *a.Committed(), *b.Committed())
			}
		}
	}
}

// TestAcceptFirstHitEndsAtFirstCommit: with
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH the search ends at the first
// commit, by the system (opaque triangle) or by the caller, and what is
// committed is a hit the brute force accepts.
func TestAcceptFirstHitEndsAtFirstCommit(t *testing.T) {
	s := randomScene(t, 11, true)
	rng := rand.New(rand.NewPCG(11, 12))
	accept := func(h *oracleHit) bool { return h.prim%2 == 0 }
	for _, viaTemplate := range []bool{false, true} {
		var q RayQuery
		call := accel.RayFlagAcceptFirstHitAndEndSearch
		if viaTemplate {
			q, call = New(accel.RayFlagAcceptFirstHitAndEndSearch), 0
		}
		hits := 0
		for i := 0; i < 2000; i++ {
			r := s.randomRay(rng)
			q.TraceRayInline(s.tlas, call, 0xff, r)
			commits := 0
			for q.Proceed() {
				if commits > 0 {
					t.Fatalf("ray %d: Proceed returned true after a commit", i)
				}
				if q.CommittedStatus() != CommittedNothing {
					t.Fatalf("ray %d: a candidate after the system committed an opaque triangle", i)
				}
				h := oracleHit{prim: q.CandidatePrimitiveIndex()}
				if q.CandidateType() == CandidateNonOpaqueTriangle {
					if accept(&h) {
						q.CommitNonOpaqueTriangleHit()
						commits++
					}
					continue
				}
				sp := s.src[q.CandidateInstanceIndex()].geoms[q.CandidateGeometryIndex()].spheres[h.prim]
				t0, _, ok := sphereRoots(to64(q.CandidateObjectRayOrigin()), to64(q.CandidateObjectRayDirection()), to64(sp.c), float64(sp.r))
				if ok && float32(t0) >= q.RayTMin() && float32(t0) <= q.CommittedRayT() && (!q.CandidateProceduralPrimitiveNonOpaque() || accept(&h)) {
					q.CommitProceduralPrimitiveHit(float32(t0))
					commits++
				}
			}
			if q.Proceed() {
				t.Fatal("Proceed returned true after returning false")
			}
			if q.CommittedStatus() == CommittedNothing {
				continue
			}
			hits++
			// The committed hit must be one the oracle accepts (not
			// necessarily the closest).
			hs := s.hits(r, oracleQuery{flags: q.RayFlags(), mask: 0xff, accept: accept})
			ok := false
			for _, h := range hs {
				if h.inst == q.CommittedInstanceIndex() && h.geom == q.CommittedGeometryIndex() && h.prim == q.CommittedPrimitiveIndex() &&
					h.procedural == (q.CommittedStatus() == CommittedProceduralPrimitiveHit) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("ray %d: committed inst %d geom %d prim %d is not an accepted hit", i, q.CommittedInstanceIndex(), q.CommittedGeometryIndex(), q.CommittedPrimitiveIndex())
			}
		}
		if hits < 200 {
			t.Fatalf("only %d hits", hits)
		}
	}
}

// TestProceduralSpheresAnalytic: spheres in AABBs, committed at the t the
// loop computes, against hand-computed answers.
func TestProceduralSpheresAnalytic(t *testing.T) {
	b, err := accel.BuildBLAS([]accel.Geometry{accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, -1), Max: vec.V3(1, 1, 1)}})}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := accel.BuildTLAS([]accel.Instance{
		{Transform: vec.Translate3x4(vec.V3(0, 0, 5)), InstanceID: 1, InstanceMask: 1, BLAS: b},                                     // unit sphere at z=5
		{Transform: vec.Translate3x4(vec.V3(0, 0, 20)).Mul(vec.Scale3x4(vec.V3(2, 2, 2))), InstanceID: 2, InstanceMask: 2, BLAS: b}, // radius 2 at z=20
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	unit := sphere{r: 1}
	cases := []struct {
		name    string
		ray     accel.Ray
		mask    uint32
		wantID  uint32
		wantT   float32
		nothing bool
	}{
		{"front of unit sphere", accel.Ray{Direction: vec.V3(0, 0, 1), TMax: 100}, 0xff, 1, 4, false},
		{"unnormalized direction scales t", accel.Ray{Direction: vec.V3(0, 0, 2), TMax: 100}, 0xff, 1, 2, false},
		{"mask selects the scaled sphere", accel.Ray{Direction: vec.V3(0, 0, 1), TMax: 100}, 2, 2, 18, false},
		{"origin inside commits the exit", accel.Ray{Origin: vec.V3(0, 0, 5), Direction: vec.V3(0, 0, 1), TMax: 100}, 1, 1, 1, false},
		{"TMin past the entry", accel.Ray{Direction: vec.V3(0, 0, 1), TMin: 4.5, TMax: 100}, 1, 1, 6, false},
		{"TMax before the sphere", accel.Ray{Direction: vec.V3(0, 0, 1), TMax: 3.5}, 0xff, 0, 0, true},
		{"grazing miss inside the box", accel.Ray{Origin: vec.V3(0.9, 0.9, 0), Direction: vec.V3(0, 0, 1), TMax: 100}, 1, 0, 0, true},
	}
	var q RayQuery
	for _, c := range cases {
		q.TraceRayInline(tl, 0, c.mask, c.ray)
		candidates := 0
		for q.Proceed() {
			candidates++
			if q.CandidateType() != CandidateProceduralPrimitive || q.CandidateProceduralPrimitiveNonOpaque() {
				t.Fatalf("%s: candidate %v, non-opaque %v", c.name, q.CandidateType(), q.CandidateProceduralPrimitiveNonOpaque())
			}
			t0, t1, ok := sphereRoots(to64(q.CandidateObjectRayOrigin()), to64(q.CandidateObjectRayDirection()), to64(unit.c), 1)
			if !ok {
				continue
			}
			for _, tt := range []float32{float32(t0), float32(t1)} {
				if tt >= q.RayTMin() && tt <= q.CommittedRayT() {
					q.CommitProceduralPrimitiveHit(tt)
					break
				}
			}
		}
		if c.nothing {
			if q.CommittedStatus() != CommittedNothing || q.CommittedRayT() != c.ray.TMax {
				t.Fatalf("%s: %v at %g, want nothing and TMax", c.name, q.CommittedStatus(), q.CommittedRayT())
			}
			continue
		}
		if q.CommittedStatus() != CommittedProceduralPrimitiveHit || q.CommittedInstanceID() != c.wantID ||
			math.Abs(float64(q.CommittedRayT()-c.wantT)) > 1e-5 || q.Committed().T != q.CommittedRayT() {
			t.Fatalf("%s: %v instance %d t %g (Committed().T %g), want instance %d t %g", c.name, q.CommittedStatus(),
				q.CommittedInstanceID(), q.CommittedRayT(), q.Committed().T, c.wantID, c.wantT)
		}
		if candidates == 0 {
			t.Fatalf("%s: no candidate", c.name)
		}
	}
}

// TestCommittedStateDuringSearchAndAbort: the committed hit can be read
// while searching and shrinks CommittedRayT; Abort ends the search and
// keeps it.
// stackedTriangles returns a top level of one instance (mask 1) holding
// five parallel triangles at z = 1..5, one geometry each, with flags.
func stackedTriangles(t *testing.T, flags accel.GeometryFlags) *accel.TLAS {
	var geoms []accel.Geometry
	for z := 1; z <= 5; z++ {
		g := accel.TriangleGeometry([]vec.Vec3{{X: -1, Y: -1, Z: float32(z)}, {X: -1, Y: 1, Z: float32(z)}, {X: 1, Y: -1, Z: float32(z)}}, nil)
		g.Flags = flags
		geoms = append(geoms, g)
	}
	b, err := accel.BuildBLAS(geoms, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestCommittedStateDuringSearchAndAbort(t *testing.T) {
	tl := stackedTriangles(t, 0) // non-opaque
	r := accel.Ray{Origin: vec.V3(-0.5, -0.5, 0), Direction: vec.V3(0, 0, 1), TMax: 10}
	var q RayQuery
	q.TraceRayInline(tl, 0, 1, r)
	if q.CommittedStatus() != CommittedNothing || q.CommittedRayT() != 10 {
		t.Fatalf("before Proceed: %v %g", q.CommittedStatus(), q.CommittedRayT())
	}
	seen := 0
	for q.Proceed() {
		seen++
		ct := q.CandidateTriangleRayT()
		if ct >= q.CommittedRayT() {
			t.Fatalf("candidate at %g not before CommittedRayT %g", ct, q.CommittedRayT())
		}
		q.CommitNonOpaqueTriangleHit()
		if q.CommittedStatus() != CommittedTriangleHit || q.CommittedRayT() != ct || q.CommittedGeometryIndex() != q.CandidateGeometryIndex() {
			t.Fatalf("after commit: %v %g, candidate t %g", q.CommittedStatus(), q.CommittedRayT(), ct)
		}
	}
	if seen == 0 || q.CommittedRayT() != 1 || q.CommittedGeometryIndex() != 0 {
		t.Fatalf("closest: t %g geometry %d after %d candidates", q.CommittedRayT(), q.CommittedGeometryIndex(), seen)
	}

	// Abort after the first commit keeps it.
	q.TraceRayInline(tl, 0, 1, r)
	if !q.Proceed() {
		t.Fatal("no candidate")
	}
	q.CommitNonOpaqueTriangleHit()
	first := *q.Committed()
	q.Abort()
	if q.Proceed() {
		t.Fatal("Proceed returned true after Abort")
	}
	if *q.Committed() != first || q.CommittedStatus() != CommittedTriangleHit {
		t.Fatalf("Abort changed the committed hit")
	}
	q.Abort() // aborting an ended search is harmless

	// Abort before anything is committed: a miss.
	q.TraceRayInline(tl, 0, 1, r)
	q.Abort()
	if q.Proceed() || q.CommittedStatus() != CommittedNothing || q.CommittedRayT() != 10 {
		t.Fatal("Abort before Proceed must end with nothing committed")
	}

	// The same triangles opaque: the system commits them all in the
	// first Proceed (which answers a search that nothing can stop at the
	// plain query's rate), not before it, and an Abort before it still
	// misses.
	otl := stackedTriangles(t, accel.GeometryOpaque)
	q.TraceRayInline(otl, 0, 1, r)
	if q.CommittedStatus() != CommittedNothing || q.CommittedRayT() != 10 {
		t.Fatalf("opaque, before Proceed: %v %g", q.CommittedStatus(), q.CommittedRayT())
	}
	if q.Proceed() {
		t.Fatal("opaque: Proceed stopped at a candidate")
	}
	if q.CommittedStatus() != CommittedTriangleHit || q.CommittedRayT() != 1 || q.CommittedGeometryIndex() != 0 {
		t.Fatalf("opaque: %v at t %g, geometry %d", q.CommittedStatus(), q.CommittedRayT(), q.CommittedGeometryIndex())
	}
	q.TraceRayInline(otl, 0, 1, r)
	q.Abort()
	if q.Proceed() || q.CommittedStatus() != CommittedNothing || q.CommittedRayT() != 10 {
		t.Fatal("opaque: Abort before Proceed must end with nothing committed")
	}
}

// TestInstanceAndRayGetters: the instance, transform and ray getters report
// the instance description and the ray (candidate and committed alike).
func TestInstanceAndRayGetters(t *testing.T) {
	s := randomScene(t, 21, false)
	rng := rand.New(rand.NewPCG(21, 22))
	checked := 0
	q := New(accel.RayFlagForceNonOpaque) // every triangle becomes a candidate
	for i := 0; i < 500; i++ {
		r := s.randomRay(rng)
		q.TraceRayInline(s.tlas, 0, 0xff, r)
		if q.WorldRayOrigin() != r.Origin || q.WorldRayDirection() != r.Direction || q.RayTMin() != r.TMin || q.Ray() != r {
			t.Fatal("ray getters")
		}
		for q.Proceed() {
			in := s.insts[q.CandidateInstanceIndex()]
			inv, _ := in.Transform.Inverse()
			if q.CandidateInstanceID() != in.InstanceID || q.CandidateInstanceContributionToHitGroupIndex() != in.InstanceContributionToHitGroupIndex ||
				q.CandidateObjectToWorld3x4() != in.Transform || q.CandidateObjectToWorld4x3() != in.Transform.Transpose() ||
				q.CandidateWorldToObject3x4() != inv || q.CandidateWorldToObject4x3() != inv.Transpose() ||
				q.CandidateObjectRayOrigin() != inv.TransformPoint(r.Origin) || q.CandidateObjectRayDirection() != inv.TransformVector(r.Direction) {
				t.Fatalf("candidate instance getters disagree with instance %d", q.CandidateInstanceIndex())
			}
			q.CommitNonOpaqueTriangleHit()
			checked++
		}
		if q.CommittedStatus() == CommittedTriangleHit {
			in := s.insts[q.CommittedInstanceIndex()]
			inv, _ := in.Transform.Inverse()
			if q.CommittedInstanceID() != in.InstanceID || q.CommittedInstanceContributionToHitGroupIndex() != in.InstanceContributionToHitGroupIndex ||
				q.CommittedObjectToWorld3x4() != in.Transform || q.CommittedObjectToWorld4x3() != in.Transform.Transpose() ||
				q.CommittedWorldToObject3x4() != inv || q.CommittedWorldToObject4x3() != inv.Transpose() ||
				q.CommittedObjectRayOrigin() != inv.TransformPoint(r.Origin) || q.CommittedObjectRayDirection() != inv.TransformVector(r.Direction) {
				t.Fatalf("committed instance getters disagree with instance %d", q.CommittedInstanceIndex())
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d candidates", checked)
	}
}

// TestNilTLASAndDegenerateRaysMiss: a nil TLAS, NaN rays, zero directions
// and TMin > TMax end at once with nothing committed.
func TestNilTLASAndDegenerateRaysMiss(t *testing.T) {
	s := randomScene(t, 31, false)
	nan := float32(math.NaN())
	good := accel.Ray{Origin: vec.V3(0, 0, -5), Direction: vec.V3(0, 0, 1), TMax: 100}
	cases := []struct {
		tlas *accel.TLAS
		ray  accel.Ray
	}{
		{nil, good},
		{s.tlas, accel.Ray{Origin: vec.V3(nan, 0, 0), Direction: vec.V3(0, 0, 1), TMax: 100}},
		{s.tlas, accel.Ray{Direction: vec.V3(0, 0, 0), TMax: 100}},
		{s.tlas, accel.Ray{Direction: vec.V3(0, 0, 1), TMin: 5, TMax: 1}},
	}
	var q RayQuery
	for i, c := range cases {
		q.TraceRayInline(c.tlas, 0, 0xff, c.ray)
		if q.Proceed() || q.CommittedStatus() != CommittedNothing || q.Committed().Kind != accel.KindNone {
			t.Fatalf("case %d: expected an immediate miss", i)
		}
	}
}

// TestNoAllocations: TraceRayInline, Proceed, the commits and the getters
// allocate nothing.
func TestNoAllocations(t *testing.T) {
	s := randomScene(t, 41, true)
	rng := rand.New(rand.NewPCG(41, 42))
	rays := make([]accel.Ray, 64)
	for i := range rays {
		rays[i] = s.randomRay(rng)
	}
	q := New(accel.RayFlagCullBackFacingTriangles)
	var sink float32
	allocs := testing.AllocsPerRun(20, func() {
		for _, r := range rays {
			q.TraceRayInline(s.tlas, accel.RayFlagForceNonOpaque, 0xff, r)
			for q.Proceed() {
				if q.CandidateType() == CandidateNonOpaqueTriangle {
					u, v := q.CandidateTriangleBarycentrics()
					p, _ := q.CandidateTriangleObjectPositions()
					sink += u + v + p[0].X + q.CandidateObjectToWorld4x3()[0][0]
					if q.CandidatePrimitiveIndex()%2 == 0 {
						q.CommitNonOpaqueTriangleHit()
					}
				} else {
					o := q.CandidateObjectRayOrigin()
					if t := q.CommittedRayT(); t > q.RayTMin() && o.X > 0 {
						q.CommitProceduralPrimitiveHit(q.RayTMin())
					}
				}
			}
			if q.CommittedStatus() != CommittedNothing {
				sink += q.CommittedRayT() + q.Committed().T + float32(q.CommittedInstanceID())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
	_ = sink
}
