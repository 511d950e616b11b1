package accel

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// The ray, instance and geometry flag rules ("Ray flags",
// "D3D12_RAYTRACING_INSTANCE_FLAGS", "D3D12_RAYTRACING_GEOMETRY_FLAGS") are
// checked against an independent expectation: an analytic model of a small
// scene that applies the spec's rules primitive by primitive, in float64,
// without the BVH, the watertight test or the traversal's flag logic.

const (
	quadHalf = 0.5
)

// flagQuad is one geometry of the triangle BLAS: a square at height z made
// of two triangles, with a winding and an optional mirroring geometry
// transform (which flips the winding, per the spec).
type flagQuad struct {
	z      float32
	opaque bool
	ccw    bool
	mirror bool
}

var flagQuads = []flagQuad{
	{1, true, false, false},
	{2, false, true, false},
	{3, true, true, false},
	{4, false, false, false},
	{5, true, false, true},
	{6, false, true, true},
}

// flagBoxes are the procedural geometries (one box each): z range and
// opacity.
var flagBoxes = []struct {
	z0, z1 float32
	opaque bool
}{{1.4, 1.6, true}, {3.4, 3.6, false}, {5.4, 5.6, true}}

func quadGeometry(q flagQuad) (Geometry, [2]triVerts) {
	h := float32(quadHalf)
	pos := []vec.Vec3{vec.V3(-h, -h, q.z), vec.V3(h, -h, q.z), vec.V3(h, h, q.z), vec.V3(-h, h, q.z)}
	idx := []uint32{0, 1, 2, 0, 2, 3}
	if q.ccw {
		idx = []uint32{0, 2, 1, 0, 3, 2}
	}
	g := TriangleGeometry(pos, idx)
	if !q.opaque {
		g.Flags = 0
	}
	xf := vec.Identity3x4
	if q.mirror {
		xf = vec.Scale3x4(vec.V3(-1, 1, 1))
		g.Triangles.Transform = &xf
	}
	var tris [2]triVerts
	for p := 0; p < 2; p++ {
		for k := 0; k < 3; k++ {
			tris[p][k] = xf.TransformPoint(pos[idx[3*p+k]])
		}
	}
	return g, tris
}

type flagScene struct {
	tlas  *TLAS
	insts []Instance
	tris  [][2]triVerts // per triangle geometry, object space
	cols  []float32     // ray x per column
}

func buildFlagScene(t testing.TB) *flagScene {
	s := &flagScene{}
	var geoms []Geometry
	for _, q := range flagQuads {
		g, tris := quadGeometry(q)
		geoms = append(geoms, g)
		s.tris = append(s.tris, tris)
	}
	tri := mustBLAS(t, geoms, 0)
	var boxGeoms []Geometry
	for _, b := range flagBoxes {
		g := AABBGeometry([]AABB{{vec.V3(-quadHalf, -quadHalf, b.z0), vec.V3(quadHalf, quadHalf, b.z1)}})
		if !b.opaque {
			g.Flags = 0
		}
		boxGeoms = append(boxGeoms, g)
	}
	proc := mustBLAS(t, boxGeoms, 0)
	triFlags := []InstanceFlags{0, InstanceTriangleCullDisable, InstanceTriangleFrontCounterClockwise, InstanceForceOpaque,
		InstanceForceNonOpaque, InstanceTriangleCullDisable | InstanceTriangleFrontCounterClockwise,
		InstanceTriangleFrontCounterClockwise | InstanceForceNonOpaque}
	col := 0
	for _, mirror := range []bool{false, true} {
		for _, f := range triFlags {
			x := float32(3 * col)
			xf := vec.Translate3x4(vec.V3(x, 0, 0))
			if mirror {
				// A mirrored, stretched instance: negative determinant.
				xf = xf.Mul(vec.Scale3x4(vec.V3(-1, 1, 1.5)))
			}
			s.insts = append(s.insts, Instance{Transform: xf, InstanceID: uint32(len(s.insts)), InstanceMask: 0xff, Flags: f, BLAS: tri})
			s.cols = append(s.cols, x)
			col++
		}
	}
	for i, f := range []InstanceFlags{0, InstanceForceOpaque, InstanceForceNonOpaque} {
		// Shares a column with a triangle instance, so both kinds meet one ray.
		x := s.cols[[]int{0, 3, 8}[i]]
		s.insts = append(s.insts, Instance{Transform: vec.Translate3x4(vec.V3(x, 0, 0)), InstanceID: uint32(len(s.insts)), InstanceMask: 0xff, Flags: f, BLAS: proc})
	}
	s.tlas = mustTLAS(t, s.insts, 0)
	return s
}

