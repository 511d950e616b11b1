package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// planRefit cuts a built tree into parts that cover it: every node lies in
// one part (its root or its range of nodes, which holds exactly the nodes
// below the root) or in top, every slot in one part's range, which holds
// exactly its leaves' slots; a part is a leaf or holds at most the grain's
// primitives, and its parent is in top (the cut is as high as it may be);
// top lists inner nodes in descending order, each above the grain.
func TestRefitPlanCutsBuiltTreesIntoParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{1, 9, 3000, 40000} {
		pos, idx := randomSoup(rng, n, 0.05)
		for _, flags := range []BuildFlags{0, BuildAllowUpdate, BuildPreferFastTrace, BuildPreferFastBuild} {
			b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, flags)
			for _, grain := range []uint32{1, 8, 100, refitGrain} {
				t.Run(fmt.Sprintf("%d tris, flags %#x, grain %d", n, flags, grain), func(t *testing.T) {
					pl := planRefitBy(b.nodes, grain)
					checkRefitPlan(t, b.nodes, len(b.primGeom), pl, grain)
					if b.wideSlots != nil {
						pl.placeWide(b.wide, b.wideSlots)
						checkWidePlaced(t, b, pl)
					}
					if len(pl.parts) == 1 && n > int(grain)*maxLeafCount {
						t.Errorf("one part for %d primitives", n)
					}
				})
			}
		}
	}
}

// planRefit trusts a tree's layout only after one walk over it
// (depthFirst): trees of any shape, lopsided ones too, laid out as the
// builders lay theirs out are cut into parts that cover them; the same
// trees in another order of nodes, or with their leaves' slots out of
// order, are one part.
func TestRefitPlanCutsOnlyTreesLaidOutDepthFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	swaps := 0
	for trial := range 40 {
		leaves := 2 + rng.IntN(3000)
		tree := randomBinaryTree(rng, leaves)
		if trial%2 == 1 { // mostly the newest leaves split: deep on one side
			tree = binaryTreeSplitting(rng, leaves, func(k int) int { return k - 1 - int(float64(k)*math.Pow(rng.Float64(), 6)) })
		}
		slots := 0
		for _, n := range tree {
			if n.isLeaf() {
				slots += int(n.count)
			}
		}
		tidy := laidOutDepthFirst(tree)
		if !depthFirst(tidy) {
			t.Fatalf("trial %d: a tree laid out depth first fails depthFirst", trial)
		}
		for _, grain := range []uint32{1, 8, 64, 1024} {
			checkRefitPlan(t, tidy, slots, planRefitBy(tidy, grain), grain)
		}
		oneUnlessTidy := func(what string, nodes []node) {
			t.Helper()
			if depthFirst(nodes) {
				t.Fatalf("trial %d: %s passes depthFirst", trial, what)
			}
			pl := planRefitBy(nodes, 8)
			if len(pl.parts) != 1 || pl.parts[0].root != 0 || len(pl.top) != 0 {
				t.Fatalf("trial %d: %s: %d parts, %d top nodes; want the whole tree as one part", trial, what, len(pl.parts), len(pl.top))
			}
			checkRefitPlan(t, nodes, slots, pl, uint32(slots))
		}
		if !slices.Equal(tree, tidy) {
			oneUnlessTidy("a tree in creation order", tree)
		}
		// Two leaves' slots swapped: a valid tree, its slots not depth first.
		swapped := slices.Clone(tidy)
		var tidyLeaves []int
		for i, n := range swapped {
			if n.isLeaf() {
				tidyLeaves = append(tidyLeaves, i)
			}
		}
		a := tidyLeaves[0]
		for _, b := range tidyLeaves[2:] { // not a's sibling: another parent
			if swapped[b].count == swapped[a].count {
				swapped[a].first, swapped[b].first = swapped[b].first, swapped[a].first
				oneUnlessTidy("a tree with two leaves' slots swapped", swapped)
				swaps++
				break
			}
		}
	}
	if swaps < 30 {
		t.Fatalf("slots swapped in %d trees of 40: weak test", swaps)
	}
}

