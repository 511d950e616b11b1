package accel_test

import (
	"fmt"
	"math"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// Build a bottom-level structure over a quad, place it twice, and cast a
// closest-hit and an occlusion query — no shaders needed.
func ExampleTLAS_Intersect() {
	quad := accel.TriangleGeometry(
		[]vec.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}},
		[]uint32{0, 1, 2, 0, 2, 3})
	blas, err := accel.BuildBLAS([]accel.Geometry{quad}, accel.BuildPreferFastTrace)
	if err != nil {
		fmt.Println(err)
		return
	}
	tlas, err := accel.BuildTLAS([]accel.Instance{
		{Transform: vec.Translate3x4(vec.V3(0, 0, 5)), InstanceID: 7, InstanceMask: 0xff, BLAS: blas},
		{Transform: vec.Translate3x4(vec.V3(0, 0, 9)), InstanceID: 8, InstanceMask: 0xff, BLAS: blas},
	}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	ray := accel.Ray{Origin: vec.V3(0.5, 0.25, 0), Direction: vec.V3(0, 0, 1), TMax: float32(math.Inf(1))}
	if hit, ok := tlas.Intersect(ray, 0, 0xff); ok {
		fmt.Printf("hit instance ID %d, triangle %d at t=%g, barycentrics (%.3g, %.3g)\n", hit.InstanceID(), hit.PrimitiveIndex, hit.T, hit.U, hit.V)
	}
	ray.TMax = 4
	fmt.Println("occluded before t=4:", tlas.Occluded(ray, 0, 0xff))
	// Output:
	// hit instance ID 7, triangle 0 at t=5, barycentrics (0.125, 0.625)
	// occluded before t=4: false
}
