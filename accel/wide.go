package accel

import (
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/raypipe/raypipe/vec"
)

// wideNode is one node of the 8-wide BVH that traversal walks. It is derived
// from the binary tree (the canonical build output, which refit and
// serialization work on) by widen, so any binary tree yields the same wide
// tree. Bounds are stored as structure-of-arrays rows, row 2*axis holding
// the children's minima and row 2*axis+1 their maxima, so that a ray picks
// its near and far planes per axis once and tests eight children in one
// loop. Unused child slots hold an empty box (+Inf..-Inf), which no ray
// hits, and ref emptyRef.
type wideNode struct {
	b   [6]wideRow
	ref [wideWidth]uint32 // child reference: a wideNode index, or a leaf (leafRef)
	// n is the number of used slots, which come first: the scalar slab
	// loops skip the others (in the trees of 1M and 2M triangles, 5-10%
	// of the nodes have two children, 40-50% eight).
	n uint32
	_ [wideWidth - 1]uint32 // pad to 32*wideWidth bytes: wideWidth/2 cache lines
}

// wideWidth is the number of children of a wide node.
const (
	wideWidth = 8
	wideMask  = wideWidth - 1
)

// wideRow is one bounds row of a wide node: a plane for each child.
type wideRow = [wideWidth]float32

const (
	// leafBit marks a leaf reference: leafBit | first<<leafCountBits | count-1.
	leafBit       = 1 << 31
	leafCountBits = 3
	maxLeafCount  = 1 << leafCountBits
	emptyRef      = math.MaxUint32
)

func leafRef(first, count uint32) uint32 {
	return leafBit | first<<leafCountBits | (count - 1)
}

func isLeafRef(ref uint32) bool { return ref&leafBit != 0 }

func leafRange(ref uint32) (first, end uint32) {
	first = (ref &^ leafBit) >> leafCountBits
	return first, first + ref&(maxLeafCount-1) + 1
}

// widen collapses a binary BVH into an 8-wide one. Each wide node stands
// for a binary inner node and takes as its children up to eight binary
// nodes below it, the frontier of a subtree cut out of the binary tree;
// each child is a leaf or the root of a wide node of its own. Which cut is
// taken at every node is planned for the whole tree at once (planWide):
// the one with the least total surface area of wide nodes, the surface
// area heuristic's measure of how many wide nodes rays visit. Wide nodes
// are numbered in depth-first order from the root at 0.
//
// A node's children take its slots in order of decreasing primitive count
// (equal counts in their binary left-to-right order). Closest-hit walks
// visit children by distance, which the slot order only breaks ties of;
// occlusion walks take the child whose crossing reaches farthest first
// (reachChild) and pop the others in slot order, where the largest
// subtree first is the likeliest to hold an occluder: on random-triangle
// scenes that order doubled the rate of shadow rays over the binary order
// (Embree, too, sorts a node's children by primitive count "for faster
// shadow ray traversal").
//
// Leaves hold at most maxLeafCount primitives (the builder's maxLeaf is at
// most 8); the primitive slots are those of the binary tree.
func widen(nodes []node) []wideNode { return widenInto(nodes, nil) }

// wideSlots are the binary nodes in a wide node's slots, in slot order:
// the cut widen made, which a BLAS built for updates keeps so that an
// update refits its wide nodes in place (refitWide) and a serialization
// records it (widenByCut).
type wideSlots = [wideWidth]uint32

