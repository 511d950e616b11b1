package accel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// reviewRays are rays over a scene of extent about s, with the awkward
// cases mixed in: short and empty intervals, TMin == TMax, zero and
// negative-zero direction components, far-away origins, negative and
// infinite TMin.
func reviewRays(rng *rand.Rand, n int, s float32) []Ray {
	inf := float32(math.Inf(1))
	nz := float32(math.Copysign(0, -1))
	rays := make([]Ray, n)
	for i := range rays {
		r := Ray{Origin: randVec(rng, s), Direction: randVec(rng, 1), TMax: inf}
		switch i % 13 {
		case 1:
			r.TMax = float32(rng.Float64()) * 2 * s
		case 2:
			r.TMin = float32(rng.Float64()) * s
			r.TMax = r.TMin // empty open interval
		case 3:
			r.Direction.X = nz
		case 4:
			r.Direction = vec.V3(nz, nz, r.Direction.Z)
		case 5:
			r.Direction = vec.V3(0, r.Direction.Y, nz)
		case 6:
			r.Origin = r.Origin.Sub(r.Direction.Scale(1e6)) // far away
		case 7:
			r.TMin = float32(rng.Float64()) * s
		case 8:
			r.TMin = -inf // hits behind the origin count too
		case 9:
			r.TMin, r.TMax = -s, s
		case 10:
			r.TMin, r.TMax = -inf, -inf
		}
		rays[i] = r
	}
	return rays
}

// checkRows checks that b's leaf rows are exactly what leafRows derives
// from its nodes and triangles (or nil without the vector walks).
func checkRows(t *testing.T, name string, b *BLAS) {
	t.Helper()
	want := b.leafRows()
	if len(want) != len(b.rows) {
		t.Fatalf("%s: %d rows, want %d", name, len(b.rows), len(want))
	}
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(b.rows[i]) && !(want[i] != want[i] && b.rows[i] != b.rows[i]) {
			t.Fatalf("%s: row value %d is %g, want %g", name, i, b.rows[i], want[i])
		}
	}
}

// checkBLASAgainstTraversal checks b's plain queries against the
// Traversal state machine (which reads tris, never the rows) and its batch
// queries against the plain ones.
func checkBLASAgainstTraversal(t *testing.T, name string, b *BLAS, rays []Ray) (hits int) {
	t.Helper()
	for i, r := range rays {
		for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
			want, wok := traverseClosest(nil, b, r, flags, 0)
			got, gok := b.Intersect(r, flags)
			if wok != gok || got != want {
				t.Fatalf("%s ray %d %+v flags %v: Intersect %v %+v, traversal %v %+v", name, i, r, flags, gok, got, wok, want)
			}
			if flags == 0 && gok {
				hits++
			}
		}
		_, wok := traverseClosest(nil, b, r, RayFlagAcceptFirstHitAndEndSearch, 0)
		if occ := b.Occluded(r, 0); occ != wok {
			t.Fatalf("%s ray %d %+v: Occluded %v, traversal %v", name, i, r, occ, wok)
		}
	}
	defer func(v, l int) { batchMinBytes, batchStackLimit = v, l }(batchMinBytes, batchStackLimit)
	batchMinBytes = 0
	for _, limit := range []int{defaultBatchStackLimit, 4} {
		batchStackLimit = limit
		for _, flags := range []RayFlags{0, RayFlagAcceptFirstHitAndEndSearch} {
			hs := make([]Hit, len(rays))
			fs := make([]bool, len(rays))
			occ := make([]bool, len(rays))
			if err := b.IntersectBatch(rays, flags, hs, fs); err != nil {
				t.Fatal(err)
			}
			if err := b.OccludedBatch(rays, flags, occ); err != nil {
				t.Fatal(err)
			}
			for i, r := range rays {
				h, ok := b.Intersect(r, flags)
				if ok != fs[i] || h != hs[i] {
					t.Fatalf("%s limit %d flags %v ray %d %+v: batch %v %+v, alone %v %+v", name, limit, flags, i, r, fs[i], hs[i], ok, h)
				}
				if o := b.Occluded(r, flags); o != occ[i] {
					t.Fatalf("%s limit %d ray %d: batch occluded %v, alone %v", name, limit, i, occ[i], o)
				}
			}
		}
	}
	return hits
}

