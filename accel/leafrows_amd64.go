//go:build !purego

package accel

import "unsafe"

// leafRowsFast says whether putLeafRows and refitLeaf lay out a leaf's
// rows with leafRowsAVX: wherever the processor has AVX2. Tests turn it
// off to compare with the Go loops.
var leafRowsFast = haveAVX2

// leafRowsAVX writes the coordinate rows (0 to 8) of the leaf of the n
// triangles at tris (1 to maxLeafCount of them) to rows, as putLeafRows' Go
// loop does, touching nothing past them; then, if every coordinate is
// finite, it stores their union's box in *box, as leafBounds folds it
// (Go's min and max bit for bit), and returns true. Else it returns false
// and leaves *box alone. With box nil it only writes the rows (a build's
// leaf rows need no box) and returns true (TestLeafRowsAVXMatchesGo).
//
//go:noescape
func leafRowsAVX(tris *triVerts, n int, rows *float32, box *AABB) (finite bool)

// The assembly hard-codes the AABB's layout.
var _ = [1]struct{}{}[unsafe.Sizeof(AABB{})-24]
