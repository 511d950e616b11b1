package raypipe

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

type recPayload struct {
	Record   uint32
	Shader   string
	AnyHits  int
	Closest  int
	Misses   int
	T        float32
	HitKind  uint8
	Trail    [8]uint8
	TrailLen int
}

func (p *recPayload) note(b uint8) {
	if p.TrailLen < len(p.Trail) {
		p.Trail[p.TrailLen] = b
		p.TrailLen++
	}
}

// "Hit group table indexing": record = RayContributionToHitGroupIndex +
// MultiplierForGeometryContributionToHitGroupIndex * GeometryIndex +
// InstanceContributionToHitGroupIndex, with only the low 4 bits of the
// TraceRay terms used.
func TestHitGroupTableIndexingFormula(t *testing.T) {
	// One BLAS with three geometries, side by side in x.
	var geoms []accel.Geometry
	for g := 0; g < 3; g++ {
		pos := quad(0.4, 0)
		for i := range pos {
			pos[i].X += float32(g)
		}
		geoms = append(geoms, accel.TriangleGeometry(pos, nil))
	}
	blas := mustBLAS(t, 0, geoms...)
	contribs := []uint32{0, 7, 40}
	var insts []accel.Instance
	for i, ct := range contribs {
		insts = append(insts, place(blas, vec.Translate3x4(vec.V3(0, float32(i)*10, 0)), ct))
	}
	tlas := mustTLAS(t, insts...)
	type call struct{ rayContrib, mult uint32 }
	calls := []call{{0, 1}, {3, 2}, {0x13, 0x22}, {0xffffffff, 0xfffffff1}}
	var results []uint32
	var got recPayload
	var cur call
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			for i := range contribs {
				for g := 0; g < 3; g++ {
					got = recPayload{}
					TraceRay(c, tlas, 0, 0xff, cur.rayContrib, cur.mult, 0, rayAt(float32(g), float32(i)*10), &got)
					results = append(results, got.Record)
				}
			}
		}),
		ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) { p.Record = c.LoadLocalRootTableConstant(0) }),
		Miss("miss", func(c *Context, p *recPayload) { p.Record = 999 }),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs"}})
	names := make([]string, 100)
	for i := range names {
		names[i] = "hg"
	}
	r.hit, r.miss = r.table(names...), r.table("miss")
	for _, cl := range calls {
		cur, results = cl, nil
		r.mustDispatch("rg", 1, 1, nil)
		k := 0
		for _, ct := range contribs {
			for g := uint32(0); g < 3; g++ {
				want := cl.rayContrib&0xf + (cl.mult&0xf)*g + ct
				if results[k] != want {
					t.Errorf("contrib %#x mult %#x geometry %d instance contribution %d: record %d, want %d", cl.rayContrib, cl.mult, g, ct, results[k], want)
				}
				k++
			}
		}
	}
}

// "Miss shader table indexing": only the low 16 bits of MissShaderIndex.
func TestMissShaderIndexUsesLow16Bits(t *testing.T) {
	tlas := mustTLAS(t)
	var got recPayload
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0x20002, rayAt(0, 0), &got)
		}),
		Miss("miss", func(c *Context, p *recPayload) {
			p.Record = c.LoadLocalRootTableConstant(0)
			p.T = c.RayTCurrent()
		}),
	}, nil)
	r.miss = r.table("miss", "miss", "miss")
	r.mustDispatch("rg", 1, 1, nil)
	if got.Record != 2 || got.T != 1000 {
		t.Fatalf("miss record %d, RayTCurrent %g; want 2 and TMax 1000", got.Record, got.T)
	}
}

