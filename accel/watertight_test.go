package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// countHits enumerates every triangle the ray passes through, by treating
// everything as non-opaque and ignoring each candidate.
func countHits(b *BLAS, r Ray) int {
	var tr Traversal
	tr.BeginBLAS(b, r, RayFlagForceNonOpaque)
	n := 0
	for tr.Next() {
		n++
	}
	return n
}

// grid returns an n x n grid of quads in the plane z = 0 scaled by s and
// offset by off, with alternating diagonals; and its vertex list.
func grid(n int, s float32, off vec.Vec3) ([]vec.Vec3, []uint32) {
	var pos []vec.Vec3
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			pos = append(pos, vec.V3(float32(i)*s+off.X, float32(j)*s+off.Y, off.Z))
		}
	}
	var idx []uint32
	at := func(i, j int) uint32 { return uint32(j*(n+1) + i) }
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a, b, c, d := at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)
			if (i+j)%2 == 0 {
				idx = append(idx, a, b, c, a, c, d)
			} else {
				idx = append(idx, a, b, d, b, c, d)
			}
		}
	}
	return pos, idx
}

// fan returns k triangles around a center vertex, closing the disk, with
// mixed winding orders to check that the tie-break does not depend on it.
func fan(k int, c vec.Vec3, s float32) ([]vec.Vec3, []uint32) {
	pos := []vec.Vec3{c}
	for i := 0; i < k; i++ {
		a := 2 * math.Pi * float64(i) / float64(k)
		pos = append(pos, c.Add(vec.V3(float32(math.Cos(a))*s, float32(math.Sin(a))*s, float32(math.Sin(3*a))*s*0.2)))
	}
	var idx []uint32
	for i := 0; i < k; i++ {
		a, b := uint32(1+i), uint32(1+(i+1)%k)
		if i%3 == 0 {
			idx = append(idx, 0, b, a)
		} else {
			idx = append(idx, 0, a, b)
		}
	}
	return pos, idx
}

// "A single ray striking an edge in a scene must report an intersection
// with only one of the incident triangles" and the same for a vertex
// ("Fixed function ray-triangle intersection specification"), with no gaps
// ("Watertightness"): rays aimed exactly at grid vertices and edge
// midpoints, at magnitudes 1e-3 to 1e6, report exactly one hit.
func TestWatertightSharedEdgesAndVerticesHitOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, scale := range []float32{1e-3, 1, 1e3, 1e6} {
		for _, off := range []vec.Vec3{{}, vec.V3(0.37, -1.3, 2.1), vec.V3(-1e3, 5e2, 1)} {
			o := off.Scale(scale)
			pos, idx := grid(8, scale, o)
			b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
			if err != nil {
				t.Fatal(err)
			}
			var targets []vec.Vec3
			for j := 1; j < 8; j++ {
				for i := 1; i < 8; i++ {
					v := pos[j*9+i]
					targets = append(targets, v)                                  // interior vertex
					targets = append(targets, v.Add(pos[j*9+i+1]).Scale(0.5))     // horizontal edge midpoint
					targets = append(targets, v.Add(pos[(j+1)*9+i]).Scale(0.5))   // vertical edge midpoint
					targets = append(targets, v.Add(pos[(j+1)*9+i+1]).Scale(0.5)) // a diagonal's midpoint (if present)
				}
			}
			for ti, p := range targets {
				dirs := []vec.Vec3{vec.V3(0, 0, -1), vec.V3(0, 0, 1)}
				for k := 0; k < 4; k++ {
					dirs = append(dirs, vec.V3(float32(rng.Float64()-0.5), float32(rng.Float64()-0.5), -1))
				}
				for _, d := range dirs {
					org := p.Sub(d.Scale(3 * scale))
					r := Ray{Origin: org, Direction: d.Scale(scale), TMin: 0, TMax: 10}
					if n := countHits(b, r); n != 1 {
						t.Fatalf("scale %g off %v target %d %v dir %v: %d hits, want 1", scale, off, ti, p, d, n)
					}
				}
			}
		}
	}
}

func TestWatertightClosedFanVertexHitOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{3, 4, 5, 6, 7, 8, 12, 16} {
		for _, scale := range []float32{1e-3, 1, 1e6} {
			c := vec.V3(0.3, -0.7, 0.1).Scale(scale)
			pos, idx := fan(k, c, scale)
			b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 50; i++ {
				d := vec.V3(float32(rng.Float64()-0.5)*0.5, float32(rng.Float64()-0.5)*0.5, float32(1-2*rng.IntN(2)))
				if i < 2 {
					d = vec.V3(0, 0, float32(1-2*i))
				}
				r := Ray{Origin: c.Sub(d.Scale(2 * scale)), Direction: d.Scale(scale), TMin: 0, TMax: 10}
				if n := countHits(b, r); n != 1 {
					t.Fatalf("fan %d scale %g dir %v: %d hits at the center vertex, want 1", k, scale, d, n)
				}
			}
		}
	}
}

// Rays through random points of a closed mesh (an octahedron subdivided by
// the grid), entering and leaving, must hit it an even, nonzero number of
// times: no gaps anywhere.
func TestWatertightRandomRaysNoGaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pos, idx := grid(32, 1.0/32, vec.V3(0, 0, 0))
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20000; i++ {
		// Aim at points on grid lines (x or y a multiple of 1/32).
		x, y := float32(rng.IntN(31)+1)/32, float32(rng.Float64())
		if i%2 == 1 {
			x, y = y, x
		}
		p := vec.V3(x, y, 0)
		d := vec.V3(float32(rng.Float64()-0.5), float32(rng.Float64()-0.5), 1)
		r := Ray{Origin: p.Sub(d), Direction: d, TMin: 0, TMax: 4}
		if n := countHits(b, r); n != 1 {
			t.Fatalf("ray %d through %v: %d hits", i, p, n)
		}
	}
}
