package raygen

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// Ray is a ray with its parametric interval [TMin, TMax]. Its field order and
// types match accel.Ray (Origin, TMin, Direction, TMax), so a conversion is a
// field-by-field copy, and its memory layout is eight consecutive float32s.
type Ray struct {
	Origin vec.Vec3
	TMin   float32
	Dir    vec.Vec3
	TMax   float32
}

// Bounds is an axis-aligned bounding box.
type Bounds struct {
	Min, Max vec.Vec3
}

// BoundsOf returns the bounds of the given points. The bounds of no points
// have Min = +Inf and Max = -Inf.
func BoundsOf(positions []vec.Vec3) Bounds {
	inf := float32(math.Inf(1))
	b := Bounds{Min: vec.V3(inf, inf, inf), Max: vec.V3(-inf, -inf, -inf)}
	for _, p := range positions {
		b.Min = b.Min.Min(p)
		b.Max = b.Max.Max(p)
	}
	return b
}

// Center returns the center of b.
func (b Bounds) Center() vec.Vec3 { return b.Min.Add(b.Max).Scale(0.5) }

// Corner returns corner i (0 to 7) of b: bit 0 of i takes Max.X, bit 1
// Max.Y and bit 2 Max.Z, else Min's.
func (b Bounds) Corner(i int) vec.Vec3 { return vec.BoxCorner(b.Min, b.Max, i) }

// Diagonal returns the length of the diagonal of b.
func (b Bounds) Diagonal() float32 { return b.Max.Sub(b.Min).Len() }

// Contains reports whether p lies in b, allowing a slack of eps on every side.
func (b Bounds) Contains(p vec.Vec3, eps float32) bool {
	return p.X >= b.Min.X-eps && p.Y >= b.Min.Y-eps && p.Z >= b.Min.Z-eps &&
		p.X <= b.Max.X+eps && p.Y <= b.Max.Y+eps && p.Z <= b.Max.Z+eps
}

// inf32 is +Inf as a float32, the TMax of unbounded rays.
var inf32 = float32(math.Inf(1))
