package accel

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// slivers returns n triangles: small ones spread over a cube, and one in
// fifty a long thin one lying across it, as in CAD meshes: the case spatial
// splits are for (an object split leaves two children as large as the
// cube).
func slivers(rng *rand.Rand, n int) []vec.Vec3 {
	pos := make([]vec.Vec3, 0, 3*n)
	for i := range n {
		c := randVec(rng, 1)
		if i%50 != 0 {
			pos = append(pos, c, c.Add(randVec(rng, 0.02)), c.Add(randVec(rng, 0.02)))
			continue
		}
		d := randVec(rng, 1).Normalize().Scale(float32(1.5 + 0.5*rng.Float64()))
		e := d.Cross(randVec(rng, 1)).Normalize().Scale(float32(0.002 + 0.01*rng.Float64()))
		pos = append(pos, c.Sub(d), c.Add(d), c.Add(e))
	}
	return pos
}

// sliverBLAS builds sbvhMin+ slivers as one geometry with the given flags.
func sliverBLAS(t testing.TB, seed uint64, gflags GeometryFlags, flags BuildFlags) (*BLAS, []vec.Vec3) {
	t.Helper()
	pos := slivers(rand.New(rand.NewPCG(seed, 1)), sbvhMin+sbvhMin/4)
	g := TriangleGeometry(pos, nil)
	g.Flags = gflags
	return mustBLAS(t, []Geometry{g}, flags), pos
}

// raysAtTriangles returns rays from random origins aimed at points inside
// random triangles of pos, where fragments' boxes must not lose them, and
// random rays.
func raysAtTriangles(rng *rand.Rand, pos []vec.Vec3, n int) []Ray {
	rays := randRays(rng, n/2, 2)
	for range n - n/2 {
		k := 3 * rng.IntN(len(pos)/3)
		u, v := float32(0.05+0.4*rng.Float64()), float32(0.05+0.4*rng.Float64())
		p := pos[k].Scale(1 - u - v).Add(pos[k+1].Scale(u)).Add(pos[k+2].Scale(v))
		o := randVec(rng, 3)
		rays = append(rays, Ray{Origin: o, Direction: p.Sub(o), TMax: float32(math.Inf(1))})
	}
	return rays
}

func TestSpatialSplitsMatchBruteForceOracle(t *testing.T) {
	b, pos := sliverBLAS(t, 1, GeometryOpaque, BuildPreferFastTrace)
	s := b.TreeStats()
	if s.References <= s.Primitives || s.Primitives != len(pos)/3 || b.ActivePrimitives() != len(pos)/3 {
		t.Fatalf("tree stats %+v, %d active: want more references than the %d primitives (spatial splits)", s, b.ActivePrimitives(), len(pos)/3)
	}
	if err := b.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	rays := raysAtTriangles(rand.New(rand.NewPCG(2, 2)), pos, raceRays(3000))
	if hits := oracleBLAS(t, b, rays); hits < len(rays)/2 {
		t.Fatalf("only %d of %d rays hit", hits, len(rays))
	}
	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}
	hits := make([]Hit, len(rays))
	found := make([]bool, len(rays))
	occluded := make([]bool, len(rays))
	if err := b.IntersectBatch(rays, 0, hits, found); err != nil {
		t.Fatal(err)
	}
	if err := b.OccludedBatch(rays, 0, occluded); err != nil {
		t.Fatal(err)
	}
	for i, r := range rays {
		want, wok := bruteClosest(insts, r, 0xff)
		if got := b.Occluded(r, 0); got != wok || occluded[i] != wok {
			t.Fatalf("ray %d: occluded %v, batch %v, oracle hit %v", i, got, occluded[i], wok)
		}
		if found[i] != wok || wok && (hits[i].T != want.T || hits[i].PrimitiveIndex != want.PrimitiveIndex) {
			t.Fatalf("ray %d: batch %v %v, oracle %v %v", i, found[i], hits[i].T, wok, want.T)
		}
		// Forced non-opaque, a triangle in several leaves may be a
		// candidate more than once (the spec allows it without
		// NO_DUPLICATE_ANYHIT_INVOCATION); committing every candidate
		// still ends with the closest.
		keys := traceBLAS(b, r, RayFlagForceNonOpaque)
		last := keys[len(keys)-1]
		if (last.Kind != KindNone) != wok || wok && (last.T != want.T || last.Prim != want.PrimitiveIndex) {
			t.Fatalf("ray %d: committing every candidate gives %+v, oracle %v %+v", i, last, wok, want)
		}
	}
}

