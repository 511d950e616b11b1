package scene_test

import (
	"fmt"
	"log"

	"github.com/raypipe/raypipe/scene"
)

func ExampleLoad() {
	s, err := scene.Load("testdata/quads.obj")
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", s.Stats())
	// Output: {Meshes:1 Primitives:5 Triangles:16 Instances:1 InstancedTriangles:16 Materials:5 Textures:1 Spheres:0}
}

func ExampleDefault() {
	s := scene.Default()
	fmt.Printf("%+v\n", s.Stats())
	// Output: {Meshes:6 Primitives:10 Triangles:15722 Instances:8 InstancedTriangles:16386 Materials:12 Textures:2 Spheres:4}
}
