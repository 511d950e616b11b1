package raypipe

import (
	"errors"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/rayquery"
	"github.com/raypipe/raypipe/vec"
)

// hlsl-0027 HitObject::FromRayQuery: a NOP object when nothing is
// committed; otherwise a hit with no shader table record (Invoke runs
// nothing) until SetShaderTableIndex; the attribute overload carries a
// procedural hit's attributes; getters and position fetch reflect the
// committed hit.
func TestHitObjectFromRayQuery(t *testing.T) {
	tlas := serScene(t)
	ran := 0
	r := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		var q rayquery.RayQuery
		q.TraceRayInline(tlas, accel.RayFlagForceOpaque, 0xff, accel.Ray{Origin: vec.V3(30, 30, 0), Direction: down, TMax: 100})
		for q.Proceed() {
		}
		if h := HitObjectFromRayQuery(&q); !h.IsNop() {
			t.Error("nothing committed: want NOP")
		}
		q.TraceRayInline(tlas, accel.RayFlagForceOpaque, 0xff, accel.Ray{Origin: vec.V3(4.25, 0.5, 0), Direction: down, TMax: 100})
		for q.Proceed() {
		}
		h := HitObjectFromRayQuery(&q)
		if !h.IsHit() || h.GeometryIndex() != 2 || h.RayTCurrent() != 5 || h.ShaderTableIndex() != 0 {
			t.Errorf("triangle hit from ray query: %+v", h)
		}
		if p, err := h.TriangleObjectPositions(); err != nil || p[0].Z != 5 {
			t.Errorf("positions %v %v", p, err)
		}
		out.Record = 55
		Invoke(c, h, out)
		if out.Record != 55 {
			t.Error("Invoke ran a shader before SetShaderTableIndex")
		}
		h.SetShaderTableIndex(h.GeometryIndex())
		Invoke(c, h, out)
		if out.Record != 2 {
			t.Errorf("Invoke after SetShaderTableIndex ran record %d", out.Record)
		}
		// A procedural hit committed by the query, with attributes.
		q.TraceRayInline(tlas, 0, 0xff, accel.Ray{Origin: vec.V3(0.2, 10.1, 0), Direction: down, TMax: 100})
		for q.Proceed() {
			if q.CandidateType() == rayquery.CandidateProceduralPrimitive {
				q.CommitProceduralPrimitiveHit(4.5)
			}
		}
		ph := HitObjectFromRayQueryWithAttributes(&q, 9, &attrs{Barycentrics: [2]float32{0.25, 0.5}})
		var a attrs
		if !ph.IsHit() || ph.HitKind() != 9 || ph.RayTCurrent() != 4.5 || !Attributes(&ph, &a) || a.Barycentrics != [2]float32{0.25, 0.5} {
			t.Errorf("procedural hit from ray query: %+v %+v", ph, a)
		}
		ph.SetShaderTableIndex(8)
		Invoke(c, ph, out)
		if out.Color[0] != 100 || out.Color[1] != 0.25 || out.Color[2] != 9 {
			t.Errorf("procedural Invoke: %+v", out)
		}
		ran++
	})
	results.reset()
	r.mustDispatch("rg", 1, 1, nil)
	if ran != 1 {
		t.Fatal("ray generation did not run")
	}
}

// hlsl-0041: TriangleObjectPositions in any hit and closest hit returns the
// object-space vertices (geometry transform applied, instance transform
// not), in build order; without ALLOW_DATA_ACCESS it is an error.
func TestTriangleObjectPositionsInHitShaders(t *testing.T) {
	pos := []vec.Vec3{{X: -1, Y: -1, Z: 1}, {X: 2, Y: -1, Z: 1}, {X: 0, Y: 3, Z: 1}}
	geo := accel.TriangleGeometry(pos, nil)
	geo.Flags = 0
	xf := vec.Translate3x4(vec.V3(0, 0, 1)) // per-geometry: applied
	geo.Triangles.Transform = &xf
	for _, flags := range []accel.BuildFlags{accel.BuildAllowDataAccess, 0} {
		blas := mustBLAS(t, flags, geo)
		inst := vec.Translate3x4(vec.V3(5, 0, 0)) // instance: ignored
		tlas := mustTLAS(t, place(blas, inst, 0))
		var got [2][3]vec.Vec3
		type pl struct{ N int }
		r := newRig(t, 1, []Shader{
			RayGeneration("rg", func(c *Context) {
				var p pl
				TraceRay(c, tlas, 0, 0xff, 0, 0, 0, rayAt(5.1, 0), &p)
			}),
			AnyHit("ahs", func(c *Context, p *pl, _ *attrs) { got[0] = c.TriangleObjectPositions() }),
			ClosestHit("chs", func(c *Context, p *pl, _ *attrs) { got[1] = c.TriangleObjectPositions() }),
		}, []HitGroup{{Name: "hg", AnyHit: "ahs", ClosestHit: "chs"}})
		r.hit = r.table("hg")
		_, err := r.dispatch("rg", 1, 1, nil)
		if flags == 0 {
			if err == nil {
				t.Fatal("position fetch without ALLOW_DATA_ACCESS succeeded")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for k, p := range pos {
			want := xf.TransformPoint(p)
			if got[0][k] != want || got[1][k] != want {
				t.Fatalf("vertex %d: any hit %v closest hit %v, want %v", k, got[0][k], got[1][k], want)
			}
		}
	}
}

// A RayQuery can be used from any shader; misusing it inside a dispatch
// stops the dispatch with an error that names the shader and unwraps to
// rayquery.ErrMisuse.
func TestRayQueryMisuseInShaderIsADispatchError(t *testing.T) {
	r := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) {
		var q rayquery.RayQuery
		q.CommitNonOpaqueTriangleHit() // before TraceRayInline
	})}, nil)
	_, err := r.dispatch("rg", 1, 1, nil)
	var de *DispatchError
	if !errors.As(err, &de) || de.Shader != "rg" || !errors.Is(err, rayquery.ErrMisuse) {
		t.Fatalf("err = %v", err)
	}
}
