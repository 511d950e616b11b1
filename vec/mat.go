package vec

// Mat3x4 is a row-major 3x4 affine transform, the layout of the D3D12
// instance and geometry transforms ("FLOAT Transform[12] ... row major") and
// of the HLSL ObjectToWorld3x4()/WorldToObject3x4() intrinsics. A point p maps
// to M[r][0]*p.X + M[r][1]*p.Y + M[r][2]*p.Z + M[r][3] for row r.
type Mat3x4 [3][4]float32

// Mat4x3 is the transpose of a Mat3x4, the HLSL float4x3 returned by
// ObjectToWorld4x3() and WorldToObject4x3().
type Mat4x3 [4][3]float32

// Identity3x4 is the identity transform.
var Identity3x4 = Mat3x4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}

// Translate3x4 returns a translation by t.
func Translate3x4(t Vec3) Mat3x4 {
	return Mat3x4{{1, 0, 0, t.X}, {0, 1, 0, t.Y}, {0, 0, 1, t.Z}}
}

// Scale3x4 returns a scaling by s.
func Scale3x4(s Vec3) Mat3x4 {
	return Mat3x4{{s.X, 0, 0, 0}, {0, s.Y, 0, 0}, {0, 0, s.Z, 0}}
}

// TransformPoint applies m to the point p (with translation): for each
// row, ((m0*x + m1*y) + m2*z) + m3 with every product and sum rounded to
// float32. The explicit conversions keep the compiler from fusing a
// product and a sum into one multiply-add (as it may where the target
// has FMA, GOAMD64=v3 for one), so that the result is the same on every
// target and the same as the assembly walks' placement of a ray in an
// instance (accel's PLACEVEC).
func (m Mat3x4) TransformPoint(p Vec3) Vec3 {
	return Vec3{
		float32(m[0][0]*p.X) + float32(m[0][1]*p.Y) + float32(m[0][2]*p.Z) + m[0][3],
		float32(m[1][0]*p.X) + float32(m[1][1]*p.Y) + float32(m[1][2]*p.Z) + m[1][3],
		float32(m[2][0]*p.X) + float32(m[2][1]*p.Y) + float32(m[2][2]*p.Z) + m[2][3],
	}
}

// TransformVector applies the linear part of m to v (no translation),
// rounded as TransformPoint rounds.
func (m Mat3x4) TransformVector(v Vec3) Vec3 {
	return Vec3{
		float32(m[0][0]*v.X) + float32(m[0][1]*v.Y) + float32(m[0][2]*v.Z),
		float32(m[1][0]*v.X) + float32(m[1][1]*v.Y) + float32(m[1][2]*v.Z),
		float32(m[2][0]*v.X) + float32(m[2][1]*v.Y) + float32(m[2][2]*v.Z),
	}
}

// Mul returns the composition m * n: the transform that applies n first.
func (m Mat3x4) Mul(n Mat3x4) Mat3x4 {
	var r Mat3x4
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			s := float32(m[i][0]*n[0][j]) + float32(m[i][1]*n[1][j]) + float32(m[i][2]*n[2][j])
			if j == 3 {
				s += m[i][3]
			}
			r[i][j] = s
		}
	}
	return r
}

// Det returns the determinant of the linear 3x3 part.
func (m Mat3x4) Det() float32 {
	return float32(m.det64())
}

// det64 is the determinant in float64, every product rounded (fm) as
// TransformPoint rounds, so that it is the same on every target.
func (m Mat3x4) det64() float64 {
	a := func(i, j int) float64 { return float64(m[i][j]) }
	return fm(a(0, 0), fm(a(1, 1), a(2, 2))-fm(a(1, 2), a(2, 1))) -
		fm(a(0, 1), fm(a(1, 0), a(2, 2))-fm(a(1, 2), a(2, 0))) +
		fm(a(0, 2), fm(a(1, 0), a(2, 1))-fm(a(1, 1), a(2, 0)))
}

// fm is x*y rounded to float64: the conversion keeps the compiler from
// fusing it with a following sum (see TransformPoint).
func fm(x, y float64) float64 { return float64(x * y) }

// Inverse returns the inverse affine transform, computed in float64 (every
// product rounded, as det64) and rounded once. ok is false when the linear part is singular or the result
// is not finite.
func (m Mat3x4) Inverse() (inv Mat3x4, ok bool) {
	d := m.det64()
	if d == 0 || d != d {
		return Mat3x4{}, false
	}
	a := func(i, j int) float64 { return float64(m[i][j]) }
	var r [3][3]float64
	r[0][0] = (fm(a(1, 1), a(2, 2)) - fm(a(1, 2), a(2, 1))) / d
	r[0][1] = (fm(a(0, 2), a(2, 1)) - fm(a(0, 1), a(2, 2))) / d
	r[0][2] = (fm(a(0, 1), a(1, 2)) - fm(a(0, 2), a(1, 1))) / d
	r[1][0] = (fm(a(1, 2), a(2, 0)) - fm(a(1, 0), a(2, 2))) / d
	r[1][1] = (fm(a(0, 0), a(2, 2)) - fm(a(0, 2), a(2, 0))) / d
	r[1][2] = (fm(a(0, 2), a(1, 0)) - fm(a(0, 0), a(1, 2))) / d
	r[2][0] = (fm(a(1, 0), a(2, 1)) - fm(a(1, 1), a(2, 0))) / d
	r[2][1] = (fm(a(0, 1), a(2, 0)) - fm(a(0, 0), a(2, 1))) / d
	r[2][2] = (fm(a(0, 0), a(1, 1)) - fm(a(0, 1), a(1, 0))) / d
	for i := 0; i < 3; i++ {
		t := -(fm(r[i][0], a(0, 3)) + fm(r[i][1], a(1, 3)) + fm(r[i][2], a(2, 3)))
		for j := 0; j < 3; j++ {
			inv[i][j] = float32(r[i][j])
		}
		inv[i][3] = float32(t)
	}
	return inv, inv.IsFinite()
}

// Transpose returns the float4x3 form of m.
func (m Mat3x4) Transpose() Mat4x3 {
	var t Mat4x3
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			t[j][i] = m[i][j]
		}
	}
	return t
}

// IsFinite reports whether every element is finite.
func (m Mat3x4) IsFinite() bool {
	for i := range m {
		for _, v := range m[i] {
			if !isFinite(v) {
				return false
			}
		}
	}
	return true
}

// NormalMatrix returns the inverse-transpose of the linear part as a
// Mat3x4 with zero translation, for transforming normals; ok is false when
// m is singular.
func (m Mat3x4) NormalMatrix() (n Mat3x4, ok bool) {
	inv, ok := m.Inverse()
	if !ok {
		return Mat3x4{}, false
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			n[i][j] = inv[j][i]
		}
	}
	return n, true
}
