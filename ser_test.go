package raypipe

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// serScene has eight unit quads side by side in x (geometry g at x = 2g),
// each its own geometry so that each selects its own hit group record;
// geometry 3 is non-opaque and geometry 5 is a procedural box.
func serScene(t *testing.T) *accel.TLAS {
	var geoms []accel.Geometry
	for g := 0; g < 8; g++ {
		pos := quad(0.9, 5)
		for i := range pos {
			pos[i].X += float32(2 * g)
		}
		geo := accel.TriangleGeometry(pos, nil)
		if g == 3 {
			geo.Flags = 0
		}
		geoms = append(geoms, geo)
	}
	tri := mustBLAS(t, accel.BuildAllowDataAccess, geoms...)
	box := mustBLAS(t, 0, accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-0.9, -0.9, 4), Max: vec.V3(0.9, 0.9, 6)}}))
	return mustTLAS(t, place(tri, vec.Identity3x4, 0), place(box, vec.Translate3x4(vec.V3(0, 10, 0)), 8))
}

type shade struct {
	Color  [3]float32
	Record uint32
	Depth  int
}

// serShaders: a closest hit per record that writes a color derived from
// the record, barycentrics and the system values; an any hit that ignores
// half of the non-opaque quad; a sphere intersection shader; a miss.
func serShaders(trace func(c *Context, x, y uint32, out *shade)) ([]Shader, []HitGroup) {
	chs := func(c *Context, p *shade, a *attrs) {
		rec := c.LoadLocalRootTableConstant(0)
		o := c.WorldRayOrigin().Add(c.WorldRayDirection().Scale(c.RayTCurrent()))
		p.Color = [3]float32{float32(rec) + a.Barycentrics[0], a.Barycentrics[1] + float32(c.PrimitiveIndex()), o.X*0.1 + float32(c.HitKind())}
		p.Record = rec
	}
	return []Shader{
			RayGeneration("rg", func(c *Context) {
				l := c.DispatchRaysIndex()
				var out shade
				trace(c, l[0], l[1], &out)
				results.store(l, out)
			}),
			ClosestHit("chs", chs),
			AnyHit("ahs", func(c *Context, p *shade, a *attrs) {
				if a.Barycentrics[0] > 0.5 {
					IgnoreHit(c)
				}
			}),
			Intersection[attrs]("is", func(c *Context) {
				o := c.ObjectRayOrigin()
				if o.X*o.X+o.Y*o.Y < 0.5 {
					ReportHit(c, 5-c.ObjectRayOrigin().Z, 3, &attrs{Barycentrics: [2]float32{o.X, o.Y}})
				}
			}),
			ClosestHit("chs-proc", func(c *Context, p *shade, a *attrs) {
				p.Color = [3]float32{100, a.Barycentrics[0], float32(c.HitKind())}
				p.Record = c.LoadLocalRootTableConstant(0)
			}),
			Miss("miss", func(c *Context, p *shade) { p.Color = [3]float32{-1, c.RayTCurrent(), 0}; p.Record = 1000 }),
		}, []HitGroup{
			{Name: "hg", ClosestHit: "chs", AnyHit: "ahs"},
			{Name: "proc", Type: HitGroupProceduralPrimitive, Intersection: "is", ClosestHit: "chs-proc"},
		}
}

// results collects per-launch outputs; guarded because workers write
// concurrently.
var results launchResults

type launchResults struct {
	mu sync.Mutex
	m  map[[3]uint32]shade
}

func (r *launchResults) reset() { r.mu.Lock(); r.m = map[[3]uint32]shade{}; r.mu.Unlock() }
func (r *launchResults) store(l [3]uint32, s shade) {
	r.mu.Lock()
	r.m[l] = s
	r.mu.Unlock()
}
func (r *launchResults) snapshot() map[[3]uint32]shade {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m
}

// serRay aims launch (x, y) at one of the quads, the box or empty space.
func serRay(x, y uint32) accel.Ray {
	g := float32((x*7 + y*3) % 10)
	yy := float32(0)
	if g == 9 {
		g, yy = 0, 10 // the procedural box
	}
	jitter := float32((x*13+y*5)%17)/17*1.6 - 0.8
	return accel.Ray{Origin: vec.V3(2*g+jitter, yy+jitter*0.7, 0), Direction: down, TMax: 100}
}

func serRig(t *testing.T, tlas *accel.TLAS, trace func(c *Context, x, y uint32, out *shade)) *rig {
	shaders, groups := serShaders(trace)
	r := newRig(t, 2, shaders, groups)
	names := make([]string, 9)
	for i := range names[:8] {
		names[i] = "hg"
	}
	names[8] = "proc"
	r.hit, r.miss = r.table(names...), r.table("miss")
	return r
}

