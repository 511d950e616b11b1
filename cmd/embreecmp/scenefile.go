//go:build embree

package main

import (
	"fmt"
	"math"

	rpscene "github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// loadSceneMesh reads a glTF (.gltf, .glb) or OBJ file as raypipe's scene
// package loads it and flattens it into one triangle list in world space:
// every instance's primitives, each vertex placed by the instance's
// transform (a mesh instanced twice contributes its triangles twice).
// Analytic spheres, which Embree's triangle scenes cannot hold, are left
// out.
func loadSceneMesh(path string) ([]vec.Vec3, []uint32, error) {
	sc, err := rpscene.Load(path)
	if err != nil {
		return nil, nil, err
	}
	pos, idx, err := flatten(sc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return pos, idx, nil
}

// flatten returns sc's instanced triangles in world space.
func flatten(sc *rpscene.Scene) ([]vec.Vec3, []uint32, error) {
	var pos []vec.Vec3
	var idx []uint32
	for i, in := range sc.Instances {
		if in.Mesh < 0 || in.Mesh >= len(sc.Meshes) {
			return nil, nil, fmt.Errorf("instance %d (%q): mesh %d out of range (%d meshes)", i, in.Name, in.Mesh, len(sc.Meshes))
		}
		for _, p := range sc.Meshes[in.Mesh].Primitives {
			base := len(pos)
			if base+len(p.Positions) > math.MaxUint32 {
				return nil, nil, fmt.Errorf("more than %d vertices", uint32(math.MaxUint32))
			}
			for _, v := range p.Positions {
				pos = append(pos, in.Transform.TransformPoint(v))
			}
			for _, k := range p.Indices {
				if int(k) >= len(p.Positions) {
					return nil, nil, fmt.Errorf("instance %d (%q): index %d out of range (%d vertices)", i, in.Name, k, len(p.Positions))
				}
				idx = append(idx, uint32(base)+k)
			}
		}
	}
	if len(idx) == 0 {
		return nil, nil, fmt.Errorf("no triangles")
	}
	return pos, idx, nil
}
