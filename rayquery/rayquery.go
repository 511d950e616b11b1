package rayquery

import (
	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

const (
	kindNone       = accel.KindNone
	kindTriangle   = accel.KindTriangle
	kindProcedural = accel.KindProcedural
)

// CandidateType is the HLSL CANDIDATE_TYPE returned by
// RayQuery::CandidateType().
type CandidateType uint8

const (
	// CandidateNonOpaqueTriangle is CANDIDATE_NON_OPAQUE_TRIANGLE (0).
	CandidateNonOpaqueTriangle CandidateType = 0
	// CandidateProceduralPrimitive is CANDIDATE_PROCEDURAL_PRIMITIVE (1).
	CandidateProceduralPrimitive CandidateType = 1
)

func (c CandidateType) String() string {
	switch c {
	case CandidateNonOpaqueTriangle:
		return "CANDIDATE_NON_OPAQUE_TRIANGLE"
	case CandidateProceduralPrimitive:
		return "CANDIDATE_PROCEDURAL_PRIMITIVE"
	}
	return "CANDIDATE_TYPE(?)"
}

// CommittedStatus is the HLSL COMMITTED_STATUS returned by
// RayQuery::CommittedStatus().
type CommittedStatus uint8

const (
	// CommittedNothing is COMMITTED_NOTHING (0).
	CommittedNothing CommittedStatus = 0
	// CommittedTriangleHit is COMMITTED_TRIANGLE_HIT (1).
	CommittedTriangleHit CommittedStatus = 1
	// CommittedProceduralPrimitiveHit is
	// COMMITTED_PROCEDURAL_PRIMITIVE_HIT (2).
	CommittedProceduralPrimitiveHit CommittedStatus = 2
)

func (c CommittedStatus) String() string {
	switch c {
	case CommittedNothing:
		return "COMMITTED_NOTHING"
	case CommittedTriangleHit:
		return "COMMITTED_TRIANGLE_HIT"
	case CommittedProceduralPrimitiveHit:
		return "COMMITTED_PROCEDURAL_PRIMITIVE_HIT"
	}
	return "COMMITTED_STATUS(?)"
}

// RayQuery is the HLSL RayQuery<RAY_FLAGS> object ("Inline raytracing",
// "RayQuery"): the state of one inline ray traversal that the caller
// advances with Proceed and steers with the Commit methods.
//
// The zero value is RayQuery<RAY_FLAG_NONE>, ready for TraceRayInline; New
// sets other template flags. A RayQuery is reusable: each TraceRayInline
// starts over and nothing is allocated. Use it through a pointer; a copy is
// an independent snapshot of the search. Not safe for concurrent use.
type RayQuery struct {
	tr       accel.Traversal
	template accel.RayFlags
	state    state
	aborted  bool
}

// New returns a RayQuery whose template flags (the RAY_FLAGS template
// argument of RayQuery<RAY_FLAGS>) are ORed into every TraceRayInline.
func New(templateFlags accel.RayFlags) RayQuery {
	return RayQuery{template: templateFlags}
}

// TemplateFlags returns the template ray flags given to New.
func (q *RayQuery) TemplateFlags() accel.RayFlags { return q.template }

// TraceRayInline starts a search (RayQuery::TraceRayInline): it discards
// any previous search state and committed hit and prepares to trace ray
// through as with the effective flags TemplateFlags() | rayFlags. Only the
// low 8 bits of instanceInclusionMask count. Nothing is traversed until
// Proceed.
//
// It panics with a *MisuseError when the effective flags combine flags the
// spec's "Ray flags" section declares mutually exclusive.
func (q *RayQuery) TraceRayInline(as *accel.TLAS, rayFlags accel.RayFlags, instanceInclusionMask uint32, ray accel.Ray) {
	flags := q.template | rayFlags
	if err := flags.Validate(); err != nil {
		q.badFlags(rayFlags, err)
	}
	q.tr.Begin(as, ray, flags, instanceInclusionMask)
	q.state, q.aborted = stateReady, false
}

// Proceed advances the search (RayQuery::Proceed). It returns true when it
// stops at a candidate that needs the caller's decision — a non-opaque
// triangle or a procedural primitive, see CandidateType — and false when
// the search is over (everything was visited, Abort was called, or a
// commit ended it under RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH). Opaque
// triangles are committed along the way without stopping. A candidate left
// uncommitted is ignored. After Proceed returned false, further calls
// return false.
func (q *RayQuery) Proceed() bool {
	switch q.state {
	case stateReady, stateCandidate:
	case stateDone:
		return false
	default:
		q.misuse("Proceed", "called before TraceRayInline")
	}
	if q.tr.Next() {
		q.state = stateCandidate
		return true
	}
	q.state = stateDone
	return false
}

// Abort ends the search (RayQuery::Abort): the next Proceed returns false
// and the committed hit, if any, stays. Candidate methods are invalid
// afterwards. Aborting an ended search does nothing.
func (q *RayQuery) Abort() {
	if q.state == stateIdle {
		q.misuse("Abort", "called before TraceRayInline")
	}
	q.tr.EndSearch()
	if q.state != stateDone {
		q.state, q.aborted = stateDone, true
	}
}

// CommitNonOpaqueTriangleHit commits the current candidate, which must be
// a non-opaque triangle (RayQuery::CommitNonOpaqueTriangleHit): the ray's
// TMax shrinks to CandidateTriangleRayT, and with
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH the search ends.
func (q *RayQuery) CommitNonOpaqueTriangleHit() {
	q.candidate("CommitNonOpaqueTriangleHit", kindTriangle)
	q.tr.Commit()
}

// CommitProceduralPrimitiveHit commits the current candidate, which must be
// a procedural primitive, at tHit (RayQuery::CommitProceduralPrimitiveHit).
// The caller computes tHit (the job of an intersection shader), and it must
// lie in [RayTMin(), CommittedRayT()]; a NaN or out-of-range tHit panics
// with a *MisuseError rather than corrupting the search. The ray's TMax
// shrinks to tHit, and with RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH the
// search ends. Procedural attributes are the caller's own: keep them beside
// the query (HitObject::FromRayQuery takes them separately).
func (q *RayQuery) CommitProceduralPrimitiveHit(tHit float32) {
	q.candidate("CommitProceduralPrimitiveHit", kindProcedural)
	if !(tHit >= q.tr.Ray().TMin && tHit <= q.tr.TMax()) {
		q.misusef("CommitProceduralPrimitiveHit", "tHit %g outside [RayTMin %g, CommittedRayT %g]", tHit, q.tr.Ray().TMin, q.tr.TMax())
	}
	q.tr.CommitProcedural(tHit)
}

// CommittedStatus reports what is committed so far
// (RayQuery::CommittedStatus): nothing, a triangle hit or a procedural
// primitive hit.
func (q *RayQuery) CommittedStatus() CommittedStatus {
	q.traced("CommittedStatus")
	switch q.tr.Committed().Kind {
	case kindTriangle:
		return CommittedTriangleHit
	case kindProcedural:
		return CommittedProceduralPrimitiveHit
	}
	return CommittedNothing
}

// Committed returns the hit committed so far, for layers built on RayQuery
// such as HitObject::FromRayQuery (hlsl-0027): Kind is accel.KindNone when
// nothing is committed (FromRayQuery then makes a NOP HitObject). For a
// procedural hit, T is the tHit given to CommitProceduralPrimitiveHit, and
// the attributes are the caller's (FromRayQuery's attribute overload).
// For a triangle hit, T, U, V and FrontFace are CommittedRayT,
// CommittedTriangleBarycentrics and CommittedTriangleFrontFace. The ray is
// Ray(), the flags RayFlags().
//
// The pointer aliases q: it is valid until the next TraceRayInline and must
// not be modified.
func (q *RayQuery) Committed() *accel.Hit {
	q.traced("Committed")
	return q.tr.Committed()
}

// Ray returns the world-space ray given to TraceRayInline (its TMax is the
// original one; the current end of the interval is CommittedRayT).
func (q *RayQuery) Ray() accel.Ray {
	q.traced("Ray")
	return q.tr.Ray()
}

// RayFlags returns the effective ray flags, template | TraceRayInline's
// (RayQuery::RayFlags).
func (q *RayQuery) RayFlags() accel.RayFlags {
	q.traced("RayFlags")
	return q.tr.Flags()
}

// RayTMin returns the ray's TMin (RayQuery::RayTMin).
func (q *RayQuery) RayTMin() float32 {
	q.traced("RayTMin")
	return q.tr.Ray().TMin
}

// WorldRayOrigin returns the ray's world-space origin
// (RayQuery::WorldRayOrigin).
func (q *RayQuery) WorldRayOrigin() vec.Vec3 {
	q.traced("WorldRayOrigin")
	return q.tr.Ray().Origin
}

// WorldRayDirection returns the ray's world-space direction, as given, not
// normalized (RayQuery::WorldRayDirection).
func (q *RayQuery) WorldRayDirection() vec.Vec3 {
	q.traced("WorldRayDirection")
	return q.tr.Ray().Direction
}

// traced checks that TraceRayInline was called.
func (q *RayQuery) traced(method string) {
	if q.state == stateIdle {
		q.misuse(method, "called before TraceRayInline")
	}
}

// candidate returns the current candidate, checking that there is one and,
// unless want is kindNone, that it has kind want.
func (q *RayQuery) candidate(method string, want accel.CandidateKind) *accel.Hit {
	if q.state != stateCandidate {
		q.misuse(method, "no candidate: valid only after Proceed returned true")
	}
	h := q.tr.Candidate()
	if want != kindNone && h.Kind != want {
		if want == kindTriangle {
			q.misuse(method, "the candidate is a procedural primitive, not a triangle")
		}
		q.misuse(method, "the candidate is a triangle, not a procedural primitive")
	}
	return h
}

// committed returns the committed hit, checking that TraceRayInline was
// called and that a hit (of kind want unless want is kindNone) is
// committed.
func (q *RayQuery) committed(method string, want accel.CandidateKind) *accel.Hit {
	q.traced(method)
	h := q.tr.Committed()
	if h.Kind == kindNone {
		q.misuse(method, "nothing committed (CommittedStatus is COMMITTED_NOTHING)")
	}
	if want != kindNone && h.Kind != want {
		q.misuse(method, "the committed hit is a procedural primitive, not a triangle")
	}
	return h
}
