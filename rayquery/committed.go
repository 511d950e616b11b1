package rayquery

import (
	"github.com/raypipe/raypipe/vec"
)

// The Committed* methods of "RayQuery intrinsics" describe the hit
// committed so far. They may be called at any time after TraceRayInline —
// during the search they report the closest hit committed until then —
// but, except CommittedStatus and CommittedRayT, only when something is
// committed, and the triangle ones only for a committed triangle.
// Otherwise they panic with a *MisuseError.

// CommittedRayT returns the committed hit's t, or the ray's TMax when
// nothing is committed (RayQuery::CommittedRayT). It is the current end of
// the search interval.
func (q *RayQuery) CommittedRayT() float32 {
	q.traced("CommittedRayT")
	return q.tr.TMax()
}

// CommittedInstanceIndex returns the committed hit's instance index
// (RayQuery::CommittedInstanceIndex).
func (q *RayQuery) CommittedInstanceIndex() uint32 {
	return q.committed("CommittedInstanceIndex", kindNone).InstanceIndex
}

// CommittedInstanceID returns the committed instance's 24-bit InstanceID
// (RayQuery::CommittedInstanceID).
func (q *RayQuery) CommittedInstanceID() uint32 {
	return q.committed("CommittedInstanceID", kindNone).InstanceID()
}

// CommittedInstanceContributionToHitGroupIndex returns the committed
// instance's 24-bit InstanceContributionToHitGroupIndex
// (RayQuery::CommittedInstanceContributionToHitGroupIndex).
func (q *RayQuery) CommittedInstanceContributionToHitGroupIndex() uint32 {
	return q.committed("CommittedInstanceContributionToHitGroupIndex", kindNone).InstanceContributionToHitGroupIndex()
}

// CommittedGeometryIndex returns the committed hit's geometry index
// (RayQuery::CommittedGeometryIndex).
func (q *RayQuery) CommittedGeometryIndex() uint32 {
	return q.committed("CommittedGeometryIndex", kindNone).GeometryIndex
}

// CommittedPrimitiveIndex returns the committed hit's primitive index
// (RayQuery::CommittedPrimitiveIndex).
func (q *RayQuery) CommittedPrimitiveIndex() uint32 {
	return q.committed("CommittedPrimitiveIndex", kindNone).PrimitiveIndex
}

// CommittedObjectRayOrigin returns the ray origin in the committed
// instance's object space (RayQuery::CommittedObjectRayOrigin).
func (q *RayQuery) CommittedObjectRayOrigin() vec.Vec3 {
	return q.committed("CommittedObjectRayOrigin", kindNone).ObjectRayOrigin
}

// CommittedObjectRayDirection returns the ray direction in the committed
// instance's object space (RayQuery::CommittedObjectRayDirection).
func (q *RayQuery) CommittedObjectRayDirection() vec.Vec3 {
	return q.committed("CommittedObjectRayDirection", kindNone).ObjectRayDirection
}

// CommittedObjectToWorld3x4 returns the committed instance's transform
// (RayQuery::CommittedObjectToWorld3x4).
func (q *RayQuery) CommittedObjectToWorld3x4() vec.Mat3x4 {
	return q.committed("CommittedObjectToWorld3x4", kindNone).ObjectToWorld()
}

// CommittedObjectToWorld4x3 returns the transpose of
// CommittedObjectToWorld3x4 (RayQuery::CommittedObjectToWorld4x3).
func (q *RayQuery) CommittedObjectToWorld4x3() vec.Mat4x3 {
	return q.committed("CommittedObjectToWorld4x3", kindNone).ObjectToWorld().Transpose()
}

// CommittedWorldToObject3x4 returns the inverse of the committed instance's
// transform (RayQuery::CommittedWorldToObject3x4).
func (q *RayQuery) CommittedWorldToObject3x4() vec.Mat3x4 {
	return q.committed("CommittedWorldToObject3x4", kindNone).WorldToObject()
}

// CommittedWorldToObject4x3 returns the transpose of
// CommittedWorldToObject3x4 (RayQuery::CommittedWorldToObject4x3).
func (q *RayQuery) CommittedWorldToObject4x3() vec.Mat4x3 {
	return q.committed("CommittedWorldToObject4x3", kindNone).WorldToObject().Transpose()
}

// CommittedTriangleBarycentrics returns the barycentrics of vertices 1 and
// 2 of the committed triangle in its original vertex order
// (RayQuery::CommittedTriangleBarycentrics).
func (q *RayQuery) CommittedTriangleBarycentrics() (u, v float32) {
	h := q.committed("CommittedTriangleBarycentrics", kindTriangle)
	return h.U, h.V
}

// CommittedTriangleFrontFace reports whether the committed triangle was hit
// on its front face (RayQuery::CommittedTriangleFrontFace).
func (q *RayQuery) CommittedTriangleFrontFace() bool {
	return q.committed("CommittedTriangleFrontFace", kindTriangle).FrontFace
}

// CommittedTriangleObjectPositions returns the committed triangle's three
// vertices in object space (after the geometry transform, without the
// instance transform), in build order (hlsl-0041,
// RayQuery::CommittedTriangleObjectPositions).
//
// It returns accel.ErrNoTriangle when nothing or a procedural primitive is
// committed and accel.ErrNoDataAccess when the BLAS was built without
// accel.BuildAllowDataAccess. Before TraceRayInline it panics.
func (q *RayQuery) CommittedTriangleObjectPositions() ([3]vec.Vec3, error) {
	q.traced("CommittedTriangleObjectPositions")
	return q.tr.Committed().TrianglePositions()
}
