package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/raypipe/raypipe/vec"
)

func near(a, b vec.Vec3) bool { return a.Sub(b).Len() < 1e-5 }

func TestLoadGLTFNodes(t *testing.T) {
	for _, file := range []string{"testdata/nodes.gltf", "testdata/nodes.glb"} {
		t.Run(file, func(t *testing.T) {
			s, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			want := Stats{Meshes: 1, Primitives: 1, Triangles: 1, Instances: 2, InstancedTriangles: 2, Materials: 1}
			if st := s.Stats(); st != want {
				t.Fatalf("stats %+v, want %+v", st, want)
			}
			if s.Name != "nodes" {
				t.Errorf("name %q", s.Name)
			}
			// parent T(1,2,3)·S(2) over child R_z(90°): x -> y -> 2y -> +(1,2,3).
			child := s.Instances[0]
			if child.Name != "child" || !near(child.Transform.TransformPoint(vec.V3(1, 0, 0)), vec.V3(1, 4, 3)) {
				t.Errorf("child %q maps (1,0,0) to %v, want (1,4,3)", child.Name, child.Transform.TransformPoint(vec.V3(1, 0, 0)))
			}
			if d := child.Transform.Det(); math.Abs(float64(d)-8) > 1e-4 {
				t.Errorf("child det %g, want 8", d)
			}
			// A column-major matrix with translation (5,0,0).
			if m := s.Instances[1]; !near(m.Transform.TransformPoint(vec.V3(1, 0, 0)), vec.V3(6, 0, 0)) {
				t.Errorf("matrix node maps (1,0,0) to %v", m.Transform.TransformPoint(vec.V3(1, 0, 0)))
			}
			c := s.Camera
			if c == nil || !near(c.Position, vec.V3(0, 0, 10)) || !near(c.Target, vec.V3(0, 0, 9)) || !near(c.Up, vec.V3(0, 1, 0)) || c.VFOV != 0.8 || c.Aspect != 1.5 {
				t.Errorf("camera %+v", c)
			}
			m := s.Materials[0]
			if m.Kind != Emissive || m.Emissive != [3]float32{1, 0.5, 0} || m.BaseColor != [4]float32{0.5, 0.25, 1, 1} || m.AlphaCutoff != 0.5 {
				t.Errorf("material %+v", m)
			}
			p := s.Meshes[0].Primitives[0]
			if p.Normals != nil || len(p.UVs) != 3 || p.UVs[1] != [2]float32{1, 0} || p.Material != 0 {
				t.Errorf("primitive %+v", p)
			}
		})
	}
}

