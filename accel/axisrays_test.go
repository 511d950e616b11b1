package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// axisRays returns rays along the six axis directions (and, every third
// ray, with a second component of zero only, a diagonal in an axis plane)
// from random origins in pos's box, grown by a quarter, and from origins
// whose two other coordinates are a vertex's, which lie on the planes of
// the boxes around it (a NaN slab distance: zero times an infinite
// inverse) and on the mesh's edges. TMax is infinite or, every fifth ray,
// random; TMin 0 or, every seventh, random.
func axisRays(rng *rand.Rand, pos []vec.Vec3, n int) []Ray {
	lo, hi := pos[0], pos[0]
	for _, p := range pos {
		lo, hi = lo.Min(p), hi.Max(p)
	}
	ext := hi.Sub(lo)
	rays := make([]Ray, n)
	for i := range rays {
		axis := rng.IntN(3)
		var d [3]float32
		d[axis] = float32(1 - 2*rng.IntN(2))
		if i%3 == 0 {
			d[(axis+1)%3] = float32(rng.Float64()*2 - 1)
		}
		o := vec.V3(lo.X+ext.X*float32(rng.Float64()*1.5-0.25), lo.Y+ext.Y*float32(rng.Float64()*1.5-0.25), lo.Z+ext.Z*float32(rng.Float64()*1.5-0.25))
		if i%2 == 0 { // on a vertex's planes
			v := pos[rng.IntN(len(pos))]
			c := [3]*float32{&o.X, &o.Y, &o.Z}
			vc := [3]float32{v.X, v.Y, v.Z}
			for k := range 3 {
				if k != axis {
					*c[k] = vc[k]
				}
			}
		}
		r := Ray{Origin: o, Direction: vec.V3(d[0], d[1], d[2]), TMax: float32(math.Inf(1))}
		if i%5 == 0 {
			r.TMax = float32(rng.Float64()) * ext.Len()
		}
		if i%7 == 0 {
			r.TMin = float32(rng.Float64()) * min(r.TMax, ext.Len())
		}
		rays[i] = r
	}
	return rays
}

// TestAxisAlignedRaysMatchBruteForceOracle traces rays along the axes
// (a height query straight down, a scanline along x), whose inverse
// directions have infinite components and whose slab distances are NaN
// where an origin lies on a box's plane, through BLAS.Intersect, Occluded
// and the first-hit walk, and checks them against the brute-force oracle:
// the closest hit bit for bit, occlusion and first hits over the ray's
// open interval (tMin, tMax), as the spec's triangle rule has it. Where
// the assembly queries run, the rays off the mesh's vertex planes must
// be answered there (by the NaN walks), not left to Go.
func TestAxisAlignedRaysMatchBruteForceOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	tp, ti := meshgen.Terrain(3000, 3)
	sp, si := meshgen.Soup(3000, 3)
	for _, sc := range []struct {
		name string
		pos  []vec.Vec3
		idx  []uint32
	}{{"terrain", tp, ti}, {"soup", sp, si}} {
		b := mustBLAS(t, []Geometry{TriangleGeometry(sc.pos, sc.idx)}, 0)
		insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}
		rays := axisRays(rng, sc.pos, 4000)
		hits, inAsm, ties := 0, 0, 0
		for i, r := range rays {
			want, wok := bruteClosest(insts, r, 0xff)
			got, gok := b.Intersect(r, 0)
			if wok && gok && got.T == want.T && got.PrimitiveIndex != want.PrimitiveIndex {
				// A tie: a ray through a vertex or along an edge that several
				// triangles share where they overlap in its projection (the
				// terrain seen from the side). The walk's order picks one;
				// it must hit there too.
				want, wok = bruteTriangle(b, got.PrimitiveIndex, r)
				ties++
			}
			if wok != gok || wok && (got.T != want.T || got.PrimitiveIndex != want.PrimitiveIndex || got.U != want.U || got.V != want.V) {
				t.Fatalf("%s ray %d %+v: Intersect %v %+v, oracle %v %+v", sc.name, i, r, gok, got, wok, want)
			}
			if occ := b.Occluded(r, 0); occ != wok {
				t.Fatalf("%s ray %d %+v: Occluded %v, oracle hit %v", sc.name, i, r, occ, wok)
			}
			first, fok := b.Intersect(r, RayFlagAcceptFirstHitAndEndSearch)
			if fok != wok || fok && !(first.T > r.TMin && first.T < r.TMax) {
				t.Fatalf("%s ray %d %+v: first hit %v %+v, oracle hit %v", sc.name, i, r, fok, first, wok)
			}
			if wok {
				hits++
			}
			if i%2 == 1 && b.queriesInAsm() {
				for mode := rayClosest; mode <= rayOcclude; mode++ {
					var h fastHit
					if s := b.rayAVX2(&r, mode, &h); s == rayGoMust {
						t.Errorf("%s ray %d %+v mode %d: left to Go", sc.name, i, r, mode)
					}
				}
				inAsm++
			}
		}
		if hits < 500 || hits > len(rays)-500 {
			t.Errorf("%s: %d of %d rays hit: too few hits or misses to compare", sc.name, hits, len(rays))
		}
		t.Logf("%s: %d of %d rays hit (%d ties); %d checked in assembly", sc.name, hits, len(rays), ties, inAsm)
	}
}

// bruteTriangle is bruteClosest for the one triangle prim of b's only
// geometry.
func bruteTriangle(b *BLAS, prim uint32, r Ray) (Hit, bool) {
	var w watertightRay
	w.setup(r.Origin, r.Direction)
	for s := range b.tris {
		if b.primIndex[s] != prim {
			continue
		}
		if t, u, v, _, ok := w.intersect(&b.tris[s], r.TMin, r.TMax); ok {
			return Hit{Kind: KindTriangle, T: t, U: u, V: v, PrimitiveIndex: prim}, true
		}
	}
	return Hit{}, false
}
