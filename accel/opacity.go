package accel

// OpaqueTrianglesOnly reports whether every active instance of t holds
// only triangle geometry that is opaque (by geometry flag or
// InstanceForceOpaque, and no InstanceForceNonOpaque). Then, for rays
// without RAY_FLAG_FORCE_NON_OPAQUE, a traversal never stops at a
// candidate, and Intersect gives exactly what a Traversal would commit.
func (t *TLAS) OpaqueTrianglesOnly() bool { return t.opaqueOnly }

// deriveOpacity recomputes opaqueOnly after a build, update or
// deserialization.
func (t *TLAS) deriveOpacity() {
	t.opaqueOnly = true
	for i := range t.instances {
		in := &t.instances[i]
		if !in.active() {
			continue
		}
		if in.blas.typ != GeometryTriangles || in.flags&InstanceForceNonOpaque != 0 {
			t.opaqueOnly = false
			return
		}
		if in.flags&InstanceForceOpaque != 0 {
			continue
		}
		for _, g := range in.blas.geoms {
			if g.flags&GeometryOpaque == 0 {
				t.opaqueOnly = false
				return
			}
		}
	}
}