// checkRefitPlan checks pl against nodes (see
// TestRefitPlanCutsBuiltTreesIntoParts) by walking the tree from each
// part's root.
func checkRefitPlan(t *testing.T, nodes []node, slots int, pl *refitPlan, grain uint32) {
	t.Helper()
	owner := make([]int, len(nodes)) // part+1, or -1 in top
	parent := make([]int, len(nodes))
	parent[0] = -1
	for i, n := range nodes {
		if !n.isLeaf() {
			parent[n.first], parent[n.first+1] = i, i
		}
	}
	for _, i := range pl.top {
		if nodes[i].isLeaf() || owner[i] != 0 {
			t.Fatalf("top node %d: a leaf or listed twice", i)
		}
		owner[i] = -1
	}
	if !slices.IsSortedFunc(pl.top, func(a, b uint32) int { return int(b) - int(a) }) {
		t.Error("top is not in descending order")
	}
	slotOwner := make([]int, slots)
	for k, p := range pl.parts {
		var below []uint32 // the nodes below the root
		var leafSlots []uint32
		prims := uint32(0)
		var walk func(i uint32)
		walk = func(i uint32) {
			n := &nodes[i]
			if owner[i] != 0 {
				t.Fatalf("node %d in two parts, or in a part and top", i)
			}
			owner[i] = k + 1
			if n.isLeaf() {
				prims += n.count
				for s := n.first; s < n.first+n.count; s++ {
					leafSlots = append(leafSlots, s)
				}
				return
			}
			below = append(below, n.first, n.first+1)
			walk(n.first)
			walk(n.first + 1)
		}
		walk(p.root)
		slices.Sort(below)
		if len(below) != int(p.nodeHi-p.nodeLo) || len(below) > 0 && (below[0] != p.nodeLo || below[len(below)-1] != p.nodeHi-1) {
			t.Errorf("part %d (root %d): nodes [%d, %d), the nodes below its root %d..%d (%d)", k, p.root, p.nodeLo, p.nodeHi, below[0], below[len(below)-1], len(below))
		}
		slices.Sort(leafSlots)
		if len(leafSlots) != int(p.hi-p.lo) || leafSlots[0] != p.lo || leafSlots[len(leafSlots)-1] != p.hi-1 {
			t.Errorf("part %d: slots [%d, %d), its leaves hold %d slots", k, p.lo, p.hi, len(leafSlots))
		}
		for _, s := range leafSlots {
			slotOwner[s]++
		}
		if !nodes[p.root].isLeaf() && prims > grain {
			t.Errorf("part %d: %d primitives, above the grain %d", k, prims, grain)
		}
		if q := parent[p.root]; q >= 0 && owner[q] != -1 {
			t.Errorf("part %d: its root's parent %d is not in top", k, q)
		}
	}
	for i, o := range owner {
		if o == 0 {
			t.Errorf("node %d in no part and not in top", i)
		}
	}
	for s, c := range slotOwner {
		if c != 1 {
			t.Fatalf("slot %d in %d parts", s, c)
		}
	}
}

// checkWidePlaced checks that placeWide gave each part of pl the wide
// nodes of b whose binary nodes all lie below its root, as one range, and
// listed every other in wideTop.
func checkWidePlaced(t *testing.T, b *BLAS, pl *refitPlan) {
	t.Helper()
	if !pl.wideInParts {
		t.Fatal("the wide nodes of a built structure are not placed in parts")
	}
	placed := make([]int, len(b.wide))
	inPart := func(p refitPart, w int) bool {
		kids := b.wideSlots[w][:b.wide[w].n]
		for _, c := range kids {
			if c < p.nodeLo || c >= p.nodeHi {
				return false
			}
		}
		return len(kids) > 0
	}
	for _, p := range pl.parts {
		for w := range b.wide {
			if inPart(p, w) != (uint32(w) >= p.wideLo && uint32(w) < p.wideHi) {
				t.Fatalf("part with root %d, wide nodes [%d, %d): wide node %d below its root: %v", p.root, p.wideLo, p.wideHi, w, inPart(p, w))
			}
		}
		for w := p.wideLo; w < p.wideHi; w++ {
			placed[w]++
		}
	}
	for _, w := range pl.wideTop {
		placed[w]++
	}
	for w, c := range placed {
		if c != 1 {
			t.Fatalf("wide node %d placed %d times", w, c)
		}
	}
}

