package accel

import (
	"math"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// Forty separated unit triangles in a fast-trace BLAS: every primitive is
// in a leaf, nodes = 2*leaves-1, and the SAH cost is at least the
// primitives' share of the root's area.
func TestTreeStatsCountsTheTree(t *testing.T) {
	var pos []vec.Vec3
	for i := 0; i < 40; i++ {
		o := vec.V3(float32(i*3), 0, 0)
		pos = append(pos, o, o.Add(vec.V3(1, 0, 0)), o.Add(vec.V3(0, 1, 0)))
	}
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, nil)}, BuildPreferFastTrace)
	if err != nil {
		t.Fatal(err)
	}
	s := b.TreeStats()
	if s.Primitives != 40 || s.Nodes != 2*s.Leaves-1 || s.Leaves*maxLeafCount < s.Primitives || s.MaxDepth < 3 || s.WideNodes == 0 || s.SAHCost <= 1 {
		t.Fatalf("stats %+v", s)
	}
	empty, _ := BuildBLAS(nil, 0)
	if s := empty.TreeStats(); s.Nodes != 0 || s.Primitives != 0 {
		t.Fatalf("empty BLAS stats %+v", s)
	}
}

// The wide tree's areas as Embree's statistics count them, on trees whose
// areas follow from the geometry: one leaf (its box is the root's), and
// two clusters of eight copies of a triangle, 10 apart along x, which the
// builder can only split into a leaf each (unit cubes, half area 3, under
// a root box of 11x1x1, half area 23), both in the root's wide node.
func TestTreeStatsWideAreasAsEmbreeCountsThem(t *testing.T) {
	tri := []vec.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 1}}
	cluster := func(x float32, n int) (pos []vec.Vec3) {
		for range n {
			for _, v := range tri {
				pos = append(pos, v.Add(vec.V3(x, 0, 0)))
			}
		}
		return pos
	}
	for _, c := range []struct {
		name           string
		pos            []vec.Vec3
		nodes, leaves  float64
		wantWideNodes  int
		wantLeafsCount int
	}{
		{"one leaf", cluster(0, 3), 1, 1, 1, 1},
		{"two clusters", append(cluster(0, 8), cluster(10, 8)...), 1, 6.0 / 23, 1, 2},
	} {
		b := mustBLAS(t, []Geometry{TriangleGeometry(c.pos, nil)}, BuildPreferFastTrace)
		s := b.TreeStats()
		if s.WideNodes != c.wantWideNodes || s.Leaves != c.wantLeafsCount || math.Abs(s.WideNodeArea-c.nodes) > 1e-12 || math.Abs(s.LeafArea-c.leaves) > 1e-12 {
			t.Errorf("%s: %d wide nodes, %d leaves, areas %v and %v; want %d, %d, %v and %v", c.name, s.WideNodes, s.Leaves, s.WideNodeArea, s.LeafArea, c.wantWideNodes, c.wantLeafsCount, c.nodes, c.leaves)
		}
	}
}

// On larger trees the leaf area is the binary tree's leaves' (widen keeps
// them as they are) and the node area the wide tree's own measure
// (wideArea), both relative to the root's area; a TLAS is measured too.
func TestTreeStatsWideAreasOfLargerTrees(t *testing.T) {
	for _, n := range []int{1000, 20000} {
		b := mustBLAS(t, []Geometry{benchScene("soup", n)}, 0)
		s := b.TreeStats()
		root := halfArea64(&b.nodes[0].bounds)
		var leaves float64
		for i := range b.nodes {
			if b.nodes[i].isLeaf() {
				leaves += halfArea64(&b.nodes[i].bounds)
			}
		}
		wantNodes := wideArea(b.wide, b.nodes[0].bounds) / root
		if rel(s.LeafArea, leaves/root) > 1e-9 || rel(s.WideNodeArea, wantNodes) > 1e-9 || s.WideNodeArea < 1 {
			t.Errorf("soup %d: areas %v and %v, want %v and %v", n, s.WideNodeArea, s.LeafArea, wantNodes, leaves/root)
		}
		tl := mustTLAS(t, benchInstances(b, 64), 0)
		ts := tl.TreeStats()
		if ts.WideNodeArea < 1 || ts.LeafArea <= 0 {
			t.Errorf("TLAS over soup %d: areas %v and %v", n, ts.WideNodeArea, ts.LeafArea)
		}
	}
	empty, _ := BuildBLAS(nil, 0)
	if s := empty.TreeStats(); s.WideNodeArea != 0 || s.LeafArea != 0 {
		t.Errorf("empty BLAS: areas %v and %v", s.WideNodeArea, s.LeafArea)
	}
}

func rel(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }
