package render

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata")

func diffuseMat(albedo float32) scene.Material {
	m := scene.DefaultMaterial()
	m.BaseColor = [4]float32{albedo, albedo, albedo, 1}
	return m
}

func lookAt(pos, target vec.Vec3, vfovDeg float64) *scene.Camera {
	return &scene.Camera{Position: pos, Target: target, Up: vec.V3(0, 1, 0), VFOV: float32(vfovDeg * math.Pi / 180)}
}

// A convex diffuse object of albedo a in a uniform environment of
// radiance 1 reflects exactly a: every bounce escapes.
func TestFurnaceConvex(t *testing.T) {
	for _, a := range []float32{0.5, 1} {
		s := &scene.Scene{Materials: []scene.Material{diffuseMat(a)}, Spheres: []scene.Sphere{{Radius: 1}}}
		env := UniformEnvironment(1)
		img, _, err := Render(context.Background(), s, Options{Width: 16, Height: 16, SamplesPerPixel: 4, MaxBounces: 8,
			Camera: lookAt(vec.V3(0, 0, 3), vec.Vec3{}, 60), Environment: &env})
		if err != nil {
			t.Fatal(err)
		}
		// The centre pixel sees the sphere, the corner the sky.
		for _, p := range []struct {
			x, y int
			want float32
		}{{8, 8, a}, {0, 0, 1}} {
			for _, v := range img.At(p.x, p.y) {
				if math.Abs(float64(v-p.want)) > 1e-5 {
					t.Errorf("albedo %v: pixel (%d,%d) = %v, want %v", a, p.x, p.y, img.At(p.x, p.y), p.want)
				}
			}
		}
	}
}

// White objects that see each other (a sphere on a box) in a white
// environment converge to the environment's radiance: no energy is lost or
// made, whatever the inter-reflections.
func TestFurnaceInterreflection(t *testing.T) {
	s := &scene.Scene{
		Materials: []scene.Material{diffuseMat(1)},
		Spheres:   []scene.Sphere{{Center: vec.V3(0, 1, 0), Radius: 1}},
	}
	s.Meshes = []scene.Mesh{{Name: "box", Primitives: []scene.Primitive{scene.Box(vec.V3(-2, -1, -2), vec.V3(2, 0, 2), 0)}}}
	s.Instances = []scene.Instance{{Mesh: 0, Transform: vec.Identity3x4}}
	env := UniformEnvironment(1)
	img, _, err := Render(context.Background(), s, Options{Width: 24, Height: 24, SamplesPerPixel: 32, MaxBounces: 64,
		Camera: lookAt(vec.V3(0, 1.5, 5), vec.V3(0, 0.5, 0), 50), Environment: &env})
	if err != nil {
		t.Fatal(err)
	}
	m := img.Mean()
	for k, v := range m {
		if math.Abs(v-1) > 0.02 {
			t.Errorf("mean channel %d = %.4f, want 1 ± 0.02", k, v)
		}
	}
}

// The fraction of the image an emissive unit sphere covers matches its
// analytic projected area: a disk of radius tan(asin(r/d)) on the image
// plane at distance 1.
func TestSphereCoverage(t *testing.T) {
	light := scene.DefaultMaterial()
	light.Kind, light.Emissive = scene.Emissive, [3]float32{1, 1, 1}
	s := &scene.Scene{Materials: []scene.Material{light}, Spheres: []scene.Sphere{{Radius: 1}}}
	const d, vfov = 4.0, 40.0
	env := UniformEnvironment(0)
	img, _, err := Render(context.Background(), s, Options{Width: 64, Height: 64, SamplesPerPixel: 16,
		Camera: lookAt(vec.V3(0, 0, d), vec.Vec3{}, vfov), Environment: &env})
	if err != nil {
		t.Fatal(err)
	}
	r := math.Tan(math.Asin(1 / d))
	h := math.Tan(vfov / 2 * math.Pi / 180)
	want := math.Pi * r * r / (4 * h * h)
	got := img.Mean()[0]
	if math.Abs(got-want) > 0.01*want {
		t.Errorf("coverage %.5f, want %.5f ± 1%%", got, want)
	}
}

