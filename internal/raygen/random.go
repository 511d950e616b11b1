package raygen

import (
	"math"
	"math/rand/v2"

	"github.com/raypipe/raypipe/vec"
)

// seedStream is the second PCG word; it only makes raygen's streams differ
// from other users of rand.NewPCG(seed, 0).
const seedStream = 0x7261796765e

// newRand returns the deterministic source of the generators for seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seedStream)) }

// unitVector returns a uniformly distributed unit vector.
func unitVector(r *rand.Rand) vec.Vec3 {
	z := 2*r.Float64() - 1
	phi := 2 * math.Pi * r.Float64()
	s := math.Sqrt(max(0, 1-z*z))
	return vec.V3(float32(s*math.Cos(phi)), float32(s*math.Sin(phi)), float32(z))
}

// Incoherent returns n rays with origins uniformly distributed inside b and
// uniformly distributed unit directions, TMin 0 and TMax +Inf: the worst case
// for coherence, like diffuse bounces.
func Incoherent(b Bounds, n int, seed uint64) []Ray {
	r := newRand(seed)
	ext := b.Max.Sub(b.Min)
	rays := make([]Ray, n)
	for i := range rays {
		o := vec.V3(
			b.Min.X+ext.X*r.Float32(),
			b.Min.Y+ext.Y*r.Float32(),
			b.Min.Z+ext.Z*r.Float32(),
		)
		// Rounding can push the origin a hair past Max; keep it inside.
		o = o.Min(b.Max).Max(b.Min)
		rays[i] = Ray{Origin: o, Dir: unitVector(r), TMax: inf32}
	}
	return rays
}