// Any hit rules: IgnoreHit continues the search, AcceptHitAndEndSearch
// stops it and the closest hit shader still runs, a plain return accepts;
// payload writes persist; any hit runs before closest hit. An AnyHitFilter
// shader returning HitIgnore, HitAcceptAndEndSearch or HitAccept follows
// the same rules.
func TestAnyHitIgnoreAcceptAndEndSearch(t *testing.T) {
	// Three stacked non-opaque quads at z = 1, 2, 3.
	var geoms []accel.Geometry
	for z := 1; z <= 3; z++ {
		g := accel.TriangleGeometry(quad(1, float32(z)), nil)
		g.Flags = 0
		geoms = append(geoms, g)
	}
	tlas := mustTLAS(t, place(mustBLAS(t, 0, geoms...), vec.Identity3x4, 0))
	var mode int // 0: ignore z<3, 1: accept-and-end at first, 2: accept all
	var got recPayload
	anyHits := map[string]Shader{
		"intrinsics": AnyHit("ahs", func(c *Context, p *recPayload, _ *attrs) {
			p.AnyHits++
			p.note(uint8(c.GeometryIndex()))
			switch mode {
			case 0:
				if c.GeometryIndex() < 2 {
					IgnoreHit(c)
				}
			case 1:
				AcceptHitAndEndSearch(c)
			}
			p.note(100) // not reached after IgnoreHit/AcceptHitAndEndSearch
		}),
		"AnyHitFilter": AnyHitFilter("ahs", func(c *Context, p *recPayload, _ *attrs) HitDecision {
			p.AnyHits++
			p.note(uint8(c.GeometryIndex()))
			switch mode {
			case 0:
				if c.GeometryIndex() < 2 {
					return HitIgnore
				}
			case 1:
				return HitAcceptAndEndSearch
			}
			p.note(100)
			return HitAccept
		}),
	}
	for form, ahs := range anyHits {
		r := newRig(t, 1, []Shader{
			RayGeneration("rg", func(c *Context) {
				got = recPayload{}
				TraceRay(c, tlas, 0, 0xff, 0, 0, 0, accel.Ray{Origin: vec.V3(0.5, 0.25, 0), Direction: down, TMax: 100}, &got)
			}),
			ahs,
			ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) {
				p.Closest++
				p.T = c.RayTCurrent()
				p.note(200)
			}),
			Miss("miss", func(c *Context, p *recPayload) { p.Misses++ }),
		}, []HitGroup{{Name: "hg", AnyHit: "ahs", ClosestHit: "chs"}})
		r.hit, r.miss = r.table("hg"), r.table("miss")

		mode = 0
		r.mustDispatch("rg", 1, 1, nil)
		if got.Closest != 1 || got.T != 3 || got.Misses != 0 || got.AnyHits != 3 {
			t.Fatalf("%s, IgnoreHit: %d any hits, closest %d at t=%g, misses %d; want three any hits and the z=3 hit", form, got.AnyHits, got.Closest, got.T, got.Misses)
		}
		mode = 1
		r.mustDispatch("rg", 1, 1, nil)
		if got.AnyHits != 1 || got.Closest != 1 || got.Trail[1] != 200 {
			t.Fatalf("%s, AcceptHitAndEndSearch: %d any hits, closest %d, trail %v; want one any hit then closest hit", form, got.AnyHits, got.Closest, got.Trail[:got.TrailLen])
		}
		mode = 2
		r.mustDispatch("rg", 1, 1, nil)
		if got.Closest != 1 || got.T != 1 || got.Trail[got.TrailLen-1] != 200 {
			t.Fatalf("%s, accept: closest at t=%g trail %v; want t=1 and closest hit last", form, got.T, got.Trail[:got.TrailLen])
		}
	}
}

// "ReportHit()" runs the any hit shader of a non-opaque procedural hit and
// returns false when it ignored the hit; AcceptHitAndEndSearch there ends
// the intersection shader too. With AnyHitFilter's decisions the same.
// A decision that is none of the three stops the dispatch with
// ErrInvalidArgument naming the any hit shader.
func TestAnyHitFilterDecidesReportHit(t *testing.T) {
	box := accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 4), Max: vec.V3(1, 1, 6)}})
	box.Flags = 0 // non-opaque: any hit runs
	tlas := mustTLAS(t, place(mustBLAS(t, 0, box), vec.Identity3x4, 0))
	var decide HitDecision
	var reported []bool
	var after int
	var got recPayload
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			got = recPayload{}
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0, 0), &got)
		}),
		Intersection[attrs]("is", func(c *Context) {
			reported = append(reported, ReportHit(c, 5.5, 1, &attrs{}))
			reported = append(reported, ReportHit(c, 4.5, 2, &attrs{}))
			after++
		}),
		AnyHitFilter("ahs", func(c *Context, p *recPayload, _ *attrs) HitDecision {
			p.AnyHits++
			return decide
		}),
		ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) {
			p.Closest++
			p.T = c.RayTCurrent()
		}),
		Miss("miss", func(c *Context, p *recPayload) { p.Misses++ }),
	}, []HitGroup{{Name: "hg", Type: HitGroupProceduralPrimitive, Intersection: "is", AnyHit: "ahs", ClosestHit: "chs"}})
	r.hit, r.miss = r.table("hg"), r.table("miss")
	for _, tc := range []struct {
		decide   HitDecision
		reported []bool
		after    int
		closestT float32 // 0: a miss
	}{
		{HitAccept, []bool{true, true}, 1, 4.5},
		{HitIgnore, []bool{false, false}, 1, 0},
		{HitAcceptAndEndSearch, nil, 0, 5.5}, // ReportHit does not return: the search is over
	} {
		decide, reported, after = tc.decide, nil, 0
		r.mustDispatch("rg", 1, 1, nil)
		if !slices.Equal(reported, tc.reported) || after != tc.after {
			t.Errorf("decision %d: ReportHit returned %v and the shader ran on %d times; want %v and %d", tc.decide, reported, after, tc.reported, tc.after)
		}
		if tc.closestT == 0 && (got.Misses != 1 || got.Closest != 0) || tc.closestT != 0 && (got.Closest != 1 || got.T != tc.closestT) {
			t.Errorf("decision %d: %+v; want the closest hit at t=%g (0: a miss)", tc.decide, got, tc.closestT)
		}
	}
	decide = HitAcceptAndEndSearch + 1
	_, err := r.dispatch("rg", 1, 1, nil)
	var de *DispatchError
	if !errors.Is(err, ErrInvalidArgument) || !errors.As(err, &de) || de.Shader != "ahs" || de.Kind != KindAnyHit {
		t.Errorf("an any hit shader returning HitDecision(3): %v; want ErrInvalidArgument naming the any hit shader", err)
	}
}

