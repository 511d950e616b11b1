package accel

import (
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Spatial splits (Stich, Friedrich and Dietrich, "Spatial Splits in
// Bounding Volume Hierarchies", HPG 2009) in the top levels of a
// PREFER_FAST_TRACE triangle BLAS. Where the best object split leaves two
// children that overlap (long thin triangles lying across the axes, as in
// CAD meshes), cutting space may cost less: the triangles crossing the
// plane go to both sides, each with the box of its part on that side. The
// SAH picks: a node whose best split is an object split, and every node
// of fewer than sbvhGrain refs, is built by the object-split builder
// (buildBVHRefs) as it would have been without spatial splits; so a mesh
// that gains nothing from them pays for one look at its root, and its
// tree is the same.
//
// A triangle cut into fragments is referenced from several leaves, which
// the spec allows by default and forbids with
// NO_DUPLICATE_ANYHIT_INVOCATION ("the system is free to trigger an any
// hit shader more than once for a given ray-primitive intersection"). Only
// BLASes whose geometries are all opaque and without that flag are split
// (splittable), so any-hit shaders can run twice only where a ray forces
// opacity off. Fragments of one triangle in one leaf are merged
// (dedupeLeaves); a closest-hit walk never commits a triangle's second
// test (at the same t: a commit needs t below the closest so far); leaves
// test the whole triangle wherever it is referenced.
//
// Measured on Debian's 2CylinderEngine.glb (121k triangles, one thread),
// against the same build without spatial splits: see docs/against-embree.md
// ("Spatial splits").

const (
	// sbvhGrain is the size below which nodes are built without spatial
	// splits. On the CAD engine 1024 traced within 5% of 2048 and built
	// 20% slower; 4096 traced 3-5% slower and built 15-20% faster.
	sbvhGrain = 2048
	// sbvhMin is the least BLAS that looks for spatial splits: the look
	// at the root costs about 70-140 µs, 4% of the build of the 10k soup
	// or terrain and 20% of the 4k soup's, and takes from every mesh that
	// makes none.
	sbvhMin = 16384
	// sbvhAlpha: spatial splits are tried where the best object split's
	// children overlap by more than this fraction of the root's area
	// (Stich et al.'s alpha).
	sbvhAlpha = 1e-5
	// sbvhMargin is how much less than the best object split's SAH cost a
	// spatial split of the root must cost for the BLAS to make spatial
	// splits at all: the SAH does not count what the duplicated references
	// cost (memory, build time), and a mesh whose root gains little gains
	// little below it. On the random triangle soups the root's spatial
	// split won by 0.4-0.6% and the trees traced within 5% either way,
	// building 0.75-0.83x as fast; on the CAD engine it won by 4.8%, and
	// nodes below by 1-18%. A margin at every node cost the engine half
	// its gains (primary 1.12x instead of 1.26x, incoherent 1.17x instead
	// of 1.32x).
	sbvhMargin = 0.03
	// sbvhBudget bounds the fragments added, as a fraction of the refs.
	sbvhBudget = 0.3
	// sbvhSample is about how many refs of a node are binned for object
	// splits (every stride-th), as the object-split builder samples
	// (sampleStride), and sbvhSpatialSample for spatial ones at the root,
	// half as many below it: sampling 256 for both at the root, the
	// engine's root chose an object split (the costs are within 5% there)
	// and lost every gain; 256 below the root built the engine 1.07-1.12x
	// as fast as 512 and traced within 3%.
	sbvhSample        = 1024
	sbvhSpatialSample = 512
	// sbvhSpatialBins is the number of slabs a node is cut into to place
	// a spatial split (Embree bins spatial splits in 16 too).
	sbvhSpatialBins = 16
	// sbvhParallel is the size from which a node's refs are split
	// (splitRefs) in parallel chunks.
	sbvhParallel = 4 * sbvhGrain
)

// splitsFor reports whether a build with these flags makes spatial
// splits: one that asks for PREFER_FAST_TRACE ("prioritize trace
// performance over build time"), unless it may be updated (a refit cannot
// clip a moved triangle: its fragments' boxes would grow to the whole
// triangle's) or minimizes memory. Builds without a preference keep their
// build time.
func splitsFor(flags BuildFlags) bool {
	return flags&BuildPreferFastTrace != 0 && flags&(BuildAllowUpdate|BuildMinimizeMemory) == 0
}

// splitTriangles returns the triangles of a BLAS build by global
// primitive index where the build looks for spatial splits (n refs, at
// least sbvhMin; splitsFor's flags; every geometry splittable), else nil.
func splitTriangles(typ GeometryType, flags BuildFlags, dec []decodedGeometry, n int) []triVerts {
	if typ != GeometryTriangles || n < sbvhMin || !splitsFor(flags) {
		return nil
	}
	total := 0
	for g := range dec {
		if !splittable(dec[g].flags) {
			return nil
		}
		total += len(dec[g].tris)
	}
	if len(dec) == 1 {
		return dec[0].tris
	}
	tris := make([]triVerts, 0, total)
	for g := range dec {
		tris = append(tris, dec[g].tris...)
	}
	return tris
}

// splittable reports whether a geometry's triangles may be split.
func splittable(flags GeometryFlags) bool {
	return flags&GeometryOpaque != 0 && flags&GeometryNoDuplicateAnyHitInvocation == 0
}

// sbvh builds the top levels of a tree with spatial splits.
type sbvh struct {
	p        buildParams
	tris     []triVerts // by ref id
	rootArea float32
	// bufs hold the top levels' refs: a node's refs lie in one buffer,
	// inside its room (a range of the same indices in both), and its
	// children's in its room in the other buffer (see build).
	bufs [2][]bref
	// open counts the nodes of the top levels not yet split or delegated,
	// and delegated the refs handed to the object-split builder so far;
	// when the last node is delegated, delegated is the bound sbvhBuild
	// hands sized.
	open, delegated atomic.Int64
	sized           func(bound int)
}

// span is a range of indices of sbvh.bufs.
type span struct{ lo, hi int }

// sbvhPart is a node of the top levels: an inner node with two parts
// below, or a subtree built by the object-split builder.
type sbvhPart struct {
	bounds AABB
	kids   [2]*sbvhPart
	nodes  []node // the subtree, or nil
	order  []uint32
}

// sbvhBuild builds a tree over refs (bounds bb, doubled centroids' bounds
// cb) like buildBVHRefs, with spatial splits in its top levels; tris holds
// each ref id's triangle (splitTriangles). Leaves hold no primitive twice.
// The tree does not depend on goroutine scheduling.
//
// sized, unless nil, is called once, as soon as the top levels are split
// (on some goroutine of the build, before it returns), with a bound on
// the tree's slots: the count of the refs and fragments the subtrees
// below them are built over, which only their leaves' merged fragments
// make more than the slots (the CAD engine's 145,229 slots: none). A
// build allocates its slot arrays then, alongside the subtrees' builds.
// With one goroutine the top levels are split depth first, so the call
// comes late in the build, which then waits for nothing either.
func sbvhBuild(refs []bref, bb binBox, cb centroids, p buildParams, tris []triVerts, sized func(bound int)) ([]node, []uint32) {
	s := &sbvh{p: p, tris: tris, rootArea: bb.halfArea(), sized: sized}
	if !s.choose(refs, &bb, &cb, sbvhBudget*float64(len(refs)) >= 1, 0).spatial {
		if sized != nil {
			sized(len(refs))
		}
		return buildBVHRefs(refs, bb, cb, p) // the tree without spatial splits
	}
	s.open.Store(1) // the root
	size := len(refs) + int(sbvhBudget*float64(len(refs)))
	buf0, release0 := tempSlice[bref](size)
	defer release0()
	buf1, release1 := tempSlice[bref](size)
	defer release1()
	s.bufs = [2][]bref{buf0, buf1}
	copy(s.bufs[0], refs)
	root := s.build(0, span{0, len(refs)}, span{0, size}, bb, cb, 0)
	return root.emit() // the parts' nodes and slots are copies: bufs go
}

// layout places the part at slot and its descendants after the first
// *count nodes and *slots slots, depth first with each inner node's
// children adjacent, as buildBVHRefs lays trees out, listing the inner
// nodes with their slots in inner and the subtrees, with where their
// nodes and slots go, in subs.
func (t *sbvhPart) layout(slot int, count, slots *int, inner *[]placedNode, subs *[]placedPart) {
	if t.nodes == nil {
		c := *count
		*count += 2
		*inner = append(*inner, placedNode{slot, node{bounds: t.bounds, first: uint32(c)}})
		t.kids[0].layout(c, count, slots, inner, subs)
		t.kids[1].layout(c+1, count, slots, inner, subs)
		return
	}
	*subs = append(*subs, placedPart{t, slot, *count - 1, *slots})
	*count += len(t.nodes) - 1
	*slots += len(t.order)
}

// placedNode is an inner node of the top levels and its slot.
type placedNode struct {
	slot int
	n    node
}

// placedPart is a subtree of the top levels and where layout put it: its
// root at slot, its other nodes i at base+i, its slots from slots.
type placedPart struct {
	part              *sbvhPart
	slot, base, slots int
}

// copy writes the subtree to its place in nodes and order.
func (p *placedPart) copy(nodes []node, order []uint32) {
	fix := func(n node) node {
		if n.isLeaf() {
			n.first += uint32(p.slots)
		} else {
			n.first = uint32(int(n.first) + p.base)
		}
		return n
	}
	sub := p.part.nodes
	nodes[p.slot] = fix(sub[0])
	for i := 1; i < len(sub); i++ {
		nodes[p.base+i] = fix(sub[i])
	}
	copy(order[p.slots:], p.part.order)
}

// emit lays the top levels out (layout) in one array of nodes and one of
// slots, copying the subtrees in parallel.
func (t *sbvhPart) emit() ([]node, []uint32) {
	count, slots := 1, 0
	var inner []placedNode
	var subs []placedPart
	t.layout(0, &count, &slots, &inner, &subs)
	nodes, order := make([]node, count), make([]uint32, slots)
	for _, in := range inner {
		nodes[in.slot] = in.n
	}
	parallelWork(len(subs), 1, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			subs[i].copy(nodes, order)
		}
	})
	return nodes, order
}

