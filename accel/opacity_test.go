package accel

import (
	"testing"

	"github.com/raypipe/raypipe/vec"
)

func TestOpaqueTrianglesOnlyFollowsGeometryInstanceFlagsAndUpdates(t *testing.T) {
	tri := []vec.Vec3{{X: 0, Y: 0, Z: 1}, {X: 1, Y: 0, Z: 1}, {X: 0, Y: 1, Z: 1}}
	opaque, _ := BuildBLAS([]Geometry{TriangleGeometry(tri, nil)}, 0)
	g := TriangleGeometry(tri, nil)
	g.Flags = 0
	nonOpaque, _ := BuildBLAS([]Geometry{g}, 0)
	boxes, _ := BuildBLAS([]Geometry{AABBGeometry([]AABB{{Max: vec.V3(1, 1, 1)}})}, 0)
	inst := func(b *BLAS, f InstanceFlags) Instance {
		return Instance{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b, Flags: f}
	}
	cases := []struct {
		insts []Instance
		want  bool
	}{
		{[]Instance{inst(opaque, 0)}, true},
		{[]Instance{inst(opaque, 0), inst(nonOpaque, 0)}, false},
		{[]Instance{inst(opaque, 0), inst(nonOpaque, InstanceForceOpaque)}, true},
		{[]Instance{inst(opaque, InstanceForceNonOpaque)}, false},
		{[]Instance{inst(opaque, 0), inst(boxes, 0)}, false},
		{[]Instance{inst(opaque, 0), {Transform: vec.Identity3x4, InstanceMask: 0, BLAS: nonOpaque}}, true}, // mask 0: inactive
	}
	for i, c := range cases {
		tl, err := BuildTLAS(c.insts, BuildAllowUpdate)
		if err != nil {
			t.Fatal(err)
		}
		if got := tl.OpaqueTrianglesOnly(); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
	tl, _ := BuildTLAS([]Instance{inst(opaque, 0)}, BuildAllowUpdate)
	if err := tl.Update([]Instance{inst(opaque, InstanceForceNonOpaque)}); err != nil || tl.OpaqueTrianglesOnly() {
		t.Fatalf("after an update to FORCE_NON_OPAQUE: %v %v", err, tl.OpaqueTrianglesOnly())
	}
}