// widenInto is widen that, with slots, sets *slots to the wide nodes'
// wideSlots.
func widenInto(nodes []node, slots *[]wideSlots) []wideNode {
	root := &nodes[0]
	if root.isLeaf() || root.bounds.IsEmpty() {
		out := hugeSlice[wideNode](1, 1)
		out[0].clear()
		if root.isLeaf() {
			out[0].set(0, &root.bounds, leafRef(root.first, root.count))
			out[0].n = 1
		}
		if slots != nil {
			*slots = make([]wideSlots, 1)
		}
		return out
	}
	plan := planWide(nodes)
	buildPhase("wideplan")
	// Number the wide nodes depth-first and list their children, then
	// fill them in parallel: filling writes 256 bytes a node. index[n] is
	// the wide node of binary node n (where n roots one).
	index := make([]uint32, len(nodes))
	var kids []wideKids
	if procs := runtime.GOMAXPROCS(0); procs > 1 && len(nodes) > planGrain {
		kids = plan.number(nodes, 0, index, int(plan.prims[0])/(4*procs))
	} else {
		// Room for a wide node per eight binary nodes, more than the
		// trees take (a top level's 1/11, a BLAS's 1/12 to 1/18), so
		// that the list does not grow by doubling (nine times for 1k
		// instances).
		kids = make([]wideKids, 0, len(nodes)/8+1)
		plan.numberInto(nodes, 0, index, &kids)
	}
	buildPhase("widenumber")
	return plan.fillAll(nodes, kids, index, slots)
}

// fillAll fills the wide nodes kids lists (numbered as index says) in
// parallel chunks, and their wideSlots into *slots unless slots is nil.
func (p *widePlan) fillAll(nodes []node, kids []wideKids, index []uint32, slots *[]wideSlots) []wideNode {
	out := hugeSlice[wideNode](len(kids), len(kids))
	// Faulted in here, on one goroutine (touchPages): by the parallel
	// fill's first writes, the CAD engine's fast build took 2.3-2.5 ms to
	// fill its wide nodes on 16 Xeon processors, 0.7-0.95 touched first.
	touchPages(out)
	var in []wideSlots
	if slots != nil {
		in = make([]wideSlots, len(kids))
		*slots = in
	}
	parallelWork(len(kids), wideGrain, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			var si *wideSlots
			if in != nil {
				si = &in[i]
			}
			p.fill(&out[i], nodes, kids[i].kids[:kids[i].n], index, si)
		}
	})
	return out
}

// refitWide sets the boxes of the wide nodes to their slots' binary nodes'
// bounds (slots from widenInto), keeping the cut: an update's, after the
// binary nodes are refitted.
func refitWide(nodes []node, wide []wideNode, slots []wideSlots) {
	parallelWork(len(wide), wideGrain, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			refitWideNode(&wide[i], nodes, &slots[i])
		}
	})
}

// refitWideNode sets the boxes of wide node w to its slots' binary nodes'
// bounds.
func refitWideNode(w *wideNode, nodes []node, slots *wideSlots) {
	for k, n := range slots[:w.n] {
		w.set(k, &nodes[n].bounds, w.ref[k])
	}
}

// hasWideCut reports whether widen cuts nodes into wide nodes (an inner
// root with primitives below it; an update may have left its bounds
// empty), rather than making one wide node of a root leaf or of an empty
// tree: the trees whose cut widenByCut takes.
func hasWideCut(nodes []node) bool { return !nodes[0].isLeaf() && len(nodes) > 1 }

