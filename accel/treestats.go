package accel

// TreeStats describes the shape of an acceleration structure's tree, for
// tools (`raypipe info`) and for judging build quality.
type TreeStats struct {
	// Nodes and Leaves count the binary tree's nodes; WideNodes the 8-wide
	// nodes traversal walks.
	Nodes, Leaves, WideNodes int
	// MaxDepth is the depth of the deepest leaf (the root is depth 0).
	MaxDepth int
	// Primitives counts the active primitives referenced by leaves, and
	// References the leaves' references to them: more than Primitives
	// where spatial splits put a triangle in several leaves (sbvhBuild).
	Primitives, References int
	// SAHCost is the surface area heuristic cost of the binary tree
	// relative to the root's area: inner nodes cost 1, primitives 1.
	SAHCost float64
	// WideNodeArea and LeafArea measure the tree that traversal walks as
	// Embree's BVH statistics measure its own (the "sah" of its nodes and
	// leaves that a device made with "verbose=2" prints after a build):
	// the surface areas of the wide nodes, and of the leaves, summed and
	// divided by the root's. A random line that meets the root's box
	// (uniform in direction and place, the heuristic's model) meets on
	// average that many wide nodes' and leaves' boxes: the node and leaf
	// tests of a walk that never stops early. Embree counts a leaf once
	// per block of four triangles it tests together; a raypipe leaf of up
	// to eight is one 8-lane test, so it counts once.
	WideNodeArea, LeafArea float64
}

// TreeStats returns the shape of the BLAS's tree.
func (b *BLAS) TreeStats() TreeStats {
	s := treeStats(b.nodes, len(b.wide))
	s.Primitives = b.active
	s.WideNodeArea, s.LeafArea = wideAreas(b.wide, b.nodes)
	return s
}

// TreeStats returns the shape of the TLAS's tree over its instances.
func (t *TLAS) TreeStats() TreeStats {
	s := treeStats(t.nodes, len(t.wide))
	s.Primitives = s.References // instances are never split
	s.WideNodeArea, s.LeafArea = wideAreas(t.wide, t.nodes)
	return s
}

// wideAreas returns TreeStats' WideNodeArea and LeafArea of the wide tree
// over nodes (whose root box is the whole tree's): each wide node's area
// is its box's in its parent's slot, the root's the root node's.
func wideAreas(wide []wideNode, nodes []node) (nodeArea, leafArea float64) {
	if len(wide) == 0 || len(nodes) == 0 || nodes[0].bounds.IsEmpty() {
		return 0, 0
	}
	root := halfArea64(&nodes[0].bounds)
	if root <= 0 {
		return 0, 0 // a point or a degenerate line: no area to divide by
	}
	var walk func(i uint32, area float64)
	walk = func(i uint32, area float64) {
		w := &wide[i]
		nodeArea += area
		for s := range int(w.n) {
			box := w.box(s)
			a := halfArea64(&box) / root
			if ref := w.ref[s]; isLeafRef(ref) {
				leafArea += a
			} else {
				walk(ref, a)
			}
		}
	}
	walk(0, 1)
	return nodeArea, leafArea
}

func treeStats(nodes []node, wide int) TreeStats {
	s := TreeStats{WideNodes: wide}
	if len(nodes) == 0 || nodes[0].bounds.IsEmpty() {
		return s
	}
	root := float64(nodes[0].bounds.HalfArea())
	type item struct {
		n     uint32
		depth int
	}
	stack := []item{{0, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &nodes[it.n]
		s.Nodes++
		area := 1.0
		if root > 0 {
			area = float64(nd.bounds.HalfArea()) / root
		}
		if nd.isLeaf() {
			s.Leaves++
			s.References += int(nd.count)
			s.MaxDepth = max(s.MaxDepth, it.depth)
			s.SAHCost += area * float64(nd.count)
			continue
		}
		s.SAHCost += area
		stack = append(stack, item{nd.first, it.depth + 1}, item{nd.first + 1, it.depth + 1})
	}
	return s
}