// TestSpatialSplitLeavesHoldEachPrimitiveOnce checks that every primitive
// has a slot, that no leaf holds one twice (the fragments a leaf got of
// one triangle are merged), and that every slot of a triangle holds it
// whole.
func TestSpatialSplitLeavesHoldEachPrimitiveOnce(t *testing.T) {
	b, pos := sliverBLAS(t, 3, GeometryOpaque, BuildPreferFastTrace)
	seen := make([]int, len(pos)/3)
	for _, n := range b.nodes {
		if !n.isLeaf() {
			continue
		}
		ids := slices.Clone(b.primIndex[n.first : n.first+n.count])
		slices.Sort(ids)
		if len(slices.Compact(ids)) != int(n.count) {
			t.Fatalf("leaf [%d, +%d) holds a primitive twice: %v", n.first, n.count, b.primIndex[n.first:n.first+n.count])
		}
	}
	for s, p := range b.primIndex {
		seen[p]++
		if want := (triVerts{pos[3*p], pos[3*p+1], pos[3*p+2]}); b.tris[s] != want {
			t.Fatalf("slot %d: triangle %v, primitive %d is %v", s, b.tris[s], p, want)
		}
	}
	multi := 0
	for p, k := range seen {
		if k == 0 {
			t.Fatalf("primitive %d has no slot", p)
		}
		if k > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no triangle was split")
	}
}

// TestSpatialSplitsOnlyWhereAllowed checks the rules of splitsFor and
// splittable: only PREFER_FAST_TRACE builds that are not updatable or
// memory-minimizing, and only of opaque geometries without
// NO_DUPLICATE_ANYHIT_INVOCATION ("the system is free to trigger an any
// hit shader more than once for a given ray-primitive intersection"
// unless that flag is set), reference a triangle more than once.
func TestSpatialSplitsOnlyWhereAllowed(t *testing.T) {
	for _, c := range []struct {
		gflags GeometryFlags
		flags  BuildFlags
		split  bool
	}{
		{GeometryOpaque, BuildPreferFastTrace, true},
		{GeometryOpaque, BuildPreferFastTrace | BuildAllowCompaction | BuildAllowDataAccess, true},
		{GeometryOpaque, 0, false},
		{GeometryOpaque, BuildPreferFastBuild, false},
		{GeometryOpaque, BuildPreferFastTrace | BuildMinimizeMemory, false},
		{GeometryOpaque, BuildPreferFastTrace | BuildAllowUpdate, false},
		{0, BuildPreferFastTrace, false},
		{GeometryOpaque | GeometryNoDuplicateAnyHitInvocation, BuildPreferFastTrace, false},
	} {
		b, _ := sliverBLAS(t, 4, c.gflags, c.flags)
		s := b.TreeStats()
		if got := s.References > s.Primitives; got != c.split {
			t.Errorf("geometry flags %v, build flags %v: %d references to %d primitives, want split %v", c.gflags, c.flags, s.References, s.Primitives, c.split)
		}
	}
	// One geometry that may not be split keeps the others whole too.
	rng := rand.New(rand.NewPCG(5, 5))
	a, c := TriangleGeometry(slivers(rng, sbvhMin), nil), TriangleGeometry(slivers(rng, 100), nil)
	a.Flags, c.Flags = GeometryOpaque, GeometryOpaque|GeometryNoDuplicateAnyHitInvocation
	if s := mustBLAS(t, []Geometry{a, c}, BuildPreferFastTrace).TreeStats(); s.References != s.Primitives {
		t.Errorf("a geometry with NO_DUPLICATE_ANYHIT_INVOCATION beside an opaque one: %d references to %d primitives", s.References, s.Primitives)
	}
}

// TestNoDuplicateAnyHitInvocationHoldsOnSlivers checks the flag's rule on
// the scene that is split without it: forced non-opaque, no ray sees a
// primitive as a candidate twice.
func TestNoDuplicateAnyHitInvocationHoldsOnSlivers(t *testing.T) {
	b, pos := sliverBLAS(t, 6, GeometryOpaque|GeometryNoDuplicateAnyHitInvocation, BuildPreferFastTrace)
	for i, r := range raysAtTriangles(rand.New(rand.NewPCG(6, 6)), pos, 500) {
		keys := traceBLAS(b, r, RayFlagForceNonOpaque)
		cands := keys[:len(keys)-2]
		seen := map[uint32]bool{}
		for _, k := range cands {
			if seen[k.Prim] {
				t.Fatalf("ray %d: primitive %d is a candidate twice", i, k.Prim)
			}
			seen[k.Prim] = true
		}
	}
}

