//go:build !amd64 || purego

package accel

// boundsAsm is false off amd64 and in purego builds: the Go loops compute
// bounds.
const boundsAsm = false

func refBounds(refs *bref, n int, box *binBox, cent *centroids) {
	panic("accel: no assembly bounds on this architecture")
}

func binRefsSSE(refs *bref, n, stride int, bn *binning, boxes *[3][maxBins]binBox, counts *[3][maxBins]int32) {
	panic("accel: no assembly binning on this architecture")
}

func triRefsSSE(tris *triVerts, n int, firstID uint32, refs *bref) (inactive int) {
	panic("accel: no assembly bounds on this architecture")
}

func sweepSSE(boxes *[maxBins]binBox, counts *[maxBins]int32, idx *[maxBins]uint8, k int) (split int, cost float32) {
	panic("accel: no assembly sweep on this architecture")
}