// IgnoreHit and AcceptHitAndEndSearch end the any hit shader they are
// called in ("IgnoreHit()": any hit shaders only). Called with an any hit
// shader's Context kept past its invocation, from the closest hit shader,
// they fail the dispatch there with ErrIntrinsicStage (the stage checked
// is the running invocation's, not the Context's).
func TestAnyHitEndingIntrinsicsOutsideTheirShaderFail(t *testing.T) {
	g := accel.TriangleGeometry(quad(1, 2), nil)
	g.Flags = 0 // non-opaque
	tlas := mustTLAS(t, place(mustBLAS(t, 0, g), vec.Identity3x4, 0))
	for name, end := range map[string]func(*Context){"IgnoreHit": IgnoreHit, "AcceptHitAndEndSearch": AcceptHitAndEndSearch} {
		var kept *Context
		closest := 0
		r := newRig(t, 1, []Shader{
			RayGeneration("rg", func(c *Context) {
				var p recPayload
				TraceRay(c, tlas, 0, 0xff, 0, 0, 0, accel.Ray{Origin: vec.V3(0.5, 0.25, 0), Direction: down, TMax: 100}, &p)
			}),
			AnyHit("ahs", func(c *Context, p *recPayload, _ *attrs) { kept = c }),
			ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) {
				closest++
				end(kept)
				closest++ // not reached
			}),
		}, []HitGroup{{Name: "hg", AnyHit: "ahs", ClosestHit: "chs"}})
		r.hit = r.table("hg")
		_, err := r.dispatch("rg", 1, 1, nil)
		var de *DispatchError
		if !errors.Is(err, ErrIntrinsicStage) || !errors.As(err, &de) || de.Kind != KindClosestHit || !strings.Contains(err.Error(), name+" in a closest hit shader") {
			t.Errorf("%s from a closest hit shader: %v; want ErrIntrinsicStage naming the closest hit shader", name, err)
		}
		if closest != 1 {
			t.Errorf("%s from a closest hit shader: it ran %d statements on, want it to end there", name, closest-1)
		}
	}
}

// Ray flags decide which shaders run ("Ray flags").
func TestRayFlagsSelectShaders(t *testing.T) {
	g := accel.TriangleGeometry(quad(1, 2), nil)
	g.Flags = 0 // non-opaque
	tlas := mustTLAS(t, place(mustBLAS(t, 0, g), vec.Identity3x4, 0))
	var flags accel.RayFlags
	var got recPayload
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			got = recPayload{}
			TraceRay(c, tlas, flags, 0xff, 0, 1, 0, accel.Ray{Origin: vec.V3(0.5, 0.25, 0), Direction: down, TMax: 100}, &got)
		}),
		AnyHit("ahs", func(c *Context, p *recPayload, _ *attrs) { p.AnyHits++ }),
		ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) { p.Closest++; p.HitKind = c.HitKind() }),
		Miss("miss", func(c *Context, p *recPayload) { p.Misses++ }),
	}, []HitGroup{{Name: "hg", AnyHit: "ahs", ClosestHit: "chs"}})
	r.hit, r.miss = r.table("hg"), r.table("miss")
	cases := []struct {
		flags                 accel.RayFlags
		anyHit, closest, miss int
	}{
		{0, 1, 1, 0},
		{accel.RayFlagForceOpaque, 0, 1, 0},
		{accel.RayFlagSkipClosestHitShader, 1, 0, 0},
		{accel.RayFlagCullNonOpaque, 0, 0, 1},
		{accel.RayFlagCullOpaque, 1, 1, 0},
		{accel.RayFlagForceOpaque | accel.RayFlagSkipClosestHitShader, 0, 0, 0},
		{accel.RayFlagSkipTriangles, 0, 0, 1},
		{accel.RayFlagAcceptFirstHitAndEndSearch, 1, 1, 0},
	}
	for _, cs := range cases {
		flags = cs.flags
		r.mustDispatch("rg", 1, 1, nil)
		if got.AnyHits != cs.anyHit || got.Closest != cs.closest || got.Misses != cs.miss {
			t.Errorf("flags %#x: any hit %d closest %d miss %d; want %d %d %d", cs.flags, got.AnyHits, got.Closest, got.Misses, cs.anyHit, cs.closest, cs.miss)
		}
	}
	// The quad's vertices wind counter-clockwise seen from -z (left-handed
	// clockwise rule): check the facing culls against HitKind.
	flags = accel.RayFlagForceOpaque
	r.mustDispatch("rg", 1, 1, nil)
	front := got.HitKind == accel.HitKindTriangleFrontFace
	for _, cull := range []accel.RayFlags{accel.RayFlagCullBackFacingTriangles, accel.RayFlagCullFrontFacingTriangles} {
		flags = accel.RayFlagForceOpaque | cull
		r.mustDispatch("rg", 1, 1, nil)
		culled := got.Misses == 1
		if wantCulled := (cull == accel.RayFlagCullFrontFacingTriangles) == front; culled != wantCulled {
			t.Errorf("cull %#x on a front=%v triangle: culled %v", cull, front, culled)
		}
	}
}