// expectedHit is one primitive the ray meets, with the model's verdict.
type expectedHit struct {
	kind             CandidateKind
	inst, geom, prim uint32
	t                float64
	front, opaque    bool
	culled           bool
}

func (e expectedHit) id() [4]uint32 { return [4]uint32{uint32(e.kind), e.inst, e.geom, e.prim} }

// expect applies the spec's rules to every primitive of every instance.
func (s *flagScene) expect(r Ray, flags RayFlags, mask uint32) []expectedHit {
	var out []expectedHit
	for ii, in := range s.insts {
		if uint32(in.InstanceMask)&mask&0xff == 0 {
			continue
		}
		inv, _ := in.Transform.Inverse()
		o, d := inv.TransformPoint(r.Origin), inv.TransformVector(r.Direction)
		opaque := func(geomOpaque bool) bool {
			op := geomOpaque
			if in.Flags&InstanceForceOpaque != 0 {
				op = true
			}
			if in.Flags&InstanceForceNonOpaque != 0 {
				op = false
			}
			if flags&RayFlagForceOpaque != 0 {
				op = true
			}
			if flags&RayFlagForceNonOpaque != 0 {
				op = false
			}
			return op
		}
		cullOpacity := func(op bool) bool {
			return op && flags&RayFlagCullOpaque != 0 || !op && flags&RayFlagCullNonOpaque != 0
		}
		if in.BLAS.Type() == GeometryTriangles {
			for g, tris := range s.tris {
				for p, tv := range tris {
					th, ok := hitTri64(tv, o, d)
					if !ok || !(th > float64(r.TMin) && th < float64(r.TMax)) {
						continue
					}
					// Facing in object space: clockwise from the origin in a
					// left-handed system, dot(cross(v1-v0, v2-v0), dir) < 0.
					n := tv[1].Sub(tv[0]).Cross(tv[2].Sub(tv[0]))
					front := float64(n.X)*float64(d.X)+float64(n.Y)*float64(d.Y)+float64(n.Z)*float64(d.Z) < 0
					if in.Flags&InstanceTriangleFrontCounterClockwise != 0 {
						front = !front
					}
					op := opaque(flagQuads[g].opaque)
					culled := cullOpacity(op) || flags&RayFlagSkipTriangles != 0
					if in.Flags&InstanceTriangleCullDisable == 0 {
						culled = culled || front && flags&RayFlagCullFrontFacingTriangles != 0 || !front && flags&RayFlagCullBackFacingTriangles != 0
					}
					out = append(out, expectedHit{KindTriangle, uint32(ii), uint32(g), uint32(p), th, front, op, culled})
				}
			}
			continue
		}
		if math.Abs(float64(o.X)) > quadHalf || math.Abs(float64(o.Y)) > quadHalf || d.X != 0 || d.Y != 0 {
			continue // the rays of these tests run along z
		}
		for g, b := range flagBoxes {
			z0, z1 := float64(b.z0), float64(b.z1)
			t0, t1 := (z0-float64(o.Z))/float64(d.Z), (z1-float64(o.Z))/float64(d.Z)
			if t0 > t1 {
				t0, t1 = t1, t0
			}
			t0 = math.Max(t0, float64(r.TMin))
			if t1 < t0 || t0 > float64(r.TMax) {
				continue
			}
			op := opaque(b.opaque)
			culled := cullOpacity(op) || flags&RayFlagSkipProceduralPrimitives != 0
			out = append(out, expectedHit{KindProcedural, uint32(ii), uint32(g), 0, t0, false, op, culled})
		}
	}
	return out
}

