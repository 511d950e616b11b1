package scene

import (
	"strings"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// Flatten places every instance: a glTF file whose one mesh two nodes
// place flattens to every instance's triangles, each vertex at its
// instance's TransformPoint.
func TestFlattenPlacesEveryInstance(t *testing.T) {
	sc, err := Load("testdata/nodes.glb")
	if err != nil {
		t.Fatal(err)
	}
	pos, idx, err := sc.Flatten()
	if err != nil {
		t.Fatal(err)
	}
	if st := sc.Stats(); len(idx) != 3*st.InstancedTriangles || st.Instances < 2 {
		t.Fatalf("%d triangles, want %d (instances %d)", len(idx)/3, st.InstancedTriangles, st.Instances)
	}
	k := 0
	for _, in := range sc.Instances {
		for _, p := range sc.Meshes[in.Mesh].Primitives {
			for _, v := range p.Indices {
				if want := in.Transform.TransformPoint(p.Positions[v]); pos[idx[k]] != want {
					t.Errorf("instance %q: vertex %d at %v, want %v", in.Name, k, pos[idx[k]], want)
				}
				k++
			}
		}
	}
}

// A scene with no triangles, an instance of a missing mesh or an index
// past its primitive's vertices does not flatten, and the error says what
// and where.
func TestFlattenErrors(t *testing.T) {
	tri := Primitive{Positions: []vec.Vec3{{}, {X: 1}, {Y: 1}}, Indices: []uint32{0, 1, 2}}
	bad := tri
	bad.Indices = []uint32{0, 1, 3}
	for _, c := range []struct {
		sc   Scene
		want string
	}{
		{Scene{}, "no triangles"},
		{Scene{Meshes: []Mesh{{Primitives: []Primitive{tri}}}, Instances: []Instance{{Name: "a", Mesh: 1}}}, `instance 0 ("a"): mesh 1 out of range`},
		{Scene{Meshes: []Mesh{{Primitives: []Primitive{tri}}}, Instances: []Instance{{Name: "a", Mesh: -1}}}, `instance 0 ("a"): mesh -1 out of range`},
		{Scene{Meshes: []Mesh{{Primitives: []Primitive{bad}}}, Instances: []Instance{{Name: "b", Transform: vec.Identity3x4}}}, `instance 0 ("b"): index 3 out of range`},
	} {
		if _, _, err := c.sc.Flatten(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}
