package raypipe

import (
	"errors"
	"sort"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// probes read every system value intrinsic.
var probes = map[string]func(c *Context){
	"DispatchRaysIndex":       func(c *Context) { c.DispatchRaysIndex() },
	"DispatchRaysDimensions":  func(c *Context) { c.DispatchRaysDimensions() },
	"WorldRayOrigin":          func(c *Context) { c.WorldRayOrigin() },
	"WorldRayDirection":       func(c *Context) { c.WorldRayDirection() },
	"RayTMin":                 func(c *Context) { c.RayTMin() },
	"RayTCurrent":             func(c *Context) { c.RayTCurrent() },
	"RayFlags":                func(c *Context) { c.RayFlags() },
	"InstanceIndex":           func(c *Context) { c.InstanceIndex() },
	"InstanceID":              func(c *Context) { c.InstanceID() },
	"GeometryIndex":           func(c *Context) { c.GeometryIndex() },
	"PrimitiveIndex":          func(c *Context) { c.PrimitiveIndex() },
	"ObjectRayOrigin":         func(c *Context) { c.ObjectRayOrigin() },
	"ObjectRayDirection":      func(c *Context) { c.ObjectRayDirection() },
	"ObjectToWorld3x4":        func(c *Context) { c.ObjectToWorld3x4() },
	"ObjectToWorld4x3":        func(c *Context) { c.ObjectToWorld4x3() },
	"WorldToObject3x4":        func(c *Context) { c.WorldToObject3x4() },
	"WorldToObject4x3":        func(c *Context) { c.WorldToObject4x3() },
	"HitKind":                 func(c *Context) { c.HitKind() },
	"TriangleObjectPositions": func(c *Context) { c.TriangleObjectPositions() },
}

// The spec's table ("System value intrinsics", and hlsl-0041 for
// TriangleObjectPositions), written out independently of the code's table.
var specTable = map[string][]ShaderKind{
	"DispatchRaysIndex":       {KindRayGeneration, KindIntersection, KindAnyHit, KindClosestHit, KindMiss, KindCallable},
	"DispatchRaysDimensions":  {KindRayGeneration, KindIntersection, KindAnyHit, KindClosestHit, KindMiss, KindCallable},
	"WorldRayOrigin":          {KindIntersection, KindAnyHit, KindClosestHit, KindMiss},
	"WorldRayDirection":       {KindIntersection, KindAnyHit, KindClosestHit, KindMiss},
	"RayTMin":                 {KindIntersection, KindAnyHit, KindClosestHit, KindMiss},
	"RayTCurrent":             {KindIntersection, KindAnyHit, KindClosestHit, KindMiss},
	"RayFlags":                {KindIntersection, KindAnyHit, KindClosestHit, KindMiss},
	"InstanceIndex":           {KindIntersection, KindAnyHit, KindClosestHit},
	"InstanceID":              {KindIntersection, KindAnyHit, KindClosestHit},
	"GeometryIndex":           {KindIntersection, KindAnyHit, KindClosestHit},
	"PrimitiveIndex":          {KindIntersection, KindAnyHit, KindClosestHit},
	"ObjectRayOrigin":         {KindIntersection, KindAnyHit, KindClosestHit},
	"ObjectRayDirection":      {KindIntersection, KindAnyHit, KindClosestHit},
	"ObjectToWorld3x4":        {KindIntersection, KindAnyHit, KindClosestHit},
	"ObjectToWorld4x3":        {KindIntersection, KindAnyHit, KindClosestHit},
	"WorldToObject3x4":        {KindIntersection, KindAnyHit, KindClosestHit},
	"WorldToObject4x3":        {KindIntersection, KindAnyHit, KindClosestHit},
	"HitKind":                 {KindAnyHit, KindClosestHit},
	"TriangleObjectPositions": {KindAnyHit, KindClosestHit},
}

// probeAll reads every system value in c's stage and records which are
// available (no ErrSystemValue).
func probeAll(c *Context, seen map[ShaderKind]map[string]bool) {
	if seen[c.Stage()] == nil {
		seen[c.Stage()] = map[string]bool{}
	}
	for name, f := range probes {
		func() {
			defer func() {
				if r := recover(); r != nil {
					err, _ := r.(error)
					if !errors.Is(err, ErrSystemValue) {
						panic(r)
					}
					seen[c.Stage()][name] = false
				}
			}()
			f(c)
			seen[c.Stage()][name] = true
		}()
	}
}

func TestSystemValuesAvailablePerStageAsTheSpecTable(t *testing.T) {
	tri := mustBLAS(t, accel.BuildAllowDataAccess, accel.TriangleGeometry(quad(1, 2), nil))
	g := accel.TriangleGeometry(quad(1, 2), nil)
	g.Flags = 0 // non-opaque: any hit runs
	nonOpaque := mustBLAS(t, accel.BuildAllowDataAccess, g)
	// The procedural BLAS is offset so the two kinds of geometry do not
	// overlap.
	box := mustBLAS(t, 0, accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 4), Max: vec.V3(1, 1, 6)}}))
	tlas := mustTLAS(t, place(nonOpaque, vec.Identity3x4, 0), place(box, vec.Translate3x4(vec.V3(10, 0, 0)), 1), place(tri, vec.Translate3x4(vec.V3(20, 0, 0)), 2))
	seen := map[ShaderKind]map[string]bool{}
	type pl struct{ N int }
	r := newRig(t, 2, []Shader{
		RayGeneration("rg", func(c *Context) {
			probeAll(c, seen)
			var p pl
			TraceRay(c, tlas, 0, 0xff, 0, 0, 0, rayAt(0.5, 0.25), &p)
			TraceRay(c, tlas, 0, 0xff, 0, 0, 0, rayAt(10, 0), &p)
			TraceRay(c, tlas, 0, 0xff, 0, 0, 0, rayAt(50, 50), &p)
			CallShader(c, 0, &p)
		}),
		AnyHit("ahs", func(c *Context, p *pl, _ *attrs) { probeAll(c, seen) }),
		ClosestHit("chs", func(c *Context, p *pl, _ *attrs) { probeAll(c, seen) }),
		Intersection[attrs]("is", func(c *Context) {
			probeAll(c, seen)
			ReportHit(c, 5, 1, &attrs{})
		}),
		ClosestHit("chs-proc", func(c *Context, p *pl, _ *attrs) {}),
		Miss("miss", func(c *Context, p *pl) { probeAll(c, seen) }),
		Callable("call", func(c *Context, p *pl) { probeAll(c, seen) }),
	}, []HitGroup{{Name: "hg", AnyHit: "ahs", ClosestHit: "chs"}, {Name: "proc", Type: HitGroupProceduralPrimitive, Intersection: "is", ClosestHit: "chs-proc"}, {Name: "opaque", ClosestHit: "chs"}})
	r.hit, r.miss, r.callable = r.table("hg", "proc", "opaque"), r.table("miss"), r.table("call")
	r.mustDispatch("rg", 1, 1, nil)
	for name, stages := range specTable {
		want := map[ShaderKind]bool{}
		for _, k := range stages {
			want[k] = true
		}
		for k := ShaderKind(0); k < numShaderKinds; k++ {
			got, ran := seen[k][name]
			if !ran {
				t.Fatalf("stage %s never ran the probe", k)
			}
			if got != want[k] {
				t.Errorf("%s in %s: available %v, spec says %v", name, k, got, want[k])
			}
		}
	}
	var names []string
	for n := range SystemValueStages {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) != len(specTable) {
		t.Errorf("SystemValueStages lists %v", names)
	}
}
