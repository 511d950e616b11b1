package raypipe

import (
	"context"
	"fmt"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/rayquery"
	"github.com/raypipe/raypipe/vec"
)

// BenchmarkPipelineOverhead compares a closest-hit-only DispatchRays with
// the raw accel query on the same primary rays (one worker each, so the
// ratio is the per-ray overhead of the pipeline).
func BenchmarkPipelineOverhead(b *testing.B) {
	pos, idx := meshgen.Terrain(100_000, 1)
	blas, err := accel.BuildBLAS([]accel.Geometry{accel.TriangleGeometry(pos, idx)}, accel.BuildPreferFastTrace)
	if err != nil {
		b.Fatal(err)
	}
	tlas, _ := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)
	const w, h = 256, 256
	rays := raygen.Primary(raygen.BoundsOf(pos), w, h)
	toRay := func(r raygen.Ray) accel.Ray {
		return accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax}
	}
	b.Run("raw", func(b *testing.B) {
		var sink float32
		b.ResetTimer()
		for range b.N {
			for _, r := range rays {
				if hit, ok := tlas.Intersect(toRay(r), 0, 0xff); ok {
					sink += hit.T
				}
			}
		}
		b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
		_ = sink
	})
	b.Run("pipeline", func(b *testing.B) {
		type pl struct{ T float32 }
		out := make([]float32, len(rays))
		p, err := NewPipeline(PipelineDesc{Shaders: []Shader{
			RayGeneration("rg", func(c *Context) {
				i := c.DispatchRaysIndex()[0]
				var p pl
				TraceRay(c, tlas, 0, 0xff, 0, 0, 0, toRay(rays[i]), &p)
				out[i] = p.T
			}),
			ClosestHit("chs", func(c *Context, p *pl, _ *BuiltInTriangleIntersectionAttributes) { p.T = c.RayTCurrent() }),
		}, HitGroups: []HitGroup{{Name: "hg", ClosestHit: "chs"}}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1}})
		if err != nil {
			b.Fatal(err)
		}
		table := func(e string) ShaderTable {
			var tb ShaderTableBuilder
			if e != "" {
				tb.Add(p.MustShaderIdentifier(e), nil)
			} else {
				tb.Add(ShaderIdentifier{}, nil)
			}
			return tb.Build()
		}
		// One row: launch order is the rays' order, as in the raw loop.
		desc := DispatchRaysDesc{RayGeneration: table("rg"), HitGroup: table("hg"), Miss: table(""), Width: uint32(len(rays)), Height: 1}
		opt := &DispatchOptions{Workers: 1}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := p.DispatchRays(context.Background(), desc, opt); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
	})
}

// BenchmarkReorderPoint measures the cost of one ReorderThread with
// reordering on (suspend, sort, resume), against the no-op with it off,
// per window size: ray generation invocations that only reorder.
func BenchmarkReorderPoint(b *testing.B) {
	const points = 8
	p, err := NewPipeline(PipelineDesc{Shaders: []Shader{RayGeneration("rg", func(c *Context) {
		l := c.DispatchRaysIndex()
		for i := uint32(0); i < points; i++ {
			ReorderThreadHint(c, (l[0]*2654435761+i*40503)>>16, 16)
		}
	})}})
	if err != nil {
		b.Fatal(err)
	}
	var tb ShaderTableBuilder
	tb.Add(p.MustShaderIdentifier("rg"), nil)
	desc := DispatchRaysDesc{RayGeneration: tb.Build(), Width: 256, Height: 256}
	for _, opt := range []DispatchOptions{{Workers: 1}, {Workers: 1, Reorder: ReorderOn, Window: 64}, {Workers: 1, Reorder: ReorderOn, Window: 1024}, {Workers: 1, Reorder: ReorderOn, Window: 16384}} {
		name := "off"
		if opt.Reorder == ReorderOn {
			name = "window=" + itoa(opt.Window)
		}
		b.Run(name, func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				if _, err := p.DispatchRays(context.Background(), desc, &opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(256*256*points), "ns/point")
		})
	}
}