// choose returns the best split of a node's refs (bounds bb, doubled
// centroids' bounds cb): spatial if one costs less than the best object
// split, by sbvhMargin at the root, where spatialOK (room for fragments).
func (s *sbvh) choose(refs []bref, bb *binBox, cb *centroids, spatialOK bool, depth int) splitChoice {
	var c splitChoice
	s.objectSplit(refs, cb, &c)
	if c.axis >= 0 && spatialOK && overlapArea(&c.lb, &c.rb) > sbvhAlpha*s.rootArea {
		margin := float32(0)
		if depth == 0 {
			margin = sbvhMargin
		}
		s.spatialSplit(refs, bb, margin, depth, &c)
	}
	return c
}

// build returns the part over the refs at refs in bufs[cur] (bounds bb,
// doubled centroids' bounds cb), whose room holds their fragments too: a
// spatial split writes the left side's refs to the front of the room in
// the other buffer and the right side's to the back, and shares the room
// between the sides by their sizes.
func (s *sbvh) build(cur int, refs, room span, bb binBox, cb centroids, depth int) *sbvhPart {
	sbvhStepped(sbvhStart, depth, room)
	src := s.bufs[cur][refs.lo:refs.hi]
	n := len(src)
	if n < sbvhGrain || depth >= medianDepth {
		return s.delegate(cur, refs, room, bb, cb, depth)
	}
	c := s.choose(src, &bb, &cb, room.hi-room.lo > n, depth)
	sbvhStepped(sbvhChosen, depth, room)
	if !c.spatial {
		return s.delegate(cur, refs, room, bb, cb, depth)
	}
	sp, ok := s.splitRefs(src, s.bufs[cur^1][room.lo:room.hi], c.axis, c.at)
	if !ok || sp.nl == 0 || sp.nr == 0 {
		return s.delegate(cur, refs, room, bb, cb, depth)
	}
	sbvhStepped(sbvhSplit, depth, room)
	free := room.hi - room.lo - sp.nl - sp.nr
	mid := room.lo + sp.nl + min(free*sp.nl/(sp.nl+sp.nr), sp.rlo-sp.nl)
	next := cur ^ 1
	lrefs, rrefs := span{room.lo, room.lo + sp.nl}, span{room.lo + sp.rlo, room.lo + sp.rlo + sp.nr}
	t := &sbvhPart{bounds: bb.aabb()}
	s.open.Add(1) // two children for one node
	// The children are built in parallel down to the smallest nodes of
	// the top levels (sbvhGrain): below 8192 refs they were built one
	// after the other, and on 16 processors such a subtree's chain of
	// searches, splits and object-split builds took milliseconds.
	crewPairUrgent(
		func() { t.kids[0] = s.build(next, lrefs, span{room.lo, mid}, sp.lb, sp.lc, depth+1) },
		func() { t.kids[1] = s.build(next, rrefs, span{mid, room.hi}, sp.rb, sp.rc, depth+1) })
	return t
}

