package rayquery

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// TestBarycentricsAtKnownPoints: a ray aimed at the point with known
// barycentrics (w0, u, v) reports them through CandidateTriangleBarycentrics
// and CommittedTriangleBarycentrics within 1e-3, in the original vertex
// order, through instance transforms (some mirrored).
func TestBarycentricsAtKnownPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	barys := [][3]float64{
		{0.999, 0.0005, 0.0005}, {0.0005, 0.999, 0.0005}, {0.0005, 0.0005, 0.999},
		{1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.2, 0.3, 0.5}, {0.5, 0.5 - 1e-4, 1e-4}, {0.01, 0.98, 0.01},
	}
	var q RayQuery
	tested := 0
	for trial := 0; trial < 60; trial++ {
		tri := []vec.Vec3{randVec(rng, 1), randVec(rng, 1), randVec(rng, 1)}
		e1, e2 := to64(tri[1]).add(to64(tri[0]).scale(-1)), to64(tri[2]).add(to64(tri[0]).scale(-1))
		if n := cross(e1, e2); math.Sqrt(dot(n, n)) < 0.2 {
			continue // skip slivers: a 5e-4 barycentric there is too close to an edge for float32
		}
		geo := accel.TriangleGeometry(tri, nil)
		if trial%2 == 1 {
			geo.Flags = 0 // non-opaque: the candidate path
		}
		b, err := accel.BuildBLAS([]accel.Geometry{geo}, 0)
		if err != nil {
			t.Fatal(err)
		}
		xf := randomTransform(rng)
		if trial%3 == 0 {
			xf = xf.Mul(vec.Scale3x4(vec.V3(1, 1, -1)))
		}
		tl, err := accel.BuildTLAS([]accel.Instance{{Transform: xf, InstanceMask: 1, BLAS: b}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := [3][4]float64{}
		for i := range 3 {
			for j := range 4 {
				m[i][j] = float64(xf[i][j])
			}
		}
		tested++
		for _, w := range barys {
			p := to64(tri[0]).scale(w[0]).add(to64(tri[1]).scale(w[1])).add(to64(tri[2]).scale(w[2]))
			world := affine(&m, p)
			// A direction not grazing the triangle (|cos| >= 0.3 in object
			// space), so that t is well conditioned.
			inv := inverse64(xf)
			n := cross(e1, e2)
			dir := randVec(rng, 1)
			for {
				od := linear(&inv, to64(dir))
				if c := dot(n, od) / math.Sqrt(dot(n, n)*dot(od, od)); math.Abs(c) >= 0.3 {
					break
				}
				dir = randVec(rng, 1)
			}
			org := vec.V3(float32(world[0]-4*float64(dir.X)), float32(world[1]-4*float64(dir.Y)), float32(world[2]-4*float64(dir.Z)))
			q.TraceRayInline(tl, 0, 1, accel.Ray{Origin: org, Direction: dir, TMax: 100})
			for q.Proceed() {
				u, v := q.CandidateTriangleBarycentrics()
				if math.Abs(float64(u)-w[1]) > 1e-3 || math.Abs(float64(v)-w[2]) > 1e-3 {
					t.Fatalf("trial %d bary %v: candidate barycentrics %g %g", trial, w, u, v)
				}
				q.CommitNonOpaqueTriangleHit()
			}
			if q.CommittedStatus() != CommittedTriangleHit {
				t.Fatalf("trial %d bary %v: missed", trial, w)
			}
			u, v := q.CommittedTriangleBarycentrics()
			if math.Abs(float64(u)-w[1]) > 1e-3 || math.Abs(float64(v)-w[2]) > 1e-3 {
				t.Fatalf("trial %d bary %v: committed barycentrics %g %g", trial, w, u, v)
			}
			if math.Abs(float64(q.CommittedRayT())-4) > 1e-3 {
				t.Fatalf("trial %d bary %v: t %g, want 4", trial, w, q.CommittedRayT())
			}
		}
	}
	if tested < 40 {
		t.Fatalf("only %d triangles tested", tested)
	}
}

// vertexBuffer encodes pts by hand in format f at stride bytes apart.
func vertexBuffer(f accel.VertexFormat, pts []vec.Vec3, stride int) []byte {
	le := binary.LittleEndian
	b := make([]byte, stride*len(pts))
	for i, p := range pts {
		o := b[i*stride:]
		switch f {
		case accel.FormatR32G32B32Float:
			le.PutUint32(o, math.Float32bits(p.X))
			le.PutUint32(o[4:], math.Float32bits(p.Y))
			le.PutUint32(o[8:], math.Float32bits(p.Z))
		case accel.FormatR32G32Float:
			le.PutUint32(o, math.Float32bits(p.X))
			le.PutUint32(o[4:], math.Float32bits(p.Y))
		case accel.FormatR16G16Float:
			le.PutUint16(o, accel.Float16Bits(p.X))
			le.PutUint16(o[2:], accel.Float16Bits(p.Y))
		case accel.FormatR16G16B16A16Float:
			le.PutUint16(o, accel.Float16Bits(p.X))
			le.PutUint16(o[2:], accel.Float16Bits(p.Y))
			le.PutUint16(o[4:], accel.Float16Bits(p.Z))
			le.PutUint16(o[6:], 0x7e00) // A: a NaN, ignored
		}
	}
	return b
}

// posGeom is one hand-built geometry and the object-space vertices that
// position fetch must return for each triangle.
type posGeom struct {
	geo  accel.Geometry
	want [][3]vec.Vec3
}

// buildPosGeom makes ntri triangles spread along x in format f. Vertex
// coordinates are multiples of 1/64 below 8 in magnitude, exact in float16,
// so every format must return them exactly; two-component formats get z=0.
func buildPosGeom(rng *rand.Rand, f accel.VertexFormat, ntri int, indexed bool, xf *vec.Mat3x4) posGeom {
	q := func() float32 { return float32(rng.IntN(129)-64) / 64 }
	nv := 3 * ntri
	pts := make([]vec.Vec3, nv)
	for i := range pts {
		pts[i] = vec.V3(float32(3*(i/3)-3*ntri/2)+q(), q(), q())
		if f == accel.FormatR32G32Float || f == accel.FormatR16G16Float {
			pts[i].Z = 0
		}
		if f == accel.FormatR32G32B32Float {
			pts[i].Z += float32(rng.Float64()) * 1e-3 // not float16-exact: full float32
		}
	}
	stride := f.Size()
	if f == accel.FormatR32G32B32Float {
		stride = 16 // padded
	}
	tris := accel.Triangles{VertexBuffer: vertexBuffer(f, pts, stride), VertexFormat: f, VertexStride: stride, VertexCount: nv, Transform: xf}
	order := make([]int, nv) // index k -> vertex
	for k := range order {
		order[k] = k
	}
	if indexed {
		rng.Shuffle(nv, func(i, j int) { order[i], order[j] = order[j], order[i] })
		// keep each triangle's vertices within one x slot so triangles stay apart
		for p := 0; p < ntri; p++ {
			a, b, c := 3*p, 3*p+1, 3*p+2
			perm := [][3]int{{a, b, c}, {b, c, a}, {c, a, b}, {a, c, b}, {b, a, c}, {c, b, a}}[rng.IntN(6)]
			order[3*p], order[3*p+1], order[3*p+2] = perm[0], perm[1], perm[2]
		}
		ib := make([]byte, 2*nv)
		for k, x := range order {
			binary.LittleEndian.PutUint16(ib[2*k:], uint16(x))
		}
		tris.IndexBuffer, tris.IndexFormat, tris.IndexCount = ib, accel.IndexUint16, nv
	}
	pg := posGeom{geo: accel.Geometry{Type: accel.GeometryTriangles, Triangles: tris}}
	for p := 0; p < ntri; p++ {
		var w [3]vec.Vec3
		for k := range w {
			w[k] = pts[order[3*p+k]]
			if xf != nil {
				w[k] = xf.TransformPoint(w[k])
			}
		}
		pg.want = append(pg.want, w)
	}
	return pg
}

// TestPositionFetchEveryFormat: CandidateTriangleObjectPositions and
// CommittedTriangleObjectPositions return the input vertices exactly, in
// index order, in object space: geometry transforms applied, instance
// transforms not (hlsl-0041).
func TestPositionFetchEveryFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	formats := []accel.VertexFormat{accel.FormatR32G32B32Float, accel.FormatR32G32Float, accel.FormatR16G16Float, accel.FormatR16G16B16A16Float}
	var q RayQuery
	for _, f := range formats {
		for _, withXf := range []bool{false, true} {
			var geoms []posGeom
			var descs []accel.Geometry
			for g := 0; g < 3; g++ {
				var xf *vec.Mat3x4
				if withXf {
					m := randomTransform(rng)
					m[0][3], m[1][3], m[2][3] = 0, 0, float32(10*g) // keep geometries apart
					xf = &m
				} else {
					m := vec.Translate3x4(vec.V3(0, 0, float32(10*g)))
					xf = &m
					if g == 0 {
						xf = nil
					}
				}
				pg := buildPosGeom(rng, f, 6, g != 1, xf)
				if g != 2 {
					pg.geo.Flags = 0 // non-opaque: candidates stop Proceed
				} else {
					pg.geo.Flags = accel.GeometryOpaque
				}
				geoms = append(geoms, pg)
				descs = append(descs, pg.geo)
			}
			b, err := accel.BuildBLAS(descs, accel.BuildAllowDataAccess)
			if err != nil {
				t.Fatal(err)
			}
			inst := randomTransform(rng)
			tl, err := accel.BuildTLAS([]accel.Instance{{Transform: inst, InstanceMask: 1, BLAS: b}}, 0)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for g, pg := range geoms {
				for p, w := range pg.want {
					c := to64(w[0]).add(to64(w[1])).add(to64(w[2])).scale(1.0 / 3)
					target := inst.TransformPoint(vec.V3(float32(c[0]), float32(c[1]), float32(c[2])))
					dir := randVec(rng, 1)
					org := target.Sub(dir.Scale(3))
					q.TraceRayInline(tl, 0, 1, accel.Ray{Origin: org, Direction: dir, TMax: 100})
					for q.Proceed() {
						got, err := q.CandidateTriangleObjectPositions()
						if err != nil {
							t.Fatal(err)
						}
						if want := geoms[q.CandidateGeometryIndex()].want[q.CandidatePrimitiveIndex()]; got != want {
							t.Fatalf("%v: candidate positions %v, want %v", f, got, want)
						}
						q.CommitNonOpaqueTriangleHit()
					}
					if q.CommittedStatus() != CommittedTriangleHit {
						continue
					}
					got, err := q.CommittedTriangleObjectPositions()
					if err != nil {
						t.Fatal(err)
					}
					hg, hp := q.CommittedGeometryIndex(), q.CommittedPrimitiveIndex()
					if want := geoms[hg].want[hp]; got != want {
						t.Fatalf("%v transform %v geometry %d prim %d: committed positions %v, want %v", f, withXf, hg, hp, got, want)
					}
					// The positions and barycentrics describe the hit point.
					u, v := q.CommittedTriangleBarycentrics()
					hit := q.CommittedObjectRayOrigin().Add(q.CommittedObjectRayDirection().Scale(q.CommittedRayT()))
					bary := got[0].Scale(1 - u - v).Add(got[1].Scale(u)).Add(got[2].Scale(v))
					if d := bary.Sub(hit); d.Len() > 1e-4*(1+hit.Len()) {
						t.Fatalf("%v: barycentric point %v, ray point %v", f, bary, hit)
					}
					if int(hg) == g && int(hp) == p {
						checked++
					}
				}
			}
			if checked < 12 {
				t.Fatalf("%v: only %d of 18 aimed rays hit their triangle", f, checked)
			}
		}
	}
}

