package accel

import "slices"

// refitPlan is how an update refits a binary tree in parallel (refitFrom):
// the tree cut into parts, subtrees of at most refitGrain primitives, each
// refit by one task from its slots up, and the inner nodes above them
// (top), refit after the parts. It depends on the tree's topology alone,
// which an update keeps, so a BLAS plans it at its first update and keeps
// it (seven words a part, one a node above the parts).
//
// The builders lay a tree out depth first with each inner node's children
// adjacent (piece), so the nodes below any node fill the range that starts
// at its children: a part is its root and a range of nodes, and a range
// of slots. A pass over each range from its end refits children before
// their parents, as a pass over the whole array from its end does; a walk
// from each part's root, in the order it met the nodes, took an update on
// one core 1.2x as long.
//
// The wide nodes are refit with the binary ones: a part's in its task (a
// range of them, widen numbering them depth first), the others after the
// top (wideTop). As a pass of its own, in parallel chunks, their refit
// read every binary node from memory again and took as long on sixteen
// threads as on one for a 10k-triangle update.
type refitPlan struct {
	parts []refitPart
	top   []uint32 // the inner nodes above the parts, in descending order
	// wideTop lists the wide nodes above the parts, where wideInParts;
	// else the wide nodes are refit in a pass of their own (refitWide).
	wideTop     []uint32
	wideInParts bool
}

// refitPart is a subtree of a refitPlan: its root, the nodes below it
// [nodeLo, nodeHi), the slots its leaves hold, [lo, hi), and the wide
// nodes below its root, [wideLo, wideHi).
type refitPart struct {
	root           uint32
	nodeLo, nodeHi uint32
	lo, hi         uint32
	wideLo, wideHi uint32
}

// refitGrain is the most primitives of a refitPlan's part, about 50 us of
// an update on one core: the 10k-triangle terrain and soup are refit in 8
// parts, the 100k ones in about 70, and the crew balances them.
const refitGrain = 1 << 11

// planRefit cuts nodes (a valid binary tree: children after their parents,
// every node reachable, every slot in one leaf) into a refitPlan: from the
// root down, a leaf or a subtree of at most refitGrain primitives is a
// part, any other inner node is in top. A tree laid out otherwise than
// the builders lay theirs out (one deserialized from elsewhere) is one
// part, refit on one goroutine. The wide nodes (slots: each one's binary
// nodes) are placed by placeWide.
func planRefit(nodes []node, wide []wideNode, slots []wideSlots) *refitPlan {
	pl := planRefitBy(nodes, refitGrain)
	pl.placeWide(wide, slots)
	return pl
}

// planRefitBy is planRefit with parts of at most grain primitives.
//
// It first checks the layout (depthFirst), then cuts the tree from the
// root down, reading only the nodes on its way: in that layout a
// subtree's slots run from its leftmost leaf's first to its rightmost
// leaf's last, and its nodes from its children to the pair of the last
// inner node below it. An earlier plan first recorded every node's
// subtree (20 bytes a node) and then each node's part: 6 ms of a
// 1M-triangle terrain's first update (22 ms) on one Zen 3 core, 1.5 ms
// now; 24 us at 10k triangles, 8-16 us now.
func planRefitBy(nodes []node, grain uint32) *refitPlan {
	if len(nodes) == 0 || (!nodes[0].isLeaf() && nodes[0].first == 0) {
		return &refitPlan{} // no tree, or the empty one
	}
	if !depthFirst(nodes) {
		return laidOutOtherwise(nodes)
	}
	pl := &refitPlan{}
	stack := make([]uint32, 1, 64)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &nodes[i]
		if n.isLeaf() {
			pl.parts = append(pl.parts, refitPart{root: i, lo: n.first, hi: n.first + n.count})
			continue
		}
		lo, hi := subtreeSlots(nodes, i)
		if hi-lo > grain {
			pl.top = append(pl.top, i)
			stack = append(stack, n.first+1, n.first)
			continue
		}
		pl.parts = append(pl.parts, refitPart{root: i, nodeLo: n.first, nodeHi: subtreeEnd(nodes, i), lo: lo, hi: hi})
	}
	slices.Sort(pl.top)
	slices.Reverse(pl.top)
	return pl
}

// depthFirst reports whether nodes (a valid binary tree) are laid out as
// the builders lay trees out: walking the tree depth first, left child
// first, each inner node's children are the next pair of nodes and each
// leaf's slots the next slots. It reads each node once.
func depthFirst(nodes []node) bool {
	nextNode, nextSlot := uint32(1), uint32(0)
	right := make([]uint32, 0, 64) // right children still to walk
	for i := uint32(0); ; {
		n := &nodes[i]
		if !n.isLeaf() {
			if n.first != nextNode || int(n.first)+1 >= len(nodes) {
				return false
			}
			nextNode += 2
			right = append(right, n.first+1)
			i = n.first
			continue
		}
		if n.first != nextSlot {
			return false
		}
		nextSlot += n.count
		if len(right) == 0 {
			return int(nextNode) == len(nodes)
		}
		i = right[len(right)-1]
		right = right[:len(right)-1]
	}
}