func itoa(i int) string { return fmt.Sprint(i) }

// BenchmarkShadowRays traces shadow rays the way a DXR shader does, through
// TraceRay with RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH |
// RAY_FLAG_SKIP_CLOSEST_HIT_SHADER and a miss shader that marks the point
// lit (pipeline), beside the raw occlusion queries on the same rays (raw):
// on opaque geometry TraceRay hands such rays to TLAS.Intersect, whose
// first-hit walk is Occluded's.
func BenchmarkShadowRays(b *testing.B) {
	for _, kind := range []string{"terrain", "soup"} {
		gen := meshgen.Terrain
		if kind == "soup" {
			gen = meshgen.Soup
		}
		pos, idx := gen(100_000, 1)
		blas, err := accel.BuildBLAS([]accel.Geometry{accel.TriangleGeometry(pos, idx)}, accel.BuildPreferFastTrace)
		if err != nil {
			b.Fatal(err)
		}
		tlas, _ := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)
		var rays []accel.Ray
		for _, r := range raygen.Shadow(pos, idx, raygen.BoundsOf(pos), 1<<16, 1) {
			rays = append(rays, accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax})
		}
		lit := make([]bool, len(rays))
		b.Run(kind+"/raw", func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				for i := range rays {
					lit[i] = !tlas.Occluded(rays[i], 0, 0xff)
				}
			}
			b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
		})
		b.Run(kind+"/pipeline", func(b *testing.B) {
			type pl struct{ lit bool }
			p, err := NewPipeline(PipelineDesc{Shaders: []Shader{
				RayGeneration("rg", func(c *Context) {
					i := c.DispatchRaysIndex()[0]
					var p pl
					TraceRay(c, tlas, accel.RayFlagAcceptFirstHitAndEndSearch|accel.RayFlagSkipClosestHitShader, 0xff, 0, 0, 0, rays[i], &p)
					lit[i] = p.lit
				}),
				Miss("miss", func(c *Context, p *pl) { p.lit = true }),
			}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1}})
			if err != nil {
				b.Fatal(err)
			}
			var rg, miss ShaderTableBuilder
			rg.Add(p.MustShaderIdentifier("rg"), nil)
			miss.Add(p.MustShaderIdentifier("miss"), nil)
			desc := DispatchRaysDesc{RayGeneration: rg.Build(), Miss: miss.Build(), Width: uint32(len(rays)), Height: 1}
			opt := &DispatchOptions{Workers: 1}
			b.ResetTimer()
			for range b.N {
				if _, err := p.DispatchRays(context.Background(), desc, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
		})
	}
}

