package rayquery_test

import (
	"fmt"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/rayquery"
	"github.com/raypipe/raypipe/vec"
)

// ExampleRayQuery casts one inline query from plain Go at a non-opaque
// triangle, accepts the candidate as an any-hit shader would, and reads the
// committed hit.
func ExampleRayQuery() {
	geo := accel.TriangleGeometry([]vec.Vec3{{X: 0, Y: 0, Z: 2}, {X: 0, Y: 1, Z: 2}, {X: 1, Y: 0, Z: 2}}, nil)
	geo.Flags = 0 // non-opaque: Proceed stops at it as a candidate
	blas, err := accel.BuildBLAS([]accel.Geometry{geo}, accel.BuildAllowDataAccess)
	if err != nil {
		panic(err)
	}
	tlas, err := accel.BuildTLAS([]accel.Instance{{Transform: vec.Translate3x4(vec.V3(0, 0, 1)), InstanceID: 42, InstanceMask: 0xff, BLAS: blas}}, 0)
	if err != nil {
		panic(err)
	}

	q := rayquery.New(accel.RayFlagCullBackFacingTriangles)
	q.TraceRayInline(tlas, accel.RayFlagNone, 0xff, accel.Ray{Origin: vec.V3(0.25, 0.5, 0), Direction: vec.V3(0, 0, 1), TMax: 100})
	for q.Proceed() {
		if q.CandidateType() == rayquery.CandidateNonOpaqueTriangle {
			q.CommitNonOpaqueTriangleHit()
		}
	}
	fmt.Println(q.CommittedStatus())
	u, v := q.CommittedTriangleBarycentrics()
	fmt.Printf("t=%g instanceID=%d u=%.2f v=%.2f front=%v\n", q.CommittedRayT(), q.CommittedInstanceID(), u, v, q.CommittedTriangleFrontFace())
	p, err := q.CommittedTriangleObjectPositions()
	fmt.Println(p, err)
	// Output:
	// COMMITTED_TRIANGLE_HIT
	// t=3 instanceID=42 u=0.50 v=0.25 front=true
	// [{0 0 2} {0 1 2} {1 0 2}] <nil>
}