// widenByCut is widen with the cut given instead of planned: the wide
// nodes are rooted at the binary nodes root marks (the root's among them),
// each taking as its children the nodes below it down to the first leaf
// or marked node on each path, numbered and ordered as widen numbers and
// orders them. So a structure serialized with its cut's marks deserializes
// to its wide nodes, though its bounds were refitted after the cut was
// planned. It reports an error, and never panics, where the marks make no
// cut (a wide node of more than wideWidth children, an unmarked root, a
// marked leaf); the tree itself must be valid (validateTree).
func widenByCut(nodes []node, root []bool) ([]wideNode, []wideSlots, error) {
	if !hasWideCut(nodes) {
		if slices.Contains(root, true) {
			return nil, nil, corrupt("wide-node marks on a tree without inner nodes")
		}
		var slots []wideSlots
		return widenInto(nodes, &slots), slots, nil
	}
	if len(root) == 0 || !root[0] {
		return nil, nil, corrupt("the root node is not marked as a wide node's")
	}
	p := widePlan{prims: make([]uint32, len(nodes))}
	for i := len(nodes) - 1; i >= 0; i-- {
		if n := &nodes[i]; n.isLeaf() {
			if root[i] {
				return nil, nil, corrupt("node %d: a leaf marked as a wide node's", i)
			}
			p.prims[i] = n.count
		} else {
			p.prims[i] = p.prims[n.first] + p.prims[n.first+1]
		}
	}
	// Number depth first, children in binary left-to-right order, as
	// numberInto does.
	index := make([]uint32, len(nodes))
	var list []wideKids
	stack := []uint32{0}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := wideKids{root: n}
		// The cut below n, left to right: a stack of the paths still open,
		// the right child pushed below the left one.
		open := []uint32{nodes[n].first + 1, nodes[n].first}
		for len(open) > 0 {
			c := open[len(open)-1]
			open = open[:len(open)-1]
			if nodes[c].isLeaf() || root[c] {
				if k.n == wideWidth {
					return nil, nil, corrupt("node %d: a wide node of more than %d children", n, wideWidth)
				}
				k.kids[k.n] = c
				k.n++
				continue
			}
			open = append(open, nodes[c].first+1, nodes[c].first)
		}
		index[n] = uint32(len(list))
		list = append(list, k)
		for j := int(k.n) - 1; j >= 0; j-- {
			if c := k.kids[j]; !nodes[c].isLeaf() {
				stack = append(stack, c)
			}
		}
	}
	var slots []wideSlots
	wide := p.fillAll(nodes, list, index, &slots)
	return wide, slots, nil
}

// widenFor is widen for a build with flags: with BuildAllowUpdate it
// also returns the wideSlots the structure keeps for its updates.
func widenFor(flags BuildFlags, nodes []node) ([]wideNode, []wideSlots) {
	if flags&BuildAllowUpdate == 0 {
		return widen(nodes), nil
	}
	var slots []wideSlots
	return widenInto(nodes, &slots), slots
}

// wideKids are the binary nodes that become a wide node's children, and
// the binary node that roots it.
type wideKids struct {
	kids [wideWidth]uint32
	root uint32
	n    uint8
}

// number lists the wide node rooted at binary node n and those below it,
// depth first, setting index[m] to the place in the list of the wide node
// each binary node m roots. The subtrees of n's wide node's children are
// numbered in parallel (crewRun) while n's holds more than grain
// primitives, each from 0, and spliced in after it in order, their places
// shifted (the serial walk over a 100k-triangle tree took a millisecond
// on one core; two levels of wide nodes, 64 subtrees, left 16 processors
// waiting on a few large ones in trees of uneven depth).
func (p *widePlan) number(nodes []node, n uint32, index []uint32, grain int) []wideKids {
	if int(p.prims[n]) <= grain {
		var list []wideKids
		p.numberInto(nodes, n, index, &list)
		return list
	}
	k := p.wideKidsOf(nodes, n)
	var subs [wideWidth][]wideKids
	crewRun(int(k.n), func(i int) {
		if c := k.kids[i]; !nodes[c].isLeaf() {
			subs[i] = p.number(nodes, c, index, grain)
		}
	})
	size := 1
	for _, sub := range subs {
		size += len(sub)
	}
	list := make([]wideKids, 1, size)
	list[0], index[n] = k, 0
	for _, sub := range subs {
		off := uint32(len(list))
		for j := range sub {
			index[sub[j].root] += off
		}
		list = append(list, sub...)
	}
	return list
}

// wideKidsOf returns the children of the wide node rooted at the inner
// binary node n (kids).
func (p *widePlan) wideKidsOf(nodes []node, n uint32) wideKids {
	k := wideKids{root: n}
	k.n = uint8(len(p.kids(nodes, n, k.kids[:0])))
	return k
}

// numberInto is number on one goroutine, appending to list.
func (p *widePlan) numberInto(nodes []node, n uint32, index []uint32, list *[]wideKids) {
	k := p.wideKidsOf(nodes, n)
	index[n] = uint32(len(*list))
	*list = append(*list, k)
	for _, c := range k.kids[:k.n] {
		if !nodes[c].isLeaf() {
			p.numberInto(nodes, c, index, list)
		}
	}
}

