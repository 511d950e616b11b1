//go:build embree

package main

import (
	"strings"
	"testing"

	rpscene "github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// TestLoadSceneMeshPlacesEveryInstance loads a glTF file whose one mesh
// two nodes place, and checks the flattened list against the scene:
// every instance's triangles, each vertex at its instance's
// TransformPoint.
func TestLoadSceneMeshPlacesEveryInstance(t *testing.T) {
	const path = "../../scene/testdata/nodes.glb"
	sc, err := rpscene.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	pos, idx, err := loadSceneMesh(path)
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

// TestFlattenErrors checks that a scene with no triangles, an instance
// of a missing mesh or an index past its primitive's vertices is an
// error that says what and where, and that -mesh reports a file that
// does not load.
func TestFlattenErrors(t *testing.T) {
	tri := rpscene.Primitive{Positions: []vec.Vec3{{}, {X: 1}, {Y: 1}}, Indices: []uint32{0, 1, 2}}
	bad := tri
	bad.Indices = []uint32{0, 1, 3}
	for _, c := range []struct {
		sc   rpscene.Scene
		want string
	}{
		{rpscene.Scene{}, "no triangles"},
		{rpscene.Scene{Meshes: []rpscene.Mesh{{Primitives: []rpscene.Primitive{tri}}}, Instances: []rpscene.Instance{{Name: "a", Mesh: 1}}}, `instance 0 ("a"): mesh 1 out of range`},
		{rpscene.Scene{Meshes: []rpscene.Mesh{{Primitives: []rpscene.Primitive{bad}}}, Instances: []rpscene.Instance{{Name: "b", Transform: vec.Identity3x4}}}, `instance 0 ("b"): index 3 out of range`},
	} {
		if _, _, err := flatten(&c.sc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	defer func(s, m string) { *flagSizes, *flagMesh = s, m }(*flagSizes, *flagMesh)
	*flagSizes, *flagMesh = "", "no/such/file.glb"
	if err := run(); err == nil || !strings.Contains(err.Error(), "no/such/file.glb") {
		t.Errorf("-mesh no/such/file.glb: error %v, want one naming it", err)
	}
}