// delegate builds the refs at refs in bufs[cur] with the object-split
// builder, as a subtree at depth, and merges the fragments of a triangle
// that its leaves hold together (dedupeLeaves). The same range of the
// other buffer, inside the node's room, is the builder's second buffer.
func (s *sbvh) delegate(cur int, refs, room span, bb binBox, cb centroids, depth int) *sbvhPart {
	sbvhStepped(sbvhSubtree, depth, room)
	src, scratch := s.bufs[cur][refs.lo:refs.hi], s.bufs[cur^1][refs.lo:refs.hi]
	s.delegated.Add(int64(len(src)))
	if s.open.Add(-1) == 0 && s.sized != nil {
		s.sized(int(s.delegated.Load())) // every other delegation has added its refs
	}
	nodes, order := buildIn(src, scratch, bb, cb, s.p, grainFor(len(src), runtime.GOMAXPROCS(0)), depth, false)
	t := &sbvhPart{nodes: nodes, order: dedupeLeaves(nodes, order)}
	sbvhStepped(sbvhBuilt, depth, room)
	return t
}

// sbvhStep is a step of a top-level node's build, for testHookSBVH.
type sbvhStep uint8

const (
	sbvhStart   sbvhStep = iota // the node's build starts
	sbvhChosen                  // its split is chosen
	sbvhSplit                   // its refs are split between its children
	sbvhSubtree                 // its object-split build starts
	sbvhBuilt                   // and ends
)

