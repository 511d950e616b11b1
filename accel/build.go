package accel

import (
	"math"
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// node is one node of a binary BVH. Inner nodes have count == 0 and their
// two children at first and first+1; leaves reference count primitive slots
// starting at first. Children always come after their parent, so a reverse
// sweep over the array refits bottom-up.
type node struct {
	bounds AABB
	first  uint32
	count  uint32
}

func (n *node) isLeaf() bool { return n.count != 0 }

// primRef is a primitive's box and index during the build.
type primRef struct {
	box AABB
	id  uint32
}

// buildParams tunes the binned SAH builder.
type buildParams struct {
	bins    int // bins per axis
	maxLeaf int // most primitives per leaf
	// traversalCost is the SAH cost of an inner node relative to one
	// primitive test. Traversal walks a wide tree, testing several boxes
	// per node, and a box test costs about as much as a triangle test:
	// measured on 100k-triangle scenes, 3 gives larger leaves (3 to 4.5
	// triangles on average instead of 1.3 to 2), a third fewer wide nodes,
	// faster builds and faster incoherent and shadow rays than 1 (measured
	// with 4-wide nodes, as are the numbers below).
	//
	// The default (fast-trace) tree uses 8 and leaves of up to 8: the
	// vector walks test a whole leaf in one pass, and the prefetched leaf
	// lines arrive together, so a leaf is cheaper than its triangle count
	// says. Measured against 32 bins, leaves of 4 and cost 3, in one
	// process alternating batches (1M and 100k terrain and soup): shadow
	// and incoherent rays 3-14% faster with the scalar walks and 5-28%
	// with the vector ones, primary rays within 3% (scalar) and 3-10%
	// faster (vector). The fast-build tree traces about as fast with 8 as
	// with 3 (within 5% either way) and builds 16-24% faster (1M terrain
	// and soup, one thread): nodes of at most traversalCost primitives
	// become leaves without binning, as the SAH would make them anyway.
	traversalCost float32
}

func paramsFor(flags BuildFlags) buildParams {
	switch {
	case flags&BuildPreferFastBuild != 0:
		return buildParams{bins: 8, maxLeaf: 8, traversalCost: 8}
	case flags&BuildMinimizeMemory != 0:
		return buildParams{bins: 16, maxLeaf: 8, traversalCost: 2}
	}
	return buildParams{bins: 32, maxLeaf: 8, traversalCost: 8}
}

const (
	// maxBins bounds buildParams.bins.
	maxBins = 32
	// medianDepth is the depth past which the builder stops trusting SAH
	// and halves ranges, so that no tree is deeper than medianDepth + 28
	// (maxPrimitives is 2^28) and the fixed traversal stack never overflows.
	medianDepth = 48
	// maxTreeDepth bounds the depth of any tree built here.
	maxTreeDepth = medianDepth + 30
	// parallelGrain is the size below which subtrees are built inline.
	parallelGrain = 1 << 14
)

// buildBVH builds a BVH over refs. It returns nodes in
// depth-first order and, for each leaf slot, the primitive id. The result
// does not depend on goroutine scheduling: every goroutine builds a piece
// of the tree of its own, and the pieces are spliced in tree order.
func buildBVH(refs []primRef, p buildParams) (nodes []node, order []uint32) {
	brefs := make([]bref, len(refs))
	for i := range refs {
		brefs[i] = brefOf(&refs[i].box, refs[i].id)
	}
	bb, cb := rangeBounds(brefs)
	return buildBVHRefs(brefs, bb, cb, p)
}

// brefOf returns the builder's ref of the box a with primitive id.
func brefOf(a *AABB, id uint32) bref {
	return bref{a.Min.X, a.Min.Y, a.Min.Z, -a.Max.X, -a.Max.Y, -a.Max.Z, id}
}

// buildBVHRefs is buildBVH over refs already in the builder's layout,
// whose bounds and doubled-centroid bounds are given. It takes refs over.
func buildBVHRefs(refs []bref, bb binBox, cb centroids, p buildParams) (nodes []node, order []uint32) {
	return buildBVHGrain(refs, bb, cb, p, grainFor(len(refs), runtime.GOMAXPROCS(0)), 0)
}

// grainFor returns the size from which the subtrees of a build of n refs
// on procs goroutines are handed to other goroutines: parallelGrain, or
// for smaller builds on several goroutines, about an eighth of each
// goroutine's share but at least minGrain refs, so that small builds run
// in parallel too. Builds of under 2*minGrain refs stay on one goroutine
// (parallelGrain): their halves are too small to pay for the hand-off
// (two goroutines, BuildBLAS of 1.1k / 1.5k / 2k triangles: 1.02-1.14x
// on one). On one processor nothing is handed off: the pieces ran one
// after another anyway, and cost their own nodes' growth and a copy into
// one array (BenchmarkBuild on one processor, two sets of three rounds
// alternated: 1M terrain 0.88x and 0.91x the time, 1M soup 0.94x and
// 0.97x, 100k 0.97-1.03x; BuildTLAS 100k 0.96x; 8-31% fewer bytes). The
// tree does not depend on it (see piece).
func grainFor(n, procs int) int {
	if procs <= 1 {
		return math.MaxInt
	}
	if n < 2*minGrain {
		return parallelGrain
	}
	return min(parallelGrain, max(minGrain, n/(8*procs)))
}

// minGrain is the least size of a subtree built on a goroutine of its own.
const minGrain = 1 << 10

// buildBVHGrain is buildBVHRefs with nodes of grain refs or more handing
// their left child to another goroutine (tests splice many small pieces).
func buildBVHGrain(refs []bref, bb binBox, cb centroids, p buildParams, grain, depth int) (nodes []node, order []uint32) {
	scratch, release := tempSlice[bref](len(refs))
	defer release()
	return buildIn(refs, scratch, bb, cb, p, grain, depth, true)
}

// buildIn is buildBVHGrain with scratch (as long as refs) for the refs'
// second buffer, for a subtree whose root lies at depth in the whole tree
// (sbvhBuild's delegated ones: their SAH gives way to halving at the same
// depth of the whole tree, which so stays within maxTreeDepth); trim
// copies the nodes to a slice without spare capacity where they have
// some (for callers that keep them).
func buildIn(refs, scratch []bref, bb binBox, cb centroids, p buildParams, grain, depth int, trim bool) (nodes []node, order []uint32) {
	n := len(refs)
	if n == 0 {
		return []node{{bounds: emptyAABB()}}, nil
	}
	b := builder{p: p, bufs: [2][]bref{refs, scratch[:n]}, order: make([]uint32, n), grain: grain}
	b.procs = runtime.GOMAXPROCS(0)
	root := &piece{nodes: make([]node, 1, nodesHint(n, p, grain))}
	var group crewGroup
	b.build(root, 0, 0, n, depth, 0, bb, cb, lazyNone, new(binScratch), &group)
	group.Wait()
	return assemble(root, trim), b.order
}

// nodesHint is the capacity of the root piece's nodes for a build of n
// refs: where the whole tree is one piece (n < grain), 2n-1 for leaves of
// one primitive (top levels), exactly what they take, else n/2, above
// what leaves of up to eight take (0.3n to 0.35n on the benchmark
// scenes), so that the piece does not grow by doubling; else 1.
func nodesHint(n int, p buildParams, grain int) int {
	switch {
	case n >= grain:
		return 1
	case p.maxLeaf == 1:
		return 2*n - 1
	}
	return max(1, n/2)
}

// piece is the part of a tree that one goroutine builds. A node that
// splits appends its pair of children, and a serial build then builds the
// left child's subtree before the right one's, so a piece's nodes come out
// in their final order (depth first, each inner node's children adjacent,
// root at 0; first indexes the piece's own nodes) without a pass to
// compact them. The exception is a child handed to another goroutine: it
// becomes the root of a piece of its own, its slot in this piece is left
// blank, and its descendants belong right after its pair, before what this
// piece appended next. assemble splices the pieces together.
//
// Building into node ranges reserved by primitive count (2n-1 nodes for n
// primitives, four times what leaves of about four primitives use) cost a
// zeroed scratch array of 2n nodes and a serial compaction of the tree.
type piece struct {
	nodes    []node
	handoffs []handoff // in the order of their slots
	// Set by layout: the nodes of the whole subtree (the handed-off
	// pieces' included) and where they go in the assembled array.
	size int
	at   placement
}

// handoff is a child built as a piece of its own.
type handoff struct {
	slot  uint32 // the child's blank slot; its descendants go after slot+1
	piece *piece
}

// placement is where a piece's nodes go in the assembled array. Its
// handoffs cut nodes[1:] into segments: segment k ends after the pair of
// handoff k (at cut(k)), and the last one at the end. Node i of segment k
// goes to i+shift[k], nodes[0] to root.
type placement struct {
	root  int
	shift []int
}

// handOff makes the child at slot, the first of a pair just appended to t,
// a piece of its own, for another goroutine to build, with room for hint
// nodes (nodesHint of its refs), so that its nodes do not grow by doubling.
func (t *piece) handOff(slot uint32, hint int) *piece {
	c := &piece{nodes: make([]node, 1, hint)}
	t.handoffs = append(t.handoffs, handoff{slot: slot, piece: c})
	return c
}

// cut returns the end of segment k (see placement).
func (t *piece) cut(k int) uint32 {
	if k < len(t.handoffs) {
		return t.handoffs[k].slot + 2
	}
	return uint32(len(t.nodes))
}

// assemble lays out the pieces under root in one array, in the order a
// serial build gives (see piece), and copies them there in parallel (on the
// crew). A tree of one piece is returned as it is, unless trim asks
// for a copy without the spare capacity it has.
func assemble(root *piece, trim bool) []node {
	var pieces []*piece
	root.layout(0, 1, &pieces)
	if len(pieces) == 1 && (len(root.nodes) == cap(root.nodes) || !trim) {
		return root.nodes // laid out already (and no room to spare)
	}
	out := make([]node, root.size)
	if len(pieces) == 1 {
		root.copyTo(out)
		return out
	}
	crewRun(len(pieces), func(i int) { pieces[i].copyTo(out) })
	return out
}

// layout places t with its root at index root and nodes[1] at start, and
// the pieces handed off from it after the pairs of their slots; it sets
// their sizes and appends them all to pieces.
func (t *piece) layout(root, start int, pieces *[]*piece) {
	*pieces = append(*pieces, t)
	shift := start - 1
	t.at = placement{root: root, shift: make([]int, 1, len(t.handoffs)+1)}
	t.at.shift[0] = shift
	t.size = len(t.nodes)
	for _, h := range t.handoffs {
		c := h.piece
		c.layout(int(h.slot)+shift, int(h.slot)+2+shift, pieces)
		shift += c.size - 1
		t.size += c.size - 1
		t.at.shift = append(t.at.shift, shift)
	}
}

// copyTo writes t's nodes to their places in out, except the blank slots
// of its handoffs: their pieces write their roots there.
func (t *piece) copyTo(out []node) {
	shift := t.at.shift
	out[t.at.root] = t.placed(t.nodes[0], 0)
	lo := uint32(1)
	for k := range shift {
		hi := t.cut(k)
		end := hi
		if k < len(t.handoffs) {
			end = hi - 2 // the handed-off child's pair
			out[int(hi-1)+shift[k]] = t.placed(t.nodes[hi-1], k)
		}
		dst := out[int(lo)+shift[k]:]
		for i, n := range t.nodes[lo:end] {
			dst[i] = t.placed(n, k)
		}
		lo = hi
	}
}

// placed returns node n of segment k as it is stored in the assembled
// array: an inner node's children, in segment k or a later one, at their
// places there.
func (t *piece) placed(n node, k int) node {
	if n.count == 0 {
		for n.first >= t.cut(k) {
			k++
		}
		n.first = uint32(int(n.first) + t.at.shift[k])
	}
	return n
}

type builder struct {
	p buildParams
	// bufs are the refs and a second buffer of the same size: a node's
	// refs lie in bufs[cur][lo:hi], and partitioning copies them to the
	// same range of the other buffer.
	bufs  [2][]bref
	order []uint32 // leaf slot -> primitive id, filled at the leaves
	procs int      // GOMAXPROCS: large nodes are binned and partitioned in that many chunks
	grain int      // nodes of this many refs or more build their left child on another goroutine
}

// bref is a primitive's box during the build, its maxima negated: the
// float min builtin costs fewer instructions than max (which negates
// around a min), and max(a, b) = -min(-a, -b), so the builder's boxes
// carry -max and grow with min only. Bounds come out bit for bit as with
// min and max (negation is exact, and both give +0 for -0 vs +0); sums
// and differences are taken so as to round as before (x - (-y) = x + y,
// and -(a + b) = (-a) - b).
type bref struct {
	minX, minY, minZ    float32
	nmaxX, nmaxY, nmaxZ float32
	id                  uint32
}

// binBox is a box as six scalars, maxima negated (see bref), each triple
// padded to four floats so that the assembly binning (binRefsSSE) loads
// and stores a bin's halves whole.
type binBox struct {
	minX, minY, minZ    float32
	_                   float32
	nmaxX, nmaxY, nmaxZ float32
	_                   float32
}

var posInf = float32(math.Inf(1))

func emptyBinBox() binBox {
	inf := posInf
	return binBox{minX: inf, minY: inf, minZ: inf, nmaxX: inf, nmaxY: inf, nmaxZ: inf}
}

// binScratch is one goroutine's binning storage.
type binScratch struct {
	boxes  [3][maxBins]binBox
	counts [3][maxBins]int32
	// chunkCounts holds each chunk's counts after binChunks.
	chunkCounts [][3][maxBins]int32
}

func (b *binBox) add(a *bref) {
	b.addv(a.minX, a.minY, a.minZ, a.nmaxX, a.nmaxY, a.nmaxZ)
}

// addv grows b by a box given as scalars. One statement per field: a
// multiple assignment keeps every field's address live at once, which
// spills registers.
func (b *binBox) addv(x0, y0, z0, nx1, ny1, nz1 float32) {
	b.minX = min(b.minX, x0)
	b.minY = min(b.minY, y0)
	b.minZ = min(b.minZ, z0)
	b.nmaxX = min(b.nmaxX, nx1)
	b.nmaxY = min(b.nmaxY, ny1)
	b.nmaxZ = min(b.nmaxZ, nz1)
}

func (b *binBox) union(a *binBox) {
	b.minX, b.minY, b.minZ = min(b.minX, a.minX), min(b.minY, a.minY), min(b.minZ, a.minZ)
	b.nmaxX, b.nmaxY, b.nmaxZ = min(b.nmaxX, a.nmaxX), min(b.nmaxY, a.nmaxY), min(b.nmaxZ, a.nmaxZ)
}

func (b *binBox) halfArea() float32 {
	if !(b.minX <= -b.nmaxX) {
		return 0
	}
	dx, dy, dz := -(b.nmaxX + b.minX), -(b.nmaxY + b.minY), -(b.nmaxZ + b.minZ)
	return float32(dx*dy) + float32(dy*dz) + float32(dz*dx)
}

// area is halfArea for a box known not to be empty. Here and in the other
// costs that choose splits, each product is rounded on its own (explicit
// conversions: no fused multiply-add, which GOAMD64=v3 and arm64 would
// otherwise make), as sweepSSE rounds it, so that those builds choose the
// splits a GOAMD64=v1 build does.
func (b *binBox) area() float32 {
	dx, dy, dz := -(b.nmaxX + b.minX), -(b.nmaxY + b.minY), -(b.nmaxZ + b.minZ)
	return float32(dx*dy) + float32(dy*dz) + float32(dz*dx)
}

func (b *binBox) aabb() AABB {
	return AABB{vec.V3(b.minX, b.minY, b.minZ), vec.V3(-b.nmaxX, -b.nmaxY, -b.nmaxZ)}
}

// centroids accumulates the bounds of doubled centroids (min+max), the
// maxima negated.
type centroids struct{ minX, minY, minZ, nmaxX, nmaxY, nmaxZ float32 }

func (c *centroids) add(a *bref) {
	x, y, z := a.minX-a.nmaxX, a.minY-a.nmaxY, a.minZ-a.nmaxZ
	c.minX, c.minY, c.minZ = min(c.minX, x), min(c.minY, y), min(c.minZ, z)
	c.nmaxX, c.nmaxY, c.nmaxZ = min(c.nmaxX, -x), min(c.nmaxY, -y), min(c.nmaxZ, -z)
}

// binning maps doubled centroids to bins on each axis: bin(c) =
// int((c - lo) * k), clamped; k is 0 on an axis whose centroids coincide.
type binning struct {
	lo, k [3]float32
	nb    int
}

// binIndex returns the bin of doubled centroid c on an axis with
// constants lo and k and last bin nb-1; the
// clamp compiles to a conditional move. c >= lo (lo is the least centroid
// and subtraction rounds monotonically), so (c-lo)*k is not negative, and
// when it is not a number in range (k = +Inf on a denormal-thin axis) the
// conversion gives the least int, which the mask turns into bin 0: every
// ref of such an axis lands in bin 0, which leaves the axis unused.
func binIndex(c, lo, k float32, last int) int {
	return min(int((c-lo)*k), last) & (maxBins - 1)
}

// lazyKind says what a node computes from its refs before it is split.
type lazyKind uint8

const (
	lazyNone      lazyKind = iota // bounds and centroid bounds are given
	lazyCentroids                 // bounds are given (unions of the parent's bins)
	lazyAll                       // neither: the parent binned a sample of its refs
)

// build fills node r of piece t for the refs in b.bufs[cur][lo:hi], whose
// bounds and doubled-centroid bounds are given as lazy says, and appends
// its descendants to t (or to pieces of their own, see piece).
func (b *builder) build(t *piece, r uint32, lo, hi int, depth, cur int, bounds binBox, cb centroids, lazy lazyKind, sc *binScratch, group *crewGroup) {
	refs := b.bufs[cur][lo:hi]
	n := len(refs)
	if lazy == lazyAll {
		bounds, cb = rangeBounds(refs)
	}
	leaf := func() {
		t.nodes[r] = node{bounds: bounds.aabb(), first: uint32(lo), count: uint32(n)}
		order := b.order[lo:hi]
		for i := range refs {
			order[i] = refs[i].id
		}
	}
	// A split costs at least traversalCost (its children's area-weighted
	// counts are not negative), so a node that may be a leaf and holds no
	// more primitives than that is one: binning it could not change that.
	if n == 1 || (n <= b.p.maxLeaf && float32(n) <= b.p.traversalCost) {
		leaf()
		return
	}
	if b.p.maxLeaf == 1 && n <= smallSplit && depth < medianDepth {
		b.buildSmall(t, r, lo, hi, cur, bounds)
		return
	}
	if lazy == lazyCentroids {
		cb = centroidBounds(refs)
	}
	mid := -1
	next := cur
	childLazy := lazyNone
	var lb, rb binBox
	var lc, rc centroids
	if depth < medianDepth {
		// Bins: at most the configured count, at least 8, and otherwise
		// one per two refs. The sweep costs as much per non-empty bin as
		// binning costs per ref, and on mid-sized nodes the finer grid of
		// 2n bins bought nothing: on 1M-triangle terrain and soup (fast
		// trace, 32 bins) n/2 bins give SAH cost 48.09 and 702.2 where 2n
		// gave 48.11 and 701.4, and 8-11% faster builds.
		bn, usable := newBinning(min(b.p.bins, max(8, n/2)), &cb)
		axis, split := -1, 0
		var cost float32
		var chunks [][2]int // chunk ranges of a large node, binned and partitioned in parallel
		stride := sampleStride(n)
		if usable {
			chunks = b.chunksFor(n, depth)
			if chunks != nil {
				binChunks(refs, &bn, sc, chunks, stride)
			} else {
				binRefs(refs, &bn, sc, stride)
			}
			axis, split, cost = b.evalSAH(&bn, sc, &bounds, n)
		}
		if axis < 0 || (n <= b.p.maxLeaf && cost >= float32(n)) {
			if n <= b.p.maxLeaf {
				leaf()
				return
			}
		} else {
			next = cur ^ 1
			dst := b.bufs[next][lo:hi]
			switch {
			case chunks != nil:
				mid, lb, lc, rb, rc = partitionLarge(dst, refs, &bn, axis, split, chunks, sc.chunkCounts, stride)
			case stride > 1:
				mid = partition(dst, refs, &bn, axis, split)
				childLazy = lazyAll
			default:
				mid = partition(dst, refs, &bn, axis, split)
				childLazy = lazyCentroids
			}
			if stride == 1 {
				// The children's bounds are the unions of the split axis' bins.
				lb, rb = emptyBinBox(), emptyBinBox()
				for i := 0; i < bn.nb; i++ {
					if i < split {
						lb.union(&sc.boxes[axis][i])
					} else {
						rb.union(&sc.boxes[axis][i])
					}
				}
			}
		}
	}
	if mid <= 0 || mid >= n {
		next, childLazy = cur, lazyNone
		mid = n / 2 // no usable SAH split (or too deep): halve the range
		lb, lc = rangeBounds(refs[:mid])
		rb, rc = rangeBounds(refs[mid:])
	}
	c := uint32(len(t.nodes))
	t.nodes = append(t.nodes, node{}, node{})
	t.nodes[r] = node{bounds: bounds.aabb(), first: c}
	if n >= b.grain {
		left := t.handOff(c, nodesHint(mid, b.p, b.grain))
		// The task captures copies: build's own variables stay off the
		// heap where no child is handed off.
		lb, lc, lazy := lb, lc, childLazy
		group.Go(func() { b.build(left, 0, lo, lo+mid, depth+1, next, lb, lc, lazy, new(binScratch), group) })
	} else {
		b.build(t, c, lo, lo+mid, depth+1, next, lb, lc, childLazy, sc, group)
	}
	b.build(t, c+1, lo+mid, hi, depth+1, next, rb, rc, childLazy, sc, group)
}

// smallSplit is the most refs of a node that a top level's build (leaves
// of one instance) cuts in two by trying every way (buildSmall) instead
// of binning them: three quarters of its nodes hold that few, and binning
// and sweeping three axes cost such a node as much as a node of hundreds.
const smallSplit = 4

// buildSmall builds the subtree of the 2 to smallSplit refs at
// bufs[cur][lo:hi], whose bounds are given, into t.nodes[r], with leaves
// of one ref: each node's refs are cut in the two groups of least SAH
// cost (each group's surface area times its count, summed) of all ways to
// cut them, the first such cut in the order of the left group's mask
// (which holds the node's first ref), and each group keeps its refs'
// order. It is exact where binning is not, and needs no axis.
func (b *builder) buildSmall(t *piece, r uint32, lo, hi, cur int, bounds binBox) {
	refs := b.bufs[cur][lo:hi]
	n := len(refs)
	if n == 1 {
		t.nodes[r] = node{bounds: bounds.aabb(), first: uint32(lo), count: 1}
		b.order[lo] = refs[0].id
		return
	}
	bestMask, bestCost := 0, float32(0)
	var bestL, bestR binBox
	for mask := 1; mask < 1<<n-1; mask += 2 { // the left group holds refs[0]
		l, rt := emptyBinBox(), emptyBinBox()
		nl := 0
		for i := range refs {
			if mask>>i&1 != 0 {
				l.add(&refs[i])
				nl++
			} else {
				rt.add(&refs[i])
			}
		}
		cost := l.area()*float32(nl) + rt.area()*float32(n-nl)
		if bestMask == 0 || cost < bestCost {
			bestMask, bestCost, bestL, bestR = mask, cost, l, rt
		}
	}
	var cut [smallSplit]bref
	nl := bits.OnesCount(uint(bestMask))
	left, right := 0, nl // each group's next place
	for i := range refs {
		if bestMask>>i&1 != 0 {
			cut[left], left = refs[i], left+1
		} else {
			cut[right], right = refs[i], right+1
		}
	}
	copy(refs, cut[:n])
	c := uint32(len(t.nodes))
	t.nodes = append(t.nodes, node{}, node{})
	t.nodes[r] = node{bounds: bounds.aabb(), first: c}
	b.buildSmall(t, c, lo, lo+nl, cur, bestL)
	b.buildSmall(t, c+1, lo+nl, hi, cur, bestR)
}

// sampleTarget sets how much of a large node is binned: a node of n >=
// 2*sampleTarget refs bins every (n/sampleTarget)-th ref, between
// sampleTarget and twice as many. Binning is most of the build's work, and
// on large nodes a few hundred refs in 8 to 32 bins place the best split
// plane about where all of them would. Measured on 1M-triangle terrain and
// soup (fast trace): the tree's SAH cost is 0.26% and 0.03% above binning
// every ref (0.1% at 1024, 0.7% at 128), the nodes and primitives that ray
// segments up to their hits overlap are the same within 1%, and builds are
// 20-25% faster (1024: 15-20%). The partition still sorts every ref by the
// chosen plane, and the children compute their exact bounds (lazyAll).
const sampleTarget = 256

// sampleStride returns the stride at which a node of n refs is binned.
func sampleStride(n int) int {
	return max(1, n/sampleTarget)
}

// parallelSplit is the size from which a node's binning and partition run
// in parallel chunks (when GOMAXPROCS > 1). Chunking does not change the
// result: bins merge by min and sum, and each chunk scatters its refs to
// the places a serial partition would put them.
const parallelSplit = 1 << 17

// minChunk is the least chunk of work that workChunks hands to a goroutine
// of its own to give every processor one, of a chunked node's sides that
// partitionLarge bounds on one, and of a node's refs that chunksFor
// chunks below parallelSplit.
const minChunk = 1 << 12

// chunksFor returns the chunks that a node of n refs at depth is binned
// and partitioned in, or nil for one. Nodes of parallelSplit refs or more
// take one chunk per GOMAXPROCS (of at least parallelSplit/4 refs). Below
// that, a node is chunked only near the root of a build on four or more
// processors: there the subtrees handed off so far (about 2^depth) leave
// at least four processors a node idle, and the chunks (at least minChunk
// refs) take procs>>depth of them. With fewer idle, chunking would not
// pay: the chunks' pass counting the left refs and their bounds pass
// after the partition cost about what the serial partition saves.
//
// On 16 processors of a Xeon, BenchmarkBuild with this rule against
// without, both on the crew, three rounds alternated: 100k terrain 1.14x,
// 100k soup 1.07x, the pipes with spatial splits 1.14x (whose spatial
// split partitions take chunks of minChunk too, splitRefs). Without the
// crew, each chunked partition waited for sleeping threads to wake one by
// one, and the same rule measured nothing (f88c8b9, 01f1e03).
func (b *builder) chunksFor(n, depth int) [][2]int {
	k := 1
	switch {
	case b.procs <= 1:
	case n >= parallelSplit:
		k = min(b.procs, n/(parallelSplit/4))
	case b.procs>>depth >= 4:
		k = min(b.procs>>depth, n/minChunk)
	}
	if k < 2 {
		return nil
	}
	return splitChunks(n, k)
}

// splitChunks cuts [0, n) into k nearly equal ranges (at least one).
func splitChunks(n, k int) [][2]int {
	k = max(k, 1)
	ch := make([][2]int, k)
	for i := range ch {
		ch[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return ch
}

// rangeBounds returns the bounds and doubled-centroid bounds of refs.
func rangeBounds(refs []bref) (binBox, centroids) {
	if boundsAsm && len(refs) > 0 {
		var bb binBox
		var cb centroids
		refBounds(&refs[0], len(refs), &bb, &cb)
		return bb, cb
	}
	return rangeBoundsGo(refs)
}

// rangeBoundsGo is rangeBounds in Go.
func rangeBoundsGo(refs []bref) (binBox, centroids) {
	bb := emptyBinBox()
	x0, y0, z0, x1, y1, z1 := bb.minX, bb.minY, bb.minZ, bb.nmaxX, bb.nmaxY, bb.nmaxZ
	for i := range refs {
		a := &refs[i]
		x0 = min(x0, a.minX)
		y0 = min(y0, a.minY)
		z0 = min(z0, a.minZ)
		x1 = min(x1, a.nmaxX)
		y1 = min(y1, a.nmaxY)
		z1 = min(z1, a.nmaxZ)
	}
	return binBox{minX: x0, minY: y0, minZ: z0, nmaxX: x1, nmaxY: y1, nmaxZ: z1}, centroidBounds(refs)
}

// newBinning sets up nb bins per axis over the doubled-centroid bounds cb.
// It reports false when the centroids coincide.
func newBinning(nb int, cb *centroids) (bn binning, usable bool) {
	bn.nb = nb
	clo := [3]float32{cb.minX, cb.minY, cb.minZ}
	chi := [3]float32{-cb.nmaxX, -cb.nmaxY, -cb.nmaxZ}
	for a := 0; a < 3; a++ {
		bn.lo[a] = clo[a]
		if chi[a] > clo[a] {
			bn.k[a] = float32(nb) / (chi[a] - clo[a])
			usable = true
		}
	}
	return bn, usable
}

// binRefs fills sc's first bn.nb bins of every axis from every stride-th
// ref, starting with the first.
func binRefs(refs []bref, bn *binning, sc *binScratch, stride int) {
	e := emptyBinBox()
	for a := range sc.boxes {
		for i := range sc.boxes[a][:bn.nb] {
			sc.boxes[a][i] = e
			sc.counts[a][i] = 0
		}
	}
	if !boundsAsm {
		binRefsGo(refs, bn, sc, stride)
	} else if n := (len(refs) + stride - 1) / stride; n > 0 {
		binRefsSSE(&refs[0], n, stride, bn, &sc.boxes, &sc.counts)
	}
}

// binRefsGo is binRefs' loop in Go, into sc's cleared bins.
func binRefsGo(refs []bref, bn *binning, sc *binScratch, stride int) {
	boxes, counts := &sc.boxes, &sc.counts
	nb := bn.nb
	lx, ly, lz := bn.lo[0], bn.lo[1], bn.lo[2]
	kx, ky, kz := bn.k[0], bn.k[1], bn.k[2]
	last := nb - 1
	for i := 0; i < len(refs); i += stride {
		bx := &refs[i]
		x0, y0, z0, nx1, ny1, nz1 := bx.minX, bx.minY, bx.minZ, bx.nmaxX, bx.nmaxY, bx.nmaxZ
		jx := binIndex(x0-nx1, lx, kx, last)
		jy := binIndex(y0-ny1, ly, ky, last)
		jz := binIndex(z0-nz1, lz, kz, last)
		// Field by field across the three bins rather than bin by bin:
		// the compiler then keeps fewer addresses live (half the spills)
		// and consecutive refs in the same bins have more independent
		// work between dependent updates.
		px, py, pz := &boxes[0][jx], &boxes[1][jy], &boxes[2][jz]
		px.minX = min(px.minX, x0)
		py.minX = min(py.minX, x0)
		pz.minX = min(pz.minX, x0)
		px.minY = min(px.minY, y0)
		py.minY = min(py.minY, y0)
		pz.minY = min(pz.minY, y0)
		px.minZ = min(px.minZ, z0)
		py.minZ = min(py.minZ, z0)
		pz.minZ = min(pz.minZ, z0)
		px.nmaxX = min(px.nmaxX, nx1)
		py.nmaxX = min(py.nmaxX, nx1)
		pz.nmaxX = min(pz.nmaxX, nx1)
		px.nmaxY = min(px.nmaxY, ny1)
		py.nmaxY = min(py.nmaxY, ny1)
		pz.nmaxY = min(pz.nmaxY, ny1)
		px.nmaxZ = min(px.nmaxZ, nz1)
		py.nmaxZ = min(py.nmaxZ, nz1)
		pz.nmaxZ = min(pz.nmaxZ, nz1)
		counts[0][jx]++
		counts[1][jy]++
		counts[2][jz]++
	}
}

// binChunks bins every chunk of refs into its own bins in parallel, keeps
// each chunk's counts on every axis in sc.chunkCounts (for partitionChunks)
// and merges the bins into sc in chunk order. With a stride, the binned
// refs are those binRefs would bin over all of refs.
func binChunks(refs []bref, bn *binning, sc *binScratch, chunks [][2]int, stride int) {
	scs := make([]binScratch, len(chunks))
	bins := *bn // a copy for the parts: bn itself stays off the heap
	crewRun(len(chunks), func(c int) {
		bn := bins
		first := (chunks[c][0] + stride - 1) / stride * stride
		binRefs(refs[first:max(first, chunks[c][1])], &bn, &scs[c], stride)
	})
	*sc = scs[0]
	sc.chunkCounts = make([][3][maxBins]int32, len(chunks))
	sc.chunkCounts[0] = scs[0].counts
	for c := 1; c < len(chunks); c++ {
		sc.chunkCounts[c] = scs[c].counts
		for a := 0; a < 3; a++ {
			for i := 0; i < bn.nb; i++ {
				sc.boxes[a][i].union(&scs[c].boxes[a][i])
				sc.counts[a][i] += scs[c].counts[a][i]
			}
		}
	}
}

// evalSAH evaluates binned SAH on every axis from the bins in sc. It
// returns axis -1 when no split separates the refs. cost is relative to
// one primitive intersection.
func (b *builder) evalSAH(bn *binning, sc *binScratch, bounds *binBox, n int) (axis, split int, cost float32) {
	axis = -1
	for a := 0; a < 3; a++ {
		if bn.k[a] == 0 {
			continue
		}
		s, c, ok := sweepAxis(&sc.boxes[a], &sc.counts[a], bn.nb)
		if ok && (axis < 0 || c < cost) {
			axis, split, cost = a, s, c
		}
	}
	if axis >= 0 {
		area := bounds.halfArea()
		if area > 0 {
			cost = b.p.traversalCost + cost/area
		} else {
			cost = b.p.traversalCost + float32(n)
		}
	}
	return axis, split, cost
}

// sweepAxis returns the best split of one axis' first nb bins (the
// children are the bins below split and the others) and its unnormalized
// SAH cost; ok is false when fewer than two bins are used.
//
// Most nodes are small (a handful of refs in up to 2n bins), so the fixed
// cost per axis matters as much as the sweeps: the non-empty bins are
// gathered without a data-dependent branch (which mispredicts about every
// other bin), and the sweeps' boxes are never empty, so their areas need
// no emptiness test. It is a function of its own so that its loops keep
// their state in registers.
func sweepAxis(boxes *[maxBins]binBox, counts *[maxBins]int32, nb int) (split int, cost float32, ok bool) {
	// Only the non-empty bins matter: every split between two of them
	// costs the same, and the first of those is the one kept.
	var idx [maxBins]uint8
	k := 0
	for i := 0; i < nb && i < maxBins; i++ {
		idx[k&(maxBins-1)] = uint8(i)
		k += nonzero(counts[i])
	}
	if k < 2 {
		return 0, 0, false
	}
	if boundsAsm {
		split, cost = sweepSSE(boxes, counts, &idx, k)
		return split, cost, true
	}
	split, cost = sweepAxisGo(boxes, counts, &idx, k)
	return split, cost, true
}

// sweepAxisGo is sweepAxis' sweeps over the k >= 2 non-empty bins
// idx[:k] in Go: the right sides' areas and counts from the last bin
// down, then the left sides' from the first bin up, each split's cost
// the sum of its sides' areas times counts. Each product is rounded on
// its own (explicit conversions: no fused multiply-add), as sweepSSE
// rounds it.
func sweepAxisGo(boxes *[maxBins]binBox, counts *[maxBins]int32, idx *[maxBins]uint8, k int) (split int, cost float32) {
	var rightArea [maxBins]float32
	var rightCount [maxBins]int32
	last := idx[(k-1)&(maxBins-1)]
	acc, cnt := boxes[last], counts[last]
	for j := k - 1; j > 0; j-- {
		i := idx[j&(maxBins-1)]
		if j < k-1 {
			acc.union(&boxes[i])
			cnt += counts[i]
		}
		rightArea[j&(maxBins-1)], rightCount[j&(maxBins-1)] = acc.area(), cnt
	}
	acc, cnt = boxes[idx[0]], counts[idx[0]]
	split, cost = int(idx[0])+1, float32(acc.area()*float32(cnt))+float32(rightArea[1]*float32(rightCount[1]))
	for j := 2; j < k; j++ {
		i := idx[(j-1)&(maxBins-1)]
		acc.union(&boxes[i])
		cnt += counts[i]
		c := float32(acc.area()*float32(cnt)) + float32(rightArea[j&(maxBins-1)]*float32(rightCount[j&(maxBins-1)]))
		if c < cost {
			split, cost = int(i)+1, c
		}
	}
	return split, cost
}

// nonzero returns 1 if c != 0, else 0, without a branch.
func nonzero(c int32) int {
	return int(uint32(c|-c) >> 31)
}

// partition copies src to dst, the refs whose centroid bin is below split
// to the front in their order and the others to the back in reverse order,
// and returns the count of the first. It has no data-dependent branch: the store index and the
// cursors are computed from the side as integers.
func partition(dst, src []bref, bn *binning, axis, split int) int {
	l, _ := partitionInto(dst, src, bn, axis, split, 0, len(dst)-1)
	return l
}

// partitionInto partitions src into dst from the cursors l (forward, left
// refs) and r (backward, right refs) and returns the cursors after it.
//
// A ref goes left when its bin is below split, tested as (c-lo)*k < split:
// for the non-negative, finite products of an axis that binning can split
// (see binIndex), the truncated bin index is below the integer split
// exactly when the product is, and the clamp to the last bin never
// matters, as split is at most the last bin. The loop keeps the axis'
// constants in registers.
func partitionInto(dst, src []bref, bn *binning, axis, split, l, r int) (int, int) {
	off := uintptr(4 * axis)
	lo, k, s := bn.lo[axis], bn.k[axis], float32(split)
	for i := range src {
		bx := &src[i]
		p := unsafe.Add(unsafe.Pointer(bx), off)
		c := *(*float32)(p) - *(*float32)(unsafe.Add(p, 12)) // min - (-max)
		left := 0
		if (c-lo)*k < s {
			left = 1
		}
		// left ? l : r, without a branch.
		dst[r^((l^r)&-left)] = *bx
		l += left
		r -= 1 - left
	}
	return l, r
}

// partitionLarge is partitionChunks followed by what the children need:
// their centroid bounds, and with a stride (only a sample was binned) their
// bounds too, computed in parallel (large children are not left to compute
// them on one core). It is a function of its own so that build's locals
// are not captured by a goroutine, which would move them to the heap on
// every call.
func partitionLarge(dst, src []bref, bn *binning, axis, split int, chunks [][2]int, counts [][3][maxBins]int32, stride int) (mid int, lb binBox, lc centroids, rb binBox, rc centroids) {
	lefts := make([]int, len(chunks))
	if stride == 1 {
		for c := range chunks {
			for i := 0; i < split; i++ {
				lefts[c] += int(counts[c][axis][i])
			}
		}
	} else {
		// A copy, so that the closure does not make the caller's binning
		// escape to the heap on every node.
		bnc := *bn
		parallelChunks(chunks, func(c, lo, hi int) { lefts[c] = countLeft(src[lo:hi], &bnc, axis, split) })
	}
	mid = partitionChunks(dst, src, bn, axis, split, chunks, lefts)
	// Each side in as many chunks as the node (at least one).
	k := len(chunks)
	cl, cr := splitChunks(mid, min(k, mid/minChunk)), splitChunks(len(dst)-mid, min(k, (len(dst)-mid)/minChunk))
	for i := range cr {
		cr[i] = [2]int{cr[i][0] + mid, cr[i][1] + mid}
	}
	all := append(cl, cr...)
	boxes, cents := make([]binBox, len(all)), make([]centroids, len(all))
	parallelChunks(all, func(c, lo, hi int) {
		if stride == 1 {
			cents[c] = centroidBounds(dst[lo:hi])
		} else {
			boxes[c], cents[c] = rangeBounds(dst[lo:hi])
		}
	})
	lb, lc, rb, rc = emptyBinBox(), emptyCentroids(), emptyBinBox(), emptyCentroids()
	for c := range all {
		box, cent := &lb, &lc
		if c >= len(cl) {
			box, cent = &rb, &rc
		}
		cent.union(&cents[c])
		if stride != 1 { // else the caller takes the bounds from the bins
			box.union(&boxes[c])
		}
	}
	return mid, lb, lc, rb, rc
}

// countLeft returns how many refs partition would put on the left.
func countLeft(refs []bref, bn *binning, axis, split int) int {
	off := uintptr(4 * axis)
	lo, k, s := bn.lo[axis], bn.k[axis], float32(split)
	l := 0
	for i := range refs {
		p := unsafe.Add(unsafe.Pointer(&refs[i]), off)
		c := *(*float32)(p) - *(*float32)(unsafe.Add(p, 12))
		if (c-lo)*k < s {
			l++
		}
	}
	return l
}

// centroidBounds returns the doubled-centroid bounds of refs.
//
// It compares and branches instead of taking min and max (five
// instructions each for floats, to honour NaN and the sign of zero): a
// running extreme of many values changes rarely, so the branches predict
// well, except on small nodes (see branchyBounds). Centroids are finite, and a zero's sign in these bounds cannot move
// any ref to another bin (c - lo and the axis' extent come out the same).
func centroidBounds(refs []bref) centroids {
	if boundsAsm && len(refs) > 0 {
		var cb centroids
		refBounds(&refs[0], len(refs), nil, &cb)
		return cb
	}
	return centroidBoundsGo(refs)
}

// centroidBoundsGo is centroidBounds in Go.
func centroidBoundsGo(refs []bref) centroids {
	if len(refs) < branchyBounds {
		return centroidBoundsMin(refs)
	}
	inf := posInf
	x0, y0, z0, x1, y1, z1 := inf, inf, inf, -inf, -inf, -inf
	for i := range refs {
		a := &refs[i]
		x, y, z := a.minX-a.nmaxX, a.minY-a.nmaxY, a.minZ-a.nmaxZ
		if x < x0 {
			x0 = x
		}
		if x > x1 {
			x1 = x
		}
		if y < y0 {
			y0 = y
		}
		if y > y1 {
			y1 = y
		}
		if z < z0 {
			z0 = z
		}
		if z > z1 {
			z1 = z
		}
	}
	return centroids{x0, y0, z0, -x1, -y1, -z1}
}

// branchyBounds is the count of refs from which centroidBounds branches:
// below it, the running extremes of a few random refs change too often
// (soup 1M builds 3-5% faster with min below 64 refs, terrain the same).
const branchyBounds = 64

// centroidBoundsMin is centroidBounds for few refs, whose running extremes
// change too often for branches.
func centroidBoundsMin(refs []bref) centroids {
	inf := posInf
	x0, y0, z0, x1, y1, z1 := inf, inf, inf, inf, inf, inf
	for i := range refs {
		a := &refs[i]
		x, y, z := a.minX-a.nmaxX, a.minY-a.nmaxY, a.minZ-a.nmaxZ
		x0 = min(x0, x)
		y0 = min(y0, y)
		z0 = min(z0, z)
		x1 = min(x1, -x)
		y1 = min(y1, -y)
		z1 = min(z1, -z)
	}
	return centroids{x0, y0, z0, x1, y1, z1}
}

func emptyCentroids() centroids {
	inf := posInf
	return centroids{inf, inf, inf, inf, inf, inf}
}

// partitionChunks is partition in parallel over chunks: the chunks' left
// counts give each chunk its cursors, so the result is the serial one.
func partitionChunks(dst, src []bref, bn *binning, axis, split int, chunks [][2]int, lefts []int) int {
	// Chunk c's left refs go after the earlier chunks' left ones, its
	// right ones before the earlier chunks' right ones (from the end).
	ls, rs := make([]int, len(chunks)), make([]int, len(chunks))
	l, r := 0, len(dst)-1
	for c, ch := range chunks {
		ls[c], rs[c] = l, r
		l += lefts[c]
		r -= ch[1] - ch[0] - lefts[c]
	}
	bins := *bn // a copy for the parts: bn itself stays off the heap
	crewRun(len(chunks), func(c int) {
		bn := bins
		partitionInto(dst, src[chunks[c][0]:chunks[c][1]], &bn, axis, split, ls[c], rs[c])
	})
	return l
}

func (c *centroids) union(a *centroids) {
	c.minX, c.minY, c.minZ = min(c.minX, a.minX), min(c.minY, a.minY), min(c.minZ, a.minZ)
	c.nmaxX, c.nmaxY, c.nmaxZ = min(c.nmaxX, a.nmaxX), min(c.nmaxY, a.nmaxY), min(c.nmaxZ, a.nmaxZ)
}

// refit recomputes every node's bounds bottom-up from leafBox, which
// returns the box of the primitive in a leaf slot: the leaves in parallel
// chunks (leafBox is called concurrently), then the inner nodes.
func refit(nodes []node, leafBox func(slot uint32) AABB) {
	eachLeaf(nodes, func(n *node) {
		bb := emptyAABB()
		for s := n.first; s < n.first+n.count; s++ {
			bb = bb.Union(leafBox(s))
		}
		n.bounds = bb
	})
	refitInner(nodes)
}

// eachLeaf calls f with every leaf of nodes, in parallel chunks of
// leafRowsGrain nodes (leaf rows, refits).
func eachLeaf(nodes []node, f func(n *node)) {
	parallelWork(len(nodes), leafRowsGrain, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if n := &nodes[i]; n.isLeaf() {
				f(n)
			}
		}
	})
}

// refitInner sets every inner node's bounds to the union of its two
// children's, bottom-up (children follow their parents).
func refitInner(nodes []node) {
	for i := len(nodes) - 1; i >= 0; i-- {
		if n := &nodes[i]; !n.isLeaf() && n.first != 0 {
			n.bounds = nodes[n.first].bounds.Union(nodes[n.first+1].bounds)
		}
	}
}

// workGrain is the size of the chunks that the stages around the builder
// (primitive boxes, slot copies, vertex fetches) split their work into.
const workGrain = 1 << 15

// workChunks is how many chunks of about grain items parallelWork cuts n
// items into: at most a few per GOMAXPROCS, and at least one per
// GOMAXPROCS where that leaves each minChunk or more (a 100k-triangle
// build's stages took 3 of 16 processors).
func workChunks(n, grain int) int {
	procs := runtime.GOMAXPROCS(0)
	return min(max(n/grain, min(procs, n/minChunk), 1), 4*procs)
}

// parallelWork runs f on [0, n) cut into workChunks(n, grain) chunks, in
// parallel (parallelParts).
func parallelWork(n, grain int, f func(c, lo, hi int)) {
	parallelParts(n, workChunks(n, grain), f)
}

// parallelParts runs f on [0, n) cut into k near-equal chunks, chunk c
// being [c*n/k, (c+1)*n/k), in parallel on the crew (crewRun), or inline
// for one chunk. It computes the bounds instead of taking a slice of them,
// so that a small build's stages allocate none (BenchmarkBuildTiny).
func parallelParts(n, k int, f func(c, lo, hi int)) {
	if k <= 1 {
		f(0, 0, n)
		return
	}
	crewRun(k, func(c int) { f(c, c*n/k, (c+1)*n/k) })
}

// asyncAlloc is the least count of primitives from which a build
// allocates an array it will fill (Go zeroes it, on one core) on a
// goroutine of its own while it does other work (goAlloc). On 16
// processors a 1M-triangle build spent a sixth of its time in such
// allocations.
const asyncAlloc = 1 << 16

// goAlloc runs alloc alongside the caller if async (on the crew, where a
// build holds it, else on a goroutine of its own), else at once, and
// returns a channel closed when it has run.
func goAlloc(async bool, alloc func()) <-chan struct{} {
	async = async && runtime.GOMAXPROCS(0) > 1
	if async && crew.holds.Load() > 0 {
		return crewAsync(alloc)
	}
	if !async {
		alloc()
		return closedDone
	}
	done := make(chan struct{})
	go func() {
		alloc()
		close(done)
	}()
	return done
}

// closedDone is goAlloc's answer for an allocation it ran at once: a
// channel already closed, so that small builds make none.
var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// parallelChunks runs f on every chunk in parallel, on the crew (crewRun;
// inline for one chunk or one processor). Chunk c writes only its own
// outputs. Chunks of a range cut evenly go through parallelWork, which
// needs no slice.
func parallelChunks(chunks [][2]int, f func(c, lo, hi int)) {
	if len(chunks) == 1 {
		f(0, chunks[0][0], chunks[0][1]) // no closure for crewRun to make
		return
	}
	crewRun(len(chunks), func(c int) { f(c, chunks[c][0], chunks[c][1]) })
}

// parallelChunksUrgent is parallelChunks with the chunks run as urgent
// parts (crewRunUrgent).
func parallelChunksUrgent(chunks [][2]int, f func(c, lo, hi int)) {
	crewRunUrgent(len(chunks), func(c int) { f(c, chunks[c][0], chunks[c][1]) })
}
