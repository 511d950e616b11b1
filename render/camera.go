package render

import (
	"math"

	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// camera is a pinhole camera prepared for a given image size.
type camera struct {
	eye                 vec.Vec3
	right, up, forward  vec.Vec3 // right and up scaled to the image half extents
	invWidth, invHeight float32
}

func newCamera(c scene.Camera, width, height int) camera {
	fwd := c.Target.Sub(c.Position).Normalize()
	if !fwd.IsFinite() || fwd.Len() == 0 {
		fwd = vec.V3(0, 0, -1)
	}
	up := c.Up
	if up.Len() == 0 {
		up = vec.V3(0, 1, 0)
	}
	right := fwd.Cross(up).Normalize()
	if !right.IsFinite() || right.Len() == 0 {
		right = fwd.Cross(vec.V3(1, 0, 0)).Normalize()
	}
	trueUp := right.Cross(fwd)
	aspect := c.Aspect
	if aspect <= 0 {
		aspect = float32(width) / float32(height)
	}
	vfov := c.VFOV
	if !(vfov > 0 && vfov < math.Pi) {
		vfov = math.Pi / 4
	}
	th := float32(math.Tan(float64(vfov) / 2))
	return camera{
		eye: c.Position, forward: fwd,
		right: right.Scale(th * aspect), up: trueUp.Scale(th),
		invWidth: 1 / float32(width), invHeight: 1 / float32(height),
	}
}

// ray returns the unit direction through image point (px, py) in pixels,
// row 0 at the top.
func (c *camera) ray(px, py float32) vec.Vec3 {
	sx := 2*px*c.invWidth - 1
	sy := 1 - 2*py*c.invHeight
	return c.forward.Add(c.right.Scale(sx)).Add(c.up.Scale(sy)).Normalize()
}