// hlsl-0027 "Detailed Design": HitObject::TraceRay + ReorderThread +
// HitObject::Invoke is functionally equivalent to TraceRay. The results
// are identical bit for bit, with reordering on or off, for 1 or 2
// workers and several window sizes.
func TestHitObjectTraceReorderInvokeEqualsTraceRay(t *testing.T) {
	tlas := serScene(t)
	plain := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		TraceRay(c, tlas, 0, 0xff, 0, 1, 0, serRay(x, y), out)
	})
	results.reset()
	plain.mustDispatch("rg", 40, 30, &DispatchOptions{Workers: 1})
	want := results.snapshot()
	if len(want) != 1200 {
		t.Fatalf("%d results", len(want))
	}
	kinds := map[uint32]bool{}
	for _, s := range want {
		kinds[s.Record] = true
	}
	if len(kinds) < 9 {
		t.Fatalf("scene too weak: only records %v", kinds)
	}
	ser := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		h := HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, serRay(x, y), out)
		ReorderThread(c, h)
		Invoke(c, h, out)
	})
	fused := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		TraceReorderExecuteHint(c, tlas, 0, 0xff, 0, 1, 0, serRay(x, y), x, 4, out)
	})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for i, r := range []*rig{ser, fused} {
		runtime.GOMAXPROCS(1 + i) // Workers 0 follows GOMAXPROCS
		for _, opt := range []DispatchOptions{
			{}, {Workers: 1}, {Workers: 2}, {Workers: 1, Reorder: ReorderOn}, {Workers: 2, Reorder: ReorderOn, Window: 7}, {Workers: 2, Reorder: ReorderOn, Window: 100000},
		} {
			results.reset()
			st := r.mustDispatch("rg", 40, 30, &opt)
			got := results.snapshot()
			for l, w := range want {
				g := got[l]
				if math.Float32bits(g.Color[0]) != math.Float32bits(w.Color[0]) || math.Float32bits(g.Color[1]) != math.Float32bits(w.Color[1]) ||
					math.Float32bits(g.Color[2]) != math.Float32bits(w.Color[2]) || g.Record != w.Record {
					t.Fatalf("options %+v launch %v: %+v, TraceRay gave %+v", opt, l, g, w)
				}
			}
			if st.ReorderPoints != 1200 {
				t.Fatalf("options %+v: %d reorder points, want 1200", opt, st.ReorderPoints)
			}
		}
	}
}

// After ReorderThread with a hint, invocations in one window resume in
// the order of the hint's bits, most significant first.
func TestReorderThreadResumesInHintOrder(t *testing.T) {
	var mu sync.Mutex
	var order []uint32
	hint := func(l [3]uint32) uint32 { return (l[0]*2654435761 + l[1]*40503) >> 20 & 0xfff }
	r := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) {
		l := c.DispatchRaysIndex()
		local := [4]uint32{l[0], l[1], l[0] * l[1], 12345} // invocation-local state
		ReorderThreadHint(c, hint(l), 12)
		if local != [4]uint32{l[0], l[1], l[0] * l[1], 12345} || c.DispatchRaysIndex() != l {
			t.Errorf("local state lost across ReorderThread at %v", l)
		}
		mu.Lock()
		order = append(order, hint(l))
		mu.Unlock()
	})}, nil)
	r.mustDispatch("rg", 64, 64, &DispatchOptions{Workers: 1, Reorder: ReorderOn, Window: 1 << 20})
	if len(order) != 64*64 {
		t.Fatalf("%d resumptions", len(order))
	}
	if !slices.IsSorted(order) {
		t.Fatal("resume order within the window is not sorted by hint")
	}
	// With reordering off, ReorderThread is a no-op: launch order.
	order = nil
	r.mustDispatch("rg", 64, 64, &DispatchOptions{Workers: 1})
	if slices.IsSorted(order) {
		t.Fatal("reordering off still sorted: the test cannot tell the modes apart")
	}
}