// testHookSBVH, where a benchmark sets it, is called at each step of the
// build of each node of the top levels of a tree with spatial splits,
// with the node's depth and room (which tells the nodes apart: a node's
// room holds its descendants' and no other's of its depth), on the
// goroutine that takes the step (BenchmarkBuildPhasesOfMesh times the
// chain of steps to the subtree built last; nil elsewhere).
var testHookSBVH func(step sbvhStep, depth int, room span)

// sbvhStepped reports a step to testHookSBVH.
func sbvhStepped(step sbvhStep, depth int, room span) {
	if h := testHookSBVH; h != nil {
		h(step, depth, room)
	}
}

// splitChoice is the best split found for a node: an object split (its
// children's bounds lb and rb) or, if spatial, the plane x[axis] = at;
// cost is its SAH cost (unnormalized, for all the node's refs).
type splitChoice struct {
	axis    int // -1: none
	cost    float32
	lb, rb  binBox // the object split's children's bounds
	spatial bool
	at      float32
}

// objectSplit finds the best binned object split of refs, binning a
// sample of them as the object-split builder bins a node (newBinning,
// binRefs, sweepAxis), with the children's bounds for the overlap test.
func (s *sbvh) objectSplit(refs []bref, cb *centroids, c *splitChoice) {
	n := len(refs)
	stride := max(1, n/sbvhSample)
	c.axis, c.cost = -1, float32(math.Inf(1))
	bn, usable := newBinning(s.p.bins, cb)
	if !usable {
		return
	}
	sc := new(binScratch)
	binRefs(refs, &bn, sc, stride)
	split := 0
	for a := range 3 {
		if bn.k[a] == 0 {
			continue
		}
		if sp, cost, ok := sweepAxis(&sc.boxes[a], &sc.counts[a], bn.nb); ok && cost*float32(stride) < c.cost {
			c.axis, c.cost, split = a, cost*float32(stride), sp
		}
	}
	if c.axis < 0 {
		return
	}
	c.lb, c.rb = emptyBinBox(), emptyBinBox()
	for i := range bn.nb {
		if i < split {
			c.lb.union(&sc.boxes[c.axis][i])
		} else {
			c.rb.union(&sc.boxes[c.axis][i])
		}
	}
}

