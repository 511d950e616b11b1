package scene

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/raypipe/raypipe/vec"
)

// The benchmark scenes below are deterministic: the same arguments give
// the same scene, bit for bit. Each scales from a few hundred to millions
// of triangles; n is a target, met within a few percent (rounding to a
// grid or to whole instances).

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// Terrain returns a heightfield over [-1, 1]² in XZ with about n
// triangles: a k×k grid of quads (2k² ≈ n) whose heights are a sum of
// seeded sine waves of decreasing amplitude (at most about 0.25), with
// per-vertex normals. It is the coherent, well-behaved benchmark mesh.
func Terrain(n int, seed uint64) *Scene {
	k := max(1, int(math.Round(math.Sqrt(float64(n)/2))))
	rng := newRand(seed)
	const octaves = 5
	var waves [octaves]struct{ dx, dz, phase, amp float64 }
	for i := range waves {
		a := rng.Float64() * 2 * math.Pi
		f := 1.5 * math.Pow(2.1, float64(i))
		waves[i].dx, waves[i].dz = f*math.Cos(a), f*math.Sin(a)
		waves[i].phase = rng.Float64() * 2 * math.Pi
		waves[i].amp = 0.12 / math.Pow(2, float64(i))
	}
	// The slope needs the derivative of the same sum; keep both exact.
	height := func(x, z float64) (h, dhdx, dhdz float64) {
		for _, w := range waves {
			arg := w.dx*x + w.dz*z + w.phase
			sn, cs := math.Sincos(arg)
			h += w.amp * sn
			dhdx += w.amp * cs * w.dx
			dhdz += w.amp * cs * w.dz
		}
		return
	}
	verts := (k + 1) * (k + 1)
	p := Primitive{
		Positions: make([]vec.Vec3, verts),
		Normals:   make([]vec.Vec3, verts),
		UVs:       make([][2]float32, verts),
		Indices:   make([]uint32, 0, 6*k*k),
	}
	for j := 0; j <= k; j++ {
		for i := 0; i <= k; i++ {
			x, z := -1+2*float64(i)/float64(k), -1+2*float64(j)/float64(k)
			h, dx, dz := height(x, z)
			v := j*(k+1) + i
			p.Positions[v] = vec.V3(float32(x), float32(h), float32(z))
			p.Normals[v] = vec.V3(float32(-dx), 1, float32(-dz)).Normalize()
			p.UVs[v] = [2]float32{float32(i) / float32(k), float32(j) / float32(k)}
		}
	}
	for j := 0; j < k; j++ {
		for i := 0; i < k; i++ {
			a := uint32(j*(k+1) + i)
			b, c, d := a+1, a+uint32(k+1), a+uint32(k+2)
			// Counter-clockwise seen from +Y.
			p.Indices = append(p.Indices, a, c, b, b, c, d)
		}
	}
	s := &Scene{Name: fmt.Sprintf("terrain-%d-%d", n, seed)}
	p.Material = s.addMaterial(diffuse("terrain", 0.45, 0.5, 0.3))
	s.addMesh(Mesh{Name: "terrain", Primitives: []Primitive{p}})
	cam := Camera{Position: vec.V3(0, 1.2, 2.4), Target: vec.V3(0, 0, 0), Up: vec.V3(0, 1, 0), VFOV: math.Pi / 4}
	s.Camera = &cam
	return s
}

// RandomTriangles returns n small triangles with random orientation,
// scattered uniformly in the unit cube [0, 1]³: an incoherent "triangle
// soup" that is hard for a BVH builder and for traversal. Edge lengths are
// about 2/∛n, so the triangles overlap a little whatever n is. The
// primitive is non-indexed (indices 0..3n-1).
func RandomTriangles(n int, seed uint64) *Scene {
	n = max(n, 1)
	rng := newRand(seed)
	size := float32(2 / math.Cbrt(float64(n)))
	p := Primitive{
		Positions: make([]vec.Vec3, 3*n),
		Indices:   make([]uint32, 3*n),
	}
	clamp := func(f float32) float32 { return min(max(f, 0), 1) }
	for t := 0; t < n; t++ {
		c := vec.V3(rng.Float32(), rng.Float32(), rng.Float32())
		for k := 0; k < 3; k++ {
			d := vec.V3(rng.Float32()-0.5, rng.Float32()-0.5, rng.Float32()-0.5).Scale(size)
			q := c.Add(d)
			p.Positions[3*t+k] = vec.V3(clamp(q.X), clamp(q.Y), clamp(q.Z))
			p.Indices[3*t+k] = uint32(3*t + k)
		}
	}
	s := &Scene{Name: fmt.Sprintf("random-triangles-%d-%d", n, seed)}
	p.Material = s.addMaterial(diffuse("soup", 0.7, 0.7, 0.7))
	s.addMesh(Mesh{Name: "soup", Primitives: []Primitive{p}})
	cam := AutoCamera(vec.V3(0, 0, 0), vec.V3(1, 1, 1))
	s.Camera = &cam
	return s
}