// wideGrain is the number of wide nodes widen fills per chunk: about
// 50 microseconds of work, so that the 2,800 wide nodes of a 100k-triangle
// tree take 11 chunks (in one chunk of 4096, their fill took 0.6-0.9 ms on
// 16 processors of a Xeon).
const wideGrain = 1 << 8

// fill sets w to the wide node with the binary nodes kids as its
// children, in order of decreasing primitive count (see widen); the inner
// ones are the wide nodes index names.
func (p *widePlan) fill(w *wideNode, nodes []node, kids []uint32, index []uint32, slots *wideSlots) {
	// A stable insertion sort of the slots, as there are at most eight.
	var slot [wideWidth]int
	for i, k := range kids {
		j := i
		for j > 0 && p.prims[kids[slot[j-1]]] < p.prims[k] {
			slot[j] = slot[j-1]
			j--
		}
		slot[j] = i
	}
	w.clear()
	for i, s := range slot[:len(kids)] {
		c := &nodes[kids[s]]
		ref := index[kids[s]]
		if c.isLeaf() {
			if c.count > maxLeafCount {
				panic("accel: leaf larger than the wide layout allows")
			}
			ref = leafRef(c.first, c.count)
		}
		w.set(i, &c.bounds, ref)
		if slots != nil {
			slots[i] = kids[s]
		}
	}
	w.n = uint32(len(kids))
}

// widePlan is the cut of the binary tree that widen makes into wide nodes,
// chosen by dynamic programming over the binary tree as Ylitie, Karras and
// Laine collapse theirs ("Efficient Incoherent Ray Traversal on GPUs
// Through Compressed Wide BVHs", HPG 2017), here with the leaves of the
// binary tree kept as they are. The surface area heuristic prices a wide
// tree at the sum over its wide nodes of their surface areas (each is
// visited by the rays that hit its box, and costs one 8-wide box test
// however many children it has), plus the leaves' cost, which is the same
// for every cut when the leaves are kept; so the plan minimizes the total
// surface area of the wide nodes.
//
// For a binary node n and i in 1..wideWidth, the plan's cost of n for i
// is the least total area of the wide nodes inside n's subtree when the
// subtree fills at most i child slots of the wide node above it (each
// node's costs are handed to its parent, not kept), and split[n][i-1] says
// how: 0 when n takes one slot itself (a leaf, or the root of a wide node
// whose children are the best cut of n's two children into wideWidth
// slots, of which split[n][0] go to the left one), otherwise the number of
// slots of the best cut given to n's left child, the rest to its right.
//
// The greedy cut it replaced (open the child with the largest surface area
// until there are eight) left most wide nodes of a tree whose depth did not
// suit it with two leaves as their only children: the 2M-triangle soup had
// 122,046 wide nodes, 72,731 of them with two children, where the plan
// gives 66,447 (6,633 with two), and its shadow rays test 9% fewer nodes.
type widePlan struct {
	split [][wideWidth]uint8
	prims []uint32 // primitive slots under each node
}

// wideCosts are a node's costs in the plan, for 1 to wideWidth slots.
type wideCosts [wideWidth]float32

// planWide plans widen's cut of nodes, in parallel for trees of more than
// planGrain nodes.
func planWide(nodes []node) widePlan {
	p := widePlan{make([][wideWidth]uint8, len(nodes)), make([]uint32, len(nodes))}
	// Areas in float64 (those of float32 boxes beyond about 1e19 overflow
	// float32), as fractions of the root's: the costs stay finite.
	unit := 1.0
	if a := halfArea64(&nodes[0].bounds); a > 0 {
		unit = 1 / a
	}
	if procs := runtime.GOMAXPROCS(0); procs > 1 && len(nodes) > planGrain {
		p.planSubtree(nodes, 0, uint32(len(nodes)), unit, len(nodes)/(4*procs))
	} else {
		p.planSubtree(nodes, 0, 0, unit, -1)
	}
	return p
}

