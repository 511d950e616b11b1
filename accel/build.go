package accel

import (
	"math"
	"sync"
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
	// primitive test. Traversal walks the 4-wide tree, testing four boxes
	// per node, and a box test costs about as much as a triangle test:
	// measured on 100k-triangle scenes, 3 gives larger leaves (3 to 4.5
	// triangles on average instead of 1.3 to 2), a third fewer wide nodes,
	// faster builds and faster incoherent and shadow rays than 1.
	traversalCost float32
}

func paramsFor(flags BuildFlags) buildParams {
	switch {
	case flags&BuildPreferFastBuild != 0:
		return buildParams{bins: 8, maxLeaf: 8, traversalCost: 3}
	case flags&BuildMinimizeMemory != 0:
		return buildParams{bins: 16, maxLeaf: 8, traversalCost: 2}
	}
	return buildParams{bins: 32, maxLeaf: 4, traversalCost: 3}
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
// does not depend on goroutine scheduling: every subtree writes only into a
// node range reserved for it by its primitive count.
func buildBVH(refs []primRef, p buildParams) (nodes []node, order []uint32) {
	n := len(refs)
	if n == 0 {
		return []node{{bounds: emptyAABB()}}, nil
	}
	brefs := make([]bref, n)
	for i := range refs {
		a := &refs[i].box
		brefs[i] = bref{a.Min.X, a.Min.Y, a.Min.Z, -a.Max.X, -a.Max.Y, -a.Max.Z, refs[i].id}
	}
	b := builder{p: p, refs: brefs, nodes: make([]node, 2*n)}
	var wg sync.WaitGroup
	bb, cb := rangeBounds(brefs)
	b.build(0, 0, n, 1, 0, bb, cb, new(binScratch), &wg)
	wg.Wait()
	// Compact the reserved ranges into a dense depth-first array.
	order = make([]uint32, n)
	for i := range brefs {
		order[i] = brefs[i].id
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
	refs  []bref
	nodes []node
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

// binBox is a box as six scalars, maxima negated (see bref).
type binBox struct{ minX, minY, minZ, nmaxX, nmaxY, nmaxZ float32 }

var posInf = float32(math.Inf(1))

func emptyBinBox() binBox {
	inf := posInf
	return binBox{inf, inf, inf, inf, inf, inf}
}

// binScratch is one goroutine's binning storage.
type binScratch struct {
	boxes  [3][maxBins]binBox
	counts [3][maxBins]int32
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
	return dx*dy + dy*dz + dz*dx
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

func (bn *binning) index(c float32, a int) int {
	j := int((c - bn.lo[a]) * bn.k[a])
	if j >= bn.nb {
		j = bn.nb - 1
	}
	if j < 0 {
		j = 0
	}
	return j & (maxBins - 1)
}

// build fills node r for refs[lo:hi], whose bounds and doubled-centroid
// bounds are given; its descendants may use the node slots from free on
// (2*(hi-lo)-2 of them are reserved for it).
func (b *builder) build(r uint32, lo, hi int, free uint32, depth int, bounds binBox, cb centroids, sc *binScratch, wg *sync.WaitGroup) {
	refs := b.refs[lo:hi]
	n := len(refs)
	leaf := func() { b.nodes[r] = node{bounds: bounds.aabb(), first: uint32(lo), count: uint32(n)} }
	if n == 1 {
		leaf()
		return
	}
	mid := -1
	var lb, rb binBox
	var lc, rc centroids
	if depth < medianDepth {
		bn, axis, split, cost := b.findSplit(refs, &bounds, &cb, sc)
		if axis < 0 || (n <= b.p.maxLeaf && cost >= float32(n)) {
			if n <= b.p.maxLeaf {
				leaf()
				return
			}
		} else {
			mid, lb, rb, lc, rc = partition(refs, &bn, axis, split)
		}
	}
	if mid <= 0 || mid >= n {
		mid = n / 2 // no usable SAH split (or too deep): halve the range
		lb, lc = rangeBounds(refs[:mid])
		rb, rc = rangeBounds(refs[mid:])
	}
	c := free
	b.nodes[r] = node{bounds: bounds.aabb(), first: c}
	leftFree := free + 2
	rightFree := leftFree + uint32(2*mid-2)
	if n >= parallelGrain {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.build(c, lo, lo+mid, leftFree, depth+1, lb, lc, new(binScratch), wg)
		}()
	} else {
		b.build(c, lo, lo+mid, leftFree, depth+1, lb, lc, sc, wg)
	}
	b.build(c+1, lo+mid, hi, rightFree, depth+1, rb, rc, sc, wg)
}

// rangeBounds returns the bounds and doubled-centroid bounds of refs.
func rangeBounds(refs []bref) (binBox, centroids) {
	bb := emptyBinBox()
	cb := centroids(bb)
	for i := range refs {
		bb.add(&refs[i])
		cb.add(&refs[i])
	}
	return bb, cb
}

// findSplit evaluates binned SAH on every axis in one pass over refs. It
// returns axis -1 when the centroids coincide. cost is relative to one
// primitive intersection. Small ranges use fewer bins (twice as many as
// primitives, at least 8): more would rarely separate them better.
func (b *builder) findSplit(refs []bref, bounds *binBox, cb *centroids, sc *binScratch) (bn binning, axis, split int, cost float32) {
	nb := min(b.p.bins, max(8, 2*len(refs)))
	bn.nb = nb
	clo := [3]float32{cb.minX, cb.minY, cb.minZ}
	chi := [3]float32{-cb.nmaxX, -cb.nmaxY, -cb.nmaxZ}
	usable := false
	for a := 0; a < 3; a++ {
		bn.lo[a] = clo[a]
		if chi[a] > clo[a] {
			bn.k[a] = float32(nb) / (chi[a] - clo[a])
			usable = true
		}
	}
	axis = -1
	if !usable {
		return
	}
	boxes, counts := &sc.boxes, &sc.counts
	e := emptyBinBox()
	for a := range boxes {
		for i := range boxes[a][:nb] {
			boxes[a][i] = e
			counts[a][i] = 0
		}
	}
	for i := range refs {
		bx := &refs[i]
		x0, y0, z0, nx1, ny1, nz1 := bx.minX, bx.minY, bx.minZ, bx.nmaxX, bx.nmaxY, bx.nmaxZ
		jx := bn.index(x0-nx1, 0)
		jy := bn.index(y0-ny1, 1)
		jz := bn.index(z0-nz1, 2)
		boxes[0][jx].addv(x0, y0, z0, nx1, ny1, nz1)
		counts[0][jx]++
		boxes[1][jy].addv(x0, y0, z0, nx1, ny1, nz1)
		counts[1][jy]++
		boxes[2][jz].addv(x0, y0, z0, nx1, ny1, nz1)
		counts[2][jz]++
	}
	for a := 0; a < 3; a++ {
		if bn.k[a] == 0 {
			continue
		}
		var rightArea [maxBins]float32
		var rightCount [maxBins]int32
		// Empty bins (many, in small ranges) leave the sums as they are.
		acc, cnt, area := emptyBinBox(), int32(0), float32(0)
		for i := nb - 1; i > 0; i-- {
			if k := counts[a][i]; k != 0 {
				acc.union(&boxes[a][i])
				cnt += k
				area = acc.halfArea()
			}
			rightArea[i], rightCount[i] = area, cnt
		}
		acc, cnt, area = emptyBinBox(), 0, 0
		for i := 1; i < nb; i++ {
			if k := counts[a][i-1]; k != 0 {
				acc.union(&boxes[a][i-1])
				cnt += k
				area = acc.halfArea()
			}
			if cnt == 0 || rightCount[i] == 0 {
				continue
			}
			c := area*float32(cnt) + rightArea[i]*float32(rightCount[i])
			if axis < 0 || c < cost {
				axis, split, cost = a, i, c
			}
		}
	}
	if axis >= 0 {
		area := bounds.halfArea()
		if area > 0 {
			cost = b.p.traversalCost + cost/area
		} else {
			cost = b.p.traversalCost + float32(len(refs))
		}
	}
	return bn, axis, split, cost
}

// partition moves the refs whose centroid bin is below split to the front
// and returns their count with the bounds of both sides.
func partition(refs []bref, bn *binning, axis, split int) (mid int, lb, rb binBox, lc, rc centroids) {
	lb, rb = emptyBinBox(), emptyBinBox()
	lc, rc = centroids(lb), centroids(rb)
	var off uintptr
	switch axis {
	case 1:
		off = 4
	case 2:
		off = 8
	}
	i, j := 0, len(refs)-1
	for i <= j {
		bx := &refs[i]
		lo := *(*float32)(unsafe.Add(unsafe.Pointer(&bx.minX), off))
		nhi := *(*float32)(unsafe.Add(unsafe.Pointer(&bx.nmaxX), off))
		if bn.index(lo-nhi, axis) < split {
			lb.add(bx)
			lc.add(bx)
			i++
		} else {
			rb.add(bx)
			rc.add(bx)
			refs[i], refs[j] = refs[j], refs[i]
			j--
		}
	}
	return i, lb, rb, lc, rc
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
