package accel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// checkWide validates a wide tree against the binary tree it was derived
// from: every wide child box contains the primitives below it, every
// primitive slot is reached exactly once, and a node's children come in
// order of decreasing primitive count (the order occlusion walks visit
// them in).
func checkWide(wide []wideNode, prims int, box func(uint32) AABB) error {
	seen := make([]int, prims)
	// walk returns the number of primitive slots under ref.
	var walk func(ref uint32, b AABB, depth int) (int, error)
	walk = func(ref uint32, b AABB, depth int) (int, error) {
		if depth > maxTreeDepth {
			return 0, treeError("wide tree deeper than maxTreeDepth")
		}
		if isLeafRef(ref) {
			lo, hi := leafRange(ref)
			for s := lo; s < hi; s++ {
				if int(s) >= prims {
					return 0, treeError("wide leaf slot out of range")
				}
				seen[s]++
				if !b.Contains(box(s)) {
					return 0, treeError("wide leaf bounds do not contain a primitive")
				}
			}
			return int(hi - lo), nil
		}
		if int(ref) >= len(wide) {
			return 0, treeError("wide child out of range")
		}
		n := &wide[ref]
		for i := 0; i < wideWidth; i++ {
			if (n.ref[i] != emptyRef) != (uint32(i) < n.n) {
				return 0, treeError("wide node's used slots are not the first n")
			}
		}
		total, prev := 0, math.MaxInt
		for i := 0; i < wideWidth; i++ {
			cb := n.box(i)
			if n.ref[i] == emptyRef {
				if !cb.IsEmpty() {
					return 0, treeError("empty wide slot with a non-empty box")
				}
				continue
			}
			if !b.Contains(cb) {
				return 0, treeError("wide node bounds do not contain a child")
			}
			c, err := walk(n.ref[i], cb, depth+1)
			if err != nil {
				return 0, err
			}
			if c > prev {
				return 0, treeError("wide node's children are not in order of decreasing primitive count")
			}
			total, prev = total+c, c
		}
		return total, nil
	}
	inf := float32(math.Inf(1))
	if _, err := walk(0, AABB{vec.V3(-inf, -inf, -inf), vec.V3(inf, inf, inf)}, 0); err != nil {
		return err
	}
	for _, c := range seen {
		if c != 1 {
			return treeError("wide tree references a primitive slot other than once")
		}
	}
	return nil
}

func TestWideLayoutMatchesBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, flags := range allBuildFlags {
		for _, n := range []int{1, 2, 3, 5, 9, 17, 100, 3000} {
			pos, idx := randomSoup(rng, n, 0.2)
			b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, flags)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkWide(b.wide, len(b.tris), func(s uint32) AABB { return triBounds(&b.tris[s]) }); err != nil {
				t.Fatalf("flags %#x, %d triangles: %v", flags, n, err)
			}
		}
	}
}

// traverseClosest is the plain query done through the Traversal state
// machine, the reference of the fast path.
func traverseClosest(tl *TLAS, b *BLAS, r Ray, flags RayFlags, mask uint32) (Hit, bool) {
	var tr Traversal
	flags |= RayFlagSkipProceduralPrimitives &^ skipConflicts(flags)
	if tl != nil {
		tr.begin(tl, r, flags, mask)
	} else {
		tr.BeginBLAS(b, r, flags)
	}
	return tr.closest()
}

