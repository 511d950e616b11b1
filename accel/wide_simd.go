//go:build goexperiment.simd && amd64

package accel

import "simd/archsimd"

// useSIMD selects hit4SIMD for rays whose slab distances cannot be NaN.
// It gives the same answers as the scalar loop (VMAXPS/VMINPS differ from
// min/max only on NaN and the sign of zero, which no comparison sees).
var useSIMD = archsimd.X86.AVX()

func (r *rayBox) hit4SIMD(n *node4, tMin, tMax float32, near *[4]float32) uint {
	ox := archsimd.BroadcastFloat32x4(r.org.X)
	oy := archsimd.BroadcastFloat32x4(r.org.Y)
	oz := archsimd.BroadcastFloat32x4(r.org.Z)
	ix := archsimd.BroadcastFloat32x4(r.inv.X)
	iy := archsimd.BroadcastFloat32x4(r.inv.Y)
	iz := archsimd.BroadcastFloat32x4(r.inv.Z)
	b := &n.b
	tnx := archsimd.LoadFloat32x4(&b[r.nearX]).Sub(ox).Mul(ix)
	tny := archsimd.LoadFloat32x4(&b[r.nearY]).Sub(oy).Mul(iy)
	tnz := archsimd.LoadFloat32x4(&b[r.nearZ]).Sub(oz).Mul(iz)
	tfx := archsimd.LoadFloat32x4(&b[r.nearX^1]).Sub(ox).Mul(ix)
	tfy := archsimd.LoadFloat32x4(&b[r.nearY^1]).Sub(oy).Mul(iy)
	tfz := archsimd.LoadFloat32x4(&b[r.nearZ^1]).Sub(oz).Mul(iz)
	nr := archsimd.BroadcastFloat32x4(tMin).Max(tnx).Max(tny).Max(tnz)
	fr := archsimd.BroadcastFloat32x4(tMax).Min(tfx).Min(tfy).Min(tfz)
	nr.Store(near)
	return uint(nr.LessEqual(fr.Mul(archsimd.BroadcastFloat32x4(robustScale))).ToBits())
}
