package vec

import "math"

// Vec3 is a float32 3-vector, the HLSL float3.
type Vec3 struct{ X, Y, Z float32 }

// V3 returns the vector (x, y, z).
func V3(x, y, z float32) Vec3 { return Vec3{x, y, z} }

// Add returns a + b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a - b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Mul returns the component-wise product of a and b.
func (a Vec3) Mul(b Vec3) Vec3 { return Vec3{a.X * b.X, a.Y * b.Y, a.Z * b.Z} }

// Scale returns a * s.
func (a Vec3) Scale(s float32) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }

// Neg returns -a.
func (a Vec3) Neg() Vec3 { return Vec3{-a.X, -a.Y, -a.Z} }

// Dot returns the dot product of a and b.
func (a Vec3) Dot(b Vec3) float32 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Cross returns the cross product a x b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// Len returns the Euclidean length of a.
func (a Vec3) Len() float32 { return float32(math.Sqrt(float64(a.Dot(a)))) }

// Normalize returns a scaled to unit length; the zero vector stays zero.
func (a Vec3) Normalize() Vec3 {
	l := a.Len()
	if l == 0 {
		return a
	}
	return a.Scale(1 / l)
}

// Min returns the component-wise minimum of a and b.
func (a Vec3) Min(b Vec3) Vec3 { return Vec3{min(a.X, b.X), min(a.Y, b.Y), min(a.Z, b.Z)} }

// Max returns the component-wise maximum of a and b.
func (a Vec3) Max(b Vec3) Vec3 { return Vec3{max(a.X, b.X), max(a.Y, b.Y), max(a.Z, b.Z)} }

// At returns component i (0 = X, 1 = Y, 2 = Z).
func (a Vec3) At(i int) float32 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	}
	return a.Z
}

// Lerp returns a + (b-a)*t.
func (a Vec3) Lerp(b Vec3, t float32) Vec3 { return a.Add(b.Sub(a).Scale(t)) }

// IsFinite reports whether no component is NaN or infinite.
func (a Vec3) IsFinite() bool {
	return isFinite(a.X) && isFinite(a.Y) && isFinite(a.Z)
}

// HasNaN reports whether any component is NaN.
func (a Vec3) HasNaN() bool { return a.X != a.X || a.Y != a.Y || a.Z != a.Z }

func isFinite(f float32) bool { return f-f == 0 }

// BoxCorner returns corner i (0 to 7) of the box from lo to hi: bit 0 of
// i takes hi.X, bit 1 hi.Y and bit 2 hi.Z, the others lo's.
func BoxCorner(lo, hi Vec3, i int) Vec3 {
	c := lo
	if i&1 != 0 {
		c.X = hi.X
	}
	if i&2 != 0 {
		c.Y = hi.Y
	}
	if i&4 != 0 {
		c.Z = hi.Z
	}
	return c
}
