package scene

import (
	"fmt"
	"math"

	"github.com/raypipe/raypipe/vec"
)

// Flatten returns the scene's instanced triangles as one list in world
// space: every instance's primitives in order, each vertex placed by the
// instance's transform (a mesh instanced twice contributes its triangles
// twice), indices into the returned positions. Analytic spheres are left
// out. It is what a tracer without instancing builds over (the Embree
// comparison, a build benchmark over a real mesh). An instance of a
// missing mesh, an index past its primitive's vertices, more vertices than
// 32-bit indices reach, or no triangle at all is an error that says which.
func (s *Scene) Flatten() (positions []vec.Vec3, indices []uint32, err error) {
	for i, in := range s.Instances {
		if in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			return nil, nil, fmt.Errorf("scene: instance %d (%q): mesh %d out of range (%d meshes)", i, in.Name, in.Mesh, len(s.Meshes))
		}
		for _, p := range s.Meshes[in.Mesh].Primitives {
			base := len(positions)
			if uint64(base)+uint64(len(p.Positions)) > math.MaxUint32 {
				return nil, nil, fmt.Errorf("scene: more than %d vertices", uint32(math.MaxUint32))
			}
			for _, v := range p.Positions {
				positions = append(positions, in.Transform.TransformPoint(v))
			}
			for _, k := range p.Indices {
				if int(k) >= len(p.Positions) {
					return nil, nil, fmt.Errorf("scene: instance %d (%q): index %d out of range (%d vertices)", i, in.Name, k, len(p.Positions))
				}
				indices = append(indices, uint32(base)+k)
			}
		}
	}
	if len(indices) == 0 {
		return nil, nil, fmt.Errorf("scene: no triangles")
	}
	return positions, indices, nil
}
