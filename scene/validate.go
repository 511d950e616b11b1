package scene

import (
	"fmt"
	"math"

	"github.com/raypipe/raypipe/vec"
)

// Validate checks the scene's internal consistency: every index in range,
// every attribute array the right length, every position, transform,
// sphere and camera value finite, every texture's pixel buffer sized to
// its dimensions. It returns the first problem found, naming the mesh,
// primitive, instance, sphere, material or texture and the field.
// Degenerate triangles and singular transforms are allowed.
func (s *Scene) Validate() error {
	for ti, t := range s.Textures {
		if t == nil {
			return fmt.Errorf("scene: texture %d: nil", ti)
		}
		if t.Width <= 0 || t.Height <= 0 || len(t.Pix) != 4*t.Width*t.Height {
			return fmt.Errorf("scene: texture %d (%q): %dx%d with %d floats in Pix (want %d)", ti, t.Name, t.Width, t.Height, len(t.Pix), 4*max(t.Width, 0)*max(t.Height, 0))
		}
	}
	for mi := range s.Materials {
		m := &s.Materials[mi]
		if m.BaseColorTexture < -1 || m.BaseColorTexture >= len(s.Textures) {
			return fmt.Errorf("scene: material %d (%q): BaseColorTexture %d out of range (%d textures)", mi, m.Name, m.BaseColorTexture, len(s.Textures))
		}
		if m.Kind > Emissive || m.AlphaMode > Blend {
			return fmt.Errorf("scene: material %d (%q): bad Kind %d or AlphaMode %d", mi, m.Name, m.Kind, m.AlphaMode)
		}
		for _, f := range [...]float32{m.BaseColor[0], m.BaseColor[1], m.BaseColor[2], m.BaseColor[3], m.Emissive[0], m.Emissive[1], m.Emissive[2], m.Metallic, m.Roughness, m.IOR, m.AlphaCutoff} {
			if !finite(f) {
				return fmt.Errorf("scene: material %d (%q): non-finite parameter", mi, m.Name)
			}
		}
	}
	for mi := range s.Meshes {
		m := &s.Meshes[mi]
		for pi := range m.Primitives {
			if err := s.validatePrimitive(&m.Primitives[pi]); err != nil {
				return fmt.Errorf("scene: mesh %d (%q) primitive %d: %w", mi, m.Name, pi, err)
			}
		}
	}
	for ii, in := range s.Instances {
		if in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			return fmt.Errorf("scene: instance %d (%q): Mesh %d out of range (%d meshes)", ii, in.Name, in.Mesh, len(s.Meshes))
		}
		if !in.Transform.IsFinite() {
			return fmt.Errorf("scene: instance %d (%q): Transform not finite: %v", ii, in.Name, in.Transform)
		}
	}
	for si, sp := range s.Spheres {
		if !sp.Center.IsFinite() || !finite(sp.Radius) || sp.Radius <= 0 {
			return fmt.Errorf("scene: sphere %d: center %v radius %g: want finite center and radius > 0", si, sp.Center, sp.Radius)
		}
		if sp.Material < -1 || sp.Material >= len(s.Materials) {
			return fmt.Errorf("scene: sphere %d: Material %d out of range (%d materials)", si, sp.Material, len(s.Materials))
		}
	}
	if c := s.Camera; c != nil {
		if !c.Position.IsFinite() || !c.Target.IsFinite() || !c.Up.IsFinite() {
			return fmt.Errorf("scene: camera: non-finite Position, Target or Up")
		}
		if c.Position == c.Target {
			return fmt.Errorf("scene: camera: Position equals Target %v", c.Target)
		}
		if !(c.VFOV > 0 && c.VFOV < math.Pi) {
			return fmt.Errorf("scene: camera: VFOV %g outside (0, pi)", c.VFOV)
		}
		if !(c.Aspect >= 0) || !finite(c.Aspect) {
			return fmt.Errorf("scene: camera: Aspect %g negative or not finite", c.Aspect)
		}
	}
	return nil
}

func (s *Scene) validatePrimitive(p *Primitive) error {
	n := len(p.Positions)
	if len(p.Indices)%3 != 0 {
		return fmt.Errorf("Indices length %d not a multiple of 3", len(p.Indices))
	}
	if p.Normals != nil && len(p.Normals) != n {
		return fmt.Errorf("Normals length %d, want %d (positions)", len(p.Normals), n)
	}
	if p.UVs != nil && len(p.UVs) != n {
		return fmt.Errorf("UVs length %d, want %d (positions)", len(p.UVs), n)
	}
	if p.Material < -1 || p.Material >= len(s.Materials) {
		return fmt.Errorf("Material %d out of range (%d materials)", p.Material, len(s.Materials))
	}
	for i, x := range p.Indices {
		if int64(x) >= int64(n) {
			return fmt.Errorf("Indices[%d] = %d out of range (%d positions)", i, x, n)
		}
	}
	for i, v := range p.Positions {
		if !v.IsFinite() {
			return fmt.Errorf("Positions[%d] = %v not finite", i, v)
		}
	}
	return nil
}

func finite(f float32) bool { return f-f == 0 }

// AutoCamera returns a camera that frames the box [lo, hi]: it looks at the
// box's center from the front (+Z), slightly above and to the right, far
// enough for the bounding sphere to fit a 45° vertical field of view.
// An empty or degenerate box is treated as a unit sphere.
func AutoCamera(lo, hi vec.Vec3) Camera {
	c := lo.Add(hi).Scale(0.5)
	r := hi.Sub(lo).Len() / 2
	if !(r > 0) || !finite(r) || !c.IsFinite() {
		r = 1
		if !c.IsFinite() {
			c = vec.Vec3{}
		}
	}
	const vfov = math.Pi / 4
	dist := r / float32(math.Sin(vfov/2)) * 1.05
	dir := vec.V3(0.35, 0.4, 1).Normalize()
	return Camera{
		Position: c.Add(dir.Scale(dist)),
		Target:   c,
		Up:       vec.V3(0, 1, 0),
		VFOV:     vfov,
	}
}

// CameraOrAuto returns the scene's camera, or AutoCamera of its bounds.
func (s *Scene) CameraOrAuto() Camera {
	if s.Camera != nil {
		return *s.Camera
	}
	return AutoCamera(s.Bounds())
}
