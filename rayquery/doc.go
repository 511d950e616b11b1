// Package rayquery implements inline ray tracing: the HLSL RayQuery object
// of the D3D12 raytracing functional spec (DXR 1.1, section "Inline
// raytracing" and its subsections "RayQuery", "RayQuery intrinsics",
// "TraceRayInline control flow" and "RayQuery object"), with the position
// fetch methods of hlsl-0041 ("Triangle object positions":
// CandidateTriangleObjectPositions, CommittedTriangleObjectPositions).
//
// A RayQuery drives the one traversal of package accel (accel.Traversal),
// the same that the pipeline's TraceRay uses. The shader — here any Go
// code — runs the search itself:
//
//	q := rayquery.New(accel.RayFlagCullNonOpaque) // RayQuery<RAY_FLAG_CULL_NON_OPAQUE>
//	q.TraceRayInline(tlas, accel.RayFlagNone, 0xFF, ray)
//	for q.Proceed() {
//		switch q.CandidateType() {
//		case rayquery.CandidateNonOpaqueTriangle:
//			u, v := q.CandidateTriangleBarycentrics()
//			if alphaTest(q.CandidateInstanceIndex(), q.CandidatePrimitiveIndex(), u, v) {
//				q.CommitNonOpaqueTriangleHit()
//			}
//		case rayquery.CandidateProceduralPrimitive:
//			if t, ok := intersect(q.CandidateObjectRayOrigin(), q.CandidateObjectRayDirection()); ok &&
//				t >= q.RayTMin() && t <= q.CommittedRayT() {
//				q.CommitProceduralPrimitiveHit(t)
//			}
//		}
//	}
//	if q.CommittedStatus() == rayquery.CommittedTriangleHit { ... }
//
// # Semantics
//
// Following "Inline raytracing" and "Ray flags":
//
//   - The effective ray flags are the RayQuery's template flags (New) ORed
//     with the flags passed to TraceRayInline; RayFlags() returns them.
//     Only the low 8 bits of the instance inclusion mask count.
//   - Opaque triangles (after geometry, instance and ray flags) are
//     committed by the system during Proceed without returning to the
//     caller. Non-opaque triangles and every procedural primitive (opaque
//     or not) stop Proceed as a candidate, which the caller may commit.
//     A candidate that is not committed before the next Proceed is ignored.
//   - A triangle hit needs RayTMin < t < current TMax; a procedural hit is
//     committed at a caller-computed t that must lie in
//     [RayTMin, CommittedRayT] (inclusive, the ReportHit rule).
//   - With RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH the first commit (by the
//     system or by the caller) ends the search: the next Proceed returns
//     false.
//   - Abort ends the search; the committed hit, if any, stays.
//   - CommittedRayT is the committed hit's t, or the ray's TMax when nothing
//     is committed. The committed state may be read at any time after
//     TraceRayInline, during the search (it is the hit committed so far) and
//     after it.
//   - A nil *accel.TLAS, a ray with NaNs, a zero direction or TMin > TMax
//     simply misses (Proceed returns false, nothing committed).
//
// # Misuse
//
// The spec leaves calls made in the wrong state undefined. rayquery checks
// every such call (the checks are a byte compare) and panics with a
// *MisuseError naming the method, the state and what was wrong; such errors
// wrap ErrMisuse. The pipeline recovers shader panics and reports them as
// dispatch errors naming the launch index and shader; plain Go callers get
// the panic. What is checked:
//
//   - any method but TraceRayInline (and TemplateFlags) before the first
//     TraceRayInline;
//   - Candidate* methods and the two Commit methods unless the last Proceed
//     returned true (and Abort has not been called since);
//   - triangle-only candidate methods (CandidateTriangle*,
//     CommitNonOpaqueTriangleHit) on a procedural candidate, and
//     CandidateProceduralPrimitiveNonOpaque / CommitProceduralPrimitiveHit
//     on a triangle candidate;
//   - CommitProceduralPrimitiveHit with t outside [RayTMin, CommittedRayT]
//     or NaN;
//   - Committed* getters other than CommittedStatus, CommittedRayT,
//     Committed and CommittedTriangleObjectPositions when nothing is
//     committed, and CommittedTriangleBarycentrics/FrontFace when the
//     committed hit is procedural;
//   - ray flag combinations the spec declares mutually exclusive
//     (accel.RayFlags.Validate), at TraceRayInline.
//
// Position fetch is different: hlsl-0041 makes it undefined for a hit that
// is not a triangle or whose BLAS lacks BuildAllowDataAccess, properties of
// the data rather than of the call sequence, so the two position methods
// return accel.ErrNoTriangle or accel.ErrNoDataAccess instead of panicking
// (calling CandidateTriangleObjectPositions without a candidate still
// panics).
//
// # Performance
//
// A RayQuery is a plain value (about 1.7 KB, the traversal stack included):
// declare one per goroutine and reuse it. TraceRayInline, Proceed, the
// commits and every getter allocate nothing. It is not safe for concurrent
// use.
package rayquery