// planGrain is the size of tree from which planWide runs in parallel.
const planGrain = 1 << 13

// planChildren plans the subtrees at first and first+1 in parallel
// (crewPair), the descendants of both being nodes [.., end), and returns
// their costs. It is apart from planSubtree so that only spawning calls
// move the costs the goroutine writes to the heap: in planSubtree every
// call did, an allocation per binary inner node (10k of the 30k
// allocations of a 10k-instance top-level build, the other 20k naming the
// instances for errors that did not happen).
func (p *widePlan) planChildren(nodes []node, first, end uint32, unit float64, grain int) (lc, rc wideCosts) {
	mid := end // where the left child's descendants end
	if r := &nodes[first+1]; !r.isLeaf() {
		mid = r.first
	}
	crewPair(
		func() { lc = p.planSubtree(nodes, first, mid, unit, grain) },
		func() { rc = p.planSubtree(nodes, first+1, end, unit, grain) })
	return lc, rc
}

// planSubtree plans the subtree at n, children first, and returns n's
// costs. While a subtree has more than grain nodes (grain < 0: none has)
// its children's subtrees are planned in parallel (planChildren), sized
// as the builders' depth-first layout places them: the descendants of
// inner node n, its children first, are nodes [nodes[n].first, end) (its
// right sibling's follow; a tree laid out otherwise is planned all the
// same, its work shared less evenly). Sharing by depth instead, 64
// subtrees on 16 processors, gave one subtree of the CAD engine's
// spatial-split tree a tenth of its nodes.
func (p *widePlan) planSubtree(nodes []node, n, end uint32, unit float64, grain int) (cost wideCosts) {
	nd := &nodes[n]
	if nd.isLeaf() {
		p.prims[n] = nd.count
		return cost // a leaf takes one slot and adds no wide node: cost 0, split 0
	}
	var lc, rc wideCosts
	if grain >= 0 && int(end)-int(nd.first) > grain {
		lc, rc = p.planChildren(nodes, nd.first, end, unit, grain)
	} else {
		lc = p.planSubtree(nodes, nd.first, 0, unit, -1)
		rc = p.planSubtree(nodes, nd.first+1, 0, unit, -1)
	}
	p.prims[n] = p.prims[nd.first] + p.prims[nd.first+1]
	// two[j] is the least cost of cutting both children into at most j
	// slots together, the left one taking twoLeft[j].
	var two [wideWidth + 1]float32
	var twoLeft [wideWidth + 1]uint8
	// A leaf's costs are all 0 and every node's fall as its slots grow, so
	// beside a leaf the other child takes all the slots but one (in the
	// search below, the first k that reaches the least cost). Two leaves
	// (41-43% of the inner nodes of 1M-triangle builds) take the first case.
	switch {
	case nodes[nd.first].isLeaf():
		for j := 2; j <= wideWidth; j++ {
			two[j], twoLeft[j] = rc[j-2], 1
		}
	case nodes[nd.first+1].isLeaf():
		for j := 2; j <= wideWidth; j++ {
			k := 1
			for lc[k-1] > lc[j-2] {
				k++
			}
			two[j], twoLeft[j] = lc[j-2], uint8(k)
		}
	default:
		for j := 2; j <= wideWidth; j++ {
			two[j], twoLeft[j] = lc[0]+rc[j-2], 1
			for k := 2; k < j; k++ {
				if c := lc[k-1] + rc[j-k-1]; c < two[j] {
					two[j], twoLeft[j] = c, uint8(k)
				}
			}
		}
	}
	own := float32(halfArea64(&nd.bounds)*unit) + two[wideWidth]
	split := &p.split[n]
	cost[0], split[0] = own, twoLeft[wideWidth]
	for i := 2; i <= wideWidth; i++ {
		if two[i] <= own {
			cost[i-1], split[i-1] = two[i], twoLeft[i]
		} else {
			cost[i-1] = own
		}
	}
	return cost
}