type sphereAttr struct{ Normal vec.Vec3 }

// Procedural primitives: an intersection shader reports the analytic hit
// of a sphere inside its AABB; a ray starting inside the box hits it;
// ReportHit accepts t in [TMin, RayTCurrent] even outside the box, and
// returns false outside the interval.
func TestProceduralHitsInFrontBehindAndInside(t *testing.T) {
	box := accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 4), Max: vec.V3(1, 1, 6)}})
	tlas := mustTLAS(t, place(mustBLAS(t, 0, box), vec.Identity3x4, 0))
	var ray accel.Ray
	var reportT float32
	var reported []bool
	var got recPayload
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			got = recPayload{}
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, &got)
		}),
		Intersection[sphereAttr]("sphere", func(c *Context) {
			// Unit sphere at (0,0,5) in object space.
			o, d := c.ObjectRayOrigin().Sub(vec.V3(0, 0, 5)), c.ObjectRayDirection()
			a, b, cc := d.Dot(d), o.Dot(d), o.Dot(o)-1
			disc := b*b - a*cc
			if reportT != 0 {
				reported = append(reported, ReportHit(c, reportT, 3, &sphereAttr{}))
				return
			}
			if disc < 0 {
				return
			}
			for _, t := range []float32{(-b - sqrt32(disc)) / a, (-b + sqrt32(disc)) / a} {
				if t >= c.RayTMin() && t <= c.RayTCurrent() {
					n := o.Add(d.Scale(t))
					reported = append(reported, ReportHit(c, t, 7, &sphereAttr{Normal: n}))
					return
				}
			}
		}),
		ClosestHit("chs", func(c *Context, p *recPayload, a *sphereAttr) {
			p.Closest++
			p.T = c.RayTCurrent()
			p.HitKind = c.HitKind()
		}),
		Miss("miss", func(c *Context, p *recPayload) { p.Misses++ }),
	}, []HitGroup{{Name: "hg", Type: HitGroupProceduralPrimitive, Intersection: "sphere", ClosestHit: "chs"}})
	r.hit, r.miss = r.table("hg"), r.table("miss")

	ray = accel.Ray{Origin: vec.V3(0, 0, 0), Direction: down, TMax: 100}
	r.mustDispatch("rg", 1, 1, nil)
	if got.Closest != 1 || got.T != 4 || got.HitKind != 7 {
		t.Fatalf("from outside: %+v; want the front of the sphere at t=4, hit kind 7", got)
	}
	ray = accel.Ray{Origin: vec.V3(0, 0, 5), Direction: down, TMax: 100}
	r.mustDispatch("rg", 1, 1, nil)
	if got.Closest != 1 || got.T != 1 {
		t.Fatalf("from inside the box: %+v; want the back of the sphere at t=1", got)
	}
	ray = accel.Ray{Origin: vec.V3(0, 0, 0), Direction: down, TMax: 100}
	reportT, reported = 50, nil // far outside the box, inside the interval
	r.mustDispatch("rg", 1, 1, nil)
	if got.Closest != 1 || got.T != 50 || len(reported) != 1 || !reported[0] {
		t.Fatalf("t outside the box: %+v reported %v; want accepted", got, reported)
	}
	reportT, reported = 200, nil // beyond TMax
	r.mustDispatch("rg", 1, 1, nil)
	if got.Misses != 1 || len(reported) != 1 || reported[0] {
		t.Fatalf("t beyond TMax: %+v reported %v; want ReportHit false and a miss", got, reported)
	}
}

