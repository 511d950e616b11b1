package rayquery

import (
	"github.com/raypipe/raypipe/vec"
)

// The Candidate* methods of "RayQuery intrinsics" describe the candidate
// that the last Proceed stopped at. They are valid only while Proceed's
// last result was true (and Abort has not been called); the triangle ones
// only when CandidateType is CandidateNonOpaqueTriangle. Otherwise they
// panic with a *MisuseError.

// CandidateType reports whether the candidate is a non-opaque triangle or a
// procedural primitive (RayQuery::CandidateType).
func (q *RayQuery) CandidateType() CandidateType {
	if q.candidate("CandidateType", kindNone).Kind == kindProcedural {
		return CandidateProceduralPrimitive
	}
	return CandidateNonOpaqueTriangle
}

// CandidateProceduralPrimitiveNonOpaque reports whether the procedural
// candidate is non-opaque after geometry, instance and ray flags
// (RayQuery::CandidateProceduralPrimitiveNonOpaque). Opaque procedural
// candidates also stop Proceed: the caller still decides whether there is
// a hit; the flag only tells whether any-hit-style filtering is expected.
func (q *RayQuery) CandidateProceduralPrimitiveNonOpaque() bool {
	return !q.candidate("CandidateProceduralPrimitiveNonOpaque", kindProcedural).Opaque
}

// CandidateInstanceIndex returns the candidate's instance index in the TLAS
// (RayQuery::CandidateInstanceIndex).
func (q *RayQuery) CandidateInstanceIndex() uint32 {
	return q.candidate("CandidateInstanceIndex", kindNone).InstanceIndex
}

// CandidateInstanceID returns the candidate instance's 24-bit InstanceID
// (RayQuery::CandidateInstanceID).
func (q *RayQuery) CandidateInstanceID() uint32 {
	return q.candidate("CandidateInstanceID", kindNone).InstanceID()
}

// CandidateInstanceContributionToHitGroupIndex returns the candidate
// instance's 24-bit InstanceContributionToHitGroupIndex
// (RayQuery::CandidateInstanceContributionToHitGroupIndex).
func (q *RayQuery) CandidateInstanceContributionToHitGroupIndex() uint32 {
	return q.candidate("CandidateInstanceContributionToHitGroupIndex", kindNone).InstanceContributionToHitGroupIndex()
}

// CandidateGeometryIndex returns the candidate's geometry index in its BLAS
// (RayQuery::CandidateGeometryIndex).
func (q *RayQuery) CandidateGeometryIndex() uint32 {
	return q.candidate("CandidateGeometryIndex", kindNone).GeometryIndex
}

// CandidatePrimitiveIndex returns the candidate's primitive index within
// its geometry: the triangle or AABB index (RayQuery::CandidatePrimitiveIndex).
func (q *RayQuery) CandidatePrimitiveIndex() uint32 {
	return q.candidate("CandidatePrimitiveIndex", kindNone).PrimitiveIndex
}

// CandidateObjectRayOrigin returns the ray origin in the candidate
// instance's object space (RayQuery::CandidateObjectRayOrigin).
func (q *RayQuery) CandidateObjectRayOrigin() vec.Vec3 {
	return q.candidate("CandidateObjectRayOrigin", kindNone).ObjectRayOrigin
}

// CandidateObjectRayDirection returns the ray direction in the candidate
// instance's object space, not normalized
// (RayQuery::CandidateObjectRayDirection).
func (q *RayQuery) CandidateObjectRayDirection() vec.Vec3 {
	return q.candidate("CandidateObjectRayDirection", kindNone).ObjectRayDirection
}

// CandidateObjectToWorld3x4 returns the candidate instance's transform
// (RayQuery::CandidateObjectToWorld3x4).
func (q *RayQuery) CandidateObjectToWorld3x4() vec.Mat3x4 {
	return q.candidate("CandidateObjectToWorld3x4", kindNone).ObjectToWorld()
}

// CandidateObjectToWorld4x3 returns the transpose of
// CandidateObjectToWorld3x4 (RayQuery::CandidateObjectToWorld4x3).
func (q *RayQuery) CandidateObjectToWorld4x3() vec.Mat4x3 {
	return q.candidate("CandidateObjectToWorld4x3", kindNone).ObjectToWorld().Transpose()
}

// CandidateWorldToObject3x4 returns the inverse of the candidate instance's
// transform (RayQuery::CandidateWorldToObject3x4).
func (q *RayQuery) CandidateWorldToObject3x4() vec.Mat3x4 {
	return q.candidate("CandidateWorldToObject3x4", kindNone).WorldToObject()
}

// CandidateWorldToObject4x3 returns the transpose of
// CandidateWorldToObject3x4 (RayQuery::CandidateWorldToObject4x3).
func (q *RayQuery) CandidateWorldToObject4x3() vec.Mat4x3 {
	return q.candidate("CandidateWorldToObject4x3", kindNone).WorldToObject().Transpose()
}

// CandidateTriangleRayT returns the t of the candidate triangle
// intersection (RayQuery::CandidateTriangleRayT).
func (q *RayQuery) CandidateTriangleRayT() float32 {
	return q.candidate("CandidateTriangleRayT", kindTriangle).T
}

// CandidateTriangleBarycentrics returns the barycentrics of vertices 1 and
// 2 of the candidate triangle in its original vertex order
// (RayQuery::CandidateTriangleBarycentrics); vertex 0 has 1-u-v.
func (q *RayQuery) CandidateTriangleBarycentrics() (u, v float32) {
	h := q.candidate("CandidateTriangleBarycentrics", kindTriangle)
	return h.U, h.V
}

// CandidateTriangleFrontFace reports whether the candidate triangle is hit
// on its front face, after the instance's TRIANGLE_FRONT_COUNTERCLOCKWISE
// flag (RayQuery::CandidateTriangleFrontFace).
func (q *RayQuery) CandidateTriangleFrontFace() bool {
	return q.candidate("CandidateTriangleFrontFace", kindTriangle).FrontFace
}

// CandidateTriangleObjectPositions returns the candidate triangle's three
// vertices in object space — after the geometry's transform, without the
// instance transform — in the order used to build the BLAS, matching the
// barycentrics (hlsl-0041, RayQuery::CandidateTriangleObjectPositions).
//
// It returns accel.ErrNoTriangle for a procedural candidate and
// accel.ErrNoDataAccess when the BLAS was built without
// accel.BuildAllowDataAccess (both undefined in hlsl-0041). Without a
// candidate it panics like the other Candidate methods.
func (q *RayQuery) CandidateTriangleObjectPositions() ([3]vec.Vec3, error) {
	return q.candidate("CandidateTriangleObjectPositions", kindNone).TrianglePositions()
}