// kids appends to buf the children of the wide node at the inner node n:
// the planned cut of its two children into wideWidth slots.
func (p *widePlan) kids(nodes []node, n uint32, buf []uint32) []uint32 {
	left, k := nodes[n].first, int(p.split[n][0])
	return p.cut(nodes, left+1, wideWidth-k, p.cut(nodes, left, k, buf))
}

// halfArea64 is AABB.HalfArea in float64.
func halfArea64(a *AABB) float64 {
	if a.IsEmpty() {
		return 0
	}
	dx := float64(a.Max.X) - float64(a.Min.X)
	dy := float64(a.Max.Y) - float64(a.Min.Y)
	dz := float64(a.Max.Z) - float64(a.Min.Z)
	return dx*dy + dy*dz + dz*dx
}

// cut appends to kids the nodes of the planned cut of n's subtree into at
// most slots child slots, in binary left-to-right order.
func (p *widePlan) cut(nodes []node, n uint32, slots int, kids []uint32) []uint32 {
	if slots == 1 || p.split[n][slots-1] == 0 {
		return append(kids, n)
	}
	left, k := nodes[n].first, int(p.split[n][slots-1])
	return p.cut(nodes, left+1, slots-k, p.cut(nodes, left, k, kids))
}

func (w *wideNode) clear() {
	inf := float32(math.Inf(1))
	for i := 0; i < wideWidth; i++ {
		w.b[0][i], w.b[2][i], w.b[4][i] = inf, inf, inf
		w.b[1][i], w.b[3][i], w.b[5][i] = -inf, -inf, -inf
		w.ref[i] = emptyRef
	}
}

func (w *wideNode) set(i int, b *AABB, ref uint32) {
	w.b[0][i], w.b[1][i] = b.Min.X, b.Max.X
	w.b[2][i], w.b[3][i] = b.Min.Y, b.Max.Y
	w.b[4][i], w.b[5][i] = b.Min.Z, b.Max.Z
	w.ref[i] = ref
}

// box returns the box set (set) in slot i.
func (w *wideNode) box(i int) AABB {
	return AABB{vec.V3(w.b[0][i], w.b[2][i], w.b[4][i]), vec.V3(w.b[1][i], w.b[3][i], w.b[5][i])}
}

// hitWide tests the children of n against the ray over [tMin, tMax] with
// the same robust slab test as rayBox.hit, and returns a bit mask of the
// children hit and their entry distances. Unused slots are never hit.
// (Rays with NaN slab distances, e.g. an object-space direction that
// overflowed to infinity, take the loop below; finite ones cannot hit an
// empty box: its entry distance is +Inf and its exit -Inf.)
func (r *rayBox) hitWide(n *wideNode, tMin, tMax float32, near *wideRow) (mask uint) {
	if r.finite {
		if useSIMD {
			return r.hitWideSIMD(n, tMin, tMax, near)
		}
		if slabAsm {
			if fusedAVX2 {
				return slabTestAVX2(n, &r.slab, tMin, tMax, near)
			}
			return slabTest(n, &r.slab, tMin, tMax, near)
		}
		return r.hitWideFinite(n, tMin, tMax, near)
	}
	lx, hx := &n.b[r.nearX], &n.b[r.nearX^1]
	ly, hy := &n.b[r.nearY], &n.b[r.nearY^1]
	lz, hz := &n.b[r.nearZ], &n.b[r.nearZ^1]
	ox, oy, oz := r.org.X, r.org.Y, r.org.Z
	ix, iy, iz := r.inv.X, r.inv.Y, r.inv.Z
	fx, fy, fz := r.invFar.X, r.invFar.Y, r.invFar.Z
	far := tMax * robustScale
	for i := 0; i < wideWidth; i++ {
		nr, fr := tMin, far
		if t := (lx[i] - ox) * ix; t > nr {
			nr = t
		}
		if t := (ly[i] - oy) * iy; t > nr {
			nr = t
		}
		if t := (lz[i] - oz) * iz; t > nr {
			nr = t
		}
		if t := (hx[i] - ox) * fx; t < fr {
			fr = t
		}
		if t := (hy[i] - oy) * fy; t < fr {
			fr = t
		}
		if t := (hz[i] - oz) * fz; t < fr {
			fr = t
		}
		near[i] = nr
		// NaN slab distances count as inside, so an unused slot (an
		// empty box) can pass here: test its reference too.
		if nr <= fr && n.ref[i] != emptyRef {
			mask |= 1 << i
		}
	}
	return mask
}