func TestFastPathMatchesTraversal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var blases []*BLAS
	for m := 0; m < 3; m++ {
		var geoms []Geometry
		for g := 0; g < 1+m; g++ {
			pos, idx := randomSoup(rng, 400+300*g, 0.2)
			geo := TriangleGeometry(pos, idx)
			if g == 1 {
				geo.Flags = 0 // non-opaque
			}
			geoms = append(geoms, geo)
		}
		b, err := BuildBLAS(geoms, allBuildFlags[m])
		if err != nil {
			t.Fatal(err)
		}
		blases = append(blases, b)
	}
	var insts []Instance
	for i := 0; i < 10; i++ {
		xf := randomRotation(rng)
		if i%4 == 3 {
			xf = xf.Mul(vec.Scale3x4(vec.V3(-1, 1, 1)))
		}
		insts = append(insts, Instance{Transform: xf, InstanceMask: uint8(1 << (i % 8)), Flags: InstanceFlags(i % 4), BLAS: blases[i%3]})
	}
	tl, err := BuildTLAS(insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	flagSets := []RayFlags{0, RayFlagForceOpaque, RayFlagForceNonOpaque, RayFlagSkipClosestHitShader}
	hits := 0
	for i := 0; i < 4000; i++ {
		r := Ray{Origin: randVec(rng, 4), Direction: randVec(rng, 1), TMax: float32(math.Inf(1))}
		switch i % 9 {
		case 1:
			r.TMax = float32(rng.Float64() * 4)
		case 2: // axis-aligned: zero direction components
			r.Direction = vec.V3(0, 0, r.Direction.Z)
		case 3:
			r.Direction.X = 0
		}
		flags := flagSets[i%len(flagSets)]
		mask := uint32(0xff)
		if i%5 == 0 {
			mask = uint32(rng.IntN(256))
		}
		want, wok := traverseClosest(tl, nil, r, flags, mask)
		got, gok := tl.Intersect(r, flags, mask)
		if wok != gok || got != want {
			t.Fatalf("TLAS ray %d: fast %v %+v, traversal %v %+v", i, gok, got, wok, want)
		}
		if wok {
			hits++
		}
		want, wok = traverseClosest(tl, nil, r, flags|RayFlagAcceptFirstHitAndEndSearch, mask)
		if occ := tl.Occluded(r, flags, mask); occ != wok {
			t.Fatalf("TLAS ray %d: fast Occluded %v, traversal %v", i, occ, wok)
		}
		// The first hit found is the same hit: same order of nodes.
		if got, gok := tl.Intersect(r, flags|RayFlagAcceptFirstHitAndEndSearch, mask); gok != wok || got != want {
			t.Fatalf("TLAS ray %d: fast first hit %v %+v, traversal %v %+v", i, gok, got, wok, want)
		}
		b := blases[i%3]
		want, wok = traverseClosest(nil, b, r, flags, 0)
		got, gok = b.Intersect(r, flags)
		if wok != gok || got != want {
			t.Fatalf("BLAS ray %d: fast %v %+v, traversal %v %+v", i, gok, got, wok, want)
		}
		want, wok = traverseClosest(nil, b, r, flags|RayFlagAcceptFirstHitAndEndSearch, 0)
		if occ := b.Occluded(r, flags); occ != wok {
			t.Fatalf("BLAS ray %d: fast Occluded %v, traversal %v", i, occ, wok)
		}
		if got, gok := b.Intersect(r, flags|RayFlagAcceptFirstHitAndEndSearch); gok != wok || got != want {
			t.Fatalf("BLAS ray %d: fast first hit %v %+v, traversal %v %+v", i, gok, got, wok, want)
		}
	}
	if hits < 400 {
		t.Fatalf("only %d hits: test too weak", hits)
	}
}

// TestWalkFiniteResumesOnDeepStack forces walkFinite's move to the full
// stack at every few levels and checks that the walk gives the same hits.
func TestWalkFiniteResumesOnDeepStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	pos, idx := randomSoup(rng, 3000, 0.2)
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	resumed := 0
	for i := 0; i < 2000; i++ {
		r := Ray{Origin: randVec(rng, 2), Direction: randVec(rng, 1), TMax: float32(math.Inf(1))}
		var o objectRay
		o.setup(&b.self, &r)
		if !o.rb.finite {
			continue
		}
		near, ok := o.rb.hit(&b.nodes[0].bounds, r.TMin, r.TMax)
		if !ok {
			continue
		}
		wantT := r.TMax
		var want fastHit
		wok := b.walkFinite(&o, r.TMin, &wantT, &want, near)
		for _, k := range []int{3, 4, 6} {
			gotT := r.TMax
			var got fastHit
			st := walkState{cur: stackEntry{0, near}}
			small := make([]stackEntry, k)
			gok := b.walkFiniteOn(&o, r.TMin, &gotT, &got, &st, small)
			if !gok {
				resumed++
				gok = b.walkFiniteDeep(&o, r.TMin, &gotT, &got, &st, small[:st.sp])
			} else {
				gok = st.found
			}
			if gok != wok || got != want || gotT != wantT {
				t.Fatalf("ray %d, stack %d: %v %+v, want %v %+v", i, k, gok, got, wok, want)
			}
		}
	}
	if resumed < 100 {
		t.Fatalf("only %d resumed walks: test too weak", resumed)
	}
}

