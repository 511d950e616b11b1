package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// The spec ("D3D12_RAYTRACING_INSTANCE_FLAGS"): a triangle is front facing
// if its vertices appear clockwise from the ray origin in a left-handed
// system, which is dot(cross(v1-v0, v2-v0), direction) < 0.
func TestFrontFaceIsClockwiseInLeftHandedSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for i := 0; i < 20000; i++ {
		tv := triVerts{randVec(rng, 1), randVec(rng, 1), randVec(rng, 1)}
		o := randVec(rng, 3)
		// Aim at a random interior point.
		b1, b2 := float32(rng.Float64()*0.8+0.1), float32(rng.Float64()*0.4)
		if b1+b2 > 0.9 {
			continue
		}
		p := tv[0].Scale(1 - b1 - b2).Add(tv[1].Scale(b1)).Add(tv[2].Scale(b2))
		d := p.Sub(o)
		var w watertightRay
		w.setup(o, d)
		tt, u, v, front, ok := w.intersect(&tv, 0, float32(math.Inf(1)))
		n := tv[1].Sub(tv[0]).Cross(tv[2].Sub(tv[0]))
		dn := float64(n.Dot(d))
		if math.Abs(dn) < 1e-3*float64(n.Len()*d.Len()) {
			continue // grazing: facing numerically ambiguous
		}
		if !ok {
			t.Fatalf("ray aimed at an interior point missed: %v from %v", tv, o)
		}
		if want := dn < 0; front != want {
			t.Fatalf("front %v, want %v (dot %g)", front, want, dn)
		}
		if math.Abs(float64(tt)-1) > 1e-2 || math.Abs(float64(u-b1)) > 1e-2 || math.Abs(float64(v-b2)) > 1e-2 {
			t.Fatalf("t=%g u=%g v=%g, want 1, %g, %g", tt, u, v, b1, b2)
		}
		checked++
	}
	if checked < 5000 {
		t.Fatalf("only %d cases checked", checked)
	}
}

// "triangles hit only for TMin < t < TMax" (TraceRay).
func TestTriangleIntervalIsOpen(t *testing.T) {
	tv := triVerts{vec.V3(-1, -1, 2), vec.V3(0, 1, 2), vec.V3(1, -1, 2)}
	var w watertightRay
	w.setup(vec.V3(0, 0, 0), vec.V3(0, 0, 1))
	if _, _, _, _, ok := w.intersect(&tv, 0, 2); ok {
		t.Error("hit at t == TMax")
	}
	if _, _, _, _, ok := w.intersect(&tv, 2, 3); ok {
		t.Error("hit at t == TMin")
	}
	if tt, _, _, _, ok := w.intersect(&tv, 1.999, 2.001); !ok || tt != 2 {
		t.Errorf("hit inside the interval: %v %v", tt, ok)
	}
}

// Barycentrics follow the original vertex order: a ray through
// b0*v0 + b1*v1 + b2*v2 reports (b1, b2), including near-vertex points.
func TestBarycentricsFollowVertexOrder(t *testing.T) {
	tv := triVerts{vec.V3(0, 0, 5), vec.V3(4, 0, 5), vec.V3(0, 3, 5)}
	for _, b := range [][2]float32{{0.25, 0.5}, {0.999, 0.0005}, {0.0005, 0.999}, {0.0005, 0.0005}, {0.3333, 0.3333}} {
		p := tv[0].Scale(1 - b[0] - b[1]).Add(tv[1].Scale(b[0])).Add(tv[2].Scale(b[1]))
		var w watertightRay
		w.setup(vec.V3(p.X, p.Y, 0), vec.V3(0, 0, 1))
		_, u, v, _, ok := w.intersect(&tv, 0, 10)
		if !ok || math.Abs(float64(u-b[0])) > 1e-4 || math.Abs(float64(v-b[1])) > 1e-4 {
			t.Errorf("bary %v: got %v %v ok=%v", b, u, v, ok)
		}
	}
}

func TestDegenerateTrianglesNeverHit(t *testing.T) {
	rays := []vec.Vec3{vec.V3(0, 0, 1), vec.V3(1, 0, 0), vec.V3(0.3, 0.2, 1)}
	for _, tv := range []triVerts{
		{vec.V3(0, 0, 1), vec.V3(0, 0, 1), vec.V3(0, 0, 1)},   // a point
		{vec.V3(-1, 0, 1), vec.V3(0, 0, 1), vec.V3(1, 0, 1)},  // collinear
		{vec.V3(-1, -1, 1), vec.V3(1, 1, 1), vec.V3(0, 0, 1)}, // collinear through the ray
	} {
		for _, d := range rays {
			var w watertightRay
			w.setup(vec.V3(0, 0, 0), d)
			if _, _, _, _, ok := w.intersect(&tv, 0, 100); ok {
				t.Errorf("degenerate %v hit by %v", tv, d)
			}
		}
	}
}

