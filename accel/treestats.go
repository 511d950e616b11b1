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
}

// TreeStats returns the shape of the BLAS's tree.
func (b *BLAS) TreeStats() TreeStats {
	s := treeStats(b.nodes, len(b.wide))
	s.Primitives = b.active
	return s
}

// TreeStats returns the shape of the TLAS's tree over its instances.
func (t *TLAS) TreeStats() TreeStats {
	s := treeStats(t.nodes, len(t.wide))
	s.Primitives = s.References // instances are never split
	return s
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