// hitTri64 intersects in float64 (the rays in these tests are far from
// every edge, so rounding cannot matter).
func hitTri64(tv triVerts, o, d vec.Vec3) (float64, bool) {
	f := func(v vec.Vec3) [3]float64 { return [3]float64{float64(v.X), float64(v.Y), float64(v.Z)} }
	a, b, c, O, D := f(tv[0]), f(tv[1]), f(tv[2]), f(o), f(d)
	sub := func(x, y [3]float64) [3]float64 { return [3]float64{x[0] - y[0], x[1] - y[1], x[2] - y[2]} }
	cross := func(x, y [3]float64) [3]float64 {
		return [3]float64{x[1]*y[2] - x[2]*y[1], x[2]*y[0] - x[0]*y[2], x[0]*y[1] - x[1]*y[0]}
	}
	dot := func(x, y [3]float64) float64 { return x[0]*y[0] + x[1]*y[1] + x[2]*y[2] }
	e1, e2 := sub(b, a), sub(c, a)
	p := cross(D, e2)
	det := dot(e1, p)
	if det == 0 {
		return 0, false
	}
	s := sub(O, a)
	u := dot(s, p) / det
	q := cross(s, e1)
	v := dot(D, q) / det
	if u < 0 || v < 0 || u+v > 1 {
		return 0, false
	}
	return dot(e2, q) / det, true
}

