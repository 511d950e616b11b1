//go:build !(goexperiment.simd && amd64)

package accel

// useSIMD is false without GOEXPERIMENT=simd on amd64: the scalar slab
// loop is the default.
const useSIMD = false

func (r *rayBox) hit4SIMD(n *node4, tMin, tMax float32, near *[4]float32) uint {
	panic("unreachable")
}