// A tree whose nodes below some part's root do not fill a range (here laid
// out breadth first) is refit as one part, the whole tree: a pass over
// the node array from its end.
func TestRefitPlanOfATreeLaidOutOtherwiseIsOnePart(t *testing.T) {
	// Eight leaves of one slot, breadth first: node k's children are
	// 2k+1 and 2k+2, so node 1's descendants are 3, 4 and 7-10.
	nodes := make([]node, 15)
	for k := range 7 {
		nodes[k].first = uint32(2*k + 1)
	}
	for k := 7; k < 15; k++ {
		nodes[k] = node{first: uint32(k - 7), count: 1}
	}
	pl := planRefitBy(nodes, 4)
	if len(pl.parts) != 1 || len(pl.top) != 0 {
		t.Fatalf("%d parts, %d top nodes; want the whole tree as one part", len(pl.parts), len(pl.top))
	}
	checkRefitPlan(t, nodes, 8, pl, 8)
	// With a grain above the tree's primitives the root's part is the
	// whole tree, and its range holds every other node: no fallback.
	checkRefitPlan(t, nodes, 8, planRefitBy(nodes, 8), 8)
}

// Wide nodes of one part that are not one range (not numbered depth first)
// are left to a pass of their own, as are all the others then.
func TestRefitPlanOfWideNodesOutOfOrderLeavesThemApart(t *testing.T) {
	// Two parts of two leaves each below the root (depth first: node 1's
	// children 3 and 4, node 2's 5 and 6), each with one wide node over
	// its leaves, and a wide root over nodes 1 and 2; numbered so that
	// part 1's wide nodes would be 0 and 2 with part 2's between.
	nodes := []node{{first: 1}, {first: 3}, {first: 5}, {first: 0, count: 1}, {first: 1, count: 1}, {first: 2, count: 1}, {first: 3, count: 1}}
	pl := planRefitBy(nodes, 2)
	if len(pl.parts) != 2 || pl.parts[0].nodeLo != 3 || pl.parts[1].nodeLo != 5 {
		t.Fatalf("parts %+v, want nodes 3-4 and 5-6", pl.parts)
	}
	wide := make([]wideNode, 3)
	slots := make([]wideSlots, 3)
	for w, kids := range [][]uint32{{3, 4}, {5, 6}, {1, 2}} {
		wide[w].n = uint32(len(kids))
		copy(slots[w][:], kids)
	}
	pl.placeWide(wide, slots)
	if !pl.wideInParts || pl.parts[0].wideLo != 0 || pl.parts[0].wideHi != 1 || pl.parts[1].wideLo != 1 || pl.parts[1].wideHi != 2 || !slices.Equal(pl.wideTop, []uint32{2}) {
		t.Fatalf("in order: %+v, top %v", pl.parts, pl.wideTop)
	}
	// Part 1 with three leaves (node 1: nodes 3-6), part 2 with two
	// (node 2: nodes 7-8); part 1's wide nodes numbered 0 and 2, part 2's 1.
	nodes = []node{{first: 1}, {first: 3}, {first: 7}, {first: 5}, {first: 2, count: 1},
		{first: 0, count: 1}, {first: 1, count: 1}, {first: 3, count: 1}, {first: 4, count: 1}}
	wide = make([]wideNode, 4)
	slots = make([]wideSlots, 4)
	for w, kids := range [][]uint32{{5, 6}, {7, 8}, {3, 4}, {1, 2}} {
		wide[w].n = uint32(len(kids))
		copy(slots[w][:], kids)
	}
	pl = planRefitBy(nodes, 3)
	if len(pl.parts) != 2 || pl.parts[0].nodeLo != 3 || pl.parts[0].nodeHi != 7 || pl.parts[1].nodeLo != 7 {
		t.Fatalf("parts %+v, want nodes 3-6 and 7-8", pl.parts)
	}
	pl.placeWide(wide, slots)
	if pl.wideInParts || pl.wideTop != nil || pl.parts[0].wideHi != 0 {
		t.Fatalf("out of order: placed %+v, top %v", pl.parts, pl.wideTop)
	}
}