// TestSplitTriangleBoxesHoldTheirParts samples points of random triangles
// (in float64) and checks that each one inside the box lies in the box of
// its side of the plane.
func TestSplitTriangleBoxesHoldTheirParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 2000 {
		tri := randomTriangle(rng, i%3 == 0)
		box := triBounds(&tri)
		// A box already cut: a random sub-box of the triangle's.
		var cut [2][3]float32
		for a := range 3 {
			lo, hi := comps(&box.Min)[a], comps(&box.Max)[a]
			x, y := lo+(hi-lo)*float32(0.3*rng.Float64()), hi-(hi-lo)*float32(0.3*rng.Float64())
			cut[0][a], cut[1][a] = x, y
		}
		axis := rng.IntN(3)
		at := cut[0][axis] + (cut[1][axis]-cut[0][axis])*float32(rng.Float64())
		l, r, lok, rok := splitTriangle(&tri, axis, at, &cut)
		for range 200 {
			p := pointOn(rng, &tri)
			if !inBox(&p, &cut) {
				continue
			}
			if p[axis] <= float64(at) && !(lok && inBox(&p, &l)) {
				t.Fatalf("case %d: point %v below %v on axis %d is not in the lower box %v (%v)", i, p, at, axis, l, lok)
			}
			if p[axis] >= float64(at) && !(rok && inBox(&p, &r)) {
				t.Fatalf("case %d: point %v above %v on axis %d is not in the upper box %v (%v)", i, p, at, axis, r, rok)
			}
		}
		for a := range 3 { // and the boxes stay inside the cut
			if lok && (l[0][a] < cut[0][a] || l[1][a] > cut[1][a]) || rok && (r[0][a] < cut[0][a] || r[1][a] > cut[1][a]) {
				t.Fatalf("case %d: boxes %v, %v leave the cut %v", i, l, r, cut)
			}
		}
	}
}

// TestSlabPartsHoldTheirParts is the same check for the spatial binning's
// parts: a triangle cut by several planes, each sampled point in the box
// of its slab.
func TestSlabPartsHoldTheirParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for i := range 2000 {
		tri := randomTriangle(rng, i%3 == 0)
		box := triBounds(&tri)
		cut := [2][3]float32{{box.Min.X, box.Min.Y, box.Min.Z}, {box.Max.X, box.Max.Y, box.Max.Z}}
		axis := rng.IntN(3)
		if i%2 == 0 { // a fragment's box, smaller than the triangle's
			lo, hi := cut[0][axis], cut[1][axis]
			cut[0][axis], cut[1][axis] = lo+(hi-lo)*0.2, hi-(hi-lo)*0.1
		}
		// Planes at random through the cut on the axis, one slab a bin.
		var pl [maxBins + 1]float32
		nb := 2 + rng.IntN(sbvhSpatialBins-1)
		for k := 1; k < nb; k++ {
			pl[k] = cut[0][axis] + (cut[1][axis]-cut[0][axis])*float32(k)/float32(nb)
		}
		var boxes [maxBins]binBox
		for k := range boxes {
			boxes[k] = emptyBinBox()
		}
		slabParts(&tri, axis, &pl, 0, nb-1, &cut, &boxes)
		for range 200 {
			p := pointOn(rng, &tri)
			if !inBox(&p, &cut) {
				continue
			}
			b := 0
			for b < nb-1 && p[axis] >= float64(pl[b+1]) {
				b++
			}
			part := boxes[b].aabb()
			pb := [2][3]float32{{part.Min.X, part.Min.Y, part.Min.Z}, {part.Max.X, part.Max.Y, part.Max.Z}}
			if !inBox(&p, &pb) {
				t.Fatalf("case %d: point %v in slab %d of %d on axis %d is not in its box %v", i, p, b, nb, axis, pb)
			}
		}
	}
}

