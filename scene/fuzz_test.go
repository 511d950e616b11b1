package scene

import (
	"bytes"
	"os"
	"testing"
	"testing/fstest"
)

// A loader must never panic, and whatever it accepts must validate.

func FuzzLoadOBJ(f *testing.F) {
	for _, name := range []string{"testdata/quads.obj"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf -3/1/1 -2/1/1 -1/1/1\n"))
	mtl, err := os.ReadFile("testdata/quads.mtl")
	if err != nil {
		f.Fatal(err)
	}
	png, err := os.ReadFile("testdata/tex.png")
	if err != nil {
		f.Fatal(err)
	}
	fsys := fstest.MapFS{"quads.mtl": {Data: mtl}, "tex.png": {Data: png}}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadOBJ(bytes.NewReader(data), "fuzz.obj", fsys)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("loaded scene does not validate: %v", err)
		}
		checkFlattens(t, s)
	})
}

func FuzzLoadGLB(f *testing.F) {
	for _, name := range []string{"testdata/nodes.glb", "testdata/nodes.gltf"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := LoadGLTF(bytes.NewReader(data), "fuzz.glb", nil)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("loaded scene does not validate: %v", err)
		}
		checkFlattens(t, s)
	})
}

// checkFlattens checks that a loaded scene flattens (Scene.Flatten) to its
// instanced triangles, every index within the positions, unless it has
// none.
func checkFlattens(t *testing.T, s *Scene) {
	pos, idx, err := s.Flatten()
	want := s.Stats().InstancedTriangles
	if err != nil {
		if want != 0 {
			t.Fatalf("a scene of %d instanced triangles does not flatten: %v", want, err)
		}
		return
	}
	if len(idx) != 3*want {
		t.Fatalf("flattened to %d triangles, want %d", len(idx)/3, want)
	}
	for _, k := range idx {
		if int(k) >= len(pos) {
			t.Fatalf("index %d of %d positions", k, len(pos))
		}
	}
}