// "MaxTraceRecursionDepth": a closest hit shader that traces again
// recurses until the limit, and one more level is an error naming the
// launch index and the shader.
func TestRecursionLimitIsEnforced(t *testing.T) {
	tlas := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 2), nil)), vec.Identity3x4, 0))
	var limit int
	var deepest int
	r := newRig(t, 3, []Shader{
		RayGeneration("rg", func(c *Context) {
			p := recPayload{}
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0.5, 0.5), &p)
		}),
		ClosestHit("again", func(c *Context, p *recPayload, _ *attrs) {
			p.Closest++
			deepest = max(deepest, p.Closest)
			if p.Closest < limit {
				TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0.5, 0.5), p)
			}
		}),
	}, []HitGroup{{Name: "hg", ClosestHit: "again"}})
	r.hit = r.table("hg")
	limit = 3
	r.mustDispatch("rg", 2, 1, nil)
	if deepest != 3 {
		t.Fatalf("deepest %d, want 3", deepest)
	}
	limit = 4
	_, err := r.dispatch("rg", 2, 1, nil)
	var de *DispatchError
	if !errors.As(err, &de) || !errors.Is(err, ErrRecursionLimit) || de.Shader != "again" || de.Kind != KindClosestHit {
		t.Fatalf("err = %v; want a recursion error in closest hit shader \"again\"", err)
	}
	if !strings.Contains(err.Error(), "launch (") {
		t.Fatalf("error does not name the launch index: %v", err)
	}
}

// CallShader runs the callable record with the parameter; a NULL record
// runs nothing; a wrong parameter type is an error.
func TestCallShaderAndNullIdentifiers(t *testing.T) {
	type param struct{ X, Calls int }
	var out param
	var index uint32
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			out = param{X: 1}
			CallShader(c, index, &out)
		}),
		RayGeneration("rg-bad", func(c *Context) {
			var wrong float32
			CallShader(c, 0, &wrong)
		}),
		Callable("double", func(c *Context, p *param) {
			p.X *= 2
			p.Calls++
			if p.X < 8 {
				CallShader(c, 0, p) // nested
			}
		}),
	}, nil)
	r.callable = r.table("double", "")
	r.p.SetStackSize(1 << 20) // three nested callables exceed the default's two
	index = 0
	r.mustDispatch("rg", 1, 1, nil)
	if out.X != 8 || out.Calls != 3 {
		t.Fatalf("callable: %+v; want X=8 after 3 nested calls", out)
	}
	index = 1
	r.mustDispatch("rg", 1, 1, nil)
	if out.X != 1 || out.Calls != 0 {
		t.Fatalf("NULL callable ran: %+v", out)
	}
	if _, err := r.dispatch("rg-bad", 1, 1, nil); !errors.Is(err, ErrTypeMismatch) {
		t.Fatalf("wrong parameter type: %v", err)
	}
}

// "a shader identifier of all zeros (NULL) ... no shader is executed":
// NULL hit group and miss records run nothing.
func TestNullIdentifierRunsNothing(t *testing.T) {
	tlas := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 2), nil)), vec.Identity3x4, 0))
	var got recPayload
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			got = recPayload{}
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0.5, 0.5), &got)
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(5, 5), &got)
		}),
		ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) { p.Closest++ }),
		Miss("miss", func(c *Context, p *recPayload) { p.Misses++ }),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs"}})
	r.hit, r.miss = r.table(""), r.table("")
	r.mustDispatch("rg", 1, 1, nil)
	if got.Closest != 0 || got.Misses != 0 {
		t.Fatalf("NULL records ran shaders: %+v", got)
	}
	st, err := r.p.DispatchRays(context.Background(), DispatchRaysDesc{RayGeneration: r.table(""), Width: 8, Height: 8}, nil)
	if err != nil || st.Invocations[KindRayGeneration] != 0 {
		t.Fatalf("NULL ray generation record: %v, %d invocations", err, st.Invocations[KindRayGeneration])
	}
}

