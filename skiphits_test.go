package raypipe

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// TestSkipClosestHitOnOpaqueTrianglesMissesExactlyWhenUnoccluded checks
// TraceRay with RAY_FLAG_SKIP_CLOSEST_HIT_SHADER (D3D12 raytracing spec,
// "Ray flags": no closest hit shader runs on a hit) over opaque triangles,
// which TraceRay answers with the occlusion query: the miss shader runs for
// a ray exactly when Occluded says it is unoccluded, the closest hit
// shader never, every ray is counted, and the same dispatch with coherence
// statistics on (which takes the full trace, its hit records observed)
// gives the same answers and counts. Flags combined with it: none,
// ACCEPT_FIRST_HIT_AND_END_SEARCH, CULL_BACK_FACING_TRIANGLES.
func TestSkipClosestHitOnOpaqueTrianglesMissesExactlyWhenUnoccluded(t *testing.T) {
	pos, idx := meshgen.Soup(3000, 5)
	blas, err := accel.BuildBLAS([]accel.Geometry{accel.TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := vec.Identity3x4
	m[0][3] = 0.25
	tlas, err := accel.BuildTLAS([]accel.Instance{
		{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas},
		{Transform: m, InstanceMask: 0x0f, BLAS: blas},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rays []accel.Ray
	for _, r := range raygen.Shadow(pos, idx, raygen.BoundsOf(pos), 2000, 3) {
		rays = append(rays, accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax})
	}
	for _, r := range raygen.Incoherent(raygen.BoundsOf(pos), 2000, 4) {
		rays = append(rays, accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax})
	}
	type pl struct{ lit, chs bool }
	for _, extra := range []accel.RayFlags{0, accel.RayFlagAcceptFirstHitAndEndSearch, accel.RayFlagCullBackFacingTriangles} {
		flags := accel.RayFlagSkipClosestHitShader | extra
		for _, mask := range []uint32{0xff, 0xf0} {
			out := make([]pl, len(rays))
			p, err := NewPipeline(PipelineDesc{Shaders: []Shader{
				RayGeneration("rg", func(c *Context) {
					i := c.DispatchRaysIndex()[0]
					TraceRay(c, tlas, flags, mask, 0, 0, 0, rays[i], &out[i])
				}),
				ClosestHit("chs", func(c *Context, p *pl, _ *BuiltInTriangleIntersectionAttributes) { p.chs = true }),
				Miss("miss", func(c *Context, p *pl) { p.lit = true }),
			}, HitGroups: []HitGroup{{Name: "hg", ClosestHit: "chs"}}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1}})
			if err != nil {
				t.Fatal(err)
			}
			var rg, hg, miss ShaderTableBuilder
			rg.Add(p.MustShaderIdentifier("rg"), nil)
			hg.Add(p.MustShaderIdentifier("hg"), nil)
			miss.Add(p.MustShaderIdentifier("miss"), nil)
			desc := DispatchRaysDesc{RayGeneration: rg.Build(), HitGroup: hg.Build(), Miss: miss.Build(), Width: uint32(len(rays)), Height: 1}
			var runs [2][]pl
			var stats [2]Stats
			for k, coherence := range []bool{false, true} {
				clear(out)
				st, err := p.DispatchRays(context.Background(), desc, &DispatchOptions{CoherenceStats: coherence})
				if err != nil {
					t.Fatal(err)
				}
				runs[k], stats[k] = append([]pl(nil), out...), st
			}
			lit := 0
			for i, r := range rays {
				want := !tlas.Occluded(r, flags, mask)
				if got := runs[0][i]; got.lit != want || got.chs {
					t.Fatalf("flags %#x mask %#x ray %d: lit %v, closest hit ran %v; Occluded says lit %v", flags, mask, i, got.lit, got.chs, want)
				}
				if runs[1][i] != runs[0][i] {
					t.Fatalf("flags %#x mask %#x ray %d: %+v with coherence statistics, %+v without", flags, mask, i, runs[1][i], runs[0][i])
				}
				if want {
					lit++
				}
			}
			for k := range stats {
				if s := stats[k]; s.Rays != uint64(len(rays)) || s.Invocations[KindMiss] != uint64(lit) || s.Invocations[KindClosestHit] != 0 {
					t.Fatalf("flags %#x mask %#x (coherence %v): %d rays, %d misses, %d closest hits; want %d, %d, 0",
						flags, mask, k == 1, s.Rays, s.Invocations[KindMiss], s.Invocations[KindClosestHit], len(rays), lit)
				}
			}
			if lit < len(rays)/10 || lit > len(rays)*9/10 {
				t.Fatalf("flags %#x mask %#x: %d of %d rays lit: too one-sided to test", flags, mask, lit, len(rays))
			}
		}
	}
}

// TestSkipClosestHitShortcutStillRejectsBadFlags: TraceRay's occlusion
// shortcut makes the checks every trace makes, so mutually exclusive ray
// flags (D3D12 raytracing spec, "Ray flags": at most one of the culling
// flags) stop the dispatch with ErrInvalidArgument naming them, as they
// do on the full trace.
func TestSkipClosestHitShortcutStillRejectsBadFlags(t *testing.T) {
	pos, idx := meshgen.Soup(200, 5)
	blas, err := accel.BuildBLAS([]accel.Geometry{accel.TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tlas, err := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !tlas.OpaqueTrianglesOnly() {
		t.Fatal("the scene must be opaque-only to reach the shortcut")
	}
	const bad = accel.RayFlagSkipClosestHitShader | accel.RayFlagCullBackFacingTriangles | accel.RayFlagCullFrontFacingTriangles
	type pl struct{ lit bool }
	p, err := NewPipeline(PipelineDesc{Shaders: []Shader{
		RayGeneration("rg", func(c *Context) {
			var p pl
			TraceRay(c, tlas, bad, 0xff, 0, 0, 0, accel.Ray{Direction: vec.V3(0, 0, 1), TMax: 10}, &p)
		}),
		Miss("miss", func(c *Context, p *pl) { p.lit = true }),
	}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var rg, miss ShaderTableBuilder
	rg.Add(p.MustShaderIdentifier("rg"), nil)
	miss.Add(p.MustShaderIdentifier("miss"), nil)
	_, err = p.DispatchRays(context.Background(), DispatchRaysDesc{RayGeneration: rg.Build(), Miss: miss.Build(), Width: 1, Height: 1}, nil)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(strings.ToUpper(err.Error()), "CULL") {
		t.Fatalf("err = %v, want ErrInvalidArgument naming the culling flags", err)
	}
}
