// Package meshgen makes small deterministic procedural triangle meshes for
// benchmarks and cross-checks: a heightfield terrain, a random triangle
// soup, and a tangle of capped pipes (long thin triangles across the axes,
// as CAD meshes have). Meshes are indexed triangle lists (triangle i is
// positions[indices[3i+k]], k = 0, 1, 2) with Y up.
package meshgen

import (
	"math"
	"math/rand/v2"

	"github.com/raypipe/raypipe/vec"
)

// seedStream is the second PCG word of the generators' random sources.
const seedStream = 0x6d657368

// Terrain returns a heightfield over the square [-1, 1] x [-1, 1] of the XZ
// plane with at least n triangles: a g x g grid of quads, two triangles
// each, g = ceil(sqrt(n/2)). Heights are a sum of seeded random sinusoids
// with amplitude up to about 0.3. Triangles are wound counter-clockwise seen
// from above (+Y).
func Terrain(n int, seed uint64) (positions []vec.Vec3, indices []uint32) {
	g := max(1, int(math.Ceil(math.Sqrt(float64(n)/2))))
	r := rand.New(rand.NewPCG(seed, seedStream))
	type wave struct{ kx, kz, phase, amp float64 }
	waves := make([]wave, 6)
	for i := range waves {
		f := 1.5 * float64(i+1)
		waves[i] = wave{
			kx:    f * (r.Float64()*2 - 1),
			kz:    f * (r.Float64()*2 - 1),
			phase: 2 * math.Pi * r.Float64(),
			amp:   0.12 / float64(i+1),
		}
	}
	positions = make([]vec.Vec3, 0, (g+1)*(g+1))
	for j := 0; j <= g; j++ {
		z := -1 + 2*float64(j)/float64(g)
		for i := 0; i <= g; i++ {
			x := -1 + 2*float64(i)/float64(g)
			var h float64
			for _, w := range waves {
				h += w.amp * math.Sin(w.kx*x*math.Pi+w.kz*z*math.Pi+w.phase)
			}
			positions = append(positions, vec.V3(float32(x), float32(h), float32(z)))
		}
	}
	indices = make([]uint32, 0, 6*g*g)
	row := uint32(g + 1)
	for j := uint32(0); j < uint32(g); j++ {
		for i := uint32(0); i < uint32(g); i++ {
			a := j*row + i // (i, j)
			b := a + 1     // (i+1, j)
			c := a + row   // (i, j+1)
			d := c + 1     // (i+1, j+1)
			indices = append(indices, a, c, b, b, c, d)
		}
	}
	return positions, indices
}

// Soup returns n independent triangles (3n unshared vertices) in the cube
// [-1, 1]^3: each has a uniformly random center and vertices at random
// offsets of up to about 2/cbrt(n) from it, so that the soup has some depth
// complexity at every size.
func Soup(n int, seed uint64) (positions []vec.Vec3, indices []uint32) {
	r := rand.New(rand.NewPCG(seed, seedStream+1))
	size := 2 / math.Cbrt(float64(max(n, 1)))
	rnd := func(s float64) float32 { return float32((r.Float64()*2 - 1) * s) }
	positions = make([]vec.Vec3, 0, 3*n)
	indices = make([]uint32, 0, 3*n)
	for i := 0; i < n; i++ {
		c := vec.V3(rnd(1), rnd(1), rnd(1))
		for k := 0; k < 3; k++ {
			p := c.Add(vec.V3(rnd(size), rnd(size), rnd(size)))
			positions = append(positions, p)
			indices = append(indices, uint32(3*i+k))
		}
	}
	return positions, indices
}

// PipeSegments is the number of sides of each of Pipes' pipes.
const PipeSegments = 24

// Pipes returns closed pipes at random places and in random directions in
// the cube [-1, 1]^3, as a CAD model of tubes and shafts is tessellated:
// each a cylinder of PipeSegments sides, each side one long thin quad (two
// triangles along the pipe's whole length, 0.5 to 2), and two caps, fans
// of thin triangles from the axis to the rim (radius 0.01 to 0.06). A
// pipe has 4*PipeSegments triangles; there are enough pipes for at least n
// triangles (fewer than n + 4*PipeSegments). Sides and caps face out.
func Pipes(n int, seed uint64) (positions []vec.Vec3, indices []uint32) {
	r := rand.New(rand.NewPCG(seed, seedStream+2))
	per := 4 * PipeSegments
	pipes := max(1, (n+per-1)/per)
	positions = make([]vec.Vec3, 0, pipes*(2*PipeSegments+2))
	indices = make([]uint32, 0, 3*pipes*per)
	for range pipes {
		center := vec.V3(float32(r.Float64()*2-1), float32(r.Float64()*2-1), float32(r.Float64()*2-1))
		// A uniformly random axis, and two directions across it.
		z := r.Float64()*2 - 1
		phi := 2 * math.Pi * r.Float64()
		rho := math.Sqrt(1 - z*z)
		axis := vec.V3(float32(rho*math.Cos(phi)), float32(rho*math.Sin(phi)), float32(z))
		u := axis.Cross(vec.V3(1, 0, 0))
		if u.Len() < 0.1 {
			u = axis.Cross(vec.V3(0, 1, 0))
		}
		u = u.Normalize()
		v := axis.Cross(u)
		half := axis.Scale(float32(0.25 + 0.75*r.Float64()))
		radius := float32(0.01 + 0.05*r.Float64())
		a, b := center.Sub(half), center.Add(half) // the axis' ends
		base := uint32(len(positions))
		positions = append(positions, a, b)
		for k := range PipeSegments {
			t := 2 * math.Pi * float64(k) / PipeSegments
			rim := u.Scale(radius * float32(math.Cos(t))).Add(v.Scale(radius * float32(math.Sin(t))))
			positions = append(positions, a.Add(rim), b.Add(rim))
		}
		for k := range uint32(PipeSegments) {
			a0, b0 := base+2+2*k, base+3+2*k
			next := (k + 1) % PipeSegments
			a1, b1 := base+2+2*next, base+3+2*next
			indices = append(indices,
				a0, a1, b0, b0, a1, b1, // the side
				base, a1, a0, // the cap at a
				base+1, b0, b1) // the cap at b
		}
	}
	return positions, indices
}