// spatialSplit bins a sample of refs (fewer below the root) by the
// planes of nb equal slabs of bb, cutting the triangles that cross planes
// into a fragment per slab, and makes the best plane c's split where it
// costs less than c's by the fraction margin. The root bins every axis;
// the nodes below it the longest axis of their bounds and the axis of
// their best object split (c's), which may be the same. On the CAD
// engine that built the fast-trace BLAS 1.06x as fast on one Zen 3 core
// and 1.19x on two (four rounds alternated, medians of 15 builds each:
// 55.2 -> 52.0 ms and 32.9 -> 27.7 ms), with a tree the SAH prices as before
// (106.31 against 106.33; 0.4% more references), whose wide nodes and
// triangles visited per ray by a plain ordered walk of embreecmp's rays
// are within 1% of the old tree's (primary, shadow and incoherent);
// embreecmp's own trace rows moved within their swing. The longest axis
// alone (106.14) built as fast, but its shadow rays traced 3% slower in
// two sets of embreecmp runs.
func (s *sbvh) spatialSplit(refs []bref, bb *binBox, margin float32, depth int, c *splitChoice) {
	n, nb := len(refs), sbvhSpatialBins
	sample := sbvhSpatialSample
	if depth > 0 {
		sample /= 2
	}
	stride := max(1, n/sample)
	lo := [3]float32{bb.minX, bb.minY, bb.minZ}
	hi := [3]float32{-bb.nmaxX, -bb.nmaxY, -bb.nmaxZ}
	longest := 0
	for a := 1; a < 3; a++ {
		if hi[a]-lo[a] > hi[longest]-lo[longest] {
			longest = a
		}
	}
	objectAxis := c.axis
	var boxes [maxBins]binBox
	var enter, exit [maxBins]int
	for a := range 3 {
		ext := hi[a] - lo[a]
		if !(ext > 0) || (depth > 0 && a != longest && a != objectAxis) {
			continue
		}
		var pl [maxBins + 1]float32
		for i := range nb {
			pl[i] = lo[a] + ext*float32(i)/float32(nb)
			boxes[i], enter[i], exit[i] = emptyBinBox(), 0, 0
		}
		pl[nb] = hi[a]
		scale := float32(nb) / ext
		for i := 0; i < n; i += stride {
			r := &refs[i]
			x := refExtent(r, a)
			rlo, rhi := x[0], x[1]
			b0, b1 := slab(&pl, nb, rlo, lo[a], scale), slab(&pl, nb, rhi, lo[a], scale)
			enter[b0]++
			exit[b1]++
			if b0 == b1 {
				boxes[b0].add(r)
				continue
			}
			box := refBox(r)
			slabParts(&s.tris[r.id], a, &pl, b0, b1, &box, &boxes)
		}
		if bin, cost, ok := sweepBins(&boxes, enter[:nb], exit[:nb]); ok && cost*float32(stride)*(1+margin) < c.cost {
			c.axis, c.cost, c.spatial, c.at = a, cost*float32(stride)*(1+margin), true, pl[bin]
		}
	}
}

// slabParts adds to boxes[b0..b1] the boxes of the parts of triangle t
// in the slabs between planes pl[b0+1..b1] on axis a (the first slab open
// below, the last above), each intersected with box. A part's corners are
// the triangle's vertices inside its slab and the ends of the triangle's
// cross-sections at its planes (crossSection), which each plane's two
// slabs share.
func slabParts(t *triVerts, a int, pl *[maxBins + 1]float32, b0, b1 int, box *[2][3]float32, boxes *[maxBins]binBox) {
	v := [3]*[3]float32{comps(&t[0]), comps(&t[1]), comps(&t[2])}
	if v[0][a] > v[1][a] {
		v[0], v[1] = v[1], v[0]
	}
	if v[1][a] > v[2][a] {
		v[1], v[2] = v[2], v[1]
	}
	if v[0][a] > v[1][a] {
		v[0], v[1] = v[1], v[0]
	}
	inf := float32(math.Inf(1))
	var prev [2][3]float32 // the cross-section at the slab's lower plane
	for b := b0; b <= b1; b++ {
		part := [2][3]float32{{inf, inf, inf}, {-inf, -inf, -inf}}
		lower, upper := -inf, inf
		if b > b0 {
			lower = pl[b]
			part = prev
		}
		if b < b1 {
			upper = pl[b+1]
			prev = crossSection(&v, a, upper)
			for k := range 3 {
				part[0][k], part[1][k] = min(part[0][k], prev[0][k]), max(part[1][k], prev[1][k])
			}
		}
		for _, p := range v {
			if lower <= p[a] && p[a] <= upper {
				for k := range 3 {
					part[0][k], part[1][k] = min(part[0][k], p[k]), max(part[1][k], p[k])
				}
			}
		}
		ok := true
		for k := range 3 {
			part[0][k], part[1][k] = max(part[0][k], box[0][k]), min(part[1][k], box[1][k])
			ok = ok && part[0][k] <= part[1][k]
		}
		if ok {
			boxes[b].addv(part[0][0], part[0][1], part[0][2], -part[1][0], -part[1][1], -part[1][2])
		}
	}
}

