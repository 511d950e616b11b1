package render

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// rng is a PCG32 generator (O'Neill), one per path, carried in payloads.
type rng struct{ State uint64 }

const pcgMult = 6364136223846793005
const pcgInc = 1442695040888963407

// splitmix64 is a strong 64-bit mixing function.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// pathRNG seeds the generator of the path of pixel (x, y), sample s.
func pathRNG(x, y, s uint32, seed uint64) rng {
	h := splitmix64(seed ^ splitmix64(uint64(x)<<32|uint64(y)) ^ splitmix64(uint64(s)+0x5eed))
	r := rng{State: h}
	r.next()
	return r
}

func (r *rng) next() uint32 {
	old := r.State
	r.State = old*pcgMult + pcgInc
	xs := uint32((old>>18 ^ old) >> 27)
	rot := uint32(old >> 59)
	return xs>>rot | xs<<((-rot)&31)
}

// float returns a uniform float32 in [0, 1).
func (r *rng) float() float32 { return float32(r.next()>>8) * (1.0 / (1 << 24)) }

// onb returns two unit vectors that with n form an orthonormal basis
// (Duff et al. 2017).
func onb(n vec.Vec3) (t, b vec.Vec3) {
	sign := float32(math.Copysign(1, float64(n.Z)))
	a := -1 / (sign + n.Z)
	bb := n.X * n.Y * a
	t = vec.V3(1+sign*n.X*n.X*a, sign*bb, -sign*n.X)
	b = vec.V3(bb, sign+n.Y*n.Y*a, -n.Y)
	return t, b
}

// cosineHemisphere samples a direction around n with pdf cos/π.
func cosineHemisphere(n vec.Vec3, u1, u2 float32) vec.Vec3 {
	r := float32(math.Sqrt(float64(u1)))
	phi := 2 * math.Pi * float64(u2)
	x, y := r*float32(math.Cos(phi)), r*float32(math.Sin(phi))
	z := float32(math.Sqrt(math.Max(0, float64(1-u1))))
	t, b := onb(n)
	return t.Scale(x).Add(b.Scale(y)).Add(n.Scale(z)).Normalize()
}

// uniformSphere samples a unit vector uniformly.
func uniformSphere(u1, u2 float32) vec.Vec3 {
	z := 1 - 2*float64(u1)
	s := math.Sqrt(math.Max(0, 1-z*z))
	phi := 2 * math.Pi * float64(u2)
	return vec.V3(float32(s*math.Cos(phi)), float32(s*math.Sin(phi)), float32(z))
}

func reflect(d, n vec.Vec3) vec.Vec3 { return d.Sub(n.Scale(2 * d.Dot(n))) }

// offsetRay moves p off the surface with normal n (pointing to the side
// the new ray leaves on) by a few ulps, so that the new ray does not hit
// the surface it starts on (Wächter and Binder, Ray Tracing Gems ch. 6).
func offsetRay(p, n vec.Vec3) vec.Vec3 {
	const origin, floatScale, intScale = 1.0 / 32, 1.0 / 65536, 256
	off := func(p, n float32) float32 {
		oi := int32(intScale * n)
		var pi float32
		if p < 0 {
			pi = math.Float32frombits(uint32(int32(math.Float32bits(p)) - oi))
		} else {
			pi = math.Float32frombits(uint32(int32(math.Float32bits(p)) + oi))
		}
		if float32(math.Abs(float64(p))) < origin {
			return p + floatScale*n
		}
		return pi
	}
	return vec.V3(off(p.X, n.X), off(p.Y, n.Y), off(p.Z, n.Z))
}

// rgb is a linear color.
type rgb [3]float32

func (a rgb) mul(b rgb) rgb       { return rgb{a[0] * b[0], a[1] * b[1], a[2] * b[2]} }
func (a rgb) add(b rgb) rgb       { return rgb{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a rgb) scale(s float32) rgb { return rgb{a[0] * s, a[1] * s, a[2] * s} }
func (a rgb) maxComp() float32    { return max(a[0], a[1], a[2]) }
func (a rgb) isBlack() bool       { return a[0] == 0 && a[1] == 0 && a[2] == 0 }
func (a rgb) finite() bool {
	for _, v := range a {
		if v-v != 0 {
			return false
		}
	}
	return true
}