// hitWideFinite is hitWide for rays whose slab distances cannot be NaN:
// hitWideSpansGo without the exit distances.
func (r *rayBox) hitWideFinite(n *wideNode, tMin, tMax float32, near *wideRow) uint {
	var far wideRow
	return r.hitWideSpansGo(n, tMin, tMax, near, &far)
}

// hitWideSpans is hitWide for the occlusion walks of finite rays: it
// also returns every child's exit distance, far, for reachChild.
func (r *rayBox) hitWideSpans(n *wideNode, tMin, tMax float32, near, far *wideRow) (mask uint) {
	if slabAsm && !useSIMD { // the vector build leaves r.slab unset
		return slabTestSpans(n, &r.slab, tMin, tMax, near, far)
	}
	return r.hitWideSpansGo(n, tMin, tMax, near, far)
}

// hitWideSpansGo is hitWideSpans' loop in Go, for rays whose slab
// distances cannot be NaN, without branches. The min builtin on floats
// costs a few instructions more than one MINSS (NaN and signed-zero
// semantics), max a few more still (it negates around a min), so the near
// distance is computed negated with min only: (o-l)*inv is exactly
// -((l-o)*inv), as IEEE subtraction and multiplication are symmetric under
// negation, and max(a, b) = -min(-a, -b) up to the sign of a zero result,
// which no comparison sees.
func (r *rayBox) hitWideSpansGo(n *wideNode, tMin, tMax float32, near, far *wideRow) (mask uint) {
	lx, hx := &n.b[r.nearX], &n.b[r.nearX^1]
	ly, hy := &n.b[r.nearY], &n.b[r.nearY^1]
	lz, hz := &n.b[r.nearZ], &n.b[r.nearZ^1]
	ox, oy, oz := r.org.X, r.org.Y, r.org.Z
	ix, iy, iz := r.inv.X, r.inv.Y, r.inv.Z
	fx, fy, fz := r.invFar.X, r.invFar.Y, r.invFar.Z
	negMin, farMax := -tMin, tMax*robustScale
	for i := 0; i < int(n.n&15) && i < wideWidth; i++ {
		nn := min(negMin, (ox-lx[i])*ix, (oy-ly[i])*iy, (oz-lz[i])*iz)
		fr := min(farMax, (hx[i]-ox)*fx, (hy[i]-oy)*fy, (hz[i]-oz)*fz)
		nr := -nn
		near[i], far[i] = nr, fr
		mask |= b2u(nr <= fr) << i
	}
	return mask
}

// occlusionPick tests the children of n for an occlusion walk over [tMin,
// tMax] and returns the mask of those hit and, when there is one, the
// slot of the one to take first: reachChild's where the ray's slab
// distances are finite, else the first slot hit (a NaN length orders
// nothing). The top-level walks take it; the BLAS walks inline the same.
func (r *rayBox) occlusionPick(n *wideNode, tMin, tMax float32) (mask uint, take int) {
	var near, far wideRow
	if r.finite {
		if mask = r.hitWideSpans(n, tMin, tMax, &near, &far); mask != 0 {
			take = reachChild(mask, &near, &far)
		}
		return mask, take
	}
	mask = r.hitWide(n, tMin, tMax, &near)
	return mask, bits.TrailingZeros(mask) & wideMask
}

