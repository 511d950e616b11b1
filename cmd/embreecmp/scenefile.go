//go:build embree

package main

import (
	"fmt"

	rpscene "github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// loadSceneMesh reads a glTF (.gltf, .glb) or OBJ file as raypipe's scene
// package loads it and flattens it into one triangle list in world space
// (Scene.Flatten: every instance's primitives, each vertex placed by the
// instance's transform; analytic spheres, which Embree's triangle scenes
// cannot hold, left out).
func loadSceneMesh(path string) ([]vec.Vec3, []uint32, error) {
	sc, err := rpscene.Load(path)
	if err != nil {
		return nil, nil, err
	}
	pos, idx, err := sc.Flatten()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return pos, idx, nil
}