// Example 3 of hlsl-0027: NOP objects are grouped together, and the
// object class (hit, miss, NOP) takes precedence over the shader record,
// which takes precedence over hint bits.
func TestReorderGroupsNopsAndOrdersByClassThenRecordThenHint(t *testing.T) {
	tlas := serScene(t)
	type ev struct {
		class  int
		record uint32
		hint   uint32
	}
	var mu sync.Mutex
	var seq []ev
	r := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		var h HitObject // NOP
		if (x+y)%3 != 0 {
			h = HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, serRay(x, y), out)
		}
		hint := (x * 7) % 4
		ReorderThreadHitHint(c, h, hint, 2)
		e := ev{class: 2, hint: hint}
		if h.IsHit() {
			e.class, e.record = 0, h.ShaderTableIndex()
		} else if h.IsMiss() {
			e.class, e.record = 1, h.ShaderTableIndex()
		}
		mu.Lock()
		seq = append(seq, e)
		mu.Unlock()
	})
	r.mustDispatch("rg", 30, 30, &DispatchOptions{Workers: 1, Reorder: ReorderOn, Window: 1 << 20})
	if !slices.IsSortedFunc(seq, func(a, b ev) int {
		if a.class != b.class {
			return a.class - b.class
		}
		if a.record != b.record {
			return int(a.record) - int(b.record)
		}
		return int(a.hint) - int(b.hint)
	}) {
		t.Fatal("resume order is not (class, record, hint)")
	}
	nops := 0
	for _, e := range seq {
		if e.class == 2 {
			nops++
		}
	}
	if nops != 300 || seq[len(seq)-1].class != 2 || seq[len(seq)-nops].class != 2 {
		t.Fatalf("%d NOPs, not grouped at the end", nops)
	}
}

// HitObject getters for hit, miss and NOP objects, with the spec's values
// for NOP (zeros, identity matrices) and miss (world ray as object ray,
// RayTCurrent = TMax).
func TestHitObjectGettersForHitMissAndNop(t *testing.T) {
	tlas := serScene(t)
	var checked int
	r := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		ray := accel.Ray{Origin: vec.V3(4.25, 0.5, 1), Direction: vec.V3(0, 0, 2), TMin: 0.5, TMax: 50}
		h := HitObjectTraceRay(c, tlas, accel.RayFlagForceOpaque, 0xff, 0, 1, 0, ray, out)
		if !h.IsHit() || h.IsMiss() || h.IsNop() {
			t.Fatal("expected a hit")
		}
		var a attrs
		posOK := func() bool { p, err := h.TriangleObjectPositions(); return err == nil && p[0].Z == 5 }
		if h.RayFlags() != accel.RayFlagForceOpaque || h.RayTMin() != 0.5 || h.RayTCurrent() != 2 || h.WorldRayOrigin() != ray.Origin ||
			h.WorldRayDirection() != ray.Direction || h.ObjectRayOrigin() != ray.Origin || h.GeometryIndex() != 2 || h.InstanceIndex() != 0 ||
			h.ShaderTableIndex() != 2 || h.HitKind() != accel.HitKindTriangleFrontFace && h.HitKind() != accel.HitKindTriangleBackFace ||
			!Attributes(&h, &a) || h.LoadLocalRootTableConstant(c, 0) != 2 || !posOK() {
			t.Errorf("hit getters wrong: %+v", h)
		}
		var wrong sphereAttr
		if Attributes(&h, &wrong) {
			t.Error("GetAttributes with the wrong type succeeded")
		}
		m := MakeMiss(accel.RayFlagCullOpaque, 0x10000, ray)
		if !m.IsMiss() || m.RayTCurrent() != 50 || m.ObjectRayOrigin() != ray.Origin || m.ObjectRayDirection() != ray.Direction ||
			m.ObjectToWorld3x4() != vec.Identity3x4 || m.WorldToObject4x3() != vec.Identity3x4.Transpose() || m.ShaderTableIndex() != 0 ||
			m.InstanceID() != 0 || m.HitKind() != 0 || m.RayFlags() != accel.RayFlagCullOpaque {
			t.Errorf("miss getters wrong: %+v", m)
		}
		var n HitObject
		if n != MakeNop() || !n.IsNop() || n.RayTCurrent() != 0 || n.WorldRayOrigin() != (vec.Vec3{}) || n.ObjectToWorld3x4() != vec.Identity3x4 ||
			n.ShaderTableIndex() != 0 || n.LoadLocalRootTableConstant(c, 0) != 0 || n.PrimitiveIndex() != 0 {
			t.Errorf("NOP getters wrong: %+v", n)
		}
		checked++
	})
	results.reset()
	r.mustDispatch("rg", 1, 1, nil)
	if checked != 1 {
		t.Fatal("ray generation did not run")
	}
}

