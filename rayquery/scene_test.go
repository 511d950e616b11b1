package rayquery

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// This file builds random scenes and holds the independent oracle: a
// float64 brute-force loop over every triangle and sphere of every
// instance that applies the spec's rules (mask, skip, opacity, culling,
// any-hit filtering) by itself, without accel's BVH or triangle test.

// sphere is a procedural primitive: a sphere inside its AABB.
type sphere struct {
	c vec.Vec3
	r float32
}

func (s sphere) box() accel.AABB {
	d := vec.V3(s.r, s.r, s.r)
	return accel.AABB{Min: s.c.Sub(d), Max: s.c.Add(d)}
}

type testGeom struct {
	flags   accel.GeometryFlags
	tris    [][3]vec.Vec3 // object space after the geometry transform, as the build computes it
	spheres []sphere
}

type testBLAS struct {
	geoms []testGeom
	blas  *accel.BLAS
}

type testScene struct {
	blases []*testBLAS
	insts  []accel.Instance
	src    []*testBLAS // per instance (nil: inactive)
	tlas   *accel.TLAS
}

func randVec(rng *rand.Rand, s float32) vec.Vec3 {
	return vec.V3(float32(rng.Float64()*2-1)*s, float32(rng.Float64()*2-1)*s, float32(rng.Float64()*2-1)*s)
}

func randomTransform(rng *rand.Rand) vec.Mat3x4 {
	a := randVec(rng, 1).Normalize()
	b := randVec(rng, 1)
	b = b.Sub(a.Scale(a.Dot(b))).Normalize()
	c := a.Cross(b)
	s := float32(0.5 + rng.Float64())
	t := randVec(rng, 2)
	return vec.Mat3x4{{a.X * s, b.X * s, c.X * s, t.X}, {a.Y * s, b.Y * s, c.Y * s, t.Y}, {a.Z * s, b.Z * s, c.Z * s, t.Z}}
}

func triangleBLAS(t testing.TB, rng *rand.Rand, ngeoms int, build accel.BuildFlags) *testBLAS {
	tb := &testBLAS{}
	var geoms []accel.Geometry
	for g := 0; g < ngeoms; g++ {
		n := 150 + 100*g
		pos := make([]vec.Vec3, 0, 3*n)
		for i := 0; i < n; i++ {
			c := randVec(rng, 1)
			for k := 0; k < 3; k++ {
				pos = append(pos, c.Add(randVec(rng, 0.2)))
			}
		}
		geo := accel.TriangleGeometry(pos, nil)
		var xf *vec.Mat3x4
		if g%2 == 1 {
			m := randomTransform(rng)
			if g%4 == 3 {
				m = m.Mul(vec.Scale3x4(vec.V3(1, -1, 1))) // mirroring geometry transform flips facing
			}
			xf = &m
			geo.Triangles.Transform = xf
		}
		if g%3 != 0 {
			geo.Flags = 0 // non-opaque
		}
		tg := testGeom{flags: geo.Flags}
		for i := 0; i < n; i++ {
			var tri [3]vec.Vec3
			for k := range tri {
				tri[k] = pos[3*i+k]
				if xf != nil {
					tri[k] = xf.TransformPoint(tri[k])
				}
			}
			tg.tris = append(tg.tris, tri)
		}
		tb.geoms = append(tb.geoms, tg)
		geoms = append(geoms, geo)
	}
	b, err := accel.BuildBLAS(geoms, build)
	if err != nil {
		t.Fatal(err)
	}
	tb.blas = b
	return tb
}

func sphereBLAS(t testing.TB, rng *rand.Rand, build accel.BuildFlags) *testBLAS {
	tb := &testBLAS{}
	var geoms []accel.Geometry
	for g := 0; g < 2; g++ {
		var boxes []accel.AABB
		tg := testGeom{}
		for i := 0; i < 20; i++ {
			s := sphere{c: randVec(rng, 1), r: float32(0.05 + 0.2*rng.Float64())}
			tg.spheres = append(tg.spheres, s)
			boxes = append(boxes, s.box())
		}
		geo := accel.AABBGeometry(boxes)
		if g == 1 {
			geo.Flags = 0
		}
		tg.flags = geo.Flags
		tb.geoms = append(tb.geoms, tg)
		geoms = append(geoms, geo)
	}
	b, err := accel.BuildBLAS(geoms, build)
	if err != nil {
		t.Fatal(err)
	}
	tb.blas = b
	return tb
}

