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
	pl.placeWide(nodes, wide, slots)
	return pl
}

// planRefitBy is planRefit with parts of at most grain primitives.
func planRefitBy(nodes []node, grain uint32) *refitPlan {
	if len(nodes) == 0 || (!nodes[0].isLeaf() && nodes[0].first == 0) {
		return &refitPlan{} // no tree, or the empty one
	}
	// Below each node: its primitives, nodes, last node and slot range
	// (one array: a node's five are read and written together).
	type subtree struct{ count, size, last, lo, hi uint32 }
	sub := make([]subtree, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		n, t := &nodes[i], &sub[i]
		if n.isLeaf() {
			t.count, t.lo, t.hi = n.count, n.first, n.first+n.count
			continue
		}
		l, r := &sub[n.first], &sub[n.first+1]
		t.count, t.size, t.last = l.count+r.count, 2+l.size+r.size, max(n.first+1, l.last, r.last)
		t.lo, t.hi = min(l.lo, r.lo), max(l.hi, r.hi)
	}
	pl := &refitPlan{}
	stack := []uint32{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &nodes[i]
		t := &sub[i]
		if !n.isLeaf() && t.count > grain {
			pl.top = append(pl.top, i)
			stack = append(stack, n.first+1, n.first)
			continue
		}
		p := refitPart{root: i, lo: t.lo, hi: t.hi}
		if !n.isLeaf() {
			p.nodeLo, p.nodeHi = n.first, n.first+t.size
			if t.last != p.nodeHi-1 {
				return wholeTree(nodes, sub[0].hi)
			}
		}
		if t.hi-t.lo != t.count {
			return wholeTree(nodes, sub[0].hi)
		}
		pl.parts = append(pl.parts, p)
	}
	slices.Sort(pl.top)
	slices.Reverse(pl.top)
	return pl
}

// wholeTree is the refitPlan of one part, the whole tree of nodes, whose
// leaves hold slots [0, slots).
func wholeTree(nodes []node, slots uint32) *refitPlan {
	return &refitPlan{parts: []refitPart{{root: 0, nodeLo: 1, nodeHi: uint32(len(nodes)), hi: slots}}}
}

// placeWide gives each part the wide nodes whose binary nodes (slots) all
// lie below its root: those whose roots lie in the part. The others lie
// above the parts (wideTop). Where a part's wide nodes are not one range
// (never in a structure that widen numbered), it places none and leaves
// the wide nodes to a pass of their own.
func (pl *refitPlan) placeWide(nodes []node, wide []wideNode, slots []wideSlots) {
	if len(slots) != len(wide) {
		return
	}
	below := make([]int32, len(nodes)) // part+1 of the nodes below a part's root, else 0
	for k, p := range pl.parts {
		for i := p.nodeLo; i < p.nodeHi; i++ {
			below[i] = int32(k + 1)
		}
	}
	count := make([]uint32, len(pl.parts))
	for w := range wide {
		kids := slots[w][:wide[w].n]
		k := int32(0)
		if len(kids) > 0 {
			k = below[kids[0]]
		}
		for _, c := range kids {
			if below[c] != k {
				k = 0
			}
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
