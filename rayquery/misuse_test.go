package rayquery

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// misuseScene: a non-opaque triangle at z=1 (instance mask 1) and a box at
// z in [2, 3] (mask 2), each hit by the ray along +z from (-0.5, -0.5, 0).
func misuseScene(t *testing.T) *accel.TLAS {
	t.Helper()
	geo := accel.TriangleGeometry([]vec.Vec3{{X: -1, Y: -1, Z: 1}, {X: -1, Y: 1, Z: 1}, {X: 1, Y: -1, Z: 1}}, nil)
	geo.Flags = 0
	tri, err := accel.BuildBLAS([]accel.Geometry{geo}, 0)
	if err != nil {
		t.Fatal(err)
	}
	box, err := accel.BuildBLAS([]accel.Geometry{accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 2), Max: vec.V3(1, 1, 3)}})}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := accel.BuildTLAS([]accel.Instance{
		{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: tri},
		{Transform: vec.Identity3x4, InstanceMask: 2, BLAS: box},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

var misuseRay = accel.Ray{Origin: vec.V3(-0.5, -0.5, 0), Direction: vec.V3(0, 0, 1), TMax: 10}

// expectMisuse runs f and checks that it panics with a *MisuseError for
// method whose message contains reason.
func expectMisuse(t *testing.T, name, method, reason string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		p := recover()
		if p == nil {
			t.Fatalf("%s: no panic", name)
		}
		err, ok := p.(error)
		if !ok {
			t.Fatalf("%s: panic value %T %v, want *MisuseError", name, p, p)
		}
		var me *MisuseError
		if !errors.As(err, &me) || !errors.Is(err, ErrMisuse) {
			t.Fatalf("%s: panic %v, want *MisuseError wrapping ErrMisuse", name, err)
		}
		if me.Method != method || !strings.Contains(me.Reason, reason) || me.State == "" {
			t.Fatalf("%s: %+v, want method %s and reason containing %q", name, *me, method, reason)
		}
		if !strings.HasPrefix(err.Error(), "rayquery: "+method+": ") {
			t.Fatalf("%s: message %q", name, err.Error())
		}
	}()
	f()
}

// TestMisusePanics: calls the spec leaves undefined panic with a
// *MisuseError naming the method and the state ("Misuse" in the package
// documentation).
func TestMisusePanics(t *testing.T) {
	tl := misuseScene(t)
	// States to start from.
	idle := func() *RayQuery { return new(RayQuery) }
	ready := func(mask uint32) func() *RayQuery {
		return func() *RayQuery { q := new(RayQuery); q.TraceRayInline(tl, 0, mask, misuseRay); return q }
	}
	atTriangle := func() *RayQuery {
		q := ready(1)()
		if !q.Proceed() || q.CandidateType() != CandidateNonOpaqueTriangle {
			t.Fatal("setup: no triangle candidate")
		}
		return q
	}
	atProcedural := func() *RayQuery {
		q := ready(2)()
		if !q.Proceed() || q.CandidateType() != CandidateProceduralPrimitive {
			t.Fatal("setup: no procedural candidate")
		}
		return q
	}
	ended := func() *RayQuery { q := ready(1)(); q.Proceed(); q.Proceed(); return q }
	aborted := func() *RayQuery { q := atTriangle(); q.Abort(); return q }
	proceduralCommitted := func() *RayQuery {
		q := atProcedural()
		q.CommitProceduralPrimitiveHit(2.5)
		q.Proceed()
		return q
	}

	const (
		notTraced   = "before TraceRayInline"
		noCandidate = "no candidate"
		notTriangle = "not a triangle"
		notProc     = "not a procedural primitive"
		nothing     = "nothing committed"
		committedPr = "committed hit is a procedural primitive"
	)
	cases := []struct {
		name, method, reason string
		start                func() *RayQuery
		call                 func(q *RayQuery)
	}{
		{"Proceed before trace", "Proceed", notTraced, idle, func(q *RayQuery) { q.Proceed() }},
		{"Abort before trace", "Abort", notTraced, idle, func(q *RayQuery) { q.Abort() }},
		{"CommittedStatus before trace", "CommittedStatus", notTraced, idle, func(q *RayQuery) { q.CommittedStatus() }},
		{"CommittedRayT before trace", "CommittedRayT", notTraced, idle, func(q *RayQuery) { q.CommittedRayT() }},
		{"Committed before trace", "Committed", notTraced, idle, func(q *RayQuery) { q.Committed() }},
		{"RayFlags before trace", "RayFlags", notTraced, idle, func(q *RayQuery) { q.RayFlags() }},
		{"WorldRayOrigin before trace", "WorldRayOrigin", notTraced, idle, func(q *RayQuery) { q.WorldRayOrigin() }},
		{"positions before trace", "CommittedTriangleObjectPositions", notTraced, idle, func(q *RayQuery) { _, _ = q.CommittedTriangleObjectPositions() }},
		{"CandidateType before trace", "CandidateType", noCandidate, idle, func(q *RayQuery) { q.CandidateType() }},

		{"CandidateType before Proceed", "CandidateType", noCandidate, ready(1), func(q *RayQuery) { q.CandidateType() }},
		{"commit before Proceed", "CommitNonOpaqueTriangleHit", noCandidate, ready(1), func(q *RayQuery) { q.CommitNonOpaqueTriangleHit() }},
		{"CandidateInstanceIndex after end", "CandidateInstanceIndex", noCandidate, ended, func(q *RayQuery) { q.CandidateInstanceIndex() }},
		{"CandidateTriangleRayT after end", "CandidateTriangleRayT", noCandidate, ended, func(q *RayQuery) { q.CandidateTriangleRayT() }},
		{"candidate positions after end", "CandidateTriangleObjectPositions", noCandidate, ended, func(q *RayQuery) { _, _ = q.CandidateTriangleObjectPositions() }},
		{"commit after end", "CommitNonOpaqueTriangleHit", noCandidate, ended, func(q *RayQuery) { q.CommitNonOpaqueTriangleHit() }},
		{"CandidateType after Abort", "CandidateType", noCandidate, aborted, func(q *RayQuery) { q.CandidateType() }},
		{"commit after Abort", "CommitNonOpaqueTriangleHit", noCandidate, aborted, func(q *RayQuery) { q.CommitNonOpaqueTriangleHit() }},

		{"triangle commit on procedural", "CommitNonOpaqueTriangleHit", notTriangle, atProcedural, func(q *RayQuery) { q.CommitNonOpaqueTriangleHit() }},
		{"barycentrics on procedural", "CandidateTriangleBarycentrics", notTriangle, atProcedural, func(q *RayQuery) { q.CandidateTriangleBarycentrics() }},
		{"front face on procedural", "CandidateTriangleFrontFace", notTriangle, atProcedural, func(q *RayQuery) { q.CandidateTriangleFrontFace() }},
		{"ray t on procedural", "CandidateTriangleRayT", notTriangle, atProcedural, func(q *RayQuery) { q.CandidateTriangleRayT() }},
		{"procedural commit on triangle", "CommitProceduralPrimitiveHit", notProc, atTriangle, func(q *RayQuery) { q.CommitProceduralPrimitiveHit(1) }},
		{"procedural opacity on triangle", "CandidateProceduralPrimitiveNonOpaque", notProc, atTriangle, func(q *RayQuery) { q.CandidateProceduralPrimitiveNonOpaque() }},

		{"procedural t below TMin", "CommitProceduralPrimitiveHit", "outside [RayTMin", func() *RayQuery {
			q := new(RayQuery)
			r := misuseRay
			r.TMin = 1
			q.TraceRayInline(tl, 0, 2, r)
			q.Proceed()
			return q
		}, func(q *RayQuery) { q.CommitProceduralPrimitiveHit(0.5) }},
		{"procedural t beyond TMax", "CommitProceduralPrimitiveHit", "outside [RayTMin", atProcedural, func(q *RayQuery) { q.CommitProceduralPrimitiveHit(10.5) }},
		{"procedural t NaN", "CommitProceduralPrimitiveHit", "outside [RayTMin", atProcedural, func(q *RayQuery) { q.CommitProceduralPrimitiveHit(float32(nan())) }},
		{"procedural t beyond committed", "CommitProceduralPrimitiveHit", "outside [RayTMin", atProcedural, func(q *RayQuery) {
			q.CommitProceduralPrimitiveHit(2.5)
			q.CommitProceduralPrimitiveHit(2.6)
		}},

		{"CommittedInstanceIndex with nothing", "CommittedInstanceIndex", nothing, ready(1), func(q *RayQuery) { q.CommittedInstanceIndex() }},
		{"CommittedObjectToWorld3x4 with nothing", "CommittedObjectToWorld3x4", nothing, ended, func(q *RayQuery) { q.CommittedObjectToWorld3x4() }},
		{"CommittedTriangleBarycentrics with nothing", "CommittedTriangleBarycentrics", nothing, atTriangle, func(q *RayQuery) { q.CommittedTriangleBarycentrics() }},
		{"committed barycentrics of procedural", "CommittedTriangleBarycentrics", committedPr, proceduralCommitted, func(q *RayQuery) { q.CommittedTriangleBarycentrics() }},
		{"committed front face of procedural", "CommittedTriangleFrontFace", committedPr, proceduralCommitted, func(q *RayQuery) { q.CommittedTriangleFrontFace() }},

		{"exclusive opacity flags", "TraceRayInline", "invalid ray flag", idle, func(q *RayQuery) {
			*q = New(accel.RayFlagForceOpaque)
			q.TraceRayInline(tl, accel.RayFlagCullNonOpaque, 0xff, misuseRay)
		}},
		{"exclusive facing flags", "TraceRayInline", "invalid ray flag", idle, func(q *RayQuery) {
			q.TraceRayInline(tl, accel.RayFlagCullBackFacingTriangles|accel.RayFlagCullFrontFacingTriangles, 0xff, misuseRay)
		}},
	}
	for _, c := range cases {
		q := c.start()
		expectMisuse(t, c.name, c.method, c.reason, func() { c.call(q) })
	}
}

// TestMisuseLeavesNoUsableState: after TraceRayInline panicked over its
// flags, the query is back to "before TraceRayInline", so a recovered
// caller cannot read the previous search by mistake.
func TestMisuseLeavesNoUsableState(t *testing.T) {
	tl := misuseScene(t)
	var q RayQuery
	q.TraceRayInline(tl, 0, 1, misuseRay)
	q.Proceed()
	q.CommitNonOpaqueTriangleHit()
	expectMisuse(t, "bad flags", "TraceRayInline", "invalid", func() {
		q.TraceRayInline(tl, accel.RayFlagSkipTriangles|accel.RayFlagSkipProceduralPrimitives, 1, misuseRay)
	})
	expectMisuse(t, "after bad flags", "CommittedStatus", "before TraceRayInline", func() { q.CommittedStatus() })
	var me *MisuseError
	func() {
		defer func() { me, _ = recover().(*MisuseError) }()
		q.TraceRayInline(tl, accel.RayFlagForceOpaque|accel.RayFlagForceNonOpaque, 1, misuseRay)
	}()
	var inputErr *accel.InputError
	if me == nil || !errors.As(me, &inputErr) {
		t.Fatalf("flag misuse should wrap the accel validation error, got %v", me)
	}
}

// TestLegalEdgeCalls: calls that look odd but are legal do not panic.
func TestLegalEdgeCalls(t *testing.T) {
	tl := misuseScene(t)
	var q RayQuery
	q.TraceRayInline(tl, 0, 3, misuseRay)
	_ = q.CommittedRayT() // committed state is readable before Proceed
	if q.CommittedStatus() != CommittedNothing || q.Committed().Kind != accel.KindNone {
		t.Fatal("fresh query must have nothing committed")
	}
	q.Proceed()
	q.CommitNonOpaqueTriangleHit()
	q.CommitNonOpaqueTriangleHit() // committing the same candidate twice
	for q.Proceed() {
		// procedural box at z 2..3 lies behind the committed t=1: its t
		// range is empty, so it is not committed.
		if q.CandidateType() == CandidateProceduralPrimitive && q.CommittedRayT() >= 2 {
			q.CommitProceduralPrimitiveHit(2)
		}
	}
	_ = q.Proceed() // after false: false again
	q.Abort()       // after the end: nothing
	if q.CommittedStatus() != CommittedTriangleHit || q.CommittedRayT() != 1 {
		t.Fatalf("got %v at %g", q.CommittedStatus(), q.CommittedRayT())
	}
	// Procedural commit exactly at TMin and at CommittedRayT (inclusive).
	for _, tHit := range []float32{0, 10} {
		q.TraceRayInline(tl, 0, 2, misuseRay)
		q.Proceed()
		q.CommitProceduralPrimitiveHit(tHit)
		if q.CommittedRayT() != tHit {
			t.Fatalf("commit at %g: CommittedRayT %g", tHit, q.CommittedRayT())
		}
	}
	// A new TraceRayInline at any point starts over.
	q.TraceRayInline(tl, 0, 2, misuseRay)
	q.Proceed()
	q.TraceRayInline(tl, 0, 1, misuseRay)
	if q.CommittedStatus() != CommittedNothing || !q.Proceed() || q.CandidateType() != CandidateNonOpaqueTriangle {
		t.Fatal("TraceRayInline must reset the query")
	}
}

func nan() float64 { return math.NaN() }
