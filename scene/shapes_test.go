package scene

import (
	"math"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// checkOutward fails unless every triangle of p is wound counter-clockwise
// seen from outside a convex shape around center.
func checkOutward(t *testing.T, p Primitive, center vec.Vec3) {
	t.Helper()
	for i := 0; i < len(p.Indices); i += 3 {
		a, b, c := p.Positions[p.Indices[i]], p.Positions[p.Indices[i+1]], p.Positions[p.Indices[i+2]]
		n := b.Sub(a).Cross(c.Sub(a))
		centroid := a.Add(b).Add(c).Scale(1.0 / 3)
		if n.Dot(centroid.Sub(center)) <= 0 {
			t.Fatalf("triangle %d winds inwards", i/3)
		}
		if p.Normals != nil && p.Normals[p.Indices[i]].Dot(n) <= 0 {
			t.Fatalf("triangle %d: shading normal opposes the geometric normal", i/3)
		}
	}
}

func TestIcoSphere(t *testing.T) {
	c := vec.V3(1, 2, 3)
	for s := 0; s <= 4; s++ {
		p := IcoSphere(c, 2, s, 7)
		tris := 20 << (2 * s)
		if p.Triangles() != tris || len(p.Positions) != tris/2+2 || p.Material != 7 {
			t.Fatalf("level %d: %d triangles, %d vertices", s, p.Triangles(), len(p.Positions))
		}
		for _, v := range p.Positions {
			if r := v.Sub(c).Len(); math.Abs(float64(r)-2) > 1e-5 {
				t.Fatalf("vertex at radius %g", r)
			}
		}
		checkOutward(t, p, c)
		sc := &Scene{Meshes: []Mesh{{Primitives: []Primitive{p}}}, Materials: make([]Material, 8)}
		sc.Materials[7] = DefaultMaterial()
		for i := range sc.Materials {
			sc.Materials[i].BaseColorTexture = -1
		}
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	if p := IcoSphere(c, 1, -3, 0); p.Triangles() != 20 {
		t.Errorf("negative level gave %d triangles", p.Triangles())
	}
}

func TestBoxAndQuad(t *testing.T) {
	lo, hi := vec.V3(-1, 0, 2), vec.V3(1, 3, 5)
	b := Box(lo, hi, 0)
	if b.Triangles() != 12 || len(b.Positions) != 24 {
		t.Fatalf("box: %d triangles %d vertices", b.Triangles(), len(b.Positions))
	}
	checkOutward(t, b, lo.Add(hi).Scale(0.5))
	for _, v := range b.Positions {
		if v.Min(lo) != lo || v.Max(hi) != hi {
			t.Fatalf("box vertex %v outside [%v, %v]", v, lo, hi)
		}
	}
	q := Quad(vec.V3(0, 0, 0), vec.V3(0, 0, 2), vec.V3(3, 0, 0), 1)
	if q.Triangles() != 2 || q.Normals[0] != vec.V3(0, 1, 0) {
		t.Fatalf("quad normal %v", q.Normals[0])
	}
	checkOutward(t, q, vec.V3(1.5, -1, 1))
}
