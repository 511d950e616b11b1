package scene

import (
	"fmt"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/raypipe/raypipe/vec"
)

// mesh converts document mesh i and returns its scene index, or -1 when
// it has no triangle primitive.
func (c *gltfConv) mesh(i int, gm *gltf.Mesh) (int, error) {
	if gm == nil {
		return 0, fmt.Errorf("mesh %d: null", i)
	}
	m := Mesh{Name: gm.Name}
	if m.Name == "" {
		m.Name = fmt.Sprintf("mesh%d", i)
	}
	for pi, gp := range gm.Primitives {
		if gp == nil {
			return 0, fmt.Errorf("mesh %d (%q) primitive %d: null", i, gm.Name, pi)
		}
		p, ok, err := c.primitive(gp)
		if err != nil {
			return 0, fmt.Errorf("mesh %d (%q) primitive %d: %w", i, gm.Name, pi, err)
		}
		if !ok {
			c.warnf("mesh %d (%q) primitive %d: mode %v skipped (not triangles)", i, gm.Name, pi, gp.Mode)
			continue
		}
		if len(p.Indices) > 0 {
			m.Primitives = append(m.Primitives, p)
		}
	}
	if len(m.Primitives) == 0 {
		return -1, nil
	}
	c.s.Meshes = append(c.s.Meshes, m)
	return len(c.s.Meshes) - 1, nil
}

func (c *gltfConv) primitive(gp *gltf.Primitive) (p Primitive, ok bool, err error) {
	switch gp.Mode {
	case gltf.PrimitiveTriangles, gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
	default:
		return p, false, nil
	}
	p.Material = -1
	if gp.Material != nil {
		if *gp.Material < 0 || *gp.Material >= len(c.s.Materials) {
			return p, false, fmt.Errorf("material %d out of range (%d materials)", *gp.Material, len(c.s.Materials))
		}
		p.Material = *gp.Material
	}
	pa, ok := gp.Attributes[gltf.POSITION]
	if !ok {
		return p, false, fmt.Errorf("no POSITION attribute")
	}
	acc, err := c.accessor(pa, "POSITION")
	if err != nil {
		return p, false, err
	}
	pos, err := modeler.ReadPosition(c.doc, acc, nil)
	if err != nil {
		return p, false, fmt.Errorf("POSITION accessor %d: %w", pa, err)
	}
	n := len(pos)
	p.Positions = make([]vec.Vec3, n)
	for i, v := range pos {
		p.Positions[i] = vec.Vec3{X: v[0], Y: v[1], Z: v[2]}
		if !p.Positions[i].IsFinite() {
			return p, false, fmt.Errorf("POSITION %d = %v not finite", i, p.Positions[i])
		}
	}
	if ai, ok := gp.Attributes[gltf.NORMAL]; ok {
		acc, err := c.accessor(ai, "NORMAL")
		if err != nil {
			return p, false, err
		}
		if acc.Count != n {
			return p, false, fmt.Errorf("NORMAL accessor %d has %d elements, POSITION %d", ai, acc.Count, n)
		}
		nor, err := modeler.ReadNormal(c.doc, acc, nil)
		if err != nil {
			return p, false, fmt.Errorf("NORMAL accessor %d: %w", ai, err)
		}
		p.Normals = make([]vec.Vec3, n)
		for i, v := range nor {
			p.Normals[i] = vec.Vec3{X: v[0], Y: v[1], Z: v[2]}
		}
	}
	if ai, ok := gp.Attributes[gltf.TEXCOORD_0]; ok {
		acc, err := c.accessor(ai, "TEXCOORD_0")
		if err != nil {
			return p, false, err
		}
		if acc.Count != n {
			return p, false, fmt.Errorf("TEXCOORD_0 accessor %d has %d elements, POSITION %d", ai, acc.Count, n)
		}
		if p.UVs, err = modeler.ReadTextureCoord(c.doc, acc, nil); err != nil {
			return p, false, fmt.Errorf("TEXCOORD_0 accessor %d: %w", ai, err)
		}
	}
	var idx []uint32
	if gp.Indices != nil {
		acc, err := c.accessor(*gp.Indices, "indices")
		if err != nil {
			return p, false, err
		}
		if idx, err = modeler.ReadIndices(c.doc, acc, nil); err != nil {
			return p, false, fmt.Errorf("indices accessor %d: %w", *gp.Indices, err)
		}
		for i, x := range idx {
			if int64(x) >= int64(n) {
				return p, false, fmt.Errorf("index %d = %d out of range (%d vertices)", i, x, n)
			}
		}
	} else {
		idx = make([]uint32, n)
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	if gp.Mode == gltf.PrimitiveTriangles && len(idx)%3 != 0 {
		return p, false, fmt.Errorf("TRIANGLES with %d vertex indices, not a multiple of 3", len(idx))
	}
	p.Indices = triangleList(gp.Mode, idx)
	return p, true, nil
}

// triangleList converts strip and fan index lists to a triangle list, as
// the glTF spec orders their vertices.
func triangleList(mode gltf.PrimitiveMode, idx []uint32) []uint32 {
	switch mode {
	case gltf.PrimitiveTriangleStrip:
		if len(idx) < 3 {
			return nil
		}
		out := make([]uint32, 0, 3*(len(idx)-2))
		for i := 0; i+2 < len(idx); i++ {
			if i%2 == 0 {
				out = append(out, idx[i], idx[i+1], idx[i+2])
			} else {
				out = append(out, idx[i+1], idx[i], idx[i+2])
			}
		}
		return out
	case gltf.PrimitiveTriangleFan:
		if len(idx) < 3 {
			return nil
		}
		out := make([]uint32, 0, 3*(len(idx)-2))
		for i := 1; i+1 < len(idx); i++ {
			out = append(out, idx[i], idx[i+1], idx[0])
		}
		return out
	}
	return idx
}

// accessor returns document accessor i after checking that the data it
// claims fits in its buffer view (and sparse views), so that the reads
// that follow allocate only what the file really holds.
func (c *gltfConv) accessor(i int, what string) (*gltf.Accessor, error) {
	doc := c.doc
	if i < 0 || i >= len(doc.Accessors) || doc.Accessors[i] == nil {
		return nil, fmt.Errorf("%s accessor %d out of range (%d accessors)", what, i, len(doc.Accessors))
	}
	a := doc.Accessors[i]
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s accessor %d: %s", what, i, fmt.Sprintf(format, args...))
	}
	elem := gltf.SizeOfElement(a.ComponentType, a.Type)
	if elem <= 0 || a.ComponentType.ByteSize() == 0 {
		return nil, fail("bad component type %v or type %v", a.ComponentType, a.Type)
	}
	if a.Count < 0 {
		return nil, fail("negative count %d", a.Count)
	}
	if a.BufferView == nil {
		if int64(a.Count) > maxUnbackedAccessorBytes/int64(elem) {
			return nil, fail("count %d without a buffer view exceeds %d bytes", a.Count, maxUnbackedAccessorBytes)
		}
	} else {
		stride, err := c.viewStride(*a.BufferView, elem)
		if err != nil {
			return nil, fail("%v", err)
		}
		if err := c.fits(*a.BufferView, a.ByteOffset, a.Count, elem, stride); err != nil {
			return nil, fail("%v", err)
		}
	}
	if sp := a.Sparse; sp != nil {
		if sp.Count < 0 || sp.Count > a.Count {
			return nil, fail("sparse count %d outside [0, %d]", sp.Count, a.Count)
		}
		is := sp.Indices.ComponentType.ByteSize()
		switch sp.Indices.ComponentType {
		case gltf.ComponentUbyte, gltf.ComponentUshort, gltf.ComponentUint:
		default:
			return nil, fail("sparse indices component type %v", sp.Indices.ComponentType)
		}
		if err := c.fits(sp.Indices.BufferView, sp.Indices.ByteOffset, sp.Count, is, is); err != nil {
			return nil, fail("sparse indices: %v", err)
		}
		if err := c.fits(sp.Values.BufferView, sp.Values.ByteOffset, sp.Count, elem, elem); err != nil {
			return nil, fail("sparse values: %v", err)
		}
	}
	return a, nil
}