// randomScene: three triangle BLASes and one sphere BLAS, instanced with
// random (some mirrored) transforms, one-bit masks and every instance flag.
func randomScene(t testing.TB, seed uint64, procedural bool) *testScene {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := &testScene{}
	for m := 0; m < 3; m++ {
		s.blases = append(s.blases, triangleBLAS(t, rng, 1+m, accel.BuildAllowDataAccess))
	}
	if procedural {
		s.blases = append(s.blases, sphereBLAS(t, rng, 0))
	}
	instFlags := []accel.InstanceFlags{0, accel.InstanceTriangleFrontCounterClockwise, accel.InstanceTriangleCullDisable,
		accel.InstanceForceOpaque, accel.InstanceForceNonOpaque, 0}
	for i := 0; i < 18; i++ {
		xf := randomTransform(rng)
		if i%4 == 3 {
			xf = xf.Mul(vec.Scale3x4(vec.V3(-1, 1, 1))) // mirrored instance: facing must not change
		}
		src := s.blases[i%len(s.blases)]
		s.insts = append(s.insts, accel.Instance{Transform: xf, InstanceID: uint32(1000 + 7*i), InstanceMask: uint8(1 << (i % 8)),
			InstanceContributionToHitGroupIndex: uint32(i * 3), Flags: instFlags[i%len(instFlags)], BLAS: src.blas})
		s.src = append(s.src, src)
	}
	s.insts = append(s.insts, accel.Instance{Transform: vec.Identity3x4, InstanceMask: 0xff}) // inactive
	s.src = append(s.src, nil)
	tl, err := accel.BuildTLAS(s.insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.tlas = tl
	return s
}

// randomRay aims half of the rays at an instance so that most of them hit.
func (s *testScene) randomRay(rng *rand.Rand) accel.Ray {
	o := randVec(rng, 5)
	d := randVec(rng, 1)
	if rng.IntN(2) == 0 {
		in := s.insts[rng.IntN(len(s.insts))]
		target := vec.V3(in.Transform[0][3], in.Transform[1][3], in.Transform[2][3]).Add(randVec(rng, 1))
		d = target.Sub(o).Scale(float32(0.3 + rng.Float64()))
	}
	r := accel.Ray{Origin: o, Direction: d, TMin: 0, TMax: float32(math.Inf(1))}
	switch rng.IntN(6) {
	case 0:
		r.TMax = float32(rng.Float64() * 3)
	case 1:
		r.TMin = float32(rng.Float64() * 0.5)
	}
	return r
}

// ---- float64 oracle ----

type d3 [3]float64

func to64(v vec.Vec3) d3  { return d3{float64(v.X), float64(v.Y), float64(v.Z)} }
func sub(a, b d3) d3      { return d3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b d3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b d3) d3 {
	return d3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a d3) add(b d3) d3               { return d3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a d3) scale(s float64) d3        { return d3{a[0] * s, a[1] * s, a[2] * s} }
func affine(m *[3][4]float64, p d3) d3 { return linear(m, p).add(d3{m[0][3], m[1][3], m[2][3]}) }
func linear(m *[3][4]float64, v d3) d3 {
	return d3{m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2], m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2], m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2]}
}

// inverse64 inverts an affine transform in float64.
func inverse64(m vec.Mat3x4) [3][4]float64 {
	var a [3][3]float64
	for i := range 3 {
		for j := range 3 {
			a[i][j] = float64(m[i][j])
		}
	}
	det := a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	var inv [3][4]float64
	for i := range 3 {
		for j := range 3 {
			// cofactor of a[j][i]
			r0, r1 := (j+1)%3, (j+2)%3
			c0, c1 := (i+1)%3, (i+2)%3
			inv[i][j] = (a[r0][c0]*a[r1][c1] - a[r0][c1]*a[r1][c0]) / det
		}
	}
	t := d3{float64(m[0][3]), float64(m[1][3]), float64(m[2][3])}
	lt := linear(&inv, t)
	for i := range 3 {
		inv[i][3] = -lt[i]
	}
	return inv
}

// oracleHit is one intersection found by the oracle.
type oracleHit struct {
	t                float64
	inst, geom, prim uint32
	u, v             float64
	front            bool
	opaque           bool
	procedural       bool
	sure             bool // far enough from every edge, tangent and interval end to be decided in float32 the same way
}

// oracleQuery describes a query for the oracle: effective flags, mask and
// the caller's any-hit decision for non-opaque candidates.
type oracleQuery struct {
	flags  accel.RayFlags
	mask   uint32
	accept func(h *oracleHit) bool // nil: accept everything
	// noProcedural: the loop ignores procedural candidates (as
	// TLAS.Intersect does).
	noProcedural bool
}