// crossSection returns the box of the segment where the plane x[a] = at
// cuts the triangle whose vertices v are sorted on axis a, strictly
// between the first and the last: from the long edge v0-v2 to v0-v1 or
// v1-v2, rounded outwards as splitTriangle rounds.
func crossSection(v *[3]*[3]float32, a int, at float32) [2][3]float32 {
	var r [2][3]float32
	r[0], r[1] = crossing(v[0], v[2], a, at)
	var lo, hi [3]float32
	switch {
	case at < v[1][a]:
		lo, hi = crossing(v[0], v[1], a, at)
	case at > v[1][a]:
		lo, hi = crossing(v[1], v[2], a, at)
	default:
		lo, hi = *v[1], *v[1]
	}
	for k := range 3 {
		r[0][k], r[1][k] = min(r[0][k], lo[k]), max(r[1][k], hi[k])
	}
	return r
}

// crossing returns bounds of the point where the edge p-q, which spans
// the plane x[a] = at, crosses it: found in float64, each coordinate
// rounded to the float32s below and above.
func crossing(p, q *[3]float32, a int, at float32) (lo, hi [3]float32) {
	s := (float64(at) - float64(p[a])) / (float64(q[a]) - float64(p[a]))
	for k := range 3 {
		if k == a {
			lo[k], hi[k] = at, at
			continue
		}
		f := float32(float64(p[k]) + s*(float64(q[k])-float64(p[k])))
		lo[k], hi[k] = nextDown32(f), nextUp32(f)
	}
	return lo, hi
}

