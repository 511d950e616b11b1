package scene

import "github.com/raypipe/raypipe/vec"

// Scene is a complete description of what to render.
//
// Every index stored in the scene (Instance.Mesh, Primitive.Material,
// Material.BaseColorTexture, Sphere.Material) refers into the slices of the
// same Scene. Validate checks that they do.
type Scene struct {
	Name      string
	Meshes    []Mesh
	Instances []Instance
	Materials []Material
	Textures  []*Texture
	Spheres   []Sphere
	// Camera is the scene's own camera, or nil; see AutoCamera.
	Camera *Camera
	// Warnings lists what a loader skipped or approximated (a missing
	// material library, a LINES primitive, an unsupported texture
	// coordinate set). Library code never prints; callers may.
	Warnings []string
}

// Mesh is a group of primitives sharing one object space. It becomes one
// bottom-level acceleration structure; each Primitive becomes one geometry.
type Mesh struct {
	Name       string
	Primitives []Primitive
}

// Primitive is an indexed triangle list with one material.
type Primitive struct {
	Positions []vec.Vec3
	// Normals are per-vertex shading normals; nil when absent, otherwise
	// len(Normals) == len(Positions).
	Normals []vec.Vec3
	// UVs are per-vertex texture coordinates (glTF TEXCOORD_0 convention:
	// v grows downwards in the image); nil when absent, otherwise
	// len(UVs) == len(Positions).
	UVs [][2]float32
	// Indices holds three vertex indices per triangle, always present
	// (loaders synthesize 0..n-1 for non-indexed data).
	Indices []uint32
	// Material indexes Scene.Materials; -1 means the default material.
	Material int
}

// Triangles returns the number of triangles in p.
func (p *Primitive) Triangles() int { return len(p.Indices) / 3 }

// Instance places a mesh in the world.
type Instance struct {
	Name string
	// Mesh indexes Scene.Meshes.
	Mesh int
	// Transform maps object space to world space. It may mirror
	// (negative determinant); it is not required to be invertible.
	Transform vec.Mat3x4
}

// Sphere is an analytic sphere, traced as a procedural primitive.
type Sphere struct {
	Center   vec.Vec3
	Radius   float32
	Material int
}

// Camera is a perspective pinhole camera.
type Camera struct {
	Position, Target, Up vec.Vec3
	// VFOV is the full vertical field of view in radians.
	VFOV float32
	// Aspect is width/height; 0 means use the image's aspect.
	Aspect float32
}

// Stats counts what a scene holds.
type Stats struct {
	Meshes, Primitives, Triangles int
	Instances, InstancedTriangles int
	Materials, Textures, Spheres  int
}

// Stats returns the scene's counts. Triangles counts each mesh once;
// InstancedTriangles counts each mesh once per instance.
func (s *Scene) Stats() Stats {
	st := Stats{
		Meshes:    len(s.Meshes),
		Instances: len(s.Instances),
		Materials: len(s.Materials),
		Textures:  len(s.Textures),
		Spheres:   len(s.Spheres),
	}
	tris := make([]int, len(s.Meshes))
	for i := range s.Meshes {
		for j := range s.Meshes[i].Primitives {
			tris[i] += s.Meshes[i].Primitives[j].Triangles()
		}
		st.Primitives += len(s.Meshes[i].Primitives)
		st.Triangles += tris[i]
	}
	for _, in := range s.Instances {
		if in.Mesh >= 0 && in.Mesh < len(tris) {
			st.InstancedTriangles += tris[in.Mesh]
		}
	}
	return st
}

// Bounds returns the world-space axis-aligned bounds of every instanced
// vertex and every sphere. An empty scene has zero bounds. Instances that
// reference a missing mesh are ignored (Validate reports them).
func (s *Scene) Bounds() (lo, hi vec.Vec3) {
	first := true
	grow := func(a, b vec.Vec3) {
		if first {
			lo, hi, first = a, b, false
			return
		}
		lo, hi = lo.Min(a), hi.Max(b)
	}
	for _, in := range s.Instances {
		if in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			continue
		}
		m := &s.Meshes[in.Mesh]
		for j := range m.Primitives {
			for _, p := range m.Primitives[j].Positions {
				q := in.Transform.TransformPoint(p)
				grow(q, q)
			}
		}
	}
	for _, sp := range s.Spheres {
		r := vec.Vec3{X: sp.Radius, Y: sp.Radius, Z: sp.Radius}
		grow(sp.Center.Sub(r), sp.Center.Add(r))
	}
	return lo, hi
}

// addMesh appends m with one identity instance and returns its index.
func (s *Scene) addMesh(m Mesh) int {
	s.Meshes = append(s.Meshes, m)
	i := len(s.Meshes) - 1
	s.Instances = append(s.Instances, Instance{Name: m.Name, Mesh: i, Transform: vec.Identity3x4})
	return i
}

// addMaterial appends m and returns its index.
func (s *Scene) addMaterial(m Material) int {
	s.Materials = append(s.Materials, m)
	return len(s.Materials) - 1
}

// addTexture appends t and returns its index.
func (s *Scene) addTexture(t *Texture) int {
	s.Textures = append(s.Textures, t)
	return len(s.Textures) - 1
}
