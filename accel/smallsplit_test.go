package accel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// A top level's nodes of at most smallSplit instances are cut in the two
// groups of least SAH cost over every way to cut them (buildSmall): on
// random boxes, each such node's cost (its children's areas times their
// counts, summed) equals the least over all two-group partitions of its
// instances, found here by assigning each instance to a side in turn. The
// tree holds each instance in one leaf of its own, and every node's box
// is the union of its children's.
func TestTopLevelSmallNodesTakeTheCheapestCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	p := paramsFor(0)
	p.maxLeaf = 1
	checked := 0
	for trial := range 300 {
		n := 2 + trial%7 // nodes of 2..8: the small ones below others
		refs := make([]primRef, n)
		for i := range refs {
			c, h := randVec(rng, 4), randVec(rng, 1)
			h = vec.V3(abs32(h.X)+0.01, abs32(h.Y)+0.01, abs32(h.Z)+0.01)
			refs[i] = primRef{box: AABB{c.Sub(h), c.Add(h)}, id: uint32(i)}
		}
		nodes, order := buildBVH(slices.Clone(refs), p)
		seen := make([]int, n)
		var walk func(i uint32) (ids []uint32, box AABB)
		walk = func(i uint32) ([]uint32, AABB) {
			nd := &nodes[i]
			if nd.count > 0 {
				if nd.count != 1 {
					t.Fatalf("trial %d: leaf %d holds %d instances", trial, i, nd.count)
				}
				id := order[nd.first]
				seen[id]++
				if nd.bounds != refs[id].box {
					t.Fatalf("trial %d: leaf %d box %v, instance %d's %v", trial, i, nd.bounds, id, refs[id].box)
				}
				return []uint32{id}, nd.bounds
			}
			l, lb := walk(nd.first)
			r, rb := walk(nd.first + 1)
			if u := lb.Union(rb); nd.bounds != u {
				t.Fatalf("trial %d: node %d box %v, its children's union %v", trial, i, nd.bounds, u)
			}
			ids := append(slices.Clone(l), r...)
			if len(ids) <= smallSplit {
				checked++
				got := cutCost(refs, l) + cutCost(refs, r)
				if want := cheapestCut(refs, ids); got != want {
					t.Fatalf("trial %d: node %d of %d instances cut at cost %g, the cheapest is %g", trial, i, len(ids), got, want)
				}
			}
			return ids, nd.bounds
		}
		walk(0)
		for id, k := range seen {
			if k != 1 {
				t.Fatalf("trial %d: instance %d in %d leaves", trial, id, k)
			}
		}
	}
	if checked < 300 {
		t.Fatalf("%d nodes of at most smallSplit (%d) instances checked", checked, smallSplit)
	}
}

// cutCost is one group's share of a cut's SAH cost: the area of its
// instances' box (as the builder computes areas) times their count.
func cutCost(refs []primRef, ids []uint32) float32 {
	b := emptyBinBox()
	for _, id := range ids {
		a := &refs[id].box
		b.addv(a.Min.X, a.Min.Y, a.Min.Z, -a.Max.X, -a.Max.Y, -a.Max.Z)
	}
	return b.area() * float32(len(ids))
}

// cheapestCut returns the least cost of cutting ids in two non-empty
// groups, trying every assignment of each instance to a side.
func cheapestCut(refs []primRef, ids []uint32) float32 {
	best := float32(math.Inf(1))
	var assign func(k int, l, r []uint32)
	assign = func(k int, l, r []uint32) {
		if k == len(ids) {
			if len(l) > 0 && len(r) > 0 {
				best = min(best, cutCost(refs, l)+cutCost(refs, r))
			}
			return
		}
		assign(k+1, append(slices.Clone(l), ids[k]), r)
		assign(k+1, l, append(slices.Clone(r), ids[k]))
	}
	assign(0, nil, nil)
	return best
}

// Cuts whose cost is not a number (boxes so large that an area overflows,
// times a zero extent) or ties everywhere (identical or flat boxes) still
// give a tree with every instance in one leaf of its own, every node's box
// the union of its children's.
func TestTopLevelSmallNodesDegenerateBoxes(t *testing.T) {
	huge := float32(3e38) // 2*huge overflows: an extent of +Inf, times a flat one NaN
	sets := map[string][]AABB{
		"identical": {{vec.V3(1, 1, 1), vec.V3(2, 2, 2)}, {vec.V3(1, 1, 1), vec.V3(2, 2, 2)}, {vec.V3(1, 1, 1), vec.V3(2, 2, 2)}, {vec.V3(1, 1, 1), vec.V3(2, 2, 2)}},
		"points":    {{vec.V3(0, 0, 0), vec.V3(0, 0, 0)}, {vec.V3(1, 0, 0), vec.V3(1, 0, 0)}, {vec.V3(0, 1, 0), vec.V3(0, 1, 0)}},
		"overflow":  {{vec.V3(-huge, 0, -huge), vec.V3(huge, 0, huge)}, {vec.V3(-huge, -huge, 0), vec.V3(huge, huge, 0)}, {vec.V3(0, 0, 0), vec.V3(1, 1, 1)}, {vec.V3(-huge, -huge, -huge), vec.V3(huge, huge, huge)}},
	}
	p := paramsFor(0)
	p.maxLeaf = 1
	for name, boxes := range sets {
		refs := make([]primRef, len(boxes))
		for i, b := range boxes {
			refs[i] = primRef{box: b, id: uint32(i)}
		}
		nodes, order := buildBVH(refs, p)
		if len(nodes) != 2*len(refs)-1 {
			t.Fatalf("%s: %d nodes for %d instances", name, len(nodes), len(refs))
		}
		seen := make([]int, len(refs))
		var walk func(i uint32) AABB
		walk = func(i uint32) AABB {
			nd := &nodes[i]
			if nd.count > 0 {
				id := order[nd.first]
				if nd.count != 1 || nd.bounds != boxes[id] {
					t.Fatalf("%s: leaf %d: %d instances, box %v", name, i, nd.count, nd.bounds)
				}
				seen[id]++
				return nd.bounds
			}
			if u := walk(nd.first).Union(walk(nd.first + 1)); u != nd.bounds {
				t.Fatalf("%s: node %d box %v, its children's union %v", name, i, nd.bounds, u)
			}
			return nd.bounds
		}
		walk(0)
		for id, k := range seen {
			if k != 1 {
				t.Fatalf("%s: instance %d in %d leaves", name, id, k)
			}
		}
	}
}