// Invoke on NOP runs nothing; SetShaderTableIndex redirects Invoke (28
// bits for hits, 16 for misses); Invoke may use another payload type than
// the trace; Invoke counts towards the recursion depth.
func TestInvokeNopSetShaderTableIndexAndPayloadTypes(t *testing.T) {
	tlas := serScene(t)
	r := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		var small struct{ N int }
		_ = small
		h := HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, accel.Ray{Origin: vec.V3(2, 0, 0), Direction: down, TMax: 100}, out)
		out.Record = 77
		Invoke(c, MakeNop(), out)
		if out.Record != 77 {
			t.Error("Invoke on NOP ran a shader")
		}
		h.SetShaderTableIndex(6 | 1<<28) // bits above 28 are dropped
		Invoke(c, h, out)
		if out.Record != 6 || h.ShaderTableIndex() != 6 {
			t.Errorf("SetShaderTableIndex: invoked record %d (index %d), want 6", out.Record, h.ShaderTableIndex())
		}
		m := MakeMiss(0, 0x10000, accel.Ray{TMax: 3})
		Invoke(c, m, out)
		if out.Record != 1000 || out.Color[1] != 3 {
			t.Errorf("miss Invoke: %+v", out)
		}
	})
	r.mustDispatch("rg", 1, 1, nil)

	// Payload type of Invoke must match the invoked shader.
	bad := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		h := HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, accel.Ray{Origin: vec.V3(2, 0, 0), Direction: down, TMax: 100}, out)
		var wrong struct{ X float64 }
		Invoke(c, h, &wrong)
	})
	if _, err := bad.dispatch("rg", 1, 1, nil); !errors.Is(err, ErrTypeMismatch) {
		t.Fatalf("Invoke with a mismatched payload: %v", err)
	}
}

// ReorderThread is legal only in ray generation shaders, with at most 32
// hint bits.
func TestReorderThreadOnlyInRayGeneration(t *testing.T) {
	tlas := serScene(t)
	shaders, groups := serShaders(func(c *Context, x, y uint32, out *shade) {
		TraceRay(c, tlas, 0, 0xff, 0, 1, 0, serRay(0, 0), out)
	})
	shaders[1] = ClosestHit("chs", func(c *Context, p *shade, a *attrs) { ReorderThreadHint(c, 1, 1) })
	r := newRig(t, 2, shaders, groups)
	r.hit, r.miss = r.table("hg"), r.table("miss")
	if _, err := r.dispatch("rg", 1, 1, nil); !errors.Is(err, ErrIntrinsicStage) {
		t.Fatalf("ReorderThread in closest hit: %v", err)
	}
	r2 := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) { ReorderThreadHint(c, 1, 33) })}, nil)
	if _, err := r2.dispatch("rg", 1, 1, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("33 hint bits: %v", err)
	}
}

// The simulated SIMT coherence: launches whose n-th Invoke runs record
// launch%8 are 8-way divergent in launch order; sorted by record in one
// window they become one record per wave.
func TestCoherenceStatisticsBeforeAndAfterReordering(t *testing.T) {
	tlas := serScene(t)
	r := serRig(t, tlas, func(c *Context, x, y uint32, out *shade) {
		g := float32(x % 8)
		h := HitObjectTraceRay(c, tlas, accel.RayFlagForceOpaque, 0xff, 0, 1, 0, accel.Ray{Origin: vec.V3(2*g+0.1, 0.1, 0), Direction: down, TMax: 100}, out)
		ReorderThread(c, h)
		Invoke(c, h, out)
	})
	st := r.mustDispatch("rg", 256, 1, &DispatchOptions{Workers: 1, Reorder: ReorderOn, Window: 1 << 20, CoherenceStats: true})
	co := st.Coherence
	if co.Invokes != 256 || co.LaunchOrder.RecordsPerWave() != 8 || co.Executed.RecordsPerWave() != 1 || co.Executed.ActiveFraction() != 1 {
		t.Fatalf("coherence %+v: want 8 records per wave in launch order, 1 after reordering", co)
	}
	st = r.mustDispatch("rg", 256, 1, &DispatchOptions{Workers: 1, CoherenceStats: true})
	if st.Coherence.Executed != st.Coherence.LaunchOrder {
		t.Fatalf("reordering off: executed %+v != launch order %+v", st.Coherence.Executed, st.Coherence.LaunchOrder)
	}
}

func TestStatsStringMentionsCoherence(t *testing.T) {
	s := Stats{Rays: 10, Elapsed: 1e9, Coherence: Coherence{Invokes: 64}}
	s.Coherence.LaunchOrder.Count, s.Coherence.LaunchOrder.DistinctRecords, s.Coherence.LaunchOrder.ActiveLanes = 2, 16, 64
	s.Coherence.Executed.Count, s.Coherence.Executed.DistinctRecords, s.Coherence.Executed.ActiveLanes = 2, 2, 64
	got := s.String()
	for _, want := range []string{"10 rays", "8.00 records/wave", "1.00 records/wave", "100% active"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
}
