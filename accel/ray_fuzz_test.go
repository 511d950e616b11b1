package accel

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// FuzzRayQueries casts fuzzed rays (any bits in origin, direction, tMin
// and tMax: NaN, infinities, huge and tiny values, a zero direction) at a
// terrain and a soup, through Intersect, IntersectTo, Occluded and
// IntersectBatch: none panics and the four agree on every ray. Where the
// ray's numbers keep the walks' arithmetic within float32's range (every
// component of the origin, the direction's longest component, TMin and a
// finite TMax zero or of a magnitude in [2^-40, 2^40]; the direction's
// other components as small as they come; the meshes lie within 2 of the
// origin) and TMin >= 0, they also answer as the brute-force oracle (every
// triangle with the watertight test) does, up to the triangle test's own
// rounding as closestAsOracle allows it (two hits within their t errors
// may come either way; a miss where the oracle's hit is one only by
// rounding); so does Occluded. Outside that, the fuzzer found two ways
// the walks and the oracle part (docs/performance.md): a negative TMin
// (Vulkan requires TMin >= 0; the node tests widen a box's far distance by
// a factor above 1, which narrows it where the distance is negative), and
// a hit only by the triangle test's rounding that closestAsOracle's float64
// box check cannot tell (a direction of 1e34 along y from an origin on a
// triangle's highest z, z moving at 1.5e-19: the ray leaves the box at
// t = 0 exactly, and meets the triangle's plane at t = 7e-36, 1e-54 past
// that z, which the test's shear rounds away). (A third, a subnormal
// direction component, is fixed: inverse, TestRaySubnormalDirectionComponent.)
func FuzzRayQueries(f *testing.F) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 24 {
		seed := make([]byte, 32)
		o, d := randVec(rng, 3), randVec(rng, 1)
		for k, x := range []float32{o.X, o.Y, o.Z, 0, d.X, d.Y, d.Z, float32(math.Inf(1))} {
			binary.LittleEndian.PutUint32(seed[4*k:], math.Float32bits(x))
		}
		f.Add(seed)
	}
	blases := rayFuzzBLASes(f)
	// Each mesh again with non-opaque triangles: a Traversal that commits
	// every candidate (any hit shaders that accept, a RayQuery's loop)
	// must answer as the plain queries over the opaque mesh do.
	var cands []*BLAS
	for _, g := range rayFuzzGeometries() {
		g.Flags = 0
		cands = append(cands, mustBLAS(f, []Geometry{g}, BuildPreferFastTrace))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 32 {
			return
		}
		var tr Traversal
		v := func(k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(data[4*k:])) }
		r := Ray{Origin: vec.V3(v(0), v(1), v(2)), TMin: v(3), Direction: vec.V3(v(4), v(5), v(6)), TMax: v(7)}
		tame := func(xs ...float32) bool {
			for _, x := range xs {
				if a := abs32(x); x != 0 && !(a >= 0x1p-40 && a <= 0x1p40) {
					return false
				}
			}
			return true
		}
		o, d := r.Origin, r.Direction
		longest := max(abs32(d.X), abs32(d.Y), abs32(d.Z)) // the others may be as small as they like
		compare := tame(o.X, o.Y, o.Z, longest, r.TMin) && r.TMin >= 0 && (math.IsInf(float64(r.TMax), 1) || tame(r.TMax))
		for bi, b := range blases {
			insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}
			want, wok := bruteClosest(insts, r, 0xff)
			got, gok := b.Intersect(r, 0)
			var to Hit
			tok := b.IntersectTo(&r, 0, &to)
			occ := b.Occluded(r, 0)
			hits, found := make([]Hit, 1), make([]bool, 1)
			if err := b.IntersectBatch([]Ray{r}, 0, hits, found); err != nil {
				t.Fatal(err)
			}
			if tok != gok || to != got || found[0] != gok || hits[0] != got {
				t.Fatalf("blas %d ray %+v: Intersect %v %+v, IntersectTo %v %+v, batch %v %+v", bi, r, gok, got, tok, to, found[0], hits[0])
			}
			for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
				tr.BeginBLAS(cands[bi], r, flags)
				for tr.Next() {
					tr.Commit()
				}
				th, tok := *tr.Committed(), tr.Committed().Kind != KindNone
				ph, pok := b.Intersect(r, flags)
				if tok != pok || tok && (th.T != ph.T || th.PrimitiveIndex != ph.PrimitiveIndex || th.U != ph.U || th.V != ph.V || th.FrontFace != ph.FrontFace) {
					t.Fatalf("blas %d ray %+v flags %#x: Traversal committing every candidate %v %+v, Intersect %v %+v", bi, r, flags, tok, th, pok, ph)
				}
				if flags != 0 && pok != occ {
					t.Fatalf("blas %d ray %+v: first hit %v, Occluded %v", bi, r, pok, occ)
				}
			}
			if !compare {
				continue
			}
			closestAsOracle(t, b, b, []Ray{r})
			if wok != occ {
				missedByRounding := wok && (float64(want.T)+tError(b, r, want) >= float64(r.TMax) || !meetsBox64(r, hitBox(b, want)))
				if !missedByRounding {
					t.Fatalf("blas %d ray %+v: Occluded %v, oracle %v %+v", bi, r, occ, wok, want)
				}
			}
		}
	})
}

