package scene

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadOBJQuads(t *testing.T) {
	s, err := Load("testdata/quads.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	want := Stats{Meshes: 1, Primitives: 5, Triangles: 16, Instances: 1, InstancedTriangles: 16, Materials: 5, Textures: 1}
	if st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], `"undefined"`) {
		t.Errorf("warnings %q, want one about the undefined material", s.Warnings)
	}
	// Primitives come in order of first use: red, mirror, glass, lamp, undefined.
	kinds := []MaterialKind{Diffuse, Metal, Dielectric, Emissive, Diffuse}
	names := []string{"red", "mirror", "glass", "lamp", "undefined"}
	for i, p := range s.Meshes[0].Primitives {
		m := s.MaterialOf(p.Material)
		if m.Name != names[i] || m.Kind != kinds[i] {
			t.Errorf("primitive %d: material %q kind %v, want %q %v", i, m.Name, m.Kind, names[i], kinds[i])
		}
	}
	red := s.MaterialOf(s.Meshes[0].Primitives[0].Material)
	if red.BaseColorTexture != 0 || red.BaseColor != [4]float32{0.8, 0.1, 0.1, 1} {
		t.Errorf("red: %+v", red)
	}
	mirror := s.MaterialOf(s.Meshes[0].Primitives[1].Material)
	if mirror.BaseColor[0] != 0.9 || mirror.Roughness > 0.05 {
		t.Errorf("mirror takes its tint from Ks and is smooth: %+v", mirror)
	}
	if g := s.MaterialOf(s.Meshes[0].Primitives[2].Material); g.IOR != 1.45 {
		t.Errorf("glass IOR %g, want 1.45", g.IOR)
	}
	if l := s.MaterialOf(s.Meshes[0].Primitives[3].Material); l.Emissive != [3]float32{4, 4, 3} {
		t.Errorf("lamp emissive %v", l.Emissive)
	}
	// Red: 4 quads -> 8 triangles; the second quad used negative indices
	// -4..-1, that is vertices 5..8, all at z = 1.
	red0 := s.Meshes[0].Primitives[0]
	if red0.Triangles() != 8 || red0.UVs == nil || red0.Normals == nil {
		t.Fatalf("red primitive: %d triangles, uvs %v normals %v", red0.Triangles(), red0.UVs != nil, red0.Normals != nil)
	}
	for _, i := range red0.Indices[6:12] {
		if red0.Positions[i].Z != 1 {
			t.Errorf("negative index resolved to %v, want z = 1", red0.Positions[i])
		}
	}
	// The first quad is fan-triangulated: (0,1,2) (0,2,3) of 1 4 3 2.
	if got := red0.Positions[red0.Indices[4]]; got.X != 1 || got.Y != 1 {
		t.Errorf("fan triangulation: corner %v, want (1,1,0)", got)
	}
	// OBJ's vt v axis is flipped to ours: vt 0 1 becomes (0, 0).
	if uv := red0.UVs[red0.Indices[1]]; uv != [2]float32{0, 0} {
		t.Errorf("uv %v, want flipped to (0,0)", uv)
	}
	tex := s.Textures[0]
	if tex.Width != 2 || tex.Height != 2 {
		t.Fatalf("texture %dx%d", tex.Width, tex.Height)
	}
	if c := tex.At(0, 0); c != [4]float32{1, 1, 1, 1} {
		t.Errorf("white texel %v", c)
	}
	if c := tex.At(0, 1); c[0] < 0.21 || c[0] > 0.22 || c[3] != 1 {
		t.Errorf("sRGB 128 gray decoded to %v, want linear 0.216", c)
	}
	if c := tex.At(1, 1); c[3] != 0 {
		t.Errorf("transparent texel alpha %v", c[3])
	}
}

func TestLoadOBJWithoutFS(t *testing.T) {
	f, err := os.Open("testdata/quads.obj")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := LoadOBJ(f, "quads.obj", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(s.Textures) != 0 || len(s.Materials) != 5 || len(s.Warnings) == 0 {
		t.Errorf("without fsys: %d textures, %d materials, warnings %q", len(s.Textures), len(s.Materials), s.Warnings)
	}
}

func TestOBJErrors(t *testing.T) {
	cube := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
	tests := []struct {
		name, src string
		line      int
		want      string
	}{
		{"index too big", cube + "f 1 2 9\n", 9, "face vertex index 9 out of range (8 vertices)"},
		{"index zero", cube + "f 0 1 2\n", 9, "face vertex index 0 out of range"},
		{"negative too far", cube + "f -9 1 2\n", 9, "face vertex index -9 out of range"},
		{"texcoord", cube + "vt 0 0\nf 1/2 2/1 3/1\n", 10, "face texture coordinate index 2 out of range (1 texture coordinates)"},
		{"normal", cube + "f 1//1 2//1 3//1\n", 9, "face normal index 1 out of range (0 normals)"},
		{"two corners", cube + "f 1 2\n", 9, "face with 2 vertices"},
		{"short vertex", "v 1 2\n", 1, "v: 2 values, want at least 3"},
		{"bad number", "# c\nv 1 x 3\n", 2, `v: bad number "x"`},
		{"nan", "v nan 0 0\n", 1, "bad number"},
		{"bad index", cube + "f 1 2 three\n", 9, `bad face vertex index "three"`},
		{"missing vertex index", cube + "f /1 2 3\n", 9, "face corner without a vertex index"},
		{"long line", "v " + strings.Repeat("1", maxOBJLine+10) + "\n", 1, "line longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadOBJ(strings.NewReader(tc.src), "box.obj", nil)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LoadError", err)
			}
			if le.File != "box.obj" || le.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %q (line %d), want line %d and %q", err, le.Line, tc.line, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "scene: box.obj:") {
				t.Fatalf("err = %q lacks the scene: file:line: prefix", err)
			}
		})
	}
}

func TestOBJTolerated(t *testing.T) {
	tests := []struct {
		name, src string
		tris      int
	}{
		{"empty", "", 0},
		{"comments and unknown", "# hi\nfoo bar\ns off\ng g1\no o1\nl 1 2\n", 0},
		{"pentagon", "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nf 1 2 3 4 5\n", 3},
		{"extra vertex colors", "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nf 1 2 3\n", 1},
		{"crlf", "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n", 1},
		{"mtllib missing", "mtllib nope.mtl\nusemtl x\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 1},
		{"utf16le", "\xff\xfev\x00 \x000\x00 \x000\x00 \x000\x00\n\x00", 0},
	}
	fsys := fstest.MapFS{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadOBJ(strings.NewReader(tc.src), tc.name+".obj", fsys)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := s.Stats().Triangles; got != tc.tris {
				t.Fatalf("%d triangles, want %d", got, tc.tris)
			}
		})
	}
}

func TestMTLMapOptions(t *testing.T) {
	tests := []struct{ args, want string }{
		{"tex.png", "tex.png"},
		{"-s 1 1 1 tex.png", "tex.png"},
		{"-s 2 tex.png", "tex.png"},
		{"-clamp on -bm 0.5 my tex.png", "my tex.png"},
	}
	for _, tc := range tests {
		if got := mapFilename(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("mapFilename(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
