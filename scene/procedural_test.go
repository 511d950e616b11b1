package scene

import (
	"fmt"
	"testing"
)

func TestBenchmarkScenes(t *testing.T) {
	gens := []struct {
		name string
		f    func(int, uint64) *Scene
	}{
		{"Terrain", Terrain},
		{"RandomTriangles", RandomTriangles},
		{"SphereField", SphereField},
	}
	for _, g := range gens {
		for _, n := range []int{1_000, 50_000, 200_000} {
			t.Run(fmt.Sprintf("%s/%d", g.name, n), func(t *testing.T) {
				s := g.f(n, 1)
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
				got := s.Stats().InstancedTriangles
				if got < n*85/100 || got > n*115/100 {
					t.Fatalf("%d triangles, want about %d", got, n)
				}
				if s.Camera == nil {
					t.Fatal("no camera")
				}
				again, other := g.f(n, 1), g.f(n, 2)
				if !sameGeometry(s, again) {
					t.Fatal("same seed gave a different scene")
				}
				if sameGeometry(s, other) {
					t.Fatal("different seeds gave the same scene")
				}
			})
		}
	}
}

func sameGeometry(a, b *Scene) bool {
	if len(a.Meshes) != len(b.Meshes) || len(a.Instances) != len(b.Instances) {
		return false
	}
	for i := range a.Instances {
		if a.Instances[i] != b.Instances[i] {
			return false
		}
	}
	for i := range a.Meshes {
		pa, pb := a.Meshes[i].Primitives, b.Meshes[i].Primitives
		if len(pa) != len(pb) {
			return false
		}
		for j := range pa {
			if len(pa[j].Positions) != len(pb[j].Positions) {
				return false
			}
			for k := range pa[j].Positions {
				if pa[j].Positions[k] != pb[j].Positions[k] {
					return false
				}
			}
		}
	}
	return true
}

func TestManyMaterials(t *testing.T) {
	s := ManyMaterials(5, 3)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Materials != 5 || st.Textures != 5 || st.Meshes != 6 {
		t.Fatalf("stats %+v", st)
	}
	for i, tex := range s.Textures {
		if tex.Width != ManyMaterialsTextureSize || tex.Height != ManyMaterialsTextureSize {
			t.Fatalf("texture %d is %dx%d", i, tex.Width, tex.Height)
		}
		for j := 0; j < i; j++ {
			if tex.At(17, 33) == s.Textures[j].At(17, 33) && tex.At(300, 200) == s.Textures[j].At(300, 200) {
				t.Errorf("textures %d and %d look the same", i, j)
			}
		}
	}
	// Every mesh but the ground uses one material only.
	for mi, m := range s.Meshes[:5] {
		for _, p := range m.Primitives {
			if p.Material != mi {
				t.Fatalf("mesh %d uses material %d", mi, p.Material)
			}
		}
	}
}

func TestDefault(t *testing.T) {
	s := Default()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.InstancedTriangles >= 50_000 || st.Materials < 8 || st.Spheres == 0 || s.Camera == nil {
		t.Fatalf("stats %+v", st)
	}
	kinds := map[MaterialKind]bool{}
	var mask bool
	for _, m := range s.Materials {
		kinds[m.Kind] = true
		if m.AlphaMode == Mask && m.BaseColorTexture >= 0 {
			tex := s.Textures[m.BaseColorTexture]
			var holes, solid int
			for i := 3; i < len(tex.Pix); i += 4 {
				if tex.Pix[i] < m.AlphaCutoff {
					holes++
				} else {
					solid++
				}
			}
			mask = holes > 0 && solid > 0
		}
	}
	if len(kinds) != 4 {
		t.Errorf("material kinds %v, want all four", kinds)
	}
	if !mask {
		t.Error("no alpha-masked material with holes in its texture")
	}
	perMesh := map[int]int{}
	var mirrored bool
	for _, in := range s.Instances {
		perMesh[in.Mesh]++
		mirrored = mirrored || in.Transform.Det() < 0
	}
	var shared bool
	for _, n := range perMesh {
		shared = shared || n >= 3
	}
	if !shared || !mirrored {
		t.Errorf("want a mesh instanced 3+ times (%v) and a mirrored instance (%v)", shared, mirrored)
	}
	lo, hi := s.Bounds()
	cam := s.Camera
	if cam.Target.Min(lo) != lo || cam.Target.Max(hi) != hi {
		t.Errorf("camera target %v outside the scene %v..%v", cam.Target, lo, hi)
	}
}

// The 2M-triangle sizes are measured here rather than in unit tests.
func BenchmarkGenerate2M(b *testing.B) {
	for _, g := range []struct {
		name string
		f    func(int, uint64) *Scene
	}{{"Terrain", Terrain}, {"RandomTriangles", RandomTriangles}, {"SphereField", SphereField}} {
		b.Run(g.name, func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				g.f(2_000_000, 1)
			}
			b.ReportMetric(2*float64(b.N)/b.Elapsed().Seconds(), "Mtris/s")
		})
	}
}

func BenchmarkDefault(b *testing.B) {
	b.ResetTimer()
	for range b.N {
		Default()
	}
}
