package accel

import "sync"

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
	// primitive test.
	traversalCost float32
}

func paramsFor(flags BuildFlags) buildParams {
	switch {
	case flags&BuildPreferFastBuild != 0:
		return buildParams{bins: 8, maxLeaf: 8, traversalCost: 1}
	case flags&BuildMinimizeMemory != 0:
		return buildParams{bins: 16, maxLeaf: 8, traversalCost: 2}
	}
	return buildParams{bins: 32, maxLeaf: 4, traversalCost: 1}
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

// buildBVH builds a BVH over refs (reordered in place). It returns nodes in
// depth-first order and, for each leaf slot, the primitive id. The result
// does not depend on goroutine scheduling: every subtree writes only into a
// node range reserved for it by its primitive count.
func buildBVH(refs []primRef, p buildParams) (nodes []node, order []uint32) {
	n := len(refs)
	if n == 0 {
		return []node{{bounds: emptyAABB()}}, nil
	}
	b := builder{p: p, refs: refs, nodes: make([]node, 2*n)}
	var wg sync.WaitGroup
	b.build(0, 0, n, 1, 0, &wg)
	wg.Wait()
	// Compact the reserved ranges into a dense depth-first array.
	order = make([]uint32, n)
	for i := range refs {
		order[i] = refs[i].id
	}
	out := make([]node, 0, 2*n)
	compact(&out, b.nodes, 0)
	return out, order
}

// compact copies the subtree at old into out in depth-first order with each
// inner node's children adjacent, and returns nothing: the root lands at 0.
func compact(out *[]node, src []node, root uint32) {
	*out = append(*out, src[root])
	type item struct{ old, dst uint32 }
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := src[it.old]
		if n.isLeaf() {
			continue
		}
		pair := uint32(len(*out))
		*out = append(*out, src[n.first], src[n.first+1])
		(*out)[it.dst].first = pair
		stack = append(stack, item{n.first + 1, pair + 1}, item{n.first, pair})
	}
}

type builder struct {
	p     buildParams
	refs  []primRef
	nodes []node
}

type bin struct {
	box   AABB
	count int
}

// build fills node r for refs[lo:hi]; its descendants may use the node
// slots from free on (2*(hi-lo)-2 of them are reserved for it).
func (b *builder) build(r uint32, lo, hi int, free uint32, depth int, wg *sync.WaitGroup) {
	refs := b.refs[lo:hi]
	bounds, cbounds := emptyAABB(), emptyAABB()
	for i := range refs {
		bounds = bounds.Union(refs[i].box)
		cbounds = cbounds.Extend(refs[i].box.centroid())
	}
	n := len(refs)
	leaf := func() { b.nodes[r] = node{bounds: bounds, first: uint32(lo), count: uint32(n)} }
	if n == 1 {
		leaf()
		return
	}
	mid := -1
	if depth < medianDepth {
		axis, split, cost := b.findSplit(refs, bounds, cbounds)
		if axis < 0 || (n <= b.p.maxLeaf && cost >= float32(n)) {
			if n <= b.p.maxLeaf {
				leaf()
				return
			}
		} else {
			mid = b.partition(refs, cbounds, axis, split)
		}
	}
	if mid <= 0 || mid >= n {
		mid = n / 2 // no usable SAH split (or too deep): halve the range
	}
	c := free
	b.nodes[r] = node{bounds: bounds, first: c}
	leftFree := free + 2
	rightFree := leftFree + uint32(2*mid-2)
	if n >= parallelGrain {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.build(c, lo, lo+mid, leftFree, depth+1, wg)
		}()
	} else {
		b.build(c, lo, lo+mid, leftFree, depth+1, wg)
	}
	b.build(c+1, lo+mid, hi, rightFree, depth+1, wg)
}

// findSplit evaluates binned SAH on every axis. It returns axis -1 when the
// centroids coincide. cost is relative to one primitive intersection.
func (b *builder) findSplit(refs []primRef, bounds, cb AABB) (axis, split int, cost float32) {
	nb := b.p.bins
	axis, cost = -1, float32(0)
	for a := 0; a < 3; a++ {
		lo, hi := cb.Min.At(a), cb.Max.At(a)
		if !(hi > lo) {
			continue
		}
		var bins [maxBins]bin
		for i := range bins[:nb] {
			bins[i].box = emptyAABB()
		}
		k := float32(nb) / (hi - lo)
		for i := range refs {
			j := binIndex(refs[i].box.centroid().At(a), lo, k, nb)
			bins[j].box = bins[j].box.Union(refs[i].box)
			bins[j].count++
		}
		var rightArea [maxBins]float32
		var rightCount [maxBins]int
		acc, cnt := emptyAABB(), 0
		for i := nb - 1; i > 0; i-- {
			acc = acc.Union(bins[i].box)
			cnt += bins[i].count
			rightArea[i], rightCount[i] = acc.HalfArea(), cnt
		}
		acc, cnt = emptyAABB(), 0
		for i := 1; i < nb; i++ {
			acc = acc.Union(bins[i-1].box)
			cnt += bins[i-1].count
			if cnt == 0 || rightCount[i] == 0 {
				continue
			}
			c := acc.HalfArea()*float32(cnt) + rightArea[i]*float32(rightCount[i])
			if axis < 0 || c < cost {
				axis, split, cost = a, i, c
			}
		}
	}
	if axis >= 0 {
		area := bounds.HalfArea()
		if area > 0 {
			cost = b.p.traversalCost + cost/area
		} else {
			cost = b.p.traversalCost + float32(len(refs))
		}
	}
	return axis, split, cost
}

func binIndex(c, lo, k float32, nb int) int {
	j := int((c - lo) * k)
	if j >= nb {
		j = nb - 1
	}
	if j < 0 {
		j = 0
	}
	return j
}

// partition moves the refs whose centroid bin is below split to the front
// and returns their count.
func (b *builder) partition(refs []primRef, cb AABB, axis, split int) int {
	lo, hi := cb.Min.At(axis), cb.Max.At(axis)
	k := float32(b.p.bins) / (hi - lo)
	i, j := 0, len(refs)-1
	for i <= j {
		if binIndex(refs[i].box.centroid().At(axis), lo, k, b.p.bins) < split {
			i++
		} else {
			refs[i], refs[j] = refs[j], refs[i]
			j--
		}
	}
	return i
}

// refit recomputes every node's bounds bottom-up from leafBox, which
// returns the box of the primitive in a leaf slot.
func refit(nodes []node, leafBox func(slot uint32) AABB) {
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		if n.isLeaf() {
			bb := emptyAABB()
			for s := n.first; s < n.first+n.count; s++ {
				bb = bb.Union(leafBox(s))
			}
			n.bounds = bb
		} else if n.first != 0 {
			n.bounds = nodes[n.first].bounds.Union(nodes[n.first+1].bounds)
		}
	}
}