// TestPositionFetchErrors: without BuildAllowDataAccess, for procedural
// hits and with nothing committed, position fetch returns an error.
func TestPositionFetchErrors(t *testing.T) {
	tri := []vec.Vec3{{X: -1, Y: -1, Z: 1}, {X: -1, Y: 1, Z: 1}, {X: 1, Y: -1, Z: 1}}
	geo := accel.TriangleGeometry(tri, nil)
	geo.Flags = 0
	noAccess, err := accel.BuildBLAS([]accel.Geometry{geo}, 0)
	if err != nil {
		t.Fatal(err)
	}
	boxes, err := accel.BuildBLAS([]accel.Geometry{accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 2), Max: vec.V3(1, 1, 3)}})}, accel.BuildAllowDataAccess)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := accel.BuildTLAS([]accel.Instance{
		{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: noAccess},
		{Transform: vec.Identity3x4, InstanceMask: 2, BLAS: boxes},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := accel.Ray{Origin: vec.V3(-0.5, -0.5, 0), Direction: vec.V3(0, 0, 1), TMax: 10}
	var q RayQuery

	q.TraceRayInline(tl, 0, 1, r)
	if _, err := q.CommittedTriangleObjectPositions(); !errors.Is(err, accel.ErrNoTriangle) {
		t.Fatalf("nothing committed: %v", err)
	}
	if !q.Proceed() {
		t.Fatal("no candidate")
	}
	if _, err := q.CandidateTriangleObjectPositions(); !errors.Is(err, accel.ErrNoDataAccess) {
		t.Fatalf("candidate without data access: %v", err)
	}
	q.CommitNonOpaqueTriangleHit()
	if _, err := q.CommittedTriangleObjectPositions(); !errors.Is(err, accel.ErrNoDataAccess) {
		t.Fatalf("committed without data access: %v", err)
	}

	q.TraceRayInline(tl, 0, 2, r)
	if !q.Proceed() || q.CandidateType() != CandidateProceduralPrimitive {
		t.Fatal("no procedural candidate")
	}
	if _, err := q.CandidateTriangleObjectPositions(); !errors.Is(err, accel.ErrNoTriangle) {
		t.Fatalf("procedural candidate: %v", err)
	}
	q.CommitProceduralPrimitiveHit(2.5)
	if _, err := q.CommittedTriangleObjectPositions(); !errors.Is(err, accel.ErrNoTriangle) {
		t.Fatalf("procedural committed: %v", err)
	}
}