// Errors inside a dispatch stop it and name the launch index and shader.
func TestDispatchErrorsNameLaunchAndShader(t *testing.T) {
	tlas := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 2), nil)), vec.Identity3x4, 3))
	type other struct{ A int }
	r := newRig(t, 1, []Shader{
		RayGeneration("panics", func(c *Context) {
			if c.DispatchRaysIndex() == [3]uint32{3, 2, 0} {
				panic("boom")
			}
		}),
		RayGeneration("wrong-payload", func(c *Context) {
			var p other
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0.5, 0.5), &p)
		}),
		RayGeneration("out-of-range", func(c *Context) {
			var p recPayload
			TraceRay(c, tlas, 0, 0xff, 5, 1, 0, rayAt(0.5, 0.5), &p)
		}),
		RayGeneration("sysvalue", func(c *Context) { _ = c.WorldRayOrigin() }),
		RayGeneration("procedural-on-triangles", func(c *Context) {
			var p recPayload
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0.5, 0.5), &p)
		}),
		ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) {}),
		Intersection[sphereAttr]("is", func(c *Context) {}),
		ClosestHit("chs-proc", func(c *Context, p *recPayload, _ *sphereAttr) {}),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs"}, {Name: "proc", Type: HitGroupProceduralPrimitive, Intersection: "is", ClosestHit: "chs-proc"}})
	r.hit = r.table("hg", "hg", "hg", "hg")
	cases := []struct {
		raygen string
		is     error
		shader string
	}{
		{"panics", ErrShaderPanic, "panics"},
		{"wrong-payload", ErrTypeMismatch, "wrong-payload"},
		{"out-of-range", ErrRecordOutOfRange, "out-of-range"},
		{"sysvalue", ErrSystemValue, "sysvalue"},
	}
	for _, cs := range cases {
		_, err := r.dispatch(cs.raygen, 4, 4, nil)
		var de *DispatchError
		if !errors.As(err, &de) || !errors.Is(err, cs.is) || de.Shader != cs.shader {
			t.Errorf("%s: err = %v; want %v in shader %q", cs.raygen, err, cs.is, cs.shader)
		}
		if cs.raygen == "panics" && (de == nil || de.LaunchIndex != [3]uint32{3, 2, 0}) {
			t.Errorf("panic attributed to %v", de)
		}
	}
	r.hit = r.table("proc", "proc", "proc", "proc")
	if _, err := r.dispatch("procedural-on-triangles", 1, 1, nil); !errors.Is(err, ErrHitGroupType) {
		t.Errorf("procedural hit group on triangles: %v", err)
	}
}

// DispatchRays takes a context.Context; cancelling it stops work promptly.
func TestCancellationStopsDispatch(t *testing.T) {
	r := newRig(t, 1, []Shader{RayGeneration("slow", func(c *Context) { time.Sleep(time.Millisecond) })}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.p.DispatchRays(ctx, DispatchRaysDesc{RayGeneration: r.table("slow"), Width: 1000, Height: 1000}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
}

func TestNewPipelineRejectsBadDescriptions(t *testing.T) {
	chs := ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) {})
	is := Intersection[sphereAttr]("is", func(c *Context) {})
	miss := Miss("miss", func(c *Context, p *recPayload) {})
	type big struct{ A [40]byte }
	cases := []struct {
		name string
		d    PipelineDesc
		want string
	}{
		{"duplicate", PipelineDesc{Shaders: []Shader{chs, chs}}, "duplicate export"},
		{"missing", PipelineDesc{HitGroups: []HitGroup{{Name: "hg", ClosestHit: "nope"}}}, "missing export"},
		{"wrong kind", PipelineDesc{Shaders: []Shader{miss}, HitGroups: []HitGroup{{Name: "hg", ClosestHit: "miss"}}}, "not closest hit"},
		{"intersection in triangle group", PipelineDesc{Shaders: []Shader{is}, HitGroups: []HitGroup{{Name: "hg", Intersection: "is"}}}, "procedural"},
		{"procedural without intersection", PipelineDesc{Shaders: []Shader{chs}, HitGroups: []HitGroup{{Name: "hg", Type: HitGroupProceduralPrimitive, ClosestHit: "chs"}}}, "needs an intersection"},
		{"attribute mismatch", PipelineDesc{Shaders: []Shader{chs, is}, HitGroups: []HitGroup{{Name: "hg", Type: HitGroupProceduralPrimitive, Intersection: "is", ClosestHit: "chs"}}}, "attributes"},
		{"recursion", PipelineDesc{PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 32}}, "MaxTraceRecursionDepth"},
		{"attribute size", PipelineDesc{ShaderConfig: ShaderConfig{MaxAttributeSizeInBytes: 36}}, "MaxAttributeSizeInBytes"},
		{"big attributes", PipelineDesc{Shaders: []Shader{Intersection[big]("is2", func(c *Context) {})}}, "over MaxAttributeSizeInBytes"},
		{"payload size", PipelineDesc{ShaderConfig: ShaderConfig{MaxPayloadSizeInBytes: 4}, Shaders: []Shader{miss}}, "MaxPayloadSizeInBytes"},
	}
	for _, cs := range cases {
		_, err := NewPipeline(cs.d)
		if err == nil || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("%s: err = %v, want it to mention %q", cs.name, err, cs.want)
		}
	}
}

