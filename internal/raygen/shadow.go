package raygen

import (
	"github.com/raypipe/raypipe/vec"
)

// ShadowEpsilon is the offset of shadow ray origins along the surface normal,
// relative to the diagonal of the scene bounds.
const ShadowEpsilon = 1e-4

// shadowTMaxScale is the fraction of the distance to the light at which
// shadow rays stop, so that they end just before the light.
const shadowTMaxScale = 1 - 1e-4

// Light returns the position of the point light used by Shadow: above the
// top of the scene (Y is up) by a third of the bounds diagonal and off to the
// side by one diagonal, a low sun, so that heightfields shadow themselves.
func Light(b Bounds) vec.Vec3 {
	c := b.Center()
	d := b.Diagonal()
	return vec.V3(c.X+0.8*d, b.Max.Y+d/3, c.Z+0.6*d)
}

// Shadow returns n shadow rays toward Light(b). Each origin is a random point
// on a random triangle of the mesh (triangle index uniform, barycentrics
// uniform over the triangle), moved ShadowEpsilon*b.Diagonal() along the
// triangle's normal to the side facing the light. Directions are unit
// vectors, TMin is 0 and TMax ends just before the light. Degenerate
// triangles give rays from their first vertex without an offset.
//
// The mesh is a triangle list: triangle i has vertices
// positions[indices[3i+k]], k = 0, 1, 2. Shadow panics if the mesh has no
// triangles or an index is out of range.
func Shadow(positions []vec.Vec3, indices []uint32, b Bounds, n int, seed uint64) []Ray {
	ntri := len(indices) / 3
	if ntri == 0 {
		panic("raygen: Shadow needs at least one triangle")
	}
	r := newRand(seed)
	light := Light(b)
	eps := ShadowEpsilon * b.Diagonal()
	rays := make([]Ray, n)
	for i := range rays {
		t := r.IntN(ntri)
		p0 := positions[indices[3*t]]
		p1 := positions[indices[3*t+1]]
		p2 := positions[indices[3*t+2]]
		u, v := r.Float32(), r.Float32()
		if u+v > 1 {
			u, v = 1-u, 1-v
		}
		p := p0.Add(p1.Sub(p0).Scale(u)).Add(p2.Sub(p0).Scale(v))
		nrm := p1.Sub(p0).Cross(p2.Sub(p0)).Normalize()
		if nrm.Dot(light.Sub(p)) < 0 {
			nrm = nrm.Neg()
		}
		o := p.Add(nrm.Scale(eps))
		toLight := light.Sub(o)
		dist := toLight.Len()
		rays[i] = Ray{Origin: o, Dir: toLight.Scale(1 / dist), TMax: dist * shadowTMaxScale}
	}
	return rays
}
