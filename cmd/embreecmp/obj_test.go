//go:build embree

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

func TestReadOBJ(t *testing.T) {
	src := `# a quad and a triangle
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vn 0 0 1
f 1/1/1 2/2/1 3/3/1 4/4/1
f -4//1 -2//1 -1//1
o ignored
`
	pos, idx, err := readOBJ(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 4 || pos[2] != vec.V3(1, 1, 0) {
		t.Errorf("positions %v", pos)
	}
	if want := []uint32{0, 1, 2, 0, 2, 3, 0, 2, 3}; !slices.Equal(idx, want) {
		t.Errorf("indices %v, want %v", idx, want)
	}
	for _, bad := range []string{"v 1 2\n", "v 0 0 0\nf 1 2 3\n", "v 0 0 0\nf a b c\n", "v nan 0 0\n", "v 0 -inf 0\n", "v 0 0 1e39\n"} {
		if _, _, err := readOBJ(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int{"10000": 10000, "10k": 10000, "1.5m": 1500000, "2M": 2000000} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", s, got, err)
		}
	}
	if _, err := parseSize("x"); err == nil {
		t.Error("bad size accepted")
	}
}

// A file whose mesh has no triangle (points, lines) is refused with an
// error that names it, before anything is built or a ray is made from it.
func TestLoadFileMeshRefusesNoTriangles(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"points.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\np 1 2 3\n",
		"lines.obj":  "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\n",
		"empty.obj":  "",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loadFileMesh(path, loadOBJ)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "no triangles") {
			t.Errorf("%s: error %v, want one naming the file and its lack of triangles", name, err)
		}
	}
	path := filepath.Join(dir, "tri.obj")
	if err := os.WriteFile(path, []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := loadFileMesh(path, loadOBJ); err != nil || len(m.indices) != 3 || m.name != "tri.obj" {
		t.Errorf("one triangle: %+v, %v", m, err)
	}
}

// readOBJ never panics, and what it accepts is a triangle list of finite
// vertices whose indices are all in range.
func FuzzReadOBJ(f *testing.F) {
	f.Add("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1/1 2/2/1 3/3/1 4/4/1\nf -4//1 -2//1 -1//1\n")
	f.Add("v 1 2\n")
	f.Add("v nan 0 0\nf 1 1 1\n")
	f.Add("v 0 0 0\nf 1 -1 0\n")
	f.Fuzz(func(t *testing.T, src string) {
		pos, idx, err := readOBJ(strings.NewReader(src))
		if err != nil {
			return
		}
		if len(idx)%3 != 0 {
			t.Fatalf("%d indices: not a triangle list", len(idx))
		}
		for _, i := range idx {
			if int(i) >= len(pos) {
				t.Fatalf("index %d of %d vertices", i, len(pos))
			}
		}
		for _, p := range pos {
			for _, x := range []float32{p.X, p.Y, p.Z} {
				if x != x || x-x != 0 {
					t.Fatalf("vertex %v not finite", p)
				}
			}
		}
	})
}