// rayFuzzBLASes returns FuzzRayQueries' meshes: a terrain and a soup.
func rayFuzzBLASes(t testing.TB) []*BLAS {
	var blases []*BLAS
	for _, g := range rayFuzzGeometries() {
		blases = append(blases, mustBLAS(t, []Geometry{g}, BuildPreferFastTrace))
	}
	return blases
}

// rayFuzzGeometries returns the geometries of rayFuzzBLASes' meshes.
func rayFuzzGeometries() []Geometry {
	rng := rand.New(rand.NewPCG(23, 24))
	tpos, tidx := meshgen.Terrain(2000, 3)
	spos, sidx := randomSoup(rng, 1500, 0.2)
	return []Geometry{TriangleGeometry(tpos, tidx), TriangleGeometry(spos, sidx)}
}

// FuzzRayQueries' ray of 2026-11-29 through its terrain: from a point on
// the plane z = 0.6875 of a leaf box's top (and of the grid line the
// terrain's triangles share an edge along), nearly straight down y (-3e9),
// with a z component of 4.4e-39: its shear z/y rounds to zero, so the
// triangle test ran the ray along the plane and gave it by the top-left
// rule to primitive 1697 below, at t = 3.9e-12 over (2.5e-12, 6.4e-10),
// while the slab test took the true slope, had the ray leave 1697's box at
// t = 0 and culled it: the ray fell through the edge. The slab tests now
// take such a component as zero too (unshearable).
func TestRayUnshearableComponent(t *testing.T) {
	r := Ray{Origin: vec.V3(7.864882e-10, 6.40969e-10, 0.6875), TMin: 2.5037854e-12,
		Direction: vec.V3(6.40969e-10, -2.955948e9, 4.4253902e-39), TMax: 6.40969e-10}
	b := rayFuzzBLASes(t)[0]
	closestAsOracle(t, b, b, []Ray{r})
	if h, ok := b.Intersect(r, 0); !ok || h.PrimitiveIndex != 1697 || !b.Occluded(r, 0) {
		t.Fatalf("Intersect %v %+v, Occluded %v: want primitive 1697 hit", ok, h, b.Occluded(r, 0))
	}
}

// A direction component that is not zero but subnormal has an inverse
// that overflows; the walks used to take the ray for one parallel to that
// axis and cull the boxes it crosses far away (inverse). The ray
// FuzzRayQueries found: z of 1.7e-41 from an origin 5e-37 below z = 0,
// which the ray crosses at t = 3e4, and a hit at t = 1.1e8.
func TestRaySubnormalDirectionComponent(t *testing.T) {
	r := Ray{Origin: vec.V3(6.4096906e-10, 6.4096906e-10, -5.177707e-37), TMin: 6.4096906e-10,
		Direction: vec.V3(6.4096906e-10, 6.4096906e-10, 1.7286e-41), TMax: 7.7488404e+14}
	hits := 0
	for _, b := range rayFuzzBLASes(t) {
		closestAsOracle(t, b, b, []Ray{r})
		if _, ok := b.Intersect(r, 0); ok {
			hits++
		}
		for _, flip := range []float32{1, -1} { // and a subnormal x, either sign
			q := r
			q.Direction.X *= flip * 1e-32
			closestAsOracle(t, b, b, []Ray{q})
		}
	}
	if hits == 0 {
		t.Fatal("the ray hits neither mesh: the case tests nothing")
	}
}

// maxFiniteInverse is the largest float32 whose product with robustScale
// is finite.
func TestMaxFiniteInverseIsTheLast(t *testing.T) {
	c := float32(maxFiniteInverse)
	if far := c * robustScale; far > math.MaxFloat32 {
		t.Fatalf("maxFiniteInverse %g times robustScale is %g", c, far)
	}
	if far := math.Nextafter32(c, float32(math.Inf(1))) * robustScale; far <= math.MaxFloat32 {
		t.Fatalf("the float after maxFiniteInverse times robustScale is %g, still finite", far)
	}
}

// An instance scaled by 3e38 places a world ray's direction in object
// space with every component subnormal: the top level's walks find the
// instance's hits as the oracle does (they culled them before inverse).
func TestTopLevelSubnormalPlacedDirections(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pos, idx := randomSoup(rng, 30, 0.5)
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	var insts []Instance
	for i := range 9 {
		m := randomRotation(rng)
		if i == 4 {
			m = vec.Mat3x4{{3e38, 0, 0, 0}, {0, 3e38, 0, 0}, {0, 0, 3e38, 0}}
		}
		insts = append(insts, Instance{Transform: m, InstanceMask: 0xff, BLAS: b})
	}
	tl, err := BuildTLAS(insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rays hit the scaled instance", oracleHitting(t, tl, insts, rng, 4))
}