// hits returns every hit that the query would accept, unsorted.
func (s *testScene) hits(r accel.Ray, q oracleQuery) []oracleHit {
	var out []oracleHit
	tmin, tmax := float64(r.TMin), float64(r.TMax)
	for ii, in := range s.insts {
		src := s.src[ii]
		if src == nil || uint32(in.InstanceMask)&q.mask&0xff == 0 {
			continue
		}
		inv := inverse64(in.Transform)
		o, d := affine(&inv, to64(r.Origin)), linear(&inv, to64(r.Direction))
		for g, geo := range src.geoms {
			op := geo.flags&accel.GeometryOpaque != 0
			if in.Flags&accel.InstanceForceOpaque != 0 {
				op = true
			} else if in.Flags&accel.InstanceForceNonOpaque != 0 {
				op = false
			}
			if q.flags&accel.RayFlagForceOpaque != 0 {
				op = true
			} else if q.flags&accel.RayFlagForceNonOpaque != 0 {
				op = false
			}
			if op && q.flags&accel.RayFlagCullOpaque != 0 || !op && q.flags&accel.RayFlagCullNonOpaque != 0 {
				continue
			}
			if len(geo.tris) > 0 && q.flags&accel.RayFlagSkipTriangles != 0 {
				continue
			}
			if len(geo.spheres) > 0 && (q.flags&accel.RayFlagSkipProceduralPrimitives != 0 || q.noProcedural) {
				continue
			}
			for p, tri := range geo.tris {
				h, ok := intersectTriangle(o, d, tri, tmin, tmax)
				if !ok {
					continue
				}
				if in.Flags&accel.InstanceTriangleFrontCounterClockwise != 0 {
					h.front = !h.front
				}
				cull := in.Flags&accel.InstanceTriangleCullDisable == 0
				if cull && (h.front && q.flags&accel.RayFlagCullFrontFacingTriangles != 0 || !h.front && q.flags&accel.RayFlagCullBackFacingTriangles != 0) {
					continue
				}
				h.inst, h.geom, h.prim, h.opaque = uint32(ii), uint32(g), uint32(p), op
				if !op && q.accept != nil && !q.accept(&h) {
					continue
				}
				out = append(out, h)
			}
			for p, sp := range geo.spheres {
				h, ok := intersectSphere(o, d, sp, tmin, tmax)
				if !ok {
					continue
				}
				h.inst, h.geom, h.prim, h.opaque, h.procedural = uint32(ii), uint32(g), uint32(p), op, true
				if !op && q.accept != nil && !q.accept(&h) {
					continue
				}
				out = append(out, h)
			}
		}
	}
	return out
}

// closest returns the oracle's closest hit and whether it is decided:
// false when a hit that float32 might see differently (near an edge, a
// tangent or an interval end) or a second hit at nearly the same t
// competes with it.
func closest(hs []oracleHit) (best oracleHit, found, decided bool) {
	best.t = math.Inf(1)
	for _, h := range hs {
		if h.t < best.t {
			best, found = h, true
		}
	}
	if !found {
		for _, h := range hs {
			if !h.sure {
				return best, false, false
			}
		}
		return best, false, true
	}
	tol := 1e-4*math.Abs(best.t) + 1e-6
	for _, h := range hs {
		if h.t <= best.t+tol && (!h.sure || h != best) {
			return best, true, false
		}
	}
	return best, true, true
}

const edgeEps = 1e-5

// intersectTriangle is Möller–Trumbore in float64, reporting hits that are
// only nearly inside (or nearly in range) as not sure.
func intersectTriangle(o, d d3, tri [3]vec.Vec3, tmin, tmax float64) (oracleHit, bool) {
	v0, v1, v2 := to64(tri[0]), to64(tri[1]), to64(tri[2])
	e1, e2 := sub(v1, v0), sub(v2, v0)
	p := cross(d, e2)
	det := dot(e1, p)
	if det == 0 {
		return oracleHit{}, false
	}
	s := sub(o, v0)
	u := dot(s, p) / det
	qv := cross(s, e1)
	v := dot(d, qv) / det
	t := dot(e2, qv) / det
	w := 1 - u - v
	if u < -edgeEps || v < -edgeEps || w < -edgeEps {
		return oracleHit{}, false
	}
	tol := 1e-5 * (math.Abs(t) + 1)
	if t <= tmin-tol || t >= tmax+tol {
		return oracleHit{}, false
	}
	sure := u > edgeEps && v > edgeEps && w > edgeEps && t > tmin+tol && t < tmax-tol
	// Front facing: clockwise seen from the ray origin (left-handed), that
	// is, the geometric normal e1 x e2 points against the ray.
	front := dot(cross(e1, e2), d) < 0
	return oracleHit{t: t, u: u, v: v, front: front, sure: sure}, true
}

// intersectSphere returns the first root of the sphere at or after tmin.
func intersectSphere(o, d d3, sp sphere, tmin, tmax float64) (oracleHit, bool) {
	t0, t1, ok := sphereRoots(o, d, to64(sp.c), float64(sp.r))
	if !ok {
		return oracleHit{}, false
	}
	t := t0
	if t < tmin {
		t = t1
	}
	tol := 1e-5 * (math.Abs(t) + 1)
	if t < tmin-tol || t > tmax+tol {
		return oracleHit{}, false
	}
	sure := t > tmin+tol && t < tmax-tol && t1-t0 > 1e-3*(math.Abs(t)+1)
	return oracleHit{t: t, sure: sure}, true
}

func sphereRoots(o, d, c d3, r float64) (t0, t1 float64, ok bool) {
	oc := sub(o, c)
	a := dot(d, d)
	b := dot(oc, d)
	cc := dot(oc, oc) - r*r
	disc := b*b - a*cc
	if disc < 0 || a == 0 {
		return 0, 0, false
	}
	sq := math.Sqrt(disc)
	return (-b - sq) / a, (-b + sq) / a, true
}
