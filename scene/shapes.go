package scene

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// MaxIcoSubdivisions bounds IcoSphere's subdivision level (20·4^9 ≈ 5.2M
// triangles).
const MaxIcoSubdivisions = 9

// IcoSphere returns a geodesic sphere: an icosahedron whose faces are
// split subdivisions times (clamped to [0, MaxIcoSubdivisions]), giving
// 20·4^subdivisions triangles, with outward normals and spherical UVs.
// Triangles wind counter-clockwise seen from outside.
func IcoSphere(center vec.Vec3, radius float32, subdivisions, material int) Primitive {
	subdivisions = min(max(subdivisions, 0), MaxIcoSubdivisions)
	t := float32((1 + math.Sqrt(5)) / 2)
	corners := [12][3]float32{
		{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
		{0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
		{t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1},
	}
	dirs := make([]vec.Vec3, 12, 10*(1<<(2*subdivisions))+2)
	for i, c := range corners {
		dirs[i] = vec.V3(c[0], c[1], c[2]).Normalize()
	}
	idx := []uint32{
		0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11,
		1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
		3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9,
		4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
	}
	for s := 0; s < subdivisions; s++ {
		mid := make(map[[2]uint32]uint32, len(idx)/2)
		midpoint := func(a, b uint32) uint32 {
			k := [2]uint32{min(a, b), max(a, b)}
			if m, ok := mid[k]; ok {
				return m
			}
			dirs = append(dirs, dirs[a].Add(dirs[b]).Normalize())
			m := uint32(len(dirs) - 1)
			mid[k] = m
			return m
		}
		next := make([]uint32, 0, 4*len(idx))
		for i := 0; i < len(idx); i += 3 {
			a, b, c := idx[i], idx[i+1], idx[i+2]
			ab, bc, ca := midpoint(a, b), midpoint(b, c), midpoint(c, a)
			next = append(next, a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca)
		}
		idx = next
	}
	p := Primitive{
		Positions: make([]vec.Vec3, len(dirs)),
		Normals:   dirs,
		UVs:       make([][2]float32, len(dirs)),
		Indices:   idx,
		Material:  material,
	}
	for i, d := range dirs {
		p.Positions[i] = center.Add(d.Scale(radius))
		u := 0.5 + math.Atan2(float64(d.Z), float64(d.X))/(2*math.Pi)
		v := math.Acos(float64(max(-1, min(1, d.Y)))) / math.Pi
		p.UVs[i] = [2]float32{float32(u), float32(v)}
	}
	return p
}

// Box returns the axis-aligned box [lo, hi] as 12 triangles over 24
// vertices (4 per face, so that normals and UVs are per face), wound
// counter-clockwise seen from outside.
func Box(lo, hi vec.Vec3, material int) Primitive {
	p := Primitive{Material: material}
	size := hi.Sub(lo)
	x, y, z := vec.V3(size.X, 0, 0), vec.V3(0, size.Y, 0), vec.V3(0, 0, size.Z)
	faces := [6][3]vec.Vec3{ // corner, edge u, edge v with u × v outward
		{lo.Add(x), y, z}, // +X
		{lo, z, y},        // -X
		{lo.Add(y), z, x}, // +Y
		{lo, x, z},        // -Y
		{lo.Add(z), x, y}, // +Z
		{lo, y, x},        // -Z
	}
	for _, f := range faces {
		p.appendQuad(f[0], f[1], f[2])
	}
	return p
}

// Quad returns the parallelogram corner + s·u + t·v, s, t ∈ [0, 1], as two
// triangles facing u × v, with UV (s, 1-t).
func Quad(corner, u, v vec.Vec3, material int) Primitive {
	p := Primitive{Material: material}
	p.appendQuad(corner, u, v)
	return p
}

func (p *Primitive) appendQuad(c, u, v vec.Vec3) {
	n := u.Cross(v).Normalize()
	base := uint32(len(p.Positions))
	p.Positions = append(p.Positions, c, c.Add(u), c.Add(u).Add(v), c.Add(v))
	p.Normals = append(p.Normals, n, n, n, n)
	p.UVs = append(p.UVs, [2]float32{0, 1}, [2]float32{1, 1}, [2]float32{1, 0}, [2]float32{0, 0})
	p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
}