func flagString(f RayFlags) string {
	names := []string{"FORCE_OPAQUE", "FORCE_NON_OPAQUE", "ACCEPT_FIRST", "SKIP_CLOSEST_HIT", "CULL_BACK", "CULL_FRONT",
		"CULL_OPAQUE", "CULL_NON_OPAQUE", "SKIP_TRIANGLES", "SKIP_PROCEDURAL"}
	s := ""
	for i, n := range names {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	if s == "" {
		return "NONE"
	}
	return s
}

// Every valid combination of ray flags, alone and together, over instances
// with every instance flag, mirrored instances (which must not flip facing)
// and mirroring geometry transforms (which must), triangles and procedural
// primitives, rays in both directions.
func TestRayFlagsMatchIndependentModel(t *testing.T) {
	s := buildFlagScene(t)
	combos := 0
	for f := RayFlags(0); f < 0x400; f++ {
		if f&RayFlagSkipClosestHitShader != 0 || f.Validate() != nil {
			continue // SKIP_CLOSEST_HIT_SHADER does not affect traversal
		}
		combos++
		for ci, x := range s.cols {
			for _, down := range []bool{false, true} {
				r := Ray{Origin: vec.V3(x+0.13, -0.21, -10), Direction: vec.V3(0, 0, 1), TMax: float32(math.Inf(1))}
				if down {
					r.Origin.Z, r.Direction.Z = 20, -1
				}
				name := fmt.Sprintf("flags %s column %d down %v", flagString(f), ci, down)
				s.checkRay(t, name, r, f)
			}
		}
	}
	if combos != 70 {
		t.Fatalf("%d valid combinations, want 70", combos)
	}
}

func (s *flagScene) checkRay(t *testing.T, name string, r Ray, f RayFlags) {
	t.Helper()
	exp := s.expect(r, f, 0xff)
	byID := map[[4]uint32]expectedHit{}
	var opaqueHits, allHits []expectedHit
	closestOpaque := math.Inf(1)
	for _, e := range exp {
		byID[e.id()] = e
		if e.culled {
			continue
		}
		allHits = append(allHits, e)
		if e.kind == KindTriangle && e.opaque {
			opaqueHits = append(opaqueHits, e)
			closestOpaque = math.Min(closestOpaque, e.t)
		}
	}
	if len(exp) == 0 {
		t.Fatalf("%s: the model finds nothing: bad test scene", name)
	}
	check := func(h *Hit, what string) expectedHit {
		t.Helper()
		id := [4]uint32{uint32(h.Kind), h.InstanceIndex, h.GeometryIndex, h.PrimitiveIndex}
		e, ok := byID[id]
		if !ok {
			t.Fatalf("%s: %s %+v is no primitive on the ray", name, what, *h)
		}
		if e.culled {
			t.Fatalf("%s: %s %+v should have been culled", name, what, *h)
		}
		if h.Opaque != e.opaque || (e.kind == KindTriangle && h.FrontFace != e.front) {
			t.Fatalf("%s: %s %+v: opaque %v front %v, model says opaque %v front %v", name, what, *h, h.Opaque, h.FrontFace, e.opaque, e.front)
		}
		if math.Abs(float64(h.T)-e.t) > 1e-4*math.Max(1, e.t) {
			t.Fatalf("%s: %s t %g, model %g", name, what, h.T, e.t)
		}
		return e
	}
	// Run 1: ignore every candidate (an any-hit shader that calls IgnoreHit
	// and an intersection shader that reports nothing).
	var tr Traversal
	tr.Begin(s.tlas, r, f, 0xff)
	seen := map[[4]uint32]bool{}
	for tr.Next() {
		c := tr.Candidate()
		e := check(c, "candidate")
		if e.kind == KindTriangle && e.opaque {
			t.Fatalf("%s: opaque triangle %+v offered as a candidate", name, *c)
		}
		if seen[e.id()] {
			t.Fatalf("%s: candidate %+v reported twice", name, *c)
		}
		seen[e.id()] = true
	}
	if f&RayFlagAcceptFirstHitAndEndSearch == 0 {
		for _, e := range allHits {
			needed := !(e.kind == KindTriangle && e.opaque) && e.t < closestOpaque
			if needed && !seen[e.id()] {
				t.Fatalf("%s: candidate %+v before the closest opaque hit was not reported", name, e)
			}
		}
	}
	got := tr.Committed()
	switch {
	case len(opaqueHits) == 0:
		if got.Kind != KindNone {
			t.Fatalf("%s: committed %+v with no opaque triangle on the ray", name, *got)
		}
	case f&RayFlagAcceptFirstHitAndEndSearch != 0:
		if e := check(got, "committed"); !e.opaque || e.kind != KindTriangle {
			t.Fatalf("%s: committed %+v is not an opaque triangle", name, *got)
		}
	default:
		if e := check(got, "committed"); e.t != closestOpaque {
			t.Fatalf("%s: committed %+v at %g, closest opaque at %g", name, *got, e.t, closestOpaque)
		}
	}
	// Run 2: accept every candidate (procedural ones at their entry).
	tr.Begin(s.tlas, r, f, 0xff)
	for tr.Next() {
		c := tr.Candidate()
		if c.Kind == KindProcedural {
			tr.CommitProcedural(c.T)
		} else {
			tr.Commit()
		}
		if f&RayFlagAcceptFirstHitAndEndSearch != 0 && !tr.Done() {
			t.Fatalf("%s: ACCEPT_FIRST_HIT_AND_END_SEARCH: the search went on after a commit", name)
		}
	}
	got = tr.Committed()
	if len(allHits) == 0 {
		if got.Kind != KindNone {
			t.Fatalf("%s: committed %+v, but every primitive is culled", name, *got)
		}
		return
	}
	e := check(got, "committed")
	if f&RayFlagAcceptFirstHitAndEndSearch == 0 {
		best := slices.MinFunc(allHits, func(a, b expectedHit) int { return cmpF(a.t, b.t) })
		if e.id() != best.id() {
			t.Fatalf("%s: committed %+v, closest is %+v", name, e, best)
		}
	}
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// "Since these winding direction rules are defined in object space, they
// are unaffected by instance transforms ... Per-geometry transforms, by
// contrast, ... a negative determinant matrix there does flip triangle
// winding."
func TestFacingMirroredInstanceDoesNotFlipGeometryTransformDoes(t *testing.T) {
	g, _ := quadGeometry(flagQuad{z: 1, opaque: true})
	gm, _ := quadGeometry(flagQuad{z: 1, opaque: true, mirror: true})
	plain, mirroredGeom := mustBLAS(t, []Geometry{g}, 0), mustBLAS(t, []Geometry{gm}, 0)
	r := Ray{Origin: vec.V3(0.13, -0.21, -10), Direction: vec.V3(0, 0, 1), TMax: 100}
	kind := func(b *BLAS, xf vec.Mat3x4) uint8 {
		tl := mustTLAS(t, []Instance{{Transform: xf, InstanceMask: 1, BLAS: b}}, 0)
		h, ok := tl.Intersect(r, 0, 1)
		if !ok {
			t.Fatal("miss")
		}
		return h.HitKind()
	}
	mirror := vec.Scale3x4(vec.V3(-1, 1, 1))
	base := kind(plain, vec.Identity3x4)
	if got := kind(plain, mirror); got != base {
		t.Errorf("a mirroring instance transform flipped HitKind %#x -> %#x", base, got)
	}
	if got := kind(mirroredGeom, vec.Identity3x4); got == base {
		t.Errorf("a mirroring geometry transform did not flip HitKind %#x", base)
	}
}

// "RAY_FLAG_FORCE_NON_OPAQUE: All ray-primitive intersections encountered
// in a raytrace are treated as non-opaque": a candidate for every hit.
func TestRayFlagForceNonOpaqueOffersEveryHit(t *testing.T) {
	s := buildFlagScene(t)
	r := Ray{Origin: vec.V3(s.cols[0]+0.13, -0.21, -10), Direction: vec.V3(0, 0, 1), TMax: 100}
	var tr Traversal
	tr.Begin(s.tlas, r, RayFlagForceNonOpaque, 0xff)
	n := 0
	for tr.Next() {
		n++
	}
	if want := len(s.expect(r, RayFlagForceNonOpaque, 0xff)); n != want || n != len(flagQuads)+len(flagBoxes) {
		t.Fatalf("%d candidates, want %d", n, want)
	}
}

// "Ray flags": the mutually exclusive combinations are rejected.
func TestRayFlagsValidateRejectsMutuallyExclusive(t *testing.T) {
	bad := []RayFlags{
		RayFlagForceOpaque | RayFlagForceNonOpaque,
		RayFlagForceOpaque | RayFlagCullOpaque,
		RayFlagForceOpaque | RayFlagCullNonOpaque,
		RayFlagForceNonOpaque | RayFlagCullOpaque,
		RayFlagForceNonOpaque | RayFlagCullNonOpaque,
		RayFlagCullOpaque | RayFlagCullNonOpaque,
		RayFlagCullBackFacingTriangles | RayFlagCullFrontFacingTriangles,
		RayFlagSkipTriangles | RayFlagSkipProceduralPrimitives,
		RayFlagSkipTriangles | RayFlagCullBackFacingTriangles,
		RayFlagSkipTriangles | RayFlagCullFrontFacingTriangles,
	}
	for _, f := range bad {
		err := f.Validate()
		if err == nil {
			t.Errorf("%s accepted", flagString(f))
			continue
		}
		wantInputError(t, err, "ray flags", "", "exclu")
	}
	good := []RayFlags{0, RayFlagForceOpaque | RayFlagAcceptFirstHitAndEndSearch | RayFlagCullBackFacingTriangles,
		RayFlagCullNonOpaque | RayFlagSkipProceduralPrimitives | RayFlagCullFrontFacingTriangles,
		RayFlagSkipTriangles | RayFlagCullOpaque, RayFlagSkipClosestHitShader | RayFlagForceNonOpaque}
	for _, f := range good {
		if err := f.Validate(); err != nil {
			t.Errorf("%s rejected: %v", flagString(f), err)
		}
	}
}

// InstanceMask: "ANDed with the ray's InstanceInclusionMask"; only 8 bits
// count, and an instance with mask 0 is never hit.
func TestInstanceMaskEightBitsAndZeroNeverHits(t *testing.T) {
	g, _ := quadGeometry(flagQuad{z: 1, opaque: true})
	b := mustBLAS(t, []Geometry{g}, 0)
	var insts []Instance
	masks := []uint8{0, 0x01, 0x80, 0x0f, 0xff}
	for i, m := range masks {
		insts = append(insts, Instance{Transform: vec.Translate3x4(vec.V3(float32(3*i), 0, 0)), InstanceMask: m, BLAS: b})
	}
	tl := mustTLAS(t, insts, 0)
	for i, m := range masks {
		r := Ray{Origin: vec.V3(float32(3*i)+0.1, 0.2, -5), Direction: vec.V3(0, 0, 1), TMax: 100}
		for _, rm := range []uint32{0, 1, 0x80, 0xf0, 0xff, 0xffffffff, 0x100, 0xffffff00} {
			_, ok := tl.Intersect(r, 0, rm)
			if want := uint32(m)&rm&0xff != 0; ok != want {
				t.Errorf("instance mask %#x ray mask %#x: hit %v, want %v", m, rm, ok, want)
			}
			if occ := tl.Occluded(r, 0, rm); occ != ok {
				t.Errorf("Occluded %v, Intersect %v", occ, ok)
			}
		}
	}
}