// The fast path's identity instance skips the matrix products: it must give
// the products' results bit for bit, signed zeros included.
func TestIdentityTransformShortcutIsExact(t *testing.T) {
	nz := float32(math.Copysign(0, -1))
	vals := []float32{0, nz, 1, -1, 0.3, -2.5e-38, 1e-45, -1e-45, 3e38, -3e38}
	rng := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < 200; i++ {
		vals = append(vals, float32(rng.NormFloat64()))
	}
	m := vec.Identity3x4
	bitsOf := func(v vec.Vec3) [3]uint32 {
		return [3]uint32{math.Float32bits(v.X), math.Float32bits(v.Y), math.Float32bits(v.Z)}
	}
	for _, x := range vals[:14] {
		for _, y := range vals[:14] {
			for _, z := range vals {
				v := vec.V3(x, y, z)
				for _, w := range []vec.Vec3{v, vec.V3(y, z, x), vec.V3(z, x, y)} {
					if got, want := identityPoint(w), m.TransformPoint(w); bitsOf(got) != bitsOf(want) {
						t.Fatalf("point %v: %v, want %v", w, got, want)
					}
					if got, want := identityVector(w), m.TransformVector(w); bitsOf(got) != bitsOf(want) {
						t.Fatalf("vector %v: %v, want %v", w, got, want)
					}
				}
			}
		}
	}
}

// randomBinaryTree returns a random binary tree of leaves leaves, of any
// shape (from balanced to a chain), in the layout builds give (children
// adjacent and after their parent), whose leaves have random boxes and one
// to eight primitive slots each, and whose inner boxes are their
// children's unions.
func randomBinaryTree(rng *rand.Rand, leaves int) []node {
	return binaryTreeSplitting(rng, leaves, rng.IntN)
}

// binaryTreeSplitting is randomBinaryTree splitting the leaf pick(k) of
// the k made so far, the newest last, until there are leaves leaves
// (pick k-1: a chain).
func binaryTreeSplitting(rng *rand.Rand, leaves int, pick func(k int) int) []node {
	nodes := []node{{}}
	open := []uint32{0} // the leaves so far: each split turns one into two
	for len(open) < leaves {
		i := pick(len(open))
		n, first := open[i], uint32(len(nodes))
		nodes = append(nodes, node{}, node{})
		nodes[n].first = first
		open = append(append(open[:i], open[i+1:]...), first, first+1)
	}
	isLeaf := make([]bool, len(nodes))
	for _, n := range open {
		isLeaf[n] = true
	}
	slot := uint32(0)
	var fill func(n uint32) AABB
	fill = func(n uint32) AABB {
		nd := &nodes[n]
		if isLeaf[n] {
			c := randVec(rng, 1)
			h := vec.V3(rng.Float32(), rng.Float32(), rng.Float32()).Scale(0.3)
			nd.bounds = AABB{c.Sub(h), c.Add(h)}
			nd.first, nd.count = slot, uint32(1+rng.IntN(maxLeafCount))
			slot += nd.count
			return nd.bounds
		}
		nd.bounds = fill(nd.first).Union(fill(nd.first + 1))
		return nd.bounds
	}
	fill(0)
	return nodes
}

// wideArea returns the surface heuristic's measure of a wide tree: the sum
// of its wide nodes' surface areas, each taken from its box in its
// parent's slot (the root's is rootBox), in float64.
func wideArea(wide []wideNode, rootBox AABB) float64 {
	var sum func(ref uint32, b AABB) float64
	sum = func(ref uint32, b AABB) float64 {
		if isLeafRef(ref) {
			return 0
		}
		n := &wide[ref]
		s := boxArea64(b)
		for i := 0; i < int(n.n); i++ {
			s += sum(n.ref[i], n.box(i))
		}
		return s
	}
	return sum(0, rootBox)
}

// boxArea64 is half a box's surface area in float64 (boxes here are not
// empty).
func boxArea64(b AABB) float64 {
	d := [3]float64{float64(b.Max.X) - float64(b.Min.X), float64(b.Max.Y) - float64(b.Min.Y), float64(b.Max.Z) - float64(b.Min.Z)}
	return d[0]*d[1] + d[1]*d[2] + d[2]*d[0]
}

