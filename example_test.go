package raypipe_test

import (
	"context"
	"fmt"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// Trace one ray at one triangle through the full pipeline: a ray
// generation shader, a closest hit shader that reports t and the
// barycentrics, and a miss shader.
func ExampleTraceRay() {
	tri := accel.TriangleGeometry([]vec.Vec3{{X: -1, Y: -1, Z: 2}, {X: 1, Y: -1, Z: 2}, {X: 0, Y: 1, Z: 2}}, nil)
	blas, _ := accel.BuildBLAS([]accel.Geometry{tri}, 0)
	tlas, _ := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)

	type payload struct {
		T    float32
		Bary [2]float32
		Hit  bool
	}
	var result payload
	p, err := raypipe.NewPipeline(raypipe.PipelineDesc{
		Shaders: []raypipe.Shader{
			raypipe.RayGeneration("raygen", func(c *raypipe.Context) {
				ray := accel.Ray{Origin: vec.V3(0, 0, 0), Direction: vec.V3(0, 0, 1), TMax: 100}
				raypipe.TraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, &result)
			}),
			raypipe.ClosestHit("hit", func(c *raypipe.Context, pl *payload, a *raypipe.BuiltInTriangleIntersectionAttributes) {
				*pl = payload{T: c.RayTCurrent(), Bary: a.Barycentrics, Hit: true}
			}),
			raypipe.Miss("miss", func(c *raypipe.Context, pl *payload) { pl.Hit = false }),
		},
		HitGroups:      []raypipe.HitGroup{{Name: "triangles", ClosestHit: "hit"}},
		PipelineConfig: raypipe.PipelineConfig{MaxTraceRecursionDepth: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	table := func(export string) raypipe.ShaderTable {
		var b raypipe.ShaderTableBuilder
		b.Add(p.MustShaderIdentifier(export), nil)
		return b.Build()
	}
	_, err = p.DispatchRays(context.Background(), raypipe.DispatchRaysDesc{
		RayGeneration: table("raygen"), HitGroup: table("triangles"), Miss: table("miss"),
		Width: 1, Height: 1,
	}, nil)
	fmt.Println(err, result.Hit, result.T, result.Bary)
	// Output: <nil> true 2 [0.25 0.5]
}