// "Default pipeline stack size": RGSMax + depth*max(ISMax+AHSMax,
// max(CHSMax, MSMax)) + 2*CSMax, from real per-shader sizes; a dispatch
// that needs more than SetStackSize allows stops with a stack overflow.
func TestPipelineStackSize(t *testing.T) {
	type p16 struct{ A [16]byte }
	rg := RayGeneration("rg", func(c *Context) {})
	rg.LocalStackBytes = 100
	chs := ClosestHit("chs", func(c *Context, p *p16, _ *attrs) {})
	ahs := AnyHit("ahs", func(c *Context, p *p16, _ *attrs) {})
	miss := Miss("miss", func(c *Context, p *p16) {})
	miss.LocalStackBytes = 50
	call := Callable("call", func(c *Context, p *p16) {})
	p, err := NewPipeline(PipelineDesc{Shaders: []Shader{rg, chs, ahs, miss, call},
		HitGroups: []HitGroup{{Name: "hg", AnyHit: "ahs", ClosestHit: "chs"}}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 2}})
	if err != nil {
		t.Fatal(err)
	}
	// chs = 16+8, ahs = 16+8, miss = 16+50, callable = 16.
	want := uint64(100 + 2*66 + 2*16)
	if got := p.DefaultStackSize(); got != want || p.StackSize() != want {
		t.Fatalf("default stack size %d, want %d", got, want)
	}
	if s, _ := p.ShaderStackSize("hg", KindAnyHit); s != 24 {
		t.Fatalf("any hit stack size %d, want 24", s)
	}
	tlas := mustTLAS(t)
	r := &rig{t: t}
	r.p, err = NewPipeline(PipelineDesc{Shaders: []Shader{
		RayGeneration("rg", func(c *Context) {
			var pl p16
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0, 0), &pl)
		}), miss}, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r.miss = r.table("miss")
	r.mustDispatch("rg", 1, 1, nil)
	r.p.SetStackSize(10)
	if _, err := r.dispatch("rg", 1, 1, nil); !errors.Is(err, ErrStackOverflow) {
		t.Fatalf("err = %v, want a stack overflow", err)
	}
}

func sqrt32(x float32) float32 {
	z := x
	if z <= 0 {
		return 0
	}
	for i := 0; i < 30; i++ {
		z = 0.5 * (z + x/z)
	}
	return z
}

var _ = context.Background

// "Collections": a collection of shaders and hit groups can be linked into
// several pipelines, and a pipeline's own hit group may use a collection's
// shaders.
func TestCollectionsAreReusableAcrossPipelines(t *testing.T) {
	lib := &Collection{
		Shaders:   []Shader{ClosestHit("lib-chs", func(c *Context, p *recPayload, _ *attrs) { p.Record = 42 })},
		HitGroups: []HitGroup{{Name: "lib-hg", ClosestHit: "lib-chs"}},
	}
	tlas := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 2), nil)), vec.Identity3x4, 0))
	for _, group := range []string{"lib-hg", "own-hg"} {
		var got recPayload
		p, err := NewPipeline(PipelineDesc{
			Collections: []*Collection{lib},
			Shaders: []Shader{RayGeneration("rg", func(c *Context) {
				TraceRay(c, tlas, 0, 0xff, 0, 0, 0, rayAt(0.5, 0.5), &got)
			})},
			HitGroups:      []HitGroup{{Name: "own-hg", ClosestHit: "lib-chs"}},
			PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: 1},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := &rig{t: t, p: p}
		r.hit = r.table(group)
		r.mustDispatch("rg", 1, 1, nil)
		if got.Record != 42 {
			t.Fatalf("hit group %s: record %d, want the collection's shader to run", group, got.Record)
		}
	}
	if _, err := NewPipeline(PipelineDesc{Collections: []*Collection{lib, lib}}); err == nil {
		t.Fatal("the same collection twice: duplicate exports accepted")
	}
}