// bruteWideArea finds the least wide area of any wide tree over nodes by
// trying every cut: a wide node at an inner node n takes as children any
// set of at most wideWidth nodes below n that every path from n to a leaf
// crosses once (a cut), and each inner node of the cut roots a wide node
// of its own.
func bruteWideArea(nodes []node) float64 {
	// cuts lists every cut of n's subtree of at most wideWidth nodes.
	cutsOf := map[uint32][][]uint32{}
	var cuts func(n uint32) [][]uint32
	cuts = func(n uint32) [][]uint32 {
		all, ok := cutsOf[n]
		if ok {
			return all
		}
		all = [][]uint32{{n}}
		defer func() { cutsOf[n] = all }()
		if nodes[n].isLeaf() {
			return all
		}
		for _, l := range cuts(nodes[n].first) {
			for _, r := range cuts(nodes[n].first + 1) {
				if len(l)+len(r) <= wideWidth {
					all = append(all, append(append([]uint32{}, l...), r...))
				}
			}
		}
		return all
	}
	best := map[uint32]float64{}
	var wideAt func(n uint32) float64
	wideAt = func(n uint32) float64 {
		if v, ok := best[n]; ok {
			return v
		}
		least := math.Inf(1)
		for _, l := range cuts(nodes[n].first) {
			for _, r := range cuts(nodes[n].first + 1) {
				if len(l)+len(r) > wideWidth {
					continue
				}
				s := 0.0
				for _, c := range append(append([]uint32{}, l...), r...) {
					if !nodes[c].isLeaf() {
						s += wideAt(c)
					}
				}
				least = min(least, s)
			}
		}
		best[n] = boxArea64(nodes[n].bounds) + least
		return best[n]
	}
	return wideAt(0)
}

// TestWidenMinimizesWideArea checks widen's cut against every cut: the
// wide tree it makes has the least total surface area of wide nodes (the
// surface area heuristic's cost, the leaves' part being the same for every
// cut) of all the wide trees over the binary tree, and is a valid wide tree
// of it.
func TestWidenMinimizesWideArea(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 300 {
		leaves := 2 + rng.IntN(60)
		nodes := randomBinaryTree(rng, leaves)
		wide := widen(nodes)
		slots := 0
		for i := range nodes {
			slots += int(nodes[i].count)
		}
		boxes := make([]AABB, slots)
		for i := range nodes {
			for s := nodes[i].first; nodes[i].isLeaf() && s < nodes[i].first+nodes[i].count; s++ {
				boxes[s] = nodes[i].bounds
			}
		}
		if err := checkWide(wide, slots, func(s uint32) AABB { return boxes[s] }); err != nil {
			t.Fatalf("trial %d (%d leaves): %v", trial, leaves, err)
		}
		got, want := wideArea(wide, nodes[0].bounds), bruteWideArea(nodes)
		if math.Abs(got-want) > 1e-5*want {
			t.Fatalf("trial %d (%d leaves): wide nodes' total area %.9g, least of all cuts %.9g", trial, leaves, got, want)
		}
	}
}

// TestWidenDegenerateBoxes widens trees whose boxes all collapse to one
// point: every surface area is 0 and the plan's unit (the root's area) is
// undefined, yet the result must be a valid wide tree over every slot.
func TestWidenDegenerateBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	p := vec.V3(0.5, -0.25, 2)
	for trial := range 50 {
		nodes := randomBinaryTree(rng, 2+rng.IntN(60))
		slots := 0
		for i := range nodes {
			nodes[i].bounds = AABB{p, p}
			slots += int(nodes[i].count)
		}
		if err := checkWide(widen(nodes), slots, func(uint32) AABB { return AABB{p, p} }); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// laidOutDepthFirst returns nodes laid out as the builders lay trees out: depth
// first, each inner node's children adjacent, the left one's descendants
// before the right one's.
func laidOutDepthFirst(nodes []node) []node {
	out := []node{nodes[0]}
	var place func(src, dst uint32)
	place = func(src, dst uint32) {
		out[dst] = nodes[src]
		if nodes[src].isLeaf() {
			return
		}
		c := uint32(len(out))
		out[dst].first = c
		out = append(out, node{}, node{})
		place(nodes[src].first, c)
		place(nodes[src].first+1, c+1)
	}
	place(0, 0)
	return out
}

// widen plans and numbers large trees in parallel, sharing the work by
// the sizes of subtrees that the depth-first layout gives: on any layout
// and shape (a lopsided one too) the wide tree must be the one serial widening
// makes, and valid.
func TestWidenInParallelIsSerialWiden(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(47, 48))
	random := randomBinaryTree(rng, 6000)
	// Mostly splitting the newest leaves: one side of the root much
	// deeper and larger than the other.
	uneven := binaryTreeSplitting(rng, 5000, func(k int) int { return k - 1 - int(float64(k)*math.Pow(rng.Float64(), 6)) })
	for _, tc := range []struct {
		name  string
		nodes []node
	}{
		{"random, in creation order", random},
		{"random, depth first", laidOutDepthFirst(random)},
		{"uneven, in creation order", uneven},
		{"uneven, depth first", laidOutDepthFirst(uneven)},
	} {
		if len(tc.nodes) <= planGrain {
			t.Fatalf("%s: %d nodes, not above planGrain: weak test", tc.name, len(tc.nodes))
		}
		slots := 0
		for i := range tc.nodes {
			slots += int(tc.nodes[i].count)
		}
		runtime.GOMAXPROCS(1)
		var serialCut []wideSlots
		serial := widenInto(tc.nodes, &serialCut)
		for _, procs := range []int{3, 16} {
			runtime.GOMAXPROCS(procs)
			var cut []wideSlots
			wide := widenInto(tc.nodes, &cut)
			if !slices.Equal(wide, serial) || !slices.Equal(cut, serialCut) {
				t.Fatalf("%s: GOMAXPROCS %d widens otherwise than GOMAXPROCS 1", tc.name, procs)
			}
		}
		boxes := make([]AABB, slots)
		for _, n := range tc.nodes {
			for s := n.first; n.isLeaf() && s < n.first+n.count; s++ {
				boxes[s] = n.bounds
			}
		}
		if err := checkWide(serial, slots, func(s uint32) AABB { return boxes[s] }); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
	}
}

