package render

import (
	"fmt"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// Ray types: the RayContributionToHitGroupIndex of each kind of ray, and
// the MultiplierForGeometryContributionToHitGroupIndex (the number of ray
// types: each geometry owns that many consecutive hit group records).
const (
	rayRadiance  = 0
	rayShadow    = 1
	numRayTypes  = 2
	missRadiance = 0
	missShadow   = 1
)

// geometry is one entry of the scene-wide geometry list: a mesh primitive
// or an analytic sphere. Its index g owns hit group records
// numRayTypes·g + ray type.
type geometry struct {
	prim     *scene.Primitive // nil for a sphere
	sphere   int              // index in Scene.Spheres, for spheres
	material uint32           // index in the prepared material table
}

// Renderer holds a scene prepared for rendering: acceleration structures,
// the geometry list and the material table. It can render many frames; a
// Renderer is safe for concurrent Render calls.
type Renderer struct {
	scene     *scene.Scene
	tlas      *accel.TLAS
	geoms     []geometry
	mats      []material
	lights    *lightSet
	buildTime time.Duration
	triangles int
}

// NewRenderer validates s and builds its acceleration structures.
func NewRenderer(s *scene.Scene) (*Renderer, error) {
	if s == nil {
		return nil, fmt.Errorf("render: nil scene")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	start := time.Now()
	r := &Renderer{scene: s, mats: prepareMaterials(s)}

	// One BLAS per mesh, one geometry per primitive.
	blases := make([]*accel.BLAS, len(s.Meshes))
	firstGeom := make([]int, len(s.Meshes))
	for mi := range s.Meshes {
		m := &s.Meshes[mi]
		firstGeom[mi] = len(r.geoms)
		geoms := make([]accel.Geometry, len(m.Primitives))
		for pi := range m.Primitives {
			p := &m.Primitives[pi]
			mat := materialIndex(s, p.Material)
			r.geoms = append(r.geoms, geometry{prim: p, material: mat})
			r.triangles += p.Triangles()
			geoms[pi] = accel.TriangleGeometry(p.Positions, p.Indices)
			if r.mats[mat].alphaMode != scene.Opaque {
				geoms[pi].Flags &^= accel.GeometryOpaque
				geoms[pi].Flags |= accel.GeometryNoDuplicateAnyHitInvocation
			}
		}
		b, err := accel.BuildBLAS(geoms, accel.BuildPreferFastTrace)
		if err != nil {
			return nil, fmt.Errorf("render: mesh %d (%q): %w", mi, m.Name, err)
		}
		blases[mi] = b
	}
	var instances []accel.Instance
	for ii, in := range s.Instances {
		if in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			continue
		}
		if _, ok := in.Transform.Inverse(); !ok {
			continue // a degenerate placement covers no area
		}
		instances = append(instances, accel.Instance{
			Transform:                           in.Transform,
			InstanceID:                          uint32(ii) & 0xffffff,
			InstanceMask:                        0xff,
			InstanceContributionToHitGroupIndex: uint32(numRayTypes * firstGeom[in.Mesh]),
			BLAS:                                blases[in.Mesh],
		})
	}

	// The spheres: one procedural BLAS, one single-AABB geometry per
	// sphere so that each has its own hit group records (its material).
	if len(s.Spheres) > 0 {
		first := len(r.geoms)
		geoms := make([]accel.Geometry, len(s.Spheres))
		for i, sp := range s.Spheres {
			rr := vec.V3(sp.Radius, sp.Radius, sp.Radius)
			geoms[i] = accel.AABBGeometry([]accel.AABB{{Min: sp.Center.Sub(rr), Max: sp.Center.Add(rr)}})
			r.geoms = append(r.geoms, geometry{sphere: i, material: materialIndex(s, sp.Material)})
		}
		b, err := accel.BuildBLAS(geoms, accel.BuildPreferFastTrace)
		if err != nil {
			return nil, fmt.Errorf("render: spheres: %w", err)
		}
		instances = append(instances, accel.Instance{
			Transform:                           vec.Identity3x4,
			InstanceID:                          0xffffff,
			InstanceMask:                        0xff,
			InstanceContributionToHitGroupIndex: uint32(numRayTypes * first),
			BLAS:                                b,
		})
	}
	if numRayTypes*len(r.geoms) >= 1<<24 {
		return nil, fmt.Errorf("render: %d geometries exceed the 24-bit hit group contribution", len(r.geoms))
	}
	tlas, err := accel.BuildTLAS(instances, accel.BuildPreferFastTrace)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	r.tlas = tlas
	r.lights = collectLights(s, r.mats)
	r.buildTime = time.Since(start)
	return r, nil
}

// BuildTime is how long NewRenderer took to build the acceleration
// structures.
func (r *Renderer) BuildTime() time.Duration { return r.buildTime }

// Triangles is the number of triangles in the scene's meshes (each mesh
// once).
func (r *Renderer) Triangles() int { return r.triangles }