// BenchmarkAnyHit traces rays through a 100k-triangle terrain whose
// geometry is not opaque, with an any-hit shader that cuts a quarter of
// the triangles out (IgnoreHit where the primitive index is a multiple of
// four), as an alpha test does: closest-hit rays (primary) and shadow
// rays (ACCEPT_FIRST_HIT_AND_END_SEARCH | SKIP_CLOSEST_HIT_SHADER), one
// worker. Every hit goes through a Traversal and the any-hit shader. The
// pipeline's answers are checked against a RayQuery loop that makes the
// same decisions before timing. Each kind runs the shader in both forms:
// calling IgnoreHit, which ends the Go function with a panic, and as an
// AnyHitFilter returning HitIgnore (on the Zen 5 of the README, three
// rounds in one run: closest 3.53-3.64 against 4.06-4.43 Mrays/s, shadow
// 1.93-1.95 against 2.09-2.15).
//
//	go test -run '^$' -bench AnyHit -benchtime 2s
func BenchmarkAnyHit(b *testing.B) {
	pos, idx := meshgen.Terrain(100_000, 1)
	g := accel.TriangleGeometry(pos, idx)
	g.Flags = 0 // not opaque: every hit runs the any-hit shader
	blas, err := accel.BuildBLAS([]accel.Geometry{g}, accel.BuildPreferFastTrace)
	if err != nil {
		b.Fatal(err)
	}
	tlas, _ := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)
	toRay := func(r raygen.Ray) accel.Ray {
		return accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax}
	}
	cut := func(prim uint32) bool { return prim%4 == 0 }
	const shadowFlags = accel.RayFlagAcceptFirstHitAndEndSearch | accel.RayFlagSkipClosestHitShader
	for _, kind := range []string{"closest", "shadow"} {
		var rays []accel.Ray
		var flags accel.RayFlags
		if kind == "closest" {
			for _, r := range raygen.Primary(raygen.BoundsOf(pos), 256, 256) {
				rays = append(rays, toRay(r))
			}
		} else {
			for _, r := range raygen.Shadow(pos, idx, raygen.BoundsOf(pos), 1<<16, 1) {
				rays = append(rays, toRay(r))
			}
			flags = shadowFlags
		}
		type pl struct{ T float32 }
		for _, form := range []string{"IgnoreHit", "AnyHitFilter"} {
			anyHit := AnyHit("cut", func(c *Context, _ *pl, _ *BuiltInTriangleIntersectionAttributes) {
				if cut(c.PrimitiveIndex()) {
					IgnoreHit(c)
				}
			})
			if form == "AnyHitFilter" {
				anyHit = AnyHitFilter("cut", func(c *Context, _ *pl, _ *BuiltInTriangleIntersectionAttributes) HitDecision {
					if cut(c.PrimitiveIndex()) {
						return HitIgnore
					}
					return HitAccept
				})
			}
			out := make([]float32, len(rays))
			p, err := NewPipeline(PipelineDesc{Shaders: []Shader{
				RayGeneration("rg", func(c *Context) {
					i := c.DispatchRaysIndex()[0]
					p := pl{T: -1}
					TraceRay(c, tlas, flags, 0xff, 0, 0, 0, rays[i], &p)
					out[i] = p.T
				}),
				ClosestHit("chs", func(c *Context, p *pl, _ *BuiltInTriangleIntersectionAttributes) { p.T = c.RayTCurrent() }),
				anyHit,
				Miss("miss", func(c *Context, p *pl) { p.T = 0 }),
			}, HitGroups: []HitGroup{{Name: "hg", ClosestHit: "chs", AnyHit: "cut"}}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1}})
			if err != nil {
				b.Fatal(err)
			}
			table := func(e string) ShaderTable {
				var tb ShaderTableBuilder
				tb.Add(p.MustShaderIdentifier(e), nil)
				return tb.Build()
			}
			desc := DispatchRaysDesc{RayGeneration: table("rg"), HitGroup: table("hg"), Miss: table("miss"), Width: uint32(len(rays)), Height: 1}
			opt := &DispatchOptions{Workers: 1}
			if _, err := p.DispatchRays(context.Background(), desc, opt); err != nil {
				b.Fatal(err)
			}
			// The same decisions in a RayQuery loop: the committed t (closest),
			// or -1 for a shadow ray that hits (the closest hit is skipped).
			var q rayquery.RayQuery
			hits := 0
			for i, r := range rays {
				q.TraceRayInline(tlas, flags, 0xff, r)
				for q.Proceed() {
					if !cut(q.CandidatePrimitiveIndex()) {
						q.CommitNonOpaqueTriangleHit()
					}
				}
				want := float32(0)
				if q.CommittedStatus() != rayquery.CommittedNothing {
					want = -1
					if kind == "closest" {
						want = q.CommittedRayT()
					}
					hits++
				}
				if out[i] != want {
					b.Fatalf("%s ray %d: the pipeline gives %v, a RayQuery %v", kind, i, out[i], want)
				}
			}
			if hits < len(rays)/4 {
				b.Fatalf("%s: only %d of %d rays hit", kind, hits, len(rays))
			}
			b.Run(kind+"/"+form, func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if _, err := p.DispatchRays(context.Background(), desc, opt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			})
		}
	}
}