// splitRefs writes the refs (or their fragments) below the plane
// x[axis] = at to the front of dst, as dst[:nl], and those above it
// toward its back, as dst[rlo:rlo+nr]; a ref ending at the plane stays
// whole on its side, a crossing one is cut in two. ok is false when dst
// may be too small. Large nodes are split in chunks, in parallel, each
// into its own ranges; each chunk also bounds what it wrote, while it is
// in cache, so the sides' bounds cost no pass of their own.
func (s *sbvh) splitRefs(refs, dst []bref, axis int, at float32) (sp sides, ok bool) {
	chunks := [][2]int{{0, len(refs)}}
	if len(refs) >= sbvhParallel {
		chunks = splitChunks(len(refs), min(runtime.GOMAXPROCS(0), len(refs)/minChunk))
	}
	// Counted with every crossing ref on both sides: a part may come out
	// empty (a fragment's box holds more than its part), leaving a gap.
	offs := make([][2]int, len(chunks)+1)
	parallelChunksUrgent(chunks, func(c, lo, hi int) {
		nl, nr := 0, 0
		for i := lo; i < hi; i++ {
			x := refExtent(&refs[i], axis)
			nl += b2i(x[0] < at)
			nr += b2i(x[1] > at || x[0] >= at)
		}
		offs[c+1] = [2]int{nl, nr}
	})
	for c := range chunks {
		offs[c+1][0] += offs[c][0]
		offs[c+1][1] += offs[c][1]
	}
	if offs[len(chunks)][0]+offs[len(chunks)][1] > len(dst) {
		return sp, false
	}
	sp.rlo = len(dst) - offs[len(chunks)][1]
	l, r := dst[:sp.rlo], dst[sp.rlo:]
	ends := make([][2]int, len(chunks))
	bounds := make([]sides, len(chunks))
	parallelChunksUrgent(chunks, func(c, lo, hi int) {
		kl, kr := offs[c][0], offs[c][1]
		for i := lo; i < hi; i++ {
			ref := &refs[i]
			switch x := refExtent(ref, axis); {
			case x[1] <= at && x[0] < at:
				l[kl] = *ref
				kl++
			case x[0] >= at:
				r[kr] = *ref
				kr++
			default:
				box := refBox(ref)
				p, q, pok, qok := splitTriangle(&s.tris[ref.id], axis, at, &box)
				if pok {
					l[kl] = boxRef(&p, ref.id)
					kl++
				}
				if qok {
					r[kr] = boxRef(&q, ref.id)
					kr++
				}
			}
		}
		ends[c] = [2]int{kl, kr}
		b := &bounds[c]
		b.lb, b.lc = rangeBounds(l[offs[c][0]:kl])
		b.rb, b.rc = rangeBounds(r[offs[c][1]:kr])
	})
	// Close the gaps, chunk by chunk (a chunk after none stays where it is).
	sp.nl, sp.nr = ends[0][0], ends[0][1]
	sp.lb, sp.lc, sp.rb, sp.rc = bounds[0].lb, bounds[0].lc, bounds[0].rb, bounds[0].rc
	for c := 1; c < len(chunks); c++ {
		sp.nl += closeGap(l, sp.nl, offs[c][0], ends[c][0])
		sp.nr += closeGap(r, sp.nr, offs[c][1], ends[c][1])
		b := &bounds[c]
		sp.lb.union(&b.lb)
		sp.lc.union(&b.lc)
		sp.rb.union(&b.rb)
		sp.rc.union(&b.rc)
	}
	return sp, true
}

// closeGap moves refs[from:end] to refs[to:] (to <= from) and returns how
// many it moved; where to is from, they are in place already.
func closeGap(refs []bref, to, from, end int) int {
	if to == from {
		return end - from
	}
	return copy(refs[to:], refs[from:end])
}

// sides is what splitRefs wrote: nl refs at the front of dst and nr from
// rlo, with their bounds and doubled centroids' bounds.
type sides struct {
	nl, rlo, nr int
	lb, rb      binBox
	lc, rc      centroids
}