// randomTriangle returns a triangle in the unit cube or, if far, a
// hundredth of one about 1e4 from the origin (large coordinates, small
// extents).
func randomTriangle(rng *rand.Rand, far bool) triVerts {
	tri := triVerts{randVec(rng, 1), randVec(rng, 1), randVec(rng, 1)}
	if far {
		off := randVec(rng, 1e4)
		for k := range tri {
			tri[k] = tri[k].Scale(0.01).Add(off)
		}
	}
	return tri
}

// pointOn returns a random point of tri, in float64.
func pointOn(rng *rand.Rand, tri *triVerts) [3]float64 {
	u, v := rng.Float64(), rng.Float64()
	if u+v > 1 {
		u, v = 1-u, 1-v
	}
	var p [3]float64
	for a := range 3 {
		p[a] = (1-u-v)*float64(comps(&tri[0])[a]) + u*float64(comps(&tri[1])[a]) + v*float64(comps(&tri[2])[a])
	}
	return p
}

func inBox(p *[3]float64, b *[2][3]float32) bool {
	for a := range 3 {
		if p[a] < float64(b[0][a]) || p[a] > float64(b[1][a]) {
			return false
		}
	}
	return true
}

// TestSpatialSplitBuildIsDeterministic checks that the tree does not
// depend on how many goroutines build it.
func TestSpatialSplitBuildIsDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first *BLAS
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		b, _ := sliverBLAS(t, 8, GeometryOpaque, BuildPreferFastTrace)
		if first == nil {
			first = b
			continue
		}
		if !slices.Equal(b.nodes, first.nodes) || !slices.Equal(b.primIndex, first.primIndex) || !slices.Equal(b.wide, first.wide) || !slices.Equal(b.rows, first.rows) {
			t.Fatalf("GOMAXPROCS %d: a different tree (%d nodes, %d slots; %d, %d on one)", procs, len(b.nodes), len(b.primIndex), len(first.nodes), len(first.primIndex))
		}
	}
}

// TestSpatialSplitSerializeRoundTrip checks that a BLAS with split
// triangles deserializes to one that traces the same, and that a
// triangle's slots must agree.
func TestSpatialSplitSerializeRoundTrip(t *testing.T) {
	b, pos := sliverBLAS(t, 9, GeometryOpaque, BuildPreferFastTrace)
	data := b.Serialize()
	c, err := DeserializeBLAS(data)
	if err != nil {
		t.Fatal(err)
	}
	if c.ActivePrimitives() != b.ActivePrimitives() || c.TreeStats() != b.TreeStats() {
		t.Fatalf("deserialized: %d active, %+v; built: %d, %+v", c.ActivePrimitives(), c.TreeStats(), b.ActivePrimitives(), b.TreeStats())
	}
	for i, r := range raysAtTriangles(rand.New(rand.NewPCG(9, 9)), pos, 300) {
		if x, y := traceBLAS(b, r, RayFlagForceNonOpaque), traceBLAS(c, r, RayFlagForceNonOpaque); !equalKeys(x, y) {
			t.Fatalf("ray %d: %v after the round trip, %v before", i, y, x)
		}
	}
	// Change a vertex of a split triangle in one of its slots.
	first := map[uint32]int{}
	dup := -1
	for s, p := range b.primIndex {
		if _, ok := first[p]; ok {
			dup = s
			break
		}
		first[p] = s
	}
	bad := slices.Clone(data)
	off := serialHeaderSize + bodyHeaderSize + geomRecordSize + dup*triRecordSize + 8
	putLe32(bad[off:], math.Float32bits(math.Float32frombits(le32(bad[off:]))+0.25))
	if _, err := DeserializeBLAS(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("slots of one primitive with different vertices: %v, want ErrCorrupt", err)
	}
	// The same slots in a build that does not split.
	bad = slices.Clone(data)
	flagsOff := serialHeaderSize + 4
	putLe32(bad[flagsOff:], uint32(BuildPreferFastBuild))
	if _, err := DeserializeBLAS(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a primitive in two slots of a fast-build structure: %v, want ErrCorrupt", err)
	}
}