// DispatchRays rejects bad descriptions before running anything, with an
// error that says which table and what is wrong.
func TestDispatchRaysRejectsBadDescriptions(t *testing.T) {
	type pl struct{ N int }
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {}),
		Miss("miss", func(c *Context, p *pl) {}),
	}, nil)
	other := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) {})}, nil)
	rg := r.table("rg")
	cases := []struct {
		name string
		d    DispatchRaysDesc
		want string
	}{
		{"range beyond buffer", DispatchRaysDesc{RayGeneration: rg, Miss: ShaderTable{Data: make([]byte, 64), Start: 32, Size: 64, Stride: 32}, Width: 1, Height: 1}, "miss table: range"},
		{"stride alignment", DispatchRaysDesc{RayGeneration: rg, HitGroup: ShaderTable{Data: make([]byte, 96), Size: 96, Stride: 40}, Width: 1, Height: 1}, "not a multiple of 16"},
		{"table smaller than an identifier", DispatchRaysDesc{RayGeneration: rg, Callable: ShaderTable{Data: make([]byte, 16), Size: 16}, Width: 1, Height: 1}, "smaller than one shader identifier"},
		{"no ray generation record", DispatchRaysDesc{Width: 1, Height: 1}, "no ray generation record"},
		{"miss shader as ray generation", DispatchRaysDesc{RayGeneration: r.table("miss"), Width: 1, Height: 1}, "does not name a ray generation shader"},
		{"identifier of another pipeline", DispatchRaysDesc{RayGeneration: other.table("rg"), Width: 1, Height: 1}, "does not belong to this pipeline"},
		{"too many invocations", DispatchRaysDesc{RayGeneration: rg, Width: 1 << 16, Height: 1 << 16}, "exceed"},
	}
	for _, cs := range cases {
		_, err := r.p.DispatchRays(context.Background(), cs.d, nil)
		if err == nil || !strings.Contains(err.Error(), cs.want) || !errors.Is(err, ErrDispatchInvalid) {
			t.Errorf("%s: err = %v, want ErrDispatchInvalid mentioning %q", cs.name, err, cs.want)
		}
	}
}

// The reverse of a procedural hit group on triangles: a triangle hit group
// selected for a procedural primitive is an error too.
func TestTriangleHitGroupOnProceduralIsAnError(t *testing.T) {
	box := mustBLAS(t, 0, accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 4), Max: vec.V3(1, 1, 6)}}))
	tlas := mustTLAS(t, place(box, vec.Identity3x4, 0))
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			var p recPayload
			TraceRay(c, tlas, 0, 0xff, 0, 0, 0, rayAt(0, 0), &p)
		}),
		ClosestHit("chs", func(c *Context, p *recPayload, _ *attrs) {}),
	}, []HitGroup{{Name: "tri", ClosestHit: "chs"}})
	r.hit = r.table("tri")
	if _, err := r.dispatch("rg", 1, 1, nil); !errors.Is(err, ErrHitGroupType) {
		t.Fatalf("err = %v, want ErrHitGroupType", err)
	}
}

// "DispatchRays() invokes a grid of ray generation shader invocations":
// every launch index of the grid runs once, whatever its shape (one row,
// fewer rows than a tile, depth above one), its worker count and its
// reordering.
func TestDispatchRaysRunsEveryLaunchIndexOnce(t *testing.T) {
	var dims [3]uint32
	var runs []atomic.Int32
	p, err := NewPipeline(PipelineDesc{Shaders: []Shader{RayGeneration("rg", func(c *Context) {
		l := c.DispatchRaysIndex()
		if c.DispatchRaysDimensions() != dims {
			t.Errorf("launch %v: dimensions %v, want %v", l, c.DispatchRaysDimensions(), dims)
		}
		runs[(l[2]*dims[1]+l[1])*dims[0]+l[0]].Add(1)
		ReorderThreadHint(c, l[0]*2654435761, 32)
	})}})
	if err != nil {
		t.Fatal(err)
	}
	var b ShaderTableBuilder
	b.Add(p.MustShaderIdentifier("rg"), nil)
	rg := b.Build()
	for _, d := range [][3]uint32{{1, 1, 1}, {1000, 1, 1}, {1, 1000, 1}, {130, 3, 1}, {65, 7, 2}, {17, 9, 3}, {64, 8, 1}, {200, 1, 4}} {
		for _, opt := range []DispatchOptions{{Workers: 1}, {Workers: 3}, {Workers: 2, Reorder: ReorderOn, Window: 16}} {
			dims = d
			runs = make([]atomic.Int32, d[0]*d[1]*d[2])
			st, err := p.DispatchRays(context.Background(), DispatchRaysDesc{RayGeneration: rg, Width: d[0], Height: d[1], Depth: d[2]}, &opt)
			if err != nil {
				t.Fatal(err)
			}
			for i := range runs {
				if n := runs[i].Load(); n != 1 {
					t.Fatalf("grid %v, %+v: launch %d ran %d times", d, opt, i, n)
				}
			}
			if got := st.Invocations[KindRayGeneration]; got != uint64(len(runs)) {
				t.Errorf("grid %v, %+v: %d ray generation invocations counted, want %d", d, opt, got, len(runs))
			}
		}
	}
}