// TestReviewCopiesAndUpdatesTraceAlike traces every way of getting a BLAS
// (build, Clone, Compact, Serialize+Deserialize, Update and UpdateInto,
// with triangles turning inactive and active again) with the plain and the batch queries,
// against the Traversal, and checks that each keeps correct leaf rows.
func TestReviewCopiesAndUpdatesTraceAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, flags := range []BuildFlags{BuildAllowUpdate | BuildAllowCompaction, BuildAllowUpdate | BuildPreferFastBuild | BuildAllowCompaction, BuildAllowUpdate | BuildMinimizeMemory | BuildAllowCompaction} {
		pos, idx := randomSoup(rng, 1500, 0.3)
		idx = append(idx, idx[:300]...) // some ties
		g := TriangleGeometry(pos, idx)
		b := mustBLAS(t, []Geometry{g}, flags)
		rays := reviewRays(rng, 1500, 1.5)

		variants := map[string]*BLAS{"built": b, "clone": b.Clone()}
		c, err := b.Compact()
		if err != nil {
			t.Fatal(err)
		}
		variants["compact"] = c
		d, err := DeserializeBLAS(b.Serialize())
		if err != nil {
			t.Fatal(err)
		}
		variants["deserialized"] = d

		// Move the vertices and make every fifth triangle inactive.
		moved := slices.Clone(pos)
		for i := range moved {
			moved[i] = moved[i].Add(randVec(rng, 0.05))
		}
		for p := 0; p < len(idx)/3; p += 5 {
			moved[idx[3*p]] = vec.V3(nanF(), 0, 0)
		}
		mg := TriangleGeometry(moved, idx)
		into, err := b.UpdateInto([]Geometry{mg})
		if err != nil {
			t.Fatal(err)
		}
		variants["updateInto"] = into
		upd := b.Clone()
		if err := upd.Update([]Geometry{mg}); err != nil {
			t.Fatal(err)
		}
		variants["update"] = upd
		// Copies of an updated structure.
		variants["update+clone"] = upd.Clone()
		uc, err := upd.Compact()
		if err != nil {
			t.Fatal(err)
		}
		variants["update+compact"] = uc
		ud, err := DeserializeBLAS(upd.Serialize())
		if err != nil {
			t.Fatal(err)
		}
		variants["update+deserialized"] = ud
		// The inactive triangles active again.
		react := upd.Clone()
		if err := react.Update([]Geometry{g}); err != nil {
			t.Fatal(err)
		}
		variants["reactivated"] = react
		// Every triangle inactive: an empty tree over inactive slots.
		dead := slices.Clone(pos)
		for i := range dead {
			dead[i] = vec.V3(nanF(), nanF(), nanF())
		}
		allDead := b.Clone()
		if err := allDead.Update([]Geometry{TriangleGeometry(dead, idx)}); err != nil {
			t.Fatal(err)
		}
		variants["all inactive"] = allDead

		for _, name := range []string{"built", "clone", "compact", "deserialized", "updateInto", "update", "update+clone", "update+compact", "update+deserialized", "reactivated", "all inactive"} {
			v := variants[name]
			checkRows(t, name, v)
			h := checkBLASAgainstTraversal(t, name, v, rays)
			if name != "all inactive" && h < 200 {
				t.Fatalf("%s: only %d hits", name, h)
			}
			if name == "all inactive" && h != 0 {
				t.Fatalf("%s: %d hits", name, h)
			}
		}
	}
}

// TestReviewFullLeafAtTheEnd traces BLASes whose leaves are all full (8
// triangles), the last one at the end of the rows, and small BLASes of 1
// to 9 triangles (a single root leaf), with rays through every triangle.
func TestReviewFullLeafAtTheEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	for n := 1; n <= 17; n++ {
		// n stacks of 8 coincident-ish triangles far apart: leaves of 8.
		var pos []vec.Vec3
		for k := 0; k < n; k++ {
			c := vec.V3(float32(10*k), 0, 0)
			for j := 0; j < 8; j++ {
				z := float32(j) * 0.01
				pos = append(pos, c.Add(vec.V3(-1, -1, z)), c.Add(vec.V3(1, -1, z)), c.Add(vec.V3(0, 1, z)))
			}
		}
		b := mustBLAS(t, []Geometry{TriangleGeometry(pos, nil)}, 0)
		checkRows(t, "stacks", b)
		var rays []Ray
		for k := 0; k < n; k++ {
			for i := 0; i < 40; i++ {
				o := vec.V3(float32(10*k), 0, 5).Add(randVec(rng, 1))
				tgt := vec.V3(float32(10*k), 0, 0).Add(randVec(rng, 0.9))
				tgt.Z = 0
				rays = append(rays, Ray{Origin: o, Direction: tgt.Sub(o), TMax: float32(math.Inf(1))})
			}
		}
		if h := checkBLASAgainstTraversal(t, "stacks", b, rays); h < len(rays)/3 {
			t.Fatalf("n %d: only %d hits", n, h)
		}
	}
	for n := 1; n <= 9; n++ {
		pos, _ := randomSoup(rng, n, 0.8)
		b := mustBLAS(t, []Geometry{TriangleGeometry(pos, nil)}, 0)
		checkRows(t, "small", b)
		var rays []Ray
		for i := 0; i < 300; i++ {
			tv := pos[3*(i%n) : 3*(i%n)+3]
			p := tv[0].Add(tv[1]).Add(tv[2]).Scale(1.0 / 3)
			o := randVec(rng, 2)
			rays = append(rays, Ray{Origin: o, Direction: p.Sub(o), TMax: float32(math.Inf(1))})
		}
		rays = append(rays, reviewRays(rng, 200, 1)...)
		checkBLASAgainstTraversal(t, "small", b, rays)
	}
}

// TestReviewHugeCoordinates traces triangles and rays near the float32
// range, where the watertight test's edge functions and t overflow.
func TestReviewHugeCoordinates(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	for _, s := range []float32{1e18, 1e30, 1e36, 1e38} {
		pos, _ := randomSoup(rng, 400, 0.4)
		for i := range pos {
			pos[i] = pos[i].Scale(s)
		}
		b := mustBLAS(t, []Geometry{TriangleGeometry(pos, nil)}, 0)
		rays := reviewRays(rng, 600, s)
		for i := range rays {
			if i%2 == 0 {
				rays[i].Direction = rays[i].Direction.Scale(s)
			}
			if i%3 == 0 {
				rays[i].Direction = rays[i].Direction.Scale(1e-30)
			}
		}
		checkBLASAgainstTraversal(t, "huge", b, rays)
	}
}