// TestMeshesWithoutSpatialSplitsKeepTheirTree checks that a BLAS whose
// root gains too little from a spatial split gets the tree it would get
// without spatial splits, node for node: the embreecmp soup, where a
// spatial split of the root wins by under sbvhMargin, and a random soup
// where it does not win.
func TestMeshesWithoutSpatialSplitsKeepTheirTree(t *testing.T) {
	pos1, idx1 := meshgen.Soup(100_000, 1)
	pos2, idx2 := randomSoup(rand.New(rand.NewPCG(11, 11)), sbvhMin+1000, 0.15)
	for i, m := range []struct {
		pos []vec.Vec3
		idx []uint32
	}{{pos1, idx1}, {pos2, idx2}} {
		split, whole := TriangleGeometry(m.pos, m.idx), TriangleGeometry(m.pos, m.idx)
		split.Flags, whole.Flags = GeometryOpaque, 0 // non-opaque: never split
		a := mustBLAS(t, []Geometry{split}, BuildPreferFastTrace)
		b := mustBLAS(t, []Geometry{whole}, BuildPreferFastTrace)
		if s := a.TreeStats(); s.References != s.Primitives {
			t.Fatalf("soup %d was split: %+v", i, s)
		}
		if !slices.Equal(a.nodes, b.nodes) || !slices.Equal(a.primIndex, b.primIndex) {
			t.Fatalf("soup %d: the opaque tree differs from the non-opaque one", i)
		}
	}
}

// A build with spatial splits allocates its slot arrays as soon as its top
// levels are split, for the bound on the slots that sbvhBuild hands it
// (on the crew, beside the subtrees' builds, from asyncAlloc slots): the
// bound must come once and hold every slot (merging a leaf's fragments
// only lowers the count), and the BLAS must hold exactly its slots, leaf
// rows and all, whichever goroutine allocated them.
func TestSpatialSplitSlotBoundHoldsEverySlot(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	n := sbvhMin + sbvhMin/4
	pos := slivers(rand.New(rand.NewPCG(uint64(n), 9)), n)
	tris := make([]triVerts, n)
	refs := make([]bref, n)
	for i := range tris {
		tris[i] = triVerts{pos[3*i], pos[3*i+1], pos[3*i+2]}
		box := triBounds(&tris[i])
		refs[i] = bref{box.Min.X, box.Min.Y, box.Min.Z, -box.Max.X, -box.Max.Y, -box.Max.Z, uint32(i)}
	}
	bb, cb := rangeBounds(refs)
	most := n + int(sbvhBudget*float64(n))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		var calls, bound atomic.Int64
		_, order := sbvhBuild(slices.Clone(refs), bb, cb, paramsFor(BuildPreferFastTrace), tris, func(b int) {
			calls.Add(1)
			bound.Store(int64(b))
		})
		if calls.Load() != 1 || int(bound.Load()) < len(order) || int(bound.Load()) > most || len(order) <= n {
			t.Fatalf("GOMAXPROCS %d: bound %d (given %d times) for %d slots, want one bound from the slots to %d, and spatial splits", procs, bound.Load(), calls.Load(), len(order), most)
		}
	}
	// Where leaves merged fragments, the arrays are cut to the slots.
	var cut BLAS
	cut.typ = GeometryTriangles
	cut.allocSlots(most)
	cut.trimSlots(n + 7)
	if s := n + 7; len(cut.primIndex) != s || len(cut.primGeom) != s || len(cut.tris) != s || cut.rows != nil && len(cut.rows) != leafRowsLen(s) {
		t.Fatalf("trimmed to %d slots: arrays of %d, %d, %d and rows %d", s, len(cut.primIndex), len(cut.primGeom), len(cut.tris), len(cut.rows))
	}
	// A BLAS whose arrays are allocated on the crew.
	n = asyncAlloc + asyncAlloc/8
	pos = slivers(rand.New(rand.NewPCG(uint64(n), 9)), n)
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, nil)}, BuildPreferFastTrace)
	slots := b.TreeStats().References
	if len(b.primIndex) != slots || len(b.primGeom) != slots || len(b.tris) != slots || b.rows != nil && len(b.rows) != leafRowsLen(slots) ||
		slots <= n || cap(b.tris) < slots || cap(b.tris) > n+int(sbvhBudget*float64(n)) {
		t.Fatalf("%d slots (%d slivers), arrays of %d, %d, %d (capacity %d) and rows %d", slots, n, len(b.primIndex), len(b.primGeom), len(b.tris), cap(b.tris), len(b.rows))
	}
	if err := b.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	rays := raysAtTriangles(rand.New(rand.NewPCG(uint64(n), 10)), pos, 60)
	if hits := oracleBLAS(t, b, rays); hits < len(rays)/2 {
		t.Fatalf("only %d of %d rays hit", hits, len(rays))
	}
}