// The image is bit-identical for any number of workers and with
// reordering on or off (with a window small enough to reorder a lot).
func TestDeterminism(t *testing.T) {
	r, err := NewRenderer(scene.Default())
	if err != nil {
		t.Fatal(err)
	}
	base := Options{Width: 40, Height: 24, SamplesPerPixel: 2, MaxBounces: 4, Seed: 7}
	var ref *Image
	for _, v := range []struct {
		workers, window int
		mode            raypipe.ReorderMode
	}{{1, 0, raypipe.ReorderOff}, {2, 0, raypipe.ReorderOff}, {1, 0, raypipe.ReorderOn}, {2, 37, raypipe.ReorderOn}, {3, 200, raypipe.ReorderOn}} {
		o := base
		o.Workers, o.Window, o.Reorder = v.workers, v.window, v.mode
		img, res, err := r.Render(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if v.mode == raypipe.ReorderOn && res.Stats.ReorderPoints == 0 {
			t.Errorf("%+v: no reorder points", v)
		}
		if ref == nil {
			ref = img
			continue
		}
		for i := range img.Pix {
			if math.Float32bits(img.Pix[i]) != math.Float32bits(ref.Pix[i]) {
				t.Fatalf("%+v: pixel value %d = %v, reference %v", v, i, img.Pix[i], ref.Pix[i])
			}
		}
	}
	o := base
	o.Seed = 8
	img, _, _ := r.Render(context.Background(), o)
	if same := func() bool {
		for i := range img.Pix {
			if img.Pix[i] != ref.Pix[i] {
				return false
			}
		}
		return true
	}(); same {
		t.Error("a different seed gave the same image")
	}
}

// A small render of the default scene against testdata/default.png, with
// a tolerance for floating-point differences between platforms (fused
// multiply-adds). Run with -update to rewrite it.
func TestGolden(t *testing.T) {
	img, _, err := Render(context.Background(), scene.Default(), Options{Width: 64, Height: 36, SamplesPerPixel: 8, MaxBounces: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "default.png")
	if *update {
		if err := img.Save(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	got := img.RGBA()
	if want.Bounds() != got.Bounds() {
		t.Fatalf("size %v, golden %v", got.Bounds(), want.Bounds())
	}
	var sum, bad int
	b := want.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			wr, wg, wb, _ := want.At(x, y).RGBA()
			g := got.NRGBAAt(x, y)
			d := max(absDiff(int(wr>>8), int(g.R)), absDiff(int(wg>>8), int(g.G)), absDiff(int(wb>>8), int(g.B)))
			sum += d
			if d > 24 {
				bad++
			}
		}
	}
	n := b.Dx() * b.Dy()
	if mean := float64(sum) / float64(n); mean > 1.5 || bad > n/100 {
		t.Errorf("differs from %s: mean max-channel difference %.2f (limit 1.5), %d pixels off by more than 24 (limit %d)", path, mean, bad, n/100)
	}
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Render(ctx, scene.Default(), Options{Width: 64, Height: 64, SamplesPerPixel: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Width: -1}, {SamplesPerPixel: -3}, {Window: -1}, {Reorder: 9}, {MaxBounces: 5000}} {
		if _, _, err := Render(context.Background(), scene.Default(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestProgress(t *testing.T) {
	var last, total int
	calls := 0
	_, _, err := Render(context.Background(), scene.Default(), Options{Width: 16, Height: 8, SamplesPerPixel: 1,
		Progress: func(d, n int) { last, total = d, n; calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != 128 || total != 128 {
		t.Errorf("progress: %d calls, last (%d, %d)", calls, last, total)
	}
}

func TestSave(t *testing.T) {
	img := NewImage(3, 2)
	for i := range img.Pix {
		img.Pix[i] = float32(i) * 0.37
	}
	dir := t.TempDir()
	if err := img.Save(filepath.Join(dir, "a.png")); err != nil {
		t.Fatal(err)
	}
	if err := img.Save(filepath.Join(dir, "a.hdr")); err != nil {
		t.Fatal(err)
	}
	if err := img.Save(filepath.Join(dir, "a.jpg")); err == nil || !strings.Contains(err.Error(), "unknown image format") {
		t.Errorf("jpg: %v", err)
	}
	if err := img.Save(filepath.Join(dir, "missing", "a.png")); err == nil {
		t.Error("no error for a missing directory")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("dir holds %v", ents)
	}
	f, _ := os.Open(filepath.Join(dir, "a.png"))
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 3 || cfg.Height != 2 {
		t.Errorf("png %+v, %v", cfg, err)
	}
	var _ image.Image
}

func TestHDR(t *testing.T) {
	img := NewImage(2, 1)
	copy(img.Pix, []float32{1, 0.5, 0.25, 100, 0, 3e-3})
	var buf bytes.Buffer
	if err := img.WriteHDR(&buf); err != nil {
		t.Fatal(err)
	}
	hdr := "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\nSOFTWARE=raypipe\n\n-Y 1 +X 2\n"
	b := buf.Bytes()
	if !bytes.HasPrefix(b, []byte(hdr)) || len(b) != len(hdr)+8 {
		t.Fatalf("got %q", b)
	}
	for i := 0; i < 2; i++ {
		e := b[len(hdr)+4*i:]
		f := math.Ldexp(1, int(e[3])-128-8)
		for k := 0; k < 3; k++ {
			got, want := (float64(e[k])+0.5)*f, float64(img.Pix[3*i+k])
			if math.Abs(got-want) > 0.01*math.Max(want, img.Mean()[0]) && !(want < 0.01 && got < 0.5) {
				t.Errorf("pixel %d channel %d: %v, want %v", i, k, got, want)
			}
		}
	}
}