// mutate loads testdata/nodes.gltf as generic JSON, applies f and
// returns the re-encoded document.
func mutate(t *testing.T, f func(doc map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/nodes.gltf")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func at(doc map[string]any, key string, i int) map[string]any {
	return doc[key].([]any)[i].(map[string]any)
}

// hugeCount is the message for an accessor count past 2^31: want where
// int has 64 bits; where it has 32, the JSON decoder already refuses the
// count (the error names the field).
func hugeCount(want string) string {
	if math.MaxInt > math.MaxUint32 {
		return want
	}
	return "accessors.count"
}

func TestGLTFErrors(t *testing.T) {
	tests := []struct {
		name string
		f    func(doc map[string]any)
		want string
	}{
		{"huge accessor count", func(d map[string]any) { at(d, "accessors", 0)["count"] = float64(1 << 40) }, hugeCount("overrun buffer view 0")},
		{"huge index count", func(d map[string]any) { at(d, "accessors", 1)["count"] = 1e9 }, "overrun"},
		{"unbacked huge count", func(d map[string]any) {
			delete(at(d, "accessors", 0), "bufferView")
			at(d, "accessors", 0)["count"] = 1e12
		}, hugeCount("without a buffer view")},
		{"view past buffer", func(d map[string]any) { at(d, "bufferViews", 0)["byteLength"] = 1e6 }, "buffer view 0"},
		{"bad stride", func(d map[string]any) { at(d, "bufferViews", 0)["byteStride"] = 6 }, "byte stride 6"},
		{"index out of range", func(d map[string]any) { at(d, "accessors", 0)["count"] = 2; at(d, "accessors", 2)["count"] = 2 }, "index 2 = 2 out of range (2 vertices)"},
		{"accessor missing", func(d map[string]any) {
			at(at(d, "meshes", 0), "primitives", 0)["attributes"] = map[string]int{"POSITION": 9}
		}, "POSITION accessor 9 out of range (3 accessors)"},
		{"required extension", func(d map[string]any) { d["extensionsRequired"] = []string{"KHR_draco_mesh_compression"} }, `unsupported required extension "KHR_draco_mesh_compression"`},
		{"mesh out of range", func(d map[string]any) { at(d, "nodes", 1)["mesh"] = 7 }, "mesh 7 out of range"},
		{"cycle", func(d map[string]any) { at(d, "nodes", 1)["children"] = []int{0} }, "reached twice"},
		{"scene out of range", func(d map[string]any) { d["scene"] = 3 }, "scene 3 out of range"},
		{"material out of range", func(d map[string]any) {
			at(at(d, "meshes", 0), "primitives", 0)["material"] = 4
		}, "material 4 out of range"},
		{"not json", func(d map[string]any) { d["asset"] = "x" }, "scene: nodes.gltf: "},
		{"non-finite transform", func(d map[string]any) {
			at(d, "nodes", 0)["scale"] = []float64{1e38, 1e38, 1e38}
			at(d, "nodes", 1)["scale"] = []float64{1e38, 1, 1}
		}, "not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := mutate(t, tc.f)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := LoadGLTF(bytes.NewReader(data), "nodes.gltf", nil)
			runtime.ReadMemStats(&after)
			var le *LoadError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "scene: nodes.gltf: ") {
				t.Fatalf("err = %v, want a LoadError containing %q", err, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("allocated %d bytes before failing", grew)
			}
		})
	}
}

func TestGLTFModes(t *testing.T) {
	tests := []struct {
		mode  int
		count int
		tris  int
		warn  bool
	}{
		{0, 3, 0, true},  // POINTS: skipped
		{1, 2, 0, true},  // LINES: skipped
		{4, 3, 1, false}, // TRIANGLES
		{5, 3, 1, false}, // TRIANGLE_STRIP
		{6, 3, 1, false}, // TRIANGLE_FAN
	}
	for _, tc := range tests {
		data := mutate(t, func(d map[string]any) {
			p := at(at(d, "meshes", 0), "primitives", 0)
			p["mode"] = tc.mode
			delete(p, "indices")
			at(d, "accessors", 0)["count"] = tc.count
			at(d, "accessors", 2)["count"] = tc.count
		})
		s, err := LoadGLTF(bytes.NewReader(data), "modes.gltf", nil)
		if err != nil {
			t.Fatalf("mode %d: %v", tc.mode, err)
		}
		if got := s.Stats().Triangles; got != tc.tris || (len(s.Warnings) > 0) != tc.warn {
			t.Errorf("mode %d: %d triangles, warnings %q", tc.mode, got, s.Warnings)
		}
	}
}

func TestTriangleList(t *testing.T) {
	idx := []uint32{0, 1, 2, 3, 4}
	strip := triangleList(gltf.PrimitiveTriangleStrip, idx)
	if want := []uint32{0, 1, 2, 2, 1, 3, 2, 3, 4}; !equalU32(strip, want) {
		t.Errorf("strip %v, want %v", strip, want)
	}
	fan := triangleList(gltf.PrimitiveTriangleFan, idx)
	if want := []uint32{1, 2, 0, 2, 3, 0, 3, 4, 0}; !equalU32(fan, want) {
		t.Errorf("fan %v, want %v", fan, want)
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLoadUnknownExtension(t *testing.T) {
	_, err := Load("scene.fbx")
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "scene.fbx") {
		t.Fatalf("err = %v", err)
	}
	_, err = Load("testdata/missing.obj")
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}
