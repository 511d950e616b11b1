package raygen

import (
	"math"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// hitsBox reports whether r intersects b within [TMin, TMax] (slab test).
func hitsBox(r Ray, b Bounds) bool {
	t0, t1 := float64(r.TMin), float64(r.TMax)
	for a := 0; a < 3; a++ {
		inv := 1 / float64(r.Dir.At(a))
		tn := (float64(b.Min.At(a)) - float64(r.Origin.At(a))) * inv
		tf := (float64(b.Max.At(a)) - float64(r.Origin.At(a))) * inv
		if tn > tf {
			tn, tf = tf, tn
		}
		t0, t1 = max(t0, tn), min(t1, tf)
	}
	return t0 <= t1
}

func isUnit(d vec.Vec3) bool { return math.Abs(float64(d.Len())-1) < 1e-5 }

func TestPrimary(t *testing.T) {
	pos, _ := meshgen.Terrain(200, 1)
	b := BoundsOf(pos)
	const w, h = 37, 21 // not multiples of TileSize
	rays := Primary(b, w, h)
	if len(rays) != w*h {
		t.Fatalf("got %d rays, want %d", len(rays), w*h)
	}
	if !slices.Equal(rays, Primary(b, w, h)) {
		t.Error("Primary is not deterministic")
	}
	eye, _, _, _ := Camera(b, float32(w)/h)
	if b.Contains(eye, 0) {
		t.Errorf("camera %v inside the bounds %v", eye, b)
	}
	hit := 0
	for i, r := range rays {
		if r.Origin != eye || !isUnit(r.Dir) || r.TMin != 0 || !math.IsInf(float64(r.TMax), 1) {
			t.Fatalf("ray %d = %+v", i, r)
		}
		if hitsBox(r, b) {
			hit++
		}
	}
	// The projected bounds fill the image tightly (a flat box seen at an angle
	// covers a bit less than half of it).
	if 5*hit < 2*len(rays) {
		t.Errorf("only %d of %d primary rays hit the bounds", hit, len(rays))
	}
	if testing.Verbose() {
		t.Logf("%d of %d primary rays hit the bounds", hit, len(rays))
	}
	// Tile order: tiles in scanline order, pixels in scanline order inside.
	c := newPinhole(b, w, h)
	i := 0
	for ty := 0; ty < h; ty += TileSize {
		for tx := 0; tx < w; tx += TileSize {
			for y := ty; y < min(ty+TileSize, h); y++ {
				for x := tx; x < min(tx+TileSize, w); x++ {
					if rays[i].Dir != c.dir(x, y) {
						t.Fatalf("ray %d is not pixel (%d, %d)", i, x, y)
					}
					i++
				}
			}
		}
	}
	if rays[1].Dir.X <= rays[0].Dir.X || rays[TileSize].Dir.Y >= rays[0].Dir.Y {
		t.Error("x does not grow to the right or y to the bottom")
	}
}

func TestIncoherent(t *testing.T) {
	pos, _ := meshgen.Soup(100, 2)
	b := BoundsOf(pos)
	rays := Incoherent(b, 5000, 42)
	if !slices.Equal(rays, Incoherent(b, 5000, 42)) {
		t.Error("Incoherent is not deterministic")
	}
	if slices.Equal(rays, Incoherent(b, 5000, 43)) {
		t.Error("Incoherent ignores its seed")
	}
	var mean vec.Vec3
	for i, r := range rays {
		if !b.Contains(r.Origin, 0) || !isUnit(r.Dir) || !hitsBox(r, b) {
			t.Fatalf("ray %d = %+v outside %v or not unit", i, r, b)
		}
		mean = mean.Add(r.Dir)
	}
	// Uniform directions average near zero.
	if m := mean.Scale(1.0 / float32(len(rays))); m.Len() > 0.05 {
		t.Errorf("mean direction %v is biased", m)
	}
}

// onTriangle reports whether p lies in triangle abc, within tolerance tol
// of its plane, and returns the distance to the plane.
func onTriangle(p, a, b, c vec.Vec3, tol float64) bool {
	n := b.Sub(a).Cross(c.Sub(a))
	area2 := float64(n.Len())
	nn := n.Scale(1 / n.Len())
	if math.Abs(float64(p.Sub(a).Dot(nn))) > tol {
		return false
	}
	// Barycentric signs from sub-triangle areas, with slack.
	for _, e := range [][3]vec.Vec3{{a, b, p}, {b, c, p}, {c, a, p}} {
		if float64(e[1].Sub(e[0]).Cross(e[2].Sub(e[0])).Dot(nn)) < -1e-4*area2 {
			return false
		}
	}
	return true
}

func TestShadow(t *testing.T) {
	pos, idx := meshgen.Terrain(50, 5)
	b := BoundsOf(pos)
	rays := Shadow(pos, idx, b, 2000, 9)
	if !slices.Equal(rays, Shadow(pos, idx, b, 2000, 9)) {
		t.Error("Shadow is not deterministic")
	}
	light := Light(b)
	if b.Contains(light, 0) {
		t.Errorf("light %v inside the bounds", light)
	}
	eps := ShadowEpsilon * b.Diagonal()
	for i, r := range rays {
		if !isUnit(r.Dir) || r.TMin != 0 {
			t.Fatalf("ray %d = %+v", i, r)
		}
		end := r.Origin.Add(r.Dir.Scale(r.TMax))
		if d := end.Sub(light).Len(); d <= 0 || d > 1e-3*b.Diagonal() {
			t.Fatalf("ray %d ends %g from the light", i, d)
		}
		// The origin is eps above some triangle, on the light's side.
		found := false
		for k := 0; k < len(idx) && !found; k += 3 {
			p0, p1, p2 := pos[idx[k]], pos[idx[k+1]], pos[idx[k+2]]
			n := p1.Sub(p0).Cross(p2.Sub(p0)).Normalize()
			if n.Dot(light.Sub(p0)) < 0 {
				n = n.Neg()
			}
			found = onTriangle(r.Origin.Sub(n.Scale(eps)), p0, p1, p2, 1e-5)
		}
		if !found {
			t.Fatalf("ray %d origin %v is not on the surface", i, r.Origin)
		}
	}
}

func TestBoundsOf(t *testing.T) {
	b := BoundsOf([]vec.Vec3{vec.V3(1, 5, -2), vec.V3(-3, 2, 4)})
	if b.Min != vec.V3(-3, 2, -2) || b.Max != vec.V3(1, 5, 4) {
		t.Errorf("BoundsOf = %+v", b)
	}
	if e := BoundsOf(nil); !(e.Min.X > e.Max.X) {
		t.Errorf("empty bounds %+v not empty", e)
	}
}

// TestBoundsCorners checks Corner against its definition: the eight
// points are distinct, each coordinate is Min's or Max's as the bits of
// i say, and together they bound exactly b.
func TestBoundsCorners(t *testing.T) {
	b := Bounds{Min: vec.V3(-1, 2, -3), Max: vec.V3(4, 5, 6)}
	seen := map[vec.Vec3]bool{}
	var all []vec.Vec3
	for i := range 8 {
		c := b.Corner(i)
		want := vec.V3(b.Min.X, b.Min.Y, b.Min.Z)
		if i&1 != 0 {
			want.X = b.Max.X
		}
		if i&2 != 0 {
			want.Y = b.Max.Y
		}
		if i&4 != 0 {
			want.Z = b.Max.Z
		}
		if c != want || seen[c] {
			t.Fatalf("corner %d: %v (want %v, distinct)", i, c, want)
		}
		seen[c] = true
		all = append(all, c)
	}
	if got := BoundsOf(all); got != b {
		t.Errorf("the corners bound %+v, want %+v", got, b)
	}
}
