package scene

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// Default returns the embedded scene that `raypipe render` draws when
// given no file. It is small (about 17k triangles) and exercises every
// feature a renderer has to support:
//
//   - a ground quad with a procedural checker texture (UVs, textures);
//   - an emissive quad area light above the scene;
//   - icospheres and boxes in Diffuse, Metal and Dielectric materials,
//     several primitives (geometries) per mesh;
//   - a fence quad with AlphaMode Mask whose texture has round holes
//     (any-hit shaders);
//   - analytic Spheres (intersection shaders) in mirror, glass and
//     diffuse materials;
//   - one "pillar" mesh instanced three times with different transforms,
//     one of them mirrored (negative determinant);
//   - twelve materials and a camera.
//
// Y is up; the ground is the y = 0 plane; the camera looks at the origin
// from +Z.
func Default() *Scene {
	s := &Scene{Name: "default"}

	// Materials.
	checker := s.addTexture(CheckerTexture("checker", 256, 16,
		[4]float32{0.80, 0.80, 0.78, 1}, [4]float32{0.12, 0.12, 0.14, 1}))
	ground := diffuse("ground checker", 1, 1, 1)
	ground.BaseColorTexture = checker
	mGround := s.addMaterial(ground)
	mLight := s.addMaterial(light("area light", 14, 13, 11))
	mRed := s.addMaterial(diffuse("red", 0.7, 0.08, 0.06))
	mGold := s.addMaterial(metal("gold", 1.0, 0.71, 0.29, 0.15))
	mGlass := s.addMaterial(glass("glass", 1.5))
	mBlue := s.addMaterial(diffuse("blue", 0.08, 0.2, 0.65))
	mSteel := s.addMaterial(metal("brushed steel", 0.56, 0.57, 0.58, 0.45))
	fence := diffuse("fence", 1, 1, 1)
	fence.BaseColorTexture = s.addTexture(fenceTexture("fence", 256, 8, [4]float32{0.85, 0.45, 0.1, 1}))
	fence.AlphaMode = Mask
	mFence := s.addMaterial(fence)
	mMirror := s.addMaterial(metal("mirror", 0.95, 0.95, 0.95, 0))
	mGreen := s.addMaterial(diffuse("green", 0.1, 0.55, 0.15))
	mWhite := s.addMaterial(diffuse("white", 0.75, 0.75, 0.75))
	mWater := s.addMaterial(glass("water", 1.33))

	// Ground and light, each its own mesh.
	s.addMesh(Mesh{Name: "ground", Primitives: []Primitive{
		Quad(vec.V3(-10, 0, -10), vec.V3(0, 0, 20), vec.V3(20, 0, 0), mGround),
	}})
	s.addMesh(Mesh{Name: "light", Primitives: []Primitive{
		Quad(vec.V3(-1, 5, -1), vec.V3(2, 0, 0), vec.V3(0, 0, 2), mLight),
	}})

	// Three icospheres in one mesh: three geometries in one BLAS.
	s.addMesh(Mesh{Name: "icospheres", Primitives: []Primitive{
		IcoSphere(vec.V3(-2.2, 0.8, 0), 0.8, 4, mRed),
		IcoSphere(vec.V3(0, 0.8, 0), 0.8, 4, mGold),
		IcoSphere(vec.V3(2.2, 0.8, 0), 0.8, 4, mGlass),
	}})
	s.addMesh(Mesh{Name: "boxes", Primitives: []Primitive{
		Box(vec.V3(-3.9, 0, -1.6), vec.V3(-2.9, 1.2, -0.6), mBlue),
		Box(vec.V3(2.9, 0, -1.6), vec.V3(3.9, 1.6, -0.6), mSteel),
	}})
	s.addMesh(Mesh{Name: "fence", Primitives: []Primitive{
		Quad(vec.V3(-3, 0, -2.5), vec.V3(6, 0, 0), vec.V3(0, 2.2, 0), mFence),
	}})

	// An asymmetric pillar (a post with a ball off to +X) instanced three
	// times; the third instance mirrors it in X.
	pillar := len(s.Meshes)
	s.Meshes = append(s.Meshes, Mesh{Name: "pillar", Primitives: []Primitive{
		Box(vec.V3(-0.15, 0, -0.15), vec.V3(0.15, 1.4, 0.15), mWhite),
		IcoSphere(vec.V3(0.3, 1.55, 0), 0.22, 2, mGreen),
	}})
	rotY := func(deg float64) vec.Mat3x4 {
		sn, cs := math.Sincos(deg * math.Pi / 180)
		c, s := float32(cs), float32(sn)
		return vec.Mat3x4{{c, 0, s, 0}, {0, 1, 0, 0}, {-s, 0, c, 0}}
	}
	s.Instances = append(s.Instances,
		Instance{Name: "pillar left", Mesh: pillar, Transform: vec.Translate3x4(vec.V3(-4.6, 0, 1.2))},
		Instance{Name: "pillar right", Mesh: pillar, Transform: vec.Translate3x4(vec.V3(4.6, 0, 1.2)).Mul(rotY(35)).Mul(vec.Scale3x4(vec.V3(1.2, 1.2, 1.2)))},
		Instance{Name: "pillar mirrored", Mesh: pillar, Transform: vec.Translate3x4(vec.V3(-1.1, 0, -1.6)).Mul(vec.Scale3x4(vec.V3(-1, 0.8, 1)))},
	)

	// Analytic spheres for intersection shaders.
	s.Spheres = []Sphere{
		{Center: vec.V3(-1.1, 0.35, 1.6), Radius: 0.35, Material: mMirror},
		{Center: vec.V3(1.1, 0.35, 1.6), Radius: 0.35, Material: mWater},
		{Center: vec.V3(0, 0.25, 2.3), Radius: 0.25, Material: mGreen},
		{Center: vec.V3(3.2, 0.3, 1.9), Radius: 0.3, Material: mRed},
	}

	s.Camera = &Camera{
		Position: vec.V3(0, 2.4, 8),
		Target:   vec.V3(0, 0.8, 0),
		Up:       vec.V3(0, 1, 0),
		VFOV:     40 * math.Pi / 180,
	}
	return s
}
