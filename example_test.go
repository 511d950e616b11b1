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

// Shader Execution Reordering: the ray generation shader traces with
// HitObjectTraceRay, reorders by the hit and invokes the closest hit
// shader. With ReorderOn the invocations suspend at ReorderThread and
// resume sorted by hit group; the results equal those of TraceRay.
func ExampleReorderThread() {
	// Two quads side by side, each its own geometry and hit group record.
	var geoms []accel.Geometry
	for g := 0; g < 2; g++ {
		x := float32(2 * g)
		geoms = append(geoms, accel.TriangleGeometry([]vec.Vec3{
			{X: x - 1, Y: -1, Z: 5}, {X: x + 1, Y: -1, Z: 5}, {X: x + 1, Y: 1, Z: 5},
			{X: x - 1, Y: -1, Z: 5}, {X: x + 1, Y: 1, Z: 5}, {X: x - 1, Y: 1, Z: 5}}, nil))
	}
	blas, _ := accel.BuildBLAS(geoms, 0)
	tlas, _ := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)

	type payload struct{ Material uint32 }
	materials := make([]uint32, 8)
	p, _ := raypipe.NewPipeline(raypipe.PipelineDesc{
		Shaders: []raypipe.Shader{
			raypipe.RayGeneration("raygen", func(c *raypipe.Context) {
				x := c.DispatchRaysIndex()[0]
				ray := accel.Ray{Origin: vec.V3(float32(x%2)*2, 0, 0), Direction: vec.V3(0, 0, 1), TMax: 100}
				var pl payload
				h := raypipe.HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, &pl)
				raypipe.ReorderThread(c, h)
				raypipe.Invoke(c, h, &pl)
				materials[x] = pl.Material
			}),
			raypipe.ClosestHit("shade", func(c *raypipe.Context, pl *payload, _ *raypipe.BuiltInTriangleIntersectionAttributes) {
				pl.Material = c.LoadLocalRootTableConstant(0)
			}),
		},
		HitGroups:      []raypipe.HitGroup{{Name: "hg", ClosestHit: "shade"}},
		PipelineConfig: raypipe.PipelineConfig{MaxTraceRecursionDepth: 1},
	})
	var rg, hg raypipe.ShaderTableBuilder
	rg.Add(p.MustShaderIdentifier("raygen"), nil)
	hg.AddUint32s(p.MustShaderIdentifier("hg"), 10) // material 10 for geometry 0
	hg.AddUint32s(p.MustShaderIdentifier("hg"), 20) // material 20 for geometry 1
	var miss raypipe.ShaderTableBuilder
	miss.Add(raypipe.ShaderIdentifier{}, nil)
	stats, err := p.DispatchRays(context.Background(), raypipe.DispatchRaysDesc{
		RayGeneration: rg.Build(), HitGroup: hg.Build(), Miss: miss.Build(), Width: 8, Height: 1,
	}, &raypipe.DispatchOptions{Workers: 1, Reorder: raypipe.ReorderOn, CoherenceStats: true})
	fmt.Println(err, materials)
	fmt.Printf("%d reorder points; %.0f records per wave in launch order, %.0f after reordering\n",
		stats.ReorderPoints, stats.Coherence.LaunchOrder.RecordsPerWave(), stats.Coherence.Executed.RecordsPerWave())
	// Output:
	// <nil> [10 20 10 20 10 20 10 20]
	// 8 reorder points; 2 records per wave in launch order, 2 after reordering
}

// An alpha test: two stacked non-opaque quads, the nearer one cut out
// where x < 0 (as a texture's alpha would), through an any hit shader that
// returns its decision. Rays through the cut half reach the farther quad.
func ExampleAnyHitFilter() {
	quad := func(z float32) accel.Geometry {
		g := accel.TriangleGeometry([]vec.Vec3{{X: -1, Y: -1, Z: z}, {X: 1, Y: -1, Z: z}, {X: 1, Y: 1, Z: z}, {X: -1, Y: -1, Z: z}, {X: 1, Y: 1, Z: z}, {X: -1, Y: 1, Z: z}}, nil)
		g.Flags = 0 // not opaque: the any hit shader runs
		return g
	}
	blas, _ := accel.BuildBLAS([]accel.Geometry{quad(2), quad(3)}, 0)
	tlas, _ := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)

	type payload struct{ T float32 }
	xs := []float32{-0.5, 0.5}
	ts := make([]float32, len(xs))
	p, err := raypipe.NewPipeline(raypipe.PipelineDesc{
		Shaders: []raypipe.Shader{
			raypipe.RayGeneration("raygen", func(c *raypipe.Context) {
				i := c.DispatchRaysIndex()[0]
				ray := accel.Ray{Origin: vec.V3(xs[i], 0.1, 0), Direction: vec.V3(0, 0, 1), TMax: 100}
				var pl payload // both quads take the hit group's one record (multiplier 0)
				raypipe.TraceRay(c, tlas, 0, 0xff, 0, 0, 0, ray, &pl)
				ts[i] = pl.T
			}),
			raypipe.AnyHitFilter("alpha", func(c *raypipe.Context, _ *payload, _ *raypipe.BuiltInTriangleIntersectionAttributes) raypipe.HitDecision {
				if c.GeometryIndex() == 0 && c.ObjectRayOrigin().X < 0 {
					return raypipe.HitIgnore // as IgnoreHit, without its panic
				}
				return raypipe.HitAccept
			}),
			raypipe.ClosestHit("hit", func(c *raypipe.Context, pl *payload, _ *raypipe.BuiltInTriangleIntersectionAttributes) {
				pl.T = c.RayTCurrent()
			}),
		},
		HitGroups:      []raypipe.HitGroup{{Name: "cutout", AnyHit: "alpha", ClosestHit: "hit"}},
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
		RayGeneration: table("raygen"), HitGroup: table("cutout"), Width: uint32(len(xs)), Height: 1,
	}, nil)
	fmt.Println(err, ts)
	// Output: <nil> [3 2]
}
