package raygen

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// TileSize is the edge length in pixels of the square tiles in which
// Primary orders its rays.
const TileSize = 8

// cameraDir is the direction from the scene center to the camera: in front,
// to the right and above (Y is up), so heightfields in the XZ plane are seen
// from above at an angle and every mesh is seen from outside.
var cameraDir = vec.V3(0.35, 1, 1).Normalize()

// cameraFOV is the vertical field of view of the primary camera, in radians.
const cameraFOV = 50 * math.Pi / 180

// Camera returns the eye position and the orthonormal frame (right, up,
// forward) of the pinhole camera used by Primary for the given bounds and
// image aspect ratio (width/height). The camera looks at the center of b from
// the fixed direction cameraDir and stands just far enough that all eight
// corners of b project into the image, so the mesh fills the frame.
func Camera(b Bounds, aspect float32) (eye, right, up, forward vec.Vec3) {
	forward = cameraDir.Neg()
	right = forward.Cross(vec.V3(0, 1, 0)).Normalize()
	up = right.Cross(forward)
	c := b.Center()
	tanY := float32(math.Tan(cameraFOV / 2))
	tanX := tanY * aspect
	var dist float32
	for i := 0; i < 8; i++ {
		q := b.Corner(i).Sub(c)
		// The corner sits at depth dist + q.forward in front of the eye.
		z := q.Dot(forward)
		dist = max(dist, abs(q.Dot(right))/tanX-z, abs(q.Dot(up))/tanY-z)
	}
	// Keep the eye outside the bounds, and leave a small margin.
	h := b.Max.Sub(b.Min).Scale(0.5)
	exit := min(h.X/abs(cameraDir.X), h.Y/abs(cameraDir.Y), h.Z/abs(cameraDir.Z))
	dist = max(dist, exit) * 1.02
	if dist == 0 || dist != dist || math.IsInf(float64(dist), 0) {
		dist = 1
	}
	return c.Add(cameraDir.Scale(dist)), right, up, forward
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// Primary returns width*height camera rays from the pinhole camera of
// Camera(b, width/height), one through the center of each pixel, with unit
// directions (the image window is shifted off center to fit the bounds
// tightly), TMin 0 and TMax +Inf. Rays are ordered tile by tile (TileSize x TileSize
// tiles in scanline order, pixels in scanline order inside a tile), the
// coherent order a tiled renderer traces them in. Pixel row 0 is the top.
func Primary(b Bounds, width, height int) []Ray {
	if width <= 0 || height <= 0 {
		return nil
	}
	c := newPinhole(b, width, height)
	rays := make([]Ray, 0, width*height)
	for ty := 0; ty < height; ty += TileSize {
		for tx := 0; tx < width; tx += TileSize {
			for y := ty; y < min(ty+TileSize, height); y++ {
				for x := tx; x < min(tx+TileSize, width); x++ {
					rays = append(rays, Ray{Origin: c.eye, Dir: c.dir(x, y), TMax: inf32})
				}
			}
		}
	}
	return rays
}

// pinhole is the camera of Camera(b, aspect) with an image of a given size
// and an off-center image window [x0, x1] x [y0, y1] on the plane at unit
// distance in front of the eye (a lens shift), fitted tightly around the
// projected corners of the bounds so that the mesh fills the frame.
type pinhole struct {
	eye, right, up, forward vec.Vec3
	x0, x1, y0, y1          float32
	width, height           int
}

func newPinhole(b Bounds, width, height int) pinhole {
	aspect := float32(width) / float32(height)
	c := pinhole{width: width, height: height}
	c.eye, c.right, c.up, c.forward = Camera(b, aspect)
	inf := float32(math.Inf(1))
	c.x0, c.y0, c.x1, c.y1 = inf, inf, -inf, -inf
	for i := 0; i < 8; i++ {
		q := b.Corner(i).Sub(c.eye)
		z := q.Dot(c.forward)
		sx, sy := q.Dot(c.right)/z, q.Dot(c.up)/z
		c.x0, c.x1 = min(c.x0, sx), max(c.x1, sx)
		c.y0, c.y1 = min(c.y0, sy), max(c.y1, sy)
	}
	if !(c.x1 > c.x0 && c.y1 > c.y0) || math.IsInf(float64(c.x1-c.x0+c.y1-c.y0), 0) {
		// Degenerate bounds: fall back to the centered field of view.
		t := float32(math.Tan(cameraFOV / 2))
		c.x0, c.x1, c.y0, c.y1 = -t*aspect, t*aspect, -t, t
	}
	// Widen the short side to the image aspect, plus a 2% margin.
	wx, wy := c.x1-c.x0, c.y1-c.y0
	if wx < wy*aspect {
		wx = wy * aspect
	} else {
		wy = wx / aspect
	}
	mx, my := (c.x0+c.x1)/2, (c.y0+c.y1)/2
	c.x0, c.x1 = mx-0.51*wx, mx+0.51*wx
	c.y0, c.y1 = my-0.51*wy, my+0.51*wy
	return c
}

// dir returns the unit direction through the center of pixel (x, y).
func (c pinhole) dir(x, y int) vec.Vec3 {
	sx := c.x0 + (float32(x)+0.5)/float32(c.width)*(c.x1-c.x0)
	sy := c.y1 - (float32(y)+0.5)/float32(c.height)*(c.y1-c.y0)
	return c.forward.Add(c.right.Scale(sx)).Add(c.up.Scale(sy)).Normalize()
}