// subtreeSlots returns the slots [lo, hi) of the subtree at inner node i
// of a depthFirst tree: from its leftmost leaf's to its rightmost leaf's.
func subtreeSlots(nodes []node, i uint32) (lo, hi uint32) {
	l, r := i, i
	for !nodes[l].isLeaf() {
		l = nodes[l].first
	}
	for !nodes[r].isLeaf() {
		r = nodes[r].first + 1
	}
	return nodes[l].first, nodes[r].first + nodes[r].count
}

// subtreeEnd returns the end of the nodes below inner node i of a
// depthFirst tree, which start at its children: after the children of the
// last inner node the walk enters below i (in its right child's subtree
// where that child is inner, else in its left child's).
func subtreeEnd(nodes []node, i uint32) uint32 {
	for {
		c := nodes[i].first
		switch {
		case !nodes[c+1].isLeaf():
			i = c + 1
		case !nodes[c].isLeaf():
			i = c
		default:
			return c + 2
		}
	}
}

// wholeTree is the refitPlan of one part, the whole tree of nodes, whose
// leaves hold slots [0, slots).
func wholeTree(nodes []node, slots uint32) *refitPlan {
	return &refitPlan{parts: []refitPart{{root: 0, nodeLo: 1, nodeHi: uint32(len(nodes)), hi: slots}}}
}

// laidOutOtherwise is the refitPlan of a tree that planRefitBy finds laid
// out otherwise than the builders lay trees out: the whole tree.
func laidOutOtherwise(nodes []node) *refitPlan {
	slots := uint32(0)
	for i := range nodes {
		if n := &nodes[i]; n.isLeaf() {
			slots = max(slots, n.first+n.count)
		}
	}
	return wholeTree(nodes, slots)
}

// placeWide gives each part the wide nodes whose binary nodes (slots) all
// lie below its root: those whose roots lie in the part. The others lie
// above the parts (wideTop). Where a part's wide nodes are not one range
// (never in a structure that widen numbered), it places none and leaves
// the wide nodes to a pass of their own.
func (pl *refitPlan) placeWide(wide []wideNode, slots []wideSlots) {
	if len(slots) != len(wide) {
		return
	}
	// The parts with nodes below their roots, by their node ranges
	// (disjoint): a wide node is a part's where its binary nodes lie in
	// its range, which from the least to the greatest of them holds all.
	// (A node per tree node marking its part cost a fifth of a plan.)
	var inner []int32
	for k, p := range pl.parts {
		if p.nodeHi > p.nodeLo {
			inner = append(inner, int32(k))
		}
	}
	slices.SortFunc(inner, func(a, b int32) int { return int(pl.parts[a].nodeLo) - int(pl.parts[b].nodeLo) })
	holds := func(k int32, lo, hi uint32) bool { // part k-1's range holds [lo, hi]
		p := &pl.parts[k-1]
		return p.nodeLo <= lo && hi < p.nodeHi
	}
	// partOf returns part+1 whose range holds [lo, hi], else 0, trying
	// first the part the last wide node went to (last): its neighbours'.
	last := int32(0)
	partOf := func(lo, hi uint32) int32 {
		if last > 0 && holds(last, lo, hi) {
			return last
		}
		j, _ := slices.BinarySearchFunc(inner, lo, func(k int32, n uint32) int {
			if pl.parts[k].nodeHi <= n {
				return -1
			}
			return 1
		})
		if j < len(inner) && holds(inner[j]+1, lo, hi) {
			return inner[j] + 1
		}
		return 0
	}
	count := make([]uint32, len(pl.parts))
	for w := range wide {
		kids := slots[w][:wide[w].n]
		k := int32(0)
		if len(kids) > 0 {
			k = partOf(slices.Min(kids), slices.Max(kids))
			last = k
		}
		if k == 0 {
			pl.wideTop = append(pl.wideTop, uint32(w))
			continue
		}
		p := &pl.parts[k-1]
		if count[k-1] == 0 {
			p.wideLo = uint32(w)
		}
		p.wideHi = uint32(w) + 1
		count[k-1]++
	}
	for k := range pl.parts {
		if p := &pl.parts[k]; p.wideHi-p.wideLo != count[k] {
			for k := range pl.parts {
				pl.parts[k].wideLo, pl.parts[k].wideHi = 0, 0
			}
			pl.wideTop = nil
			return
		}
	}
	pl.wideInParts = true
}
