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

// Trace many rays in one call: on scenes larger than the caches the batch
// calls overlap the rays' memory accesses; the answers are those of
// Intersect and Occluded, ray by ray.
func ExampleTLAS_IntersectBatch() {
	quad := accel.TriangleGeometry(
		[]vec.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}},
		[]uint32{0, 1, 2, 0, 2, 3})
	blas, err := accel.BuildBLAS([]accel.Geometry{quad}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	tlas, err := accel.BuildTLAS([]accel.Instance{{Transform: vec.Translate3x4(vec.V3(0, 0, 5)), InstanceMask: 0xff, BLAS: blas}}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	var rays []accel.Ray
	for _, x := range []float32{-1.5, -0.5, 0.5, 1.5} {
		rays = append(rays, accel.Ray{Origin: vec.V3(x, 0.25, 0), Direction: vec.V3(0, 0, 1), TMax: 100})
	}
	hits := make([]accel.Hit, len(rays))
	found := make([]bool, len(rays))
	if err := tlas.IntersectBatch(rays, 0, 0xff, hits, found); err != nil {
		fmt.Println(err)
		return
	}
	for i := range rays {
		if found[i] {
			fmt.Printf("ray %d: triangle %d at t=%g\n", i, hits[i].PrimitiveIndex, hits[i].T)
		} else {
			fmt.Printf("ray %d: miss\n", i)
		}
	}
	// Output:
	// ray 0: miss
	// ray 1: triangle 1 at t=5
	// ray 2: triangle 0 at t=5
	// ray 3: miss
}

// Cast a row of rays with the pointer form, one Hit reused: no Ray is
// copied in and no Hit out, as a loop over millions of rays wants.
func ExampleBLAS_IntersectTo() {
	quad := accel.TriangleGeometry(
		[]vec.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}},
		[]uint32{0, 1, 2, 0, 2, 3})
	blas, err := accel.BuildBLAS([]accel.Geometry{quad}, accel.BuildPreferFastTrace)
	if err != nil {
		fmt.Println(err)
		return
	}
	var hit accel.Hit
	for _, x := range []float32{-0.5, 0.5, 1.5} {
		ray := accel.Ray{Origin: vec.V3(x, 0.25, -1), Direction: vec.V3(0, 0, 1), TMax: 10}
		if blas.IntersectTo(&ray, 0, &hit) {
			fmt.Printf("x=%g: triangle %d at t=%g\n", x, hit.PrimitiveIndex, hit.T)
		} else {
			fmt.Printf("x=%g: miss\n", x)
		}
	}
	// Output:
	// x=-0.5: triangle 1 at t=1
	// x=0.5: triangle 0 at t=1
	// x=1.5: miss
}

// Deform a mesh and refit its structure in place, as a program that
// animates vertices does every frame: the vertex buffer changes, the
// indices may not ("Bottom-level acceleration structure updates").
func ExampleBLAS_Update() {
	quad := accel.TriangleGeometry(
		[]vec.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}},
		[]uint32{0, 1, 2, 0, 2, 3})
	blas, err := accel.BuildBLAS([]accel.Geometry{quad}, accel.BuildPreferFastTrace|accel.BuildAllowUpdate)
	if err != nil {
		fmt.Println(err)
		return
	}
	ray := accel.Ray{Origin: vec.V3(0.5, 0.25, -1), Direction: vec.V3(0, 0, 1), TMax: 10}
	hit, _ := blas.Intersect(ray, 0)
	fmt.Printf("before: t=%g\n", hit.T)

	// Lift the quad's right edge to z=2 (vertices 1 and 2), in its own
	// vertex buffer.
	if err := quad.SetPositions([]vec.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1, Z: 2}, {X: 1, Y: 1, Z: 2}, {X: -1, Y: 1}}); err != nil {
		fmt.Println(err)
		return
	}
	if err := blas.Update([]accel.Geometry{quad}); err != nil {
		fmt.Println(err)
		return
	}
	hit, _ = blas.Intersect(ray, 0)
	fmt.Printf("after: t=%g\n", hit.T)

	// The index buffer must stay as it was built.
	moved := quad
	moved.Triangles.IndexBuffer = append([]byte(nil), quad.Triangles.IndexBuffer...)
	moved.Triangles.IndexBuffer[0] = 3
	fmt.Println(blas.Update([]accel.Geometry{moved}))
	// Output:
	// before: t=1
	// after: t=2.5
	// accel: geometry 0: IndexBuffer: contents differ from the build (index buffer contents may not change)
}

// Decide every candidate in your own loop, as an any hit shader or a
// RayQuery does: a non-opaque quad, cut out where an alpha test says so,
// in front of an opaque one. The walk offers each non-opaque hit as a
// candidate; a candidate not committed is ignored, and the ray goes on.
func ExampleTraversal() {
	square := func(z float32) []vec.Vec3 {
		return []vec.Vec3{{X: -1, Y: -1, Z: z}, {X: 1, Y: -1, Z: z}, {X: 1, Y: 1, Z: z}, {X: -1, Y: 1, Z: z}}
	}
	leaves := accel.TriangleGeometry(square(2), []uint32{0, 1, 2, 0, 2, 3})
	leaves.Flags &^= accel.GeometryOpaque // its hits are candidates
	wall := accel.TriangleGeometry(square(5), []uint32{0, 1, 2, 0, 2, 3})
	blas, err := accel.BuildBLAS([]accel.Geometry{leaves, wall}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The alpha test: the leaves' triangle 0 (below the diagonal x = y)
	// is transparent.
	transparent := func(c *accel.Hit) bool { return c.GeometryIndex == 0 && c.PrimitiveIndex == 0 }

	var tr accel.Traversal
	for _, o := range []vec.Vec3{{X: 0.5, Y: -0.5}, {X: -0.5, Y: 0.5}} {
		tr.BeginBLAS(blas, accel.Ray{Origin: o, Direction: vec.V3(0, 0, 1), TMax: 100}, 0)
		candidates := 0
		for tr.Next() {
			candidates++
			if c := tr.Candidate(); !transparent(c) {
				tr.Commit()
			}
		}
		h := tr.Committed()
		fmt.Printf("from (%g, %g): %d candidate, hit geometry %d at t=%g\n", o.X, o.Y, candidates, h.GeometryIndex, h.T)
	}
	// Output:
	// from (0.5, -0.5): 1 candidate, hit geometry 1 at t=5
	// from (-0.5, 0.5): 1 candidate, hit geometry 0 at t=2
}