// reachChild returns the slot of the child in mask (which is not empty)
// that an occlusion walk takes first: the one whose crossing has the
// greatest reach, its length plus its exit distance, (far[i] - near[i]) +
// far[i] (entry and exit over the walk's [tMin, tMax]), the first slot on
// a tie; the walks push the others. Occluders are not spread evenly: the
// chance that a child holds one grows with the length of ray inside its
// box, while the child with the most primitives (the first slot, which
// the walks took before 2026-11-24) may be crossed for a sliver. Counted
// on the 1M soup's shadow rays (embreecmp's, from the surface toward a
// light), taking the longest crossing first visited 8.0 wide nodes and
// 4.3 leaves a ray where the first slot visited 11.6 and 5.7; on the 1M
// terrain, 11.6 and 3.0 where it visited 13.0 and 3.7. Adding the exit
// distance (2026-11-25) prefers, of two crossings, the one that reaches
// farther from the ray's start, where a surface the ray leaves does not
// fold back over it: embreecmp, three runs alternated, shadow rays 1.25x
// on the 1M and 2M soups and 1.10x on the CAD engine (2CylinderEngine.glb,
// whose shadow rays are nearly all occluded), the rest within their swing
// (the exit distance alone took the soups' shadow rays down to 0.85x,
// the entry distance, nearest first, to 0.5-0.9x).
//
// The reaches compare by their bits with the sign cleared: a hit child's
// entry is at most its exit and not below tMin, so its reach is not
// negative, and -0 (an exit of -0 after an entry of +0) ties with +0. The
// assembly walks compare them so (REACH), as integers, computing the
// same two rounded operations.
func reachChild(mask uint, near, far *wideRow) int {
	best := bits.TrailingZeros(mask) & wideMask
	key := reachKey(near[best], far[best])
	for m := mask & (mask - 1); m != 0; m &= m - 1 {
		i := bits.TrailingZeros(m) & wideMask
		if k := reachKey(near[i], far[i]); k > key {
			best, key = i, k
		}
	}
	return best
}

// reachKey is reachChild's order of a child entered at near and left at
// far: the bits of (far - near) + far, each operation rounded, with the
// sign cleared.
func reachKey(near, far float32) uint32 {
	return math.Float32bits((far-near)+far) &^ (1 << 31)
}

// stackSizeWide bounds a wide traversal stack: a wide tree is no deeper than
// its binary tree, and each node leaves at most wideWidth-1 entries behind.
const stackSizeWide = (wideWidth-1)*maxTreeDepth + 2

// pushChildren tests the children of n and pushes the hit ones onto
// stack[sp:], farthest first, so that the nearest (and among equal
// distances the leftmost) is on top. It returns the new stack height.
func (r *rayBox) pushChildren(n *wideNode, tMin, tMax float32, stack []stackEntry, sp int) int {
	var near wideRow
	mask := r.hitWide(n, tMin, tMax, &near)
	if mask == 0 {
		return sp
	}
	if mask&(mask-1) == 0 { // one child
		i := trailing(mask)
		stack[sp] = stackEntry{n.ref[i], near[i]}
		return sp + 1
	}
	return pushSorted(n, mask, &near, stack, sp)
}

func trailing(m uint) int { return bits.TrailingZeros(m) }

// lastSlot returns the highest slot set in the nonzero mask m and m
// without it. The occlusion walks push the children they do not take
// (reachChild takes one) last slot first, so that they pop them in slot
// order: children are ordered by decreasing primitive count, and the
// larger subtrees are the likelier to hold an occluder.
func lastSlot(m uint) (int, uint) {
	i := bits.Len(m) - 1
	return i, m &^ (1 << i)
}

// pushSorted pushes the children of n selected by mask, with their entry
// distances, onto stack[sp:] so that they pop nearest first, equal
// distances in child order, and returns the new height. Every wide walk
// orders its children this way. Each child is inserted below the ones
// already pushed that are nearer or as near (those came earlier in child
// order); sorting on the stack spares a temporary array.
func pushSorted(n *wideNode, mask uint, near *wideRow, stack []stackEntry, sp int) int {
	base := sp
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros(m) & wideMask
		x := stackEntry{n.ref[i], near[i]}
		j := sp
		for j > base && stack[j-1].near <= x.near {
			stack[j] = stack[j-1]
			j--
		}
		stack[j] = x
		sp++
	}
	return sp
}