// viewStride returns the byte stride of buffer view bv for elements of
// elem bytes.
func (c *gltfConv) viewStride(bv, elem int) (int, error) {
	if bv < 0 || bv >= len(c.doc.BufferViews) || c.doc.BufferViews[bv] == nil {
		return 0, fmt.Errorf("buffer view %d out of range (%d buffer views)", bv, len(c.doc.BufferViews))
	}
	s := c.doc.BufferViews[bv].ByteStride
	if s == 0 {
		return elem, nil
	}
	if s < elem || s > 252 || s%4 != 0 {
		return 0, fmt.Errorf("buffer view %d: byte stride %d invalid for %d-byte elements", bv, s, elem)
	}
	return s, nil
}

// fits checks that count elements of elem bytes, stride apart, starting
// at offset lie within buffer view bv's loaded bytes.
func (c *gltfConv) fits(bv, offset, count, elem, stride int) error {
	if bv < 0 || bv >= len(c.doc.BufferViews) || c.doc.BufferViews[bv] == nil {
		return fmt.Errorf("buffer view %d out of range (%d buffer views)", bv, len(c.doc.BufferViews))
	}
	data, err := modeler.ReadBufferView(c.doc, c.doc.BufferViews[bv])
	if err != nil {
		return fmt.Errorf("buffer view %d: %w", bv, err)
	}
	if offset < 0 || offset > len(data) {
		return fmt.Errorf("byte offset %d outside buffer view %d (%d bytes)", offset, bv, len(data))
	}
	if count == 0 {
		return nil
	}
	// count <= len(data) keeps the product below from overflowing.
	if count > len(data) || int64(offset)+int64(stride)*int64(count-1)+int64(elem) > int64(len(data)) {
		return fmt.Errorf("%d elements of %d bytes (stride %d) at offset %d overrun buffer view %d (%d bytes)", count, elem, stride, offset, bv, len(data))
	}
	return nil
}