// TestTraversalOfOpaqueTrianglesAnswersAtOnce: where every instance holds
// opaque triangles only and the ray flags neither force non-opaque nor
// cull, no candidate needs a decision (D3D12 raytracing spec, "Ray flags"
// and opacity), so the first Next answers the search with the plain
// query. Nothing may be committed before it (a RayQuery's committed state
// is readable from TraceRayInline on); it must return false, and
// Committed and TMax must be what the walk itself commits, under every
// flag set that takes the shortcut (and one that does not).
func TestTraversalOfOpaqueTrianglesAnswersAtOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var blases []*BLAS
	for m := range 3 {
		pos, idx := randomSoup(rng, 300+400*m, 0.2)
		b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, allBuildFlags[m])
		if err != nil {
			t.Fatal(err)
		}
		blases = append(blases, b)
	}
	var insts []Instance
	for i := range 12 {
		xf := randomRotation(rng)
		if i%4 == 3 {
			xf = xf.Mul(vec.Scale3x4(vec.V3(-1, 1, 1)))
		}
		// InstanceForceOpaque (i%4 == 2 sets it) keeps the scene opaque;
		// InstanceTriangleCullDisable and FrontCounterClockwise change hits.
		flags := []InstanceFlags{0, InstanceTriangleCullDisable, InstanceForceOpaque, InstanceTriangleFrontCounterClockwise}[i%4]
		insts = append(insts, Instance{Transform: xf, InstanceID: uint32(i), InstanceMask: uint8(1 << (i % 8)), Flags: flags, BLAS: blases[i%3]})
	}
	tl, err := BuildTLAS(insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !tl.OpaqueTrianglesOnly() {
		t.Fatal("the scene is not opaque triangles only")
	}
	flagSets := []RayFlags{0, RayFlagForceOpaque, RayFlagAcceptFirstHitAndEndSearch, RayFlagSkipClosestHitShader,
		RayFlagAcceptFirstHitAndEndSearch | RayFlagForceOpaque, RayFlagCullBackFacingTriangles}
	hits := 0
	for i := range 3000 {
		r := Ray{Origin: randVec(rng, 4), Direction: randVec(rng, 1), TMax: float32(math.Inf(1))}
		if i%7 == 1 {
			r.TMax = float32(rng.Float64() * 4)
		}
		if i%7 == 2 {
			r.Direction.Y = 0
		}
		flags := flagSets[i%len(flagSets)]
		mask := uint32(0xff)
		if i%5 == 0 {
			mask = uint32(rng.IntN(256))
		}
		var walk, once Traversal
		walk.begin(tl, r, flags, mask)
		if walk.Next() {
			t.Fatalf("ray %d: the walk stopped at a candidate in an opaque scene", i)
		}
		once.Begin(tl, r, flags, mask)
		if once.Committed().Kind != KindNone || once.TMax() != r.TMax || once.Done() {
			t.Fatalf("ray %d: Begin committed, or ended the search, before Next", i)
		}
		if once.Next() || !once.Done() {
			t.Fatalf("ray %d, flags %#x: Begin left a search to step through", i, flags)
		}
		if *once.Committed() != *walk.Committed() || once.TMax() != walk.TMax() {
			t.Fatalf("ray %d, flags %#x: Begin committed %+v (tMax %v), the walk %+v (tMax %v)",
				i, flags, *once.Committed(), once.TMax(), *walk.Committed(), walk.TMax())
		}
		if once.Committed().Kind != KindNone {
			hits++
		}
	}
	if hits < 300 {
		t.Fatalf("only %d of 3000 rays hit", hits)
	}
}