// Rays the spec leaves undefined (a NaN component, an infinite origin or
// direction component, a zero direction) miss in every query, even where a
// finite ray along the same line would hit.
func TestUndefinedRaysMiss(t *testing.T) {
	pos := []vec.Vec3{vec.V3(-1e3, -1e3, 0), vec.V3(1e3, -1e3, 0), vec.V3(0, 1e3, 0)}
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, []uint32{0, 1, 2})}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := BuildTLAS([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The same triangle non-opaque: the Traversal walks it (Begin and
	// BeginBLAS), where over opaque triangles Begin answers with the plain
	// query.
	g := TriangleGeometry(pos, []uint32{0, 1, 2})
	g.Flags = 0
	nb, err := BuildBLAS([]Geometry{g}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ntl, err := BuildTLAS([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: nb}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	good := Ray{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(0, 0, -1), TMax: inf}
	if _, ok := b.Intersect(good, 0); !ok {
		t.Fatal("finite ray misses: test scene broken")
	}
	bad := []Ray{
		{Origin: vec.V3(inf, 0.25, 1), Direction: vec.V3(0, 0, -1), TMax: inf},
		{Origin: vec.V3(0.5, -inf, 1), Direction: vec.V3(0, 0, -1), TMax: inf},
		{Origin: vec.V3(0.5, 0.25, inf), Direction: vec.V3(0, 0, -1), TMax: inf},
		{Origin: vec.V3(nan, 0.25, 1), Direction: vec.V3(0, 0, -1), TMax: inf},
		{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(0, nan, -1), TMax: inf},
		{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(0, 0, -inf), TMax: inf},
		{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(inf, 0, -1), TMax: inf},
		{Origin: vec.V3(0, 0, 0), Direction: vec.V3(-inf, inf, -inf), TMax: inf},
		{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(0, 0, 0), TMax: inf},
		{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(0, 0, -1), TMin: nan, TMax: inf},
		{Origin: vec.V3(0.5, 0.25, 1), Direction: vec.V3(0, 0, -1), TMax: nan},
		{Origin: vec.V3(0.5, 0.25, 0), Direction: vec.V3(0, 0, 0), TMax: inf},
	}
	for i, r := range bad {
		if h, ok := b.Intersect(r, 0); ok {
			t.Errorf("ray %d: BLAS.Intersect hit %+v", i, h)
		}
		if b.Occluded(r, 0) {
			t.Errorf("ray %d: BLAS.Occluded", i)
		}
		if h, ok := tl.Intersect(r, 0, 0xff); ok {
			t.Errorf("ray %d: TLAS.Intersect hit %+v", i, h)
		}
		if tl.Occluded(r, 0, 0xff) {
			t.Errorf("ray %d: TLAS.Occluded", i)
		}
		// The Traversal path (culling flags force it).
		if h, ok := tl.Intersect(r, RayFlagCullBackFacingTriangles, 0xff); ok {
			t.Errorf("ray %d: Traversal hit %+v", i, h)
		}
		for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
			for _, begin := range []struct {
				name string
				f    func(*Traversal)
			}{
				{"Begin", func(tr *Traversal) { tr.Begin(tl, r, flags, 0xff) }},
				{"Begin, non-opaque", func(tr *Traversal) { tr.Begin(ntl, r, flags, 0xff) }},
				{"BeginBLAS", func(tr *Traversal) { tr.BeginBLAS(b, r, flags) }},
				{"BeginBLAS, non-opaque", func(tr *Traversal) { tr.BeginBLAS(nb, r, flags) }},
			} {
				var tr Traversal
				begin.f(&tr)
				if tr.Next() || tr.Committed().Kind != KindNone {
					t.Errorf("ray %d, flags %#x: Traversal (%s) found a candidate", i, flags, begin.name)
				}
			}
		}
	}
}

// An instance transform can overflow a finite world ray into an infinite
// object-space one, whose slab distances are NaN: unused child slots of the
// wide nodes must still never be entered (they once were: an index out of
// range panic), and the fast path must agree with Traversal.
func TestOverflowingObjectRayNeverEntersUnusedSlots(t *testing.T) {
	pos := []vec.Vec3{vec.V3(-1e3, -1e3, 0), vec.V3(1e3, -1e3, 0), vec.V3(0, 1e3, 0)}
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, []uint32{0, 1, 2})}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := BuildTLAS([]Instance{{Transform: vec.Scale3x4(vec.V3(1e-30, 1e-30, 1e-30)), InstanceMask: 0xff, BLAS: b}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	for _, d := range []vec.Vec3{vec.V3(0, 0, -1e10), vec.V3(1e10, 0, -1), vec.V3(-1e10, 1e10, -1e10), vec.V3(0, 1e10, 0)} {
		for _, o := range []vec.Vec3{vec.V3(0.5e-30, 0.25e-30, 1e-30), vec.V3(0, 0, 0), vec.V3(2e-27, 0, 1e-30)} {
			r := Ray{Origin: o, Direction: d, TMax: inf}
			want, wok := traverseClosest(tl, nil, r, 0, 0xff)
			got, gok := tl.Intersect(r, 0, 0xff)
			if gok != wok || got != want {
				t.Errorf("o %v d %v: fast %v %+v, traversal %v %+v", o, d, gok, got, wok, want)
			}
			_, wok = traverseClosest(tl, nil, r, RayFlagAcceptFirstHitAndEndSearch, 0xff)
			if occ := tl.Occluded(r, 0, 0xff); occ != wok {
				t.Errorf("o %v d %v: fast Occluded %v, traversal %v", o, d, occ, wok)
			}
		}
	}
}