// refExtent returns a ref's least and greatest coordinate on axis a.
func refExtent(r *bref, a int) [2]float32 {
	f := (*[6]float32)(unsafe.Pointer(r))
	return [2]float32{f[a], -f[3+a]}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// slab returns the slab [pl[i], pl[i+1]) holding x (the last one closed),
// estimated from the slab width and set right against the planes.
func slab(pl *[maxBins + 1]float32, nb int, x, lo, scale float32) int {
	i := min(max(int((x-lo)*scale), 0), nb-1)
	for i > 0 && x < pl[i] {
		i--
	}
	for i < nb-1 && x >= pl[i+1] {
		i++
	}
	return i
}

func refBox(r *bref) [2][3]float32 {
	return [2][3]float32{{r.minX, r.minY, r.minZ}, {-r.nmaxX, -r.nmaxY, -r.nmaxZ}}
}

func boxRef(b *[2][3]float32, id uint32) bref {
	return bref{b[0][0], b[0][1], b[0][2], -b[1][0], -b[1][1], -b[1][2], id}
}

// overlapArea is the half area of the intersection of a and b.
func overlapArea(a, b *binBox) float32 {
	x := min(-a.nmaxX, -b.nmaxX) - max(a.minX, b.minX)
	y := min(-a.nmaxY, -b.nmaxY) - max(a.minY, b.minY)
	z := min(-a.nmaxZ, -b.nmaxZ) - max(a.minZ, b.minZ)
	if !(x >= 0 && y >= 0 && z >= 0) {
		return 0
	}
	return float32(x*y) + float32(y*z) + float32(z*x) // see binBox.area
}

// sweepBins returns the best split of a spatial split's slabs (those
// below bin and the others) by SAH, counting the refs entering a slab
// (enter) into the left side and those leaving one (exit) into the right
// side; ok is false when no split leaves refs on both sides. (Object
// splits count each ref once: sweepAxis.)
func sweepBins(boxes *[maxBins]binBox, enter, exit []int) (bin int, cost float32, ok bool) {
	nb := len(enter)
	var right [maxBins]binBox
	var rn [maxBins]int
	acc, cnt := emptyBinBox(), 0
	for i := nb - 1; i > 0; i-- {
		acc.union(&boxes[i])
		cnt += exit[i]
		right[i], rn[i] = acc, cnt
	}
	acc, cnt = emptyBinBox(), 0
	cost = float32(math.Inf(1))
	for i := 1; i < nb; i++ {
		acc.union(&boxes[i-1])
		cnt += enter[i-1]
		if cnt == 0 || rn[i] == 0 {
			continue
		}
		if c := float32(acc.halfArea()*float32(cnt)) + float32(right[i].halfArea()*float32(rn[i])); c < cost {
			bin, cost, ok = i, c, true
		}
	}
	return bin, cost, ok
}

// splitTriangle returns the boxes of the parts of triangle t below and
// above the plane x[axis] = at, each intersected with box, and whether
// each is non-empty. Points where edges cross the plane are bounded as
// crossing bounds them (float64, rounded outwards to float32), so each
// box holds its part exactly: every point of the triangle inside box lies
// in one of them.
func splitTriangle(t *triVerts, axis int, at float32, box *[2][3]float32) (l, r [2][3]float32, lok, rok bool) {
	inf := float32(math.Inf(1))
	l = [2][3]float32{{inf, inf, inf}, {-inf, -inf, -inf}}
	r = l
	v := [3]*[3]float32{comps(&t[0]), comps(&t[1]), comps(&t[2])}
	for i := range 3 {
		p, q := v[i], v[(i+1)%3]
		if p[axis] <= at {
			for a := range 3 {
				l[0][a], l[1][a] = min(l[0][a], p[a]), max(l[1][a], p[a])
			}
		}
		if p[axis] >= at {
			for a := range 3 {
				r[0][a], r[1][a] = min(r[0][a], p[a]), max(r[1][a], p[a])
			}
		}
		if !(p[axis] < at && q[axis] > at || p[axis] > at && q[axis] < at) {
			continue
		}
		lo, hi := crossing(p, q, axis, at)
		for a := range 3 {
			l[0][a], l[1][a] = min(l[0][a], lo[a]), max(l[1][a], hi[a])
			r[0][a], r[1][a] = min(r[0][a], lo[a]), max(r[1][a], hi[a])
		}
	}
	lok, rok = true, true
	for a := range 3 {
		l[0][a], l[1][a] = max(l[0][a], box[0][a]), min(l[1][a], box[1][a])
		r[0][a], r[1][a] = max(r[0][a], box[0][a]), min(r[1][a], box[1][a])
		lok = lok && l[0][a] <= l[1][a]
		rok = rok && r[0][a] <= r[1][a]
	}
	return l, r, lok, rok
}

// nextDown32 returns the float32 below the finite f.
func nextDown32(f float32) float32 {
	switch b := math.Float32bits(f); {
	case f > 0:
		return math.Float32frombits(b - 1)
	case f < 0:
		return math.Float32frombits(b + 1)
	}
	return -math.SmallestNonzeroFloat32
}

// nextUp32 returns the float32 above the finite f.
func nextUp32(f float32) float32 { return -nextDown32(-f) }

// dedupeLeaves removes from each leaf the slots that repeat a primitive
// of the same leaf (fragments of one triangle that the build put
// together), keeping the first, and closes the gaps; it returns the
// shortened order. A depth-first walk, left child first, meets the leaves
// in the order of their slots (which is not the order of the nodes: a
// leaf's sibling's subtree lies after it in the array and before it in
// the slots).
func dedupeLeaves(nodes []node, order []uint32) []uint32 {
	k := uint32(0)
	stack := []uint32{0}
	for len(stack) > 0 {
		n := &nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if !n.isLeaf() {
			stack = append(stack, n.first+1, n.first)
			continue
		}
		first := k
		for _, id := range order[n.first : n.first+n.count] {
			if !slices.Contains(order[first:k], id) {
				order[k] = id
				k++
			}
		}
		n.first, n.count = first, k-first
	}
	return order[:k]
}
