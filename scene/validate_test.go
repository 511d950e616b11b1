package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

func tinyScene() *Scene {
	s := &Scene{Name: "tiny"}
	m := s.addMaterial(DefaultMaterial())
	s.addMesh(Mesh{Name: "tri", Primitives: []Primitive{{
		Positions: []vec.Vec3{{X: 0}, {X: 1}, {Y: 1}},
		Indices:   []uint32{0, 1, 2},
		Material:  m,
	}}})
	return s
}

func TestValidate(t *testing.T) {
	inf := float32(math.Inf(1))
	tests := []struct {
		name string
		f    func(s *Scene)
		want string
	}{
		{"ok", func(s *Scene) {}, ""},
		{"index", func(s *Scene) { s.Meshes[0].Primitives[0].Indices[2] = 3 }, `mesh 0 ("tri") primitive 0: Indices[2] = 3 out of range (3 positions)`},
		{"index count", func(s *Scene) { s.Meshes[0].Primitives[0].Indices = []uint32{0, 1} }, "not a multiple of 3"},
		{"normals", func(s *Scene) { s.Meshes[0].Primitives[0].Normals = make([]vec.Vec3, 2) }, "Normals length 2, want 3"},
		{"uvs", func(s *Scene) { s.Meshes[0].Primitives[0].UVs = make([][2]float32, 4) }, "UVs length 4"},
		{"material", func(s *Scene) { s.Meshes[0].Primitives[0].Material = 1 }, "Material 1 out of range (1 materials)"},
		{"position", func(s *Scene) { s.Meshes[0].Primitives[0].Positions[1].Y = inf }, "Positions[1]"},
		{"instance mesh", func(s *Scene) { s.Instances[0].Mesh = 2 }, `instance 0 ("tri"): Mesh 2 out of range`},
		{"transform", func(s *Scene) { s.Instances[0].Transform[1][3] = inf }, "Transform not finite"},
		{"texture index", func(s *Scene) { s.Materials[0].BaseColorTexture = 0 }, "BaseColorTexture 0 out of range (0 textures)"},
		{"texture size", func(s *Scene) { s.Textures = []*Texture{{Width: 2, Height: 2}} }, "texture 0"},
		{"sphere radius", func(s *Scene) { s.Spheres = []Sphere{{Radius: 0}} }, "sphere 0"},
		{"sphere material", func(s *Scene) { s.Spheres = []Sphere{{Radius: 1, Material: 5}} }, "sphere 0: Material 5"},
		{"camera fov", func(s *Scene) { s.Camera = &Camera{Position: vec.V3(0, 0, 1), VFOV: 4} }, "VFOV"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tinyScene()
			tc.f(s)
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "scene: ") {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestBoundsAndStats(t *testing.T) {
	s := tinyScene()
	s.Instances = append(s.Instances, Instance{Mesh: 0, Transform: vec.Translate3x4(vec.V3(0, 0, 5)).Mul(vec.Scale3x4(vec.V3(-2, 1, 1)))})
	s.Spheres = []Sphere{{Center: vec.V3(0, -3, 0), Radius: 1, Material: -1}}
	lo, hi := s.Bounds()
	if lo != vec.V3(-2, -4, -1) || hi != vec.V3(1, 1, 5) {
		t.Fatalf("bounds %v %v", lo, hi)
	}
	want := Stats{Meshes: 1, Primitives: 1, Triangles: 1, Instances: 2, InstancedTriangles: 2, Materials: 1, Spheres: 1}
	if st := s.Stats(); st != want {
		t.Fatalf("stats %+v", st)
	}
	if lo, hi := (&Scene{}).Bounds(); lo != (vec.Vec3{}) || hi != (vec.Vec3{}) {
		t.Fatalf("empty bounds %v %v", lo, hi)
	}
	cam := s.CameraOrAuto()
	if err := (&Scene{Camera: &cam}).Validate(); err != nil {
		t.Fatal(err)
	}
	if d := cam.Position.Sub(cam.Target).Len(); d < 3 {
		t.Errorf("auto camera only %g from the center", d)
	}
	if c := AutoCamera(vec.Vec3{}, vec.Vec3{}); c.Position == c.Target {
		t.Error("degenerate bounds gave a degenerate camera")
	}
}