// The plan an update keeps is memory the structure holds: CurrentSize
// counts it, CompactedSize does not, and Compact's copy holds none until
// its own first update.
func TestUpdateCountsItsPlanInCurrentSize(t *testing.T) {
	pos, idx := grid(80, 0.05, vec.Vec3{})
	g := []Geometry{TriangleGeometry(pos, idx)}
	b := mustBLAS(t, g, BuildAllowUpdate|BuildAllowCompaction)
	before := b.PostBuildInfo()
	if err := b.Update(g); err != nil {
		t.Fatal(err)
	}
	after := b.PostBuildInfo()
	pl := b.plan
	want := uint64(unsafe.Sizeof(*pl)) + uint64(cap(pl.parts))*uint64(unsafe.Sizeof(pl.parts[0])) + 4*uint64(cap(pl.top)+cap(pl.wideTop))
	if len(pl.parts) < 2 || after.CurrentSize-before.CurrentSize != want || after.CompactedSize != before.CompactedSize {
		t.Errorf("%d parts; sizes %+v before the first update, %+v after, want CurrentSize %d more", len(pl.parts), before, after, want)
	}
	c, err := b.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if c.plan != nil || c.PostBuildInfo().CurrentSize != after.CompactedSize {
		t.Errorf("compacted: plan %v, CurrentSize %d, want %d", c.plan != nil, c.PostBuildInfo().CurrentSize, after.CompactedSize)
	}
}

// A structure deserialized from its serialization plans the same parts and
// updates to the same bytes as the one that was serialized.
func TestUpdateOfADeserializedStructureMatchesTheOriginal(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	pos, idx := randomSoup(rng, 12000, 0.03)
	g := []Geometry{TriangleGeometry(pos, idx)}
	b := mustBLAS(t, g, BuildAllowUpdate|BuildPreferFastTrace)
	d, err := DeserializeBLAS(b.Serialize())
	if err != nil {
		t.Fatal(err)
	}
	moved := []Geometry{jitter(rng, g[0], 0.05)}
	for _, s := range []*BLAS{b, d} {
		if err := s.Update(moved); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.plan.parts) < 2 || !slices.Equal(d.plan.parts, b.plan.parts) || !slices.Equal(d.plan.top, b.plan.top) || !slices.Equal(d.plan.wideTop, b.plan.wideTop) {
		t.Errorf("plans differ: %d parts deserialized, %d built", len(d.plan.parts), len(b.plan.parts))
	}
	if !sameBytes(d.nodes, b.nodes) || !sameBytes(d.wide, b.wide) || !sameBytes(d.tris, b.tris) || !sameBytes(d.rows, b.rows) {
		t.Error("the deserialized structure updates to other bytes")
	}
}

// UpdateInto plans once for its source: the source keeps the plan and its
// results share it, also when several goroutines update from it at once
// (run with -race); each result is what Update makes of a copy.
func TestUpdateIntoSharesItsSourcesPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	pos, idx := randomSoup(rng, 12000, 0.03)
	g := []Geometry{TriangleGeometry(pos, idx)}
	b := mustBLAS(t, g, BuildAllowUpdate)
	moved := make([][]Geometry, 4)
	for i := range moved {
		moved[i] = []Geometry{jitter(rng, g[0], 0.05)}
	}
	out := make([]*BLAS, len(moved))
	errs := make([]error, len(moved))
	var wg sync.WaitGroup
	for i := range moved {
		wg.Go(func() { out[i], errs[i] = b.UpdateInto(moved[i]) })
	}
	wg.Wait()
	for i, c := range out {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if b.plan == nil || c.plan != b.plan {
			t.Fatalf("result %d: plan %p, its source's %p", i, c.plan, b.plan)
		}
		want := b.Clone()
		want.plan = nil
		if err := want.Update(moved[i]); err != nil {
			t.Fatal(err)
		}
		if !sameBytes(c.nodes, want.nodes) || !sameBytes(c.wide, want.wide) || !sameBytes(c.rows, want.rows) {
			t.Errorf("result %d differs from an update in place of a copy", i)
		}
	}
}
