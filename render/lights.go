package render

import (
	"math"
	"sort"

	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// lightSet holds the emissive triangles (in world space) and spheres of a
// scene, for next-event estimation: a light point is picked with
// probability proportional to area.
type lightSet struct {
	tris    []lightTri
	spheres []lightSphere
	cdf     []float32 // cumulative area over tris then spheres
	total   float32
}

type lightTri struct {
	p0, e1, e2 vec.Vec3
	le         rgb
}

type lightSphere struct {
	c  vec.Vec3
	r  float32
	le rgb
}

func collectLights(s *scene.Scene, mats []material) *lightSet {
	ls := &lightSet{}
	var acc float64
	for _, in := range s.Instances {
		if in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			continue
		}
		for _, p := range s.Meshes[in.Mesh].Primitives {
			m := &mats[materialIndex(s, p.Material)]
			if m.kind != scene.Emissive || m.emissive.isBlack() {
				continue
			}
			for t := 0; t+2 < len(p.Indices); t += 3 {
				a := in.Transform.TransformPoint(p.Positions[p.Indices[t]])
				b := in.Transform.TransformPoint(p.Positions[p.Indices[t+1]])
				c := in.Transform.TransformPoint(p.Positions[p.Indices[t+2]])
				lt := lightTri{p0: a, e1: b.Sub(a), e2: c.Sub(a), le: m.emissive}
				area := 0.5 * float64(lt.e1.Cross(lt.e2).Len())
				if !(area > 0) || math.IsInf(area, 0) {
					continue
				}
				acc += area
				ls.tris = append(ls.tris, lt)
				ls.cdf = append(ls.cdf, float32(acc))
			}
		}
	}
	for _, sp := range s.Spheres {
		m := &mats[materialIndex(s, sp.Material)]
		if m.kind != scene.Emissive || m.emissive.isBlack() || !(sp.Radius > 0) {
			continue
		}
		acc += 4 * math.Pi * float64(sp.Radius) * float64(sp.Radius)
		ls.spheres = append(ls.spheres, lightSphere{c: sp.Center, r: sp.Radius, le: m.emissive})
		ls.cdf = append(ls.cdf, float32(acc))
	}
	ls.total = float32(acc)
	return ls
}

func (ls *lightSet) empty() bool { return len(ls.cdf) == 0 }

// sample picks a point on a light: its position, normal and radiance;
// pdf is per unit area (1/total area).
func (ls *lightSet) sample(r *rng) (p, n vec.Vec3, le rgb) {
	x := r.float() * ls.total
	i := sort.Search(len(ls.cdf), func(i int) bool { return ls.cdf[i] > x })
	if i >= len(ls.cdf) {
		i = len(ls.cdf) - 1
	}
	u1, u2 := r.float(), r.float()
	if i < len(ls.tris) {
		t := &ls.tris[i]
		if u1+u2 > 1 {
			u1, u2 = 1-u1, 1-u2
		}
		p = t.p0.Add(t.e1.Scale(u1)).Add(t.e2.Scale(u2))
		return p, t.e1.Cross(t.e2).Normalize(), t.le
	}
	sp := &ls.spheres[i-len(ls.tris)]
	n = uniformSphere(u1, u2)
	return sp.c.Add(n.Scale(sp.r)), n, sp.le
}
