package accel

// leafRows lays the triangles of every leaf out as structure-of-arrays
// rows for the vector leaf test (leafCandidates, GOEXPERIMENT=simd): the
// leaf with slots [first, first+n) owns rows[9*first : 9*(first+n)], row
// 3*vertex+axis holding that component of that vertex for its n
// triangles, so one load fetches a component for a whole leaf (at most
// maxLeafCount = 8 triangles, one 8-lane vector). Because leaves cover the
// slots exactly, the rows take 36 bytes per triangle, as tris does; 8
// floats of padding at the end let a load read past the last leaf (the
// extra lanes are masked off).
//
// Only builds with the vector walks keep rows (simdAvailable); others get
// nil.
func leafRows(nodes []node, tris []triVerts) []float32 {
	if !simdAvailable || len(tris) == 0 {
		return nil
	}
	rows := make([]float32, 9*len(tris)+8)
	parallelChunks(splitWork(len(nodes)), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			n := &nodes[i]
			if !n.isLeaf() {
				continue
			}
			first, cnt := int(n.first), int(n.count)
			block := rows[9*first : 9*(first+cnt)]
			for k, t := range tris[first : first+cnt] {
				for v := range 3 {
					c := comps(&t[v])
					for a := range 3 {
						block[(3*v+a)*cnt+k] = c[a]
					}
				}
			}
		}
	})
	return rows
}