// SphereField returns about n triangles as many instances of four
// icosphere meshes (one per material: diffuse, metal, glass and a second
// diffuse) scattered on a jittered grid in [-1, 1]³ with random radius
// and rotation. It exercises the top-level structure: the icosphere's
// level grows with n (80, 320 or 1280 triangles) so that there are
// hundreds to about two thousand instances.
func SphereField(n int, seed uint64) *Scene {
	n = max(n, 1)
	level := 1
	switch {
	case n >= 128_000:
		level = 3
	case n >= 8_000:
		level = 2
	}
	tris := 20 << (2 * level)
	count := max(1, int(math.Round(float64(n)/float64(tris))))
	s := &Scene{Name: fmt.Sprintf("sphere-field-%d-%d", n, seed)}
	mats := []int{
		s.addMaterial(diffuse("clay", 0.8, 0.35, 0.2)),
		s.addMaterial(metal("chrome", 0.9, 0.9, 0.9, 0.05)),
		s.addMaterial(glass("glass", 1.5)),
		s.addMaterial(diffuse("teal", 0.1, 0.5, 0.5)),
	}
	for i, m := range mats {
		s.Meshes = append(s.Meshes, Mesh{
			Name:       fmt.Sprintf("icosphere-%d", i),
			Primitives: []Primitive{IcoSphere(vec.Vec3{}, 1, level, m)},
		})
	}
	rng := newRand(seed)
	g := int(math.Ceil(math.Cbrt(float64(count))))
	cell := 2 / float32(g)
	s.Instances = make([]Instance, 0, count)
	for i := 0; i < count; i++ {
		x, y, z := i%g, (i/g)%g, i/(g*g)
		c := vec.V3(
			-1+cell*(float32(x)+0.25+0.5*rng.Float32()),
			-1+cell*(float32(y)+0.25+0.5*rng.Float32()),
			-1+cell*(float32(z)+0.25+0.5*rng.Float32()),
		)
		r := cell * (0.15 + 0.2*rng.Float32())
		sn, cs := math.Sincos(rng.Float64() * 2 * math.Pi)
		rot := vec.Mat3x4{{float32(cs), 0, float32(sn), 0}, {0, 1, 0, 0}, {-float32(sn), 0, float32(cs), 0}}
		s.Instances = append(s.Instances, Instance{
			Name:      fmt.Sprintf("sphere %d", i),
			Mesh:      rng.IntN(len(mats)),
			Transform: vec.Translate3x4(c).Mul(rot).Mul(vec.Scale3x4(vec.V3(r, r, r))),
		})
	}
	cam := AutoCamera(vec.V3(-1, -1, -1), vec.V3(1, 1, 1))
	s.Camera = &cam
	return s
}

// ManyMaterialsTextureSize is the side of each ManyMaterials texture.
const ManyMaterialsTextureSize = 512

// ManyMaterials returns a scene for the Shader Execution Reordering
// benchmark: materials distinct diffuse materials, each with its own
// ManyMaterialsTextureSize² procedural texture (a distinct pattern and
// palette; 4 MiB of float RGBA each), and one mesh per material: a
// cluster of six icospheres (1920 triangles) sitting in that material's
// cell of a square grid on the ground (a large untextured quad using the
// default material). Rays that bounce off one cluster hit many others,
// so neighbouring rays shade with many different materials and textures,
// which is what reordering by material is meant to fix.
func ManyMaterials(materials int, seed uint64) *Scene {
	materials = max(materials, 1)
	rng := newRand(seed)
	s := &Scene{Name: fmt.Sprintf("many-materials-%d-%d", materials, seed)}
	g := int(math.Ceil(math.Sqrt(float64(materials))))
	const spacing = 3
	half := float32(g) * spacing / 2
	for i := 0; i < materials; i++ {
		name := fmt.Sprintf("material %d", i)
		m := diffuse(name, 1, 1, 1)
		m.BaseColorTexture = s.addTexture(patternTexture(name, ManyMaterialsTextureSize, rng))
		mi := s.addMaterial(m)
		cx := -half + spacing*(float32(i%g)+0.5)
		cz := -half + spacing*(float32(i/g)+0.5)
		var prims []Primitive
		for k := 0; k < 6; k++ {
			r := 0.25 + 0.3*rng.Float32()
			a := rng.Float64() * 2 * math.Pi
			d := 1.1 * rng.Float32()
			c := vec.V3(cx+d*float32(math.Cos(a)), r+0.6*rng.Float32(), cz+d*float32(math.Sin(a)))
			prims = append(prims, IcoSphere(c, r, 2, mi))
		}
		s.addMesh(Mesh{Name: name, Primitives: prims})
	}
	s.addMesh(Mesh{Name: "ground", Primitives: []Primitive{
		Quad(vec.V3(-half-2, 0, -half-2), vec.V3(0, 0, 2*half+4), vec.V3(2*half+4, 0, 0), -1),
	}})
	cam := Camera{
		Position: vec.V3(0, 1.2*half+2, 1.6*half+4),
		Target:   vec.V3(0, 0, 0),
		Up:       vec.V3(0, 1, 0),
		VFOV:     math.Pi / 4,
	}
	s.Camera = &cam
	return s
}
