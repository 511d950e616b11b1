package accel

import (
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
