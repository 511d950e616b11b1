package accel

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// VertexFormat is the DXGI format of a triangle vertex position
// (D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC.VertexFormat).
type VertexFormat uint8

const (
	// FormatR32G32B32Float: three float32 components.
	FormatR32G32B32Float VertexFormat = iota
	// FormatR32G32Float: two float32 components; the third is 0.
	FormatR32G32Float
	// FormatR16G16Float: two float16 components; the third is 0.
	FormatR16G16Float
	// FormatR16G16B16A16Float: four float16 components; A is ignored.
	FormatR16G16B16A16Float
)

// Size returns the bytes one vertex of format f occupies.
func (f VertexFormat) Size() int {
	switch f {
	case FormatR32G32B32Float:
		return 12
	case FormatR32G32Float:
		return 8
	case FormatR16G16Float:
		return 4
	case FormatR16G16B16A16Float:
		return 8
	}
	return 0
}

func (f VertexFormat) String() string {
	switch f {
	case FormatR32G32B32Float:
		return "R32G32B32_FLOAT"
	case FormatR32G32Float:
		return "R32G32_FLOAT"
	case FormatR16G16Float:
		return "R16G16_FLOAT"
	case FormatR16G16B16A16Float:
		return "R16G16B16A16_FLOAT"
	}
	return "unknown vertex format"
}

// IndexFormat is the format of a triangle index buffer.
type IndexFormat uint8

const (
	// IndexNone: no index buffer; vertices 3i, 3i+1, 3i+2 form triangle i.
	IndexNone IndexFormat = iota
	// IndexUint16: 16-bit little-endian indices (DXGI_FORMAT_R16_UINT).
	IndexUint16
	// IndexUint32: 32-bit little-endian indices (DXGI_FORMAT_R32_UINT).
	IndexUint32
)

// GeometryType says whether a Geometry holds triangles or procedural AABBs.
type GeometryType uint8

const (
	GeometryTriangles GeometryType = iota
	GeometryProceduralAABBs
)

// Triangles describes triangle geometry as in
// D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC: raw vertex and index bytes with
// their formats, a vertex stride and an optional 3x4 transform applied to
// the vertices in object space.
type Triangles struct {
	VertexBuffer []byte
	VertexFormat VertexFormat
	VertexStride int // bytes between vertices; 0 means tightly packed
	VertexCount  int
	IndexBuffer  []byte // nil with IndexNone
	IndexFormat  IndexFormat
	IndexCount   int // multiple of 3; with IndexNone, VertexCount is used
	Transform    *vec.Mat3x4
}

// AABB is D3D12_RAYTRACING_AABB.
type AABB struct {
	Min, Max vec.Vec3
}

// AABBs describes procedural primitives as in
// D3D12_RAYTRACING_GEOMETRY_AABBS_DESC: Count boxes of six float32 each
// (MinX, MinY, MinZ, MaxX, MaxY, MaxZ) at Stride bytes apart.
type AABBs struct {
	Buffer []byte
	Stride int // bytes between boxes; 0 means 24 (tightly packed)
	Count  int
}

// Geometry is one D3D12_RAYTRACING_GEOMETRY_DESC.
type Geometry struct {
	Type      GeometryType
	Flags     GeometryFlags
	Triangles Triangles
	AABBs     AABBs
}

// TriangleGeometry returns an opaque triangle geometry over float32
// positions and 32-bit indices (nil indices: non-indexed).
func TriangleGeometry(positions []vec.Vec3, indices []uint32) Geometry {
	// Large meshes are converted in parallel chunks: callers time this
	// with the build, and it is otherwise a serial pass over every vertex
	// and index.
	vb := make([]byte, 12*len(positions))
	parallelWork(len(positions), workGrain, func(_, lo, hi int) { putPositions(vb[12*lo:12*hi], positions[lo:hi]) })
	t := Triangles{VertexBuffer: vb, VertexFormat: FormatR32G32B32Float, VertexStride: 12, VertexCount: len(positions)}
	if indices != nil {
		ib := make([]byte, 4*len(indices))
		parallelWork(len(indices), workGrain, func(_, lo, hi int) {
			for i, x := range indices[lo:hi] {
				binary.LittleEndian.PutUint32(ib[4*(lo+i):], x)
			}
		})
		t.IndexBuffer, t.IndexFormat, t.IndexCount = ib, IndexUint32, len(indices)
	}
	return Geometry{Type: GeometryTriangles, Flags: GeometryOpaque, Triangles: t}
}

// AABBGeometry returns an opaque procedural geometry over boxes.
func AABBGeometry(boxes []AABB) Geometry {
	b := make([]byte, 24*len(boxes))
	for i, x := range boxes {
		for j, f := range [6]float32{x.Min.X, x.Min.Y, x.Min.Z, x.Max.X, x.Max.Y, x.Max.Z} {
			binary.LittleEndian.PutUint32(b[24*i+4*j:], math.Float32bits(f))
		}
	}
	return Geometry{Type: GeometryProceduralAABBs, Flags: GeometryOpaque, AABBs: AABBs{Buffer: b, Stride: 24, Count: len(boxes)}}
}

// maxPrimitives bounds the primitives of one geometry and of one build, so
// that claimed counts are rejected before anything is allocated. Primitive
// indices must also fit the 32-bit PrimitiveIndex().
const maxPrimitives = 1 << 28

// maxStride bounds vertex and AABB strides: the spec's StrideInBytes "only
// the bottom 32 bits get used". It also keeps count*stride far from int64
// overflow, which would otherwise let a huge stride pass the buffer size
// check and index out of range.
const maxStride = 1<<32 - 1

// decodedGeometry is a validated geometry with its object-space primitives.
type decodedGeometry struct {
	typ   GeometryType
	flags GeometryFlags
	tris  []triVerts // object space (after the geometry transform), index order
	boxes []AABB
	// hasTransform records whether Transform was non-nil, for update checks.
	hasTransform bool
	vertexFormat VertexFormat
	indexFormat  IndexFormat
	vertexCount  int
	indexCount   int
	indexHash    uint64
	// release releases tris where they are a tempSlice (see decodeAll).
	release func()
}

// triVerts is one triangle's three vertices in their original order.
type triVerts [3]vec.Vec3

func (g *decodedGeometry) primCount() int {
	if g.typ == GeometryTriangles {
		return len(g.tris)
	}
	return len(g.boxes)
}

// decodeGeometry validates g and converts it to object-space primitives.
func decodeGeometry(i int, g *Geometry, temp bool) (decodedGeometry, error) {
	where := "geometry " + strconv.Itoa(i)
	if g.Flags&^(GeometryOpaque|GeometryNoDuplicateAnyHitInvocation) != 0 {
		return decodedGeometry{}, inputErr(where, "Flags", "unknown bits %#x", uint32(g.Flags))
	}
	switch g.Type {
	case GeometryTriangles:
		return decodeTriangles(where, g, temp)
	case GeometryProceduralAABBs:
		return decodeAABBs(where, g)
	}
	return decodedGeometry{}, inputErr(where, "Type", "unknown geometry type %d", g.Type)
}

// decodeTriangles is decodeGeometry for triangles. With temp the
// triangles' array is a tempSlice (decodeAll's callers release it): a
// build fills it in parallel chunks and drops it once its slots hold
// their copies.
func decodeTriangles(where string, g *Geometry, temp bool) (decodedGeometry, error) {
	var arr decodedGeometry // the triangles' array, allocated while the indices are checked
	src, d, err := prepareTriangles(where, g, func(n int) { arr.allocTris(n, temp) })
	if err != nil {
		releaseDecoded([]decodedGeometry{arr})
		return decodedGeometry{}, err
	}
	d.tris, d.release = arr.tris, arr.release
	src.fetch(d.tris, nil)
	return d, nil
}

// triSource is a triangle geometry that prepareTriangles has validated
// (formats, stride, counts, the buffers' sizes, the transform, and every
// index against the vertex count), whose triangles fetch reads.
type triSource struct {
	t      *Triangles
	stride int        // bytes from a vertex to the next
	isize  int        // bytes an index, 0 without an index buffer
	xf     vec.Mat3x4 // the transform, where t has one
}

// prepareTriangles validates g's triangles and returns their source and
// their decodedGeometry without triangles (its descriptive fields and
// index hash set). alloc, unless nil, is called with the triangle count
// once it is known, alongside the indices' check and hash where there is
// an index buffer (a build allocates the triangles' array then).
func prepareTriangles(where string, g *Geometry, alloc func(n int)) (triSource, decodedGeometry, error) {
	t := &g.Triangles
	src := triSource{t: t}
	d := decodedGeometry{typ: GeometryTriangles, flags: g.Flags, hasTransform: t.Transform != nil,
		vertexFormat: t.VertexFormat, indexFormat: t.IndexFormat, vertexCount: t.VertexCount, indexCount: t.IndexCount}
	vsize := t.VertexFormat.Size()
	if vsize == 0 {
		return src, d, inputErr(where, "VertexFormat", "unsupported format %d", t.VertexFormat)
	}
	stride := t.VertexStride
	if stride == 0 {
		stride = vsize
	}
	if stride < 0 || int64(stride) > maxStride {
		return src, d, inputErr(where, "VertexStride", "%d out of range [0, 2^32)", t.VertexStride)
	}
	if stride%2 != 0 || (t.VertexFormat <= FormatR32G32Float && stride%4 != 0) {
		return src, d, inputErr(where, "VertexStride", "%d is not a multiple of the %s component size", t.VertexStride, t.VertexFormat)
	}
	src.stride = stride
	if t.VertexCount < 0 || t.VertexCount > maxPrimitives*3 {
		return src, d, inputErr(where, "VertexCount", "%d out of range", t.VertexCount)
	}
	if t.VertexCount > 0 {
		need := int64(t.VertexCount-1)*int64(stride) + int64(vsize)
		if need > int64(len(t.VertexBuffer)) {
			return src, d, inputErr(where, "VertexBuffer", "%d vertices at stride %d need %d bytes, have %d", t.VertexCount, stride, need, len(t.VertexBuffer))
		}
	}
	if t.Transform != nil {
		src.xf = *t.Transform
		if !src.xf.IsFinite() {
			return src, d, inputErr(where, "Transform", "not finite: %v", src.xf)
		}
	}
	if alloc == nil {
		alloc = func(int) {}
	}
	switch t.IndexFormat {
	case IndexNone:
		if t.VertexCount%3 != 0 {
			return src, d, inputErr(where, "VertexCount", "%d is not a multiple of 3 (no index buffer)", t.VertexCount)
		}
		alloc(t.VertexCount / 3)
	case IndexUint16, IndexUint32:
		src.isize = 2
		if t.IndexFormat == IndexUint32 {
			src.isize = 4
		}
		if t.IndexCount < 0 || t.IndexCount%3 != 0 || t.IndexCount > maxPrimitives*3 {
			return src, d, inputErr(where, "IndexCount", "%d is not a multiple of 3 in range", t.IndexCount)
		}
		if int64(t.IndexCount)*int64(src.isize) > int64(len(t.IndexBuffer)) {
			return src, d, inputErr(where, "IndexBuffer", "%d indices need %d bytes, have %d", t.IndexCount, t.IndexCount*src.isize, len(t.IndexBuffer))
		}
		n := t.IndexCount / 3
		// The triangles' array is allocated while the indices are checked
		// and hashed.
		allocated := goAlloc(n >= asyncAlloc, func() { alloc(n) })
		h, bad := hashIndices(t.IndexBuffer, src.isize, t.IndexCount, t.VertexCount)
		<-allocated
		if bad >= 0 {
			return src, d, inputErr(where, "IndexBuffer", "index %d (position %d) out of range (vertex count %d)", src.index(bad), bad, t.VertexCount)
		}
		d.indexHash = h
	default:
		return src, d, inputErr(where, "IndexFormat", "unsupported format %d", t.IndexFormat)
	}
	return src, d, nil
}

// index returns index k of s's index buffer.
func (s *triSource) index(k int) int { return int(readIndex(s.t.IndexBuffer, s.isize, k)) }

// readIndex returns index k of the index buffer ib of isize-byte
// (2 or 4) little-endian indices.
func readIndex(ib []byte, isize, k int) uint32 {
	if isize == 2 {
		return uint32(binary.LittleEndian.Uint16(ib[2*k:]))
	}
	return binary.LittleEndian.Uint32(ib[4*k:])
}

// vertex returns vertex v of s in object space (after the transform).
func (s *triSource) vertex(v int) vec.Vec3 {
	p := readVertex(s.t.VertexBuffer[v*s.stride:], s.t.VertexFormat)
	if s.t.Transform != nil {
		p = s.xf.TransformPoint(p)
	}
	return p
}

// fetch sets out[i] to triangle order[i] of s (triangle i where order is
// nil), in parallel chunks: decoding fetches them in index order, an
// update straight into its slots, in their order.
func (s *triSource) fetch(out []triVerts, order []uint32) {
	t := s.t
	if t.VertexFormat == FormatR32G32B32Float && t.Transform == nil && s.isize == 4 {
		// The common layout, fetched without the per-vertex closures
		// and format switch (the same bits: each component is read as
		// readVertex reads it).
		fetchR32x3U32(out, t.VertexBuffer, t.IndexBuffer, s.stride, order)
		return
	}
	parallelWork(len(out), workGrain, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p := orderAt(order, i)
			if s.isize == 0 {
				out[i] = triVerts{s.vertex(3 * p), s.vertex(3*p + 1), s.vertex(3*p + 2)}
			} else {
				out[i] = triVerts{s.vertex(s.index(3 * p)), s.vertex(s.index(3*p + 1)), s.vertex(s.index(3*p + 2))}
			}
		}
	})
}

// allocTris allocates n triangles for d.tris: zeros, or with temp a
// tempSlice of unspecified contents, which decode overwrites whole.
func (d *decodedGeometry) allocTris(n int, temp bool) {
	if !temp {
		d.tris = make([]triVerts, n)
		return
	}
	d.tris, d.release = tempSlice[triVerts](n)
}

// hashIndices checks the n indices of isize bytes in ib against the vertex
// count and hashes them (the BLAS keeps the hash, so that an update can
// tell that the index buffer did not change): each block of
// indexHashBlock indices hashed by hashIndexBlock, and FNV-1a over the
// blocks' hashes in order. The blocks are checked and hashed in parallel
// chunks; bad is the first position of an index out of range, or -1.
func hashIndices(ib []byte, isize, n, vertexCount int) (h uint64, bad int) {
	blocks := make([]uint64, (n+indexHashBlock-1)/indexHashBlock)
	bads := make([]int, len(blocks))
	parallelWork(len(blocks), indexHashChunk, func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			k0, k1 := b*indexHashBlock, min(n, (b+1)*indexHashBlock)
			blocks[b], bads[b] = hashIndexBlock(ib, isize, k0, k1, vertexCount)
		}
	})
	h = fnvOffset
	for b, bh := range blocks {
		if bads[b] >= 0 {
			return 0, bads[b]
		}
		h = (h ^ bh) * fnvPrime
	}
	return h, -1
}

// FNV-1a's 64-bit constants.
const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

// hashLanes is the number of FNV-1a chains a block's hash interleaves.
const hashLanes = 4

// hashIndexBlock hashes indices [k0, k1) of ib and returns the first
// position among them of an index of vertexCount or more, or -1: FNV-1a
// over the indices in each of hashLanes lanes (index k of the block in
// lane k mod hashLanes), then FNV-1a over the lanes' hashes. Four chains
// of a multiplication each keep the multiplier busy where one chain waits
// on each product in turn (a fifth of a 10k-triangle update hashed with
// one; format version 3). The loop keeps only the largest index; a block
// whose largest is out of range is scanned again for the first.
func hashIndexBlock(ib []byte, isize, k0, k1, vertexCount int) (h uint64, bad int) {
	lanes := [hashLanes]uint64{fnvOffset, fnvOffset, fnvOffset, fnvOffset}
	var top uint32
	k := k0
	if isize == 4 {
		n := (k1 - k0) &^ (hashLanes - 1)
		top = hashLanes32(ib[4*k0:4*(k0+n)], &lanes)
		k = k0 + n
	}
	for ; k < k1; k++ {
		x := readIndex(ib, isize, k)
		top = max(top, x)
		j := (k - k0) % hashLanes
		lanes[j] = (lanes[j] ^ uint64(x)) * fnvPrime
	}
	h = fnvOffset
	for _, l := range lanes {
		h = (h ^ l) * fnvPrime
	}
	if int64(top) < int64(vertexCount) {
		return h, -1
	}
	for k := k0; k < k1; k++ {
		if int64(readIndex(ib, isize, k)) >= int64(vertexCount) {
			return h, k
		}
	}
	return h, -1 // not reached
}

// hashLanes32 is hashIndexBlock's loop over 32-bit indices b, four at a
// time, a lane each (a function of its own, so that the lanes stay in
// registers): it returns the largest index.
func hashLanes32(b []byte, lanes *[hashLanes]uint64) (top uint32) {
	le := binary.LittleEndian
	h0, h1, h2, h3 := lanes[0], lanes[1], lanes[2], lanes[3]
	var t0, t1, t2, t3 uint32 // each lane's largest: four short chains
	for ; len(b) >= 16; b = b[16:] {
		q := (*[16]byte)(b) // one bounds check for four indices
		x0, x1, x2, x3 := le.Uint32(q[0:]), le.Uint32(q[4:]), le.Uint32(q[8:]), le.Uint32(q[12:])
		t0, t1, t2, t3 = max(t0, x0), max(t1, x1), max(t2, x2), max(t3, x3)
		h0 = (h0 ^ uint64(x0)) * fnvPrime
		h1 = (h1 ^ uint64(x1)) * fnvPrime
		h2 = (h2 ^ uint64(x2)) * fnvPrime
		h3 = (h3 ^ uint64(x3)) * fnvPrime
	}
	*lanes = [hashLanes]uint64{h0, h1, h2, h3}
	return max(t0, t1, t2, t3)
}

// indexHashBlock is the number of indices hashed as one block: the hash
// does not depend on how the blocks are split among goroutines.
// indexHashChunk is the number of blocks hashIndices takes per chunk at
// least (where GOMAXPROCS leaves each more).
const (
	indexHashBlock = 1 << 13
	indexHashChunk = 2
)

// orderAt returns order[i], or i where order is nil (fetch's orders).
func orderAt(order []uint32, i int) int {
	if order == nil {
		return i
	}
	return int(order[i])
}

// fetchR32x3U32 sets tris[i] to triangle order[i] (triangle i where
// order is nil) from three float32 components per vertex at stride bytes
// and 32-bit little-endian indices (already validated), in parallel
// chunks.
func fetchR32x3U32(tris []triVerts, vb, ib []byte, stride int, order []uint32) {
	if len(tris) == 0 {
		return
	}
	if nativeLittleEndian && stride%4 == 0 &&
		uintptr(unsafe.Pointer(&vb[0]))%4 == 0 && uintptr(unsafe.Pointer(&ib[0]))%4 == 0 {
		fetchR32x3U32Native(tris, vb, ib, stride, order)
		return
	}
	le := binary.LittleEndian
	parallelWork(len(tris), workGrain, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			p := orderAt(order, i)
			idx := ib[12*p : 12*p+12]
			var tv triVerts
			for j := range tv {
				v := int(le.Uint32(idx[4*j:])) * stride
				b := vb[v : v+12]
				tv[j] = vec.V3(math.Float32frombits(le.Uint32(b)), math.Float32frombits(le.Uint32(b[4:])), math.Float32frombits(le.Uint32(b[8:])))
			}
			tris[i] = tv
		}
	})
}

// fetchR32x3U32Native is fetchR32x3U32 on a little-endian machine, for
// buffers aligned to their 4-byte words: the indices and the vertices'
// components read in place, as the machine stores them (the same bits),
// without a bounds check per vertex, which decoding's validation of the
// indices against the vertex count and of the buffer's size against
// them makes needless. The checked loop took about twice as long
// (BenchmarkUpdate's 1M terrain spent a third of an update in it). On
// amd64 the assembly copies (fetchAsm).
func fetchR32x3U32Native(tris []triVerts, vb, ib []byte, stride int, order []uint32) {
	idx := unsafe.Slice((*[3]uint32)(unsafe.Pointer(&ib[0])), len(ib)/12)
	base := unsafe.Pointer(&vb[0])
	nv := (len(vb) - 12) / stride // the last whole vertex
	if nv < 0 {
		panic("accel: no whole vertex in the vertex buffer after validation")
	}
	last := uint32(min(uint64(nv), math.MaxUint32))
	parallelWork(len(tris), workGrain, func(_, lo, hi int) {
		if fetchAsm {
			ord, from := (*uint32)(nil), &idx[0][0]
			if order != nil {
				ord = &order[lo]
			} else {
				from = &idx[lo][0]
			}
			if !fetchR32x3U32Asm(&tris[lo], hi-lo, base, stride, from, ord, last) {
				panic("accel: vertex index beyond the vertex buffer after validation")
			}
			return
		}
		for i := lo; i < hi; i++ {
			p := orderAt(order, i)
			t := idx[p]
			// The last vertex any index may name must end inside vb:
			// decoding checked it, this keeps the unchecked reads honest
			// if it ever did not.
			if int(max(t[0], t[1], t[2])) > nv {
				panic("accel: vertex index beyond the vertex buffer after validation")
			}
			out := &tris[i]
			out[0] = *(*vec.Vec3)(unsafe.Add(base, int(t[0])*stride))
			out[1] = *(*vec.Vec3)(unsafe.Add(base, int(t[1])*stride))
			out[2] = *(*vec.Vec3)(unsafe.Add(base, int(t[2])*stride))
		}
	})
}

// SetPositions writes positions into g's vertex buffer, laid out as
// TriangleGeometry lays them out (FormatR32G32B32Float, 12 bytes a
// vertex), for a program that moves a mesh's vertices and updates its BLAS
// from the same geometry (BLAS.Update), its index buffer kept. It returns
// an *InputError, and writes nothing, where g is not such a geometry or
// positions has another count of vertices.
func (g *Geometry) SetPositions(positions []vec.Vec3) error {
	t := &g.Triangles
	switch {
	case g.Type != GeometryTriangles:
		return inputErr("Geometry.SetPositions", "Type", "not a triangle geometry")
	case t.VertexFormat != FormatR32G32B32Float || (t.VertexStride != 12 && t.VertexStride != 0):
		return inputErr("Geometry.SetPositions", "VertexFormat", "vertices are not 12-byte FormatR32G32B32Float (stride %d)", t.VertexStride)
	case len(positions) != t.VertexCount || len(t.VertexBuffer) != 12*t.VertexCount:
		return inputErr("Geometry.SetPositions", "positions", "%d positions for %d vertices in a buffer of %d bytes", len(positions), t.VertexCount, len(t.VertexBuffer))
	}
	putPositions(t.VertexBuffer, positions)
	return nil
}

// putPositions writes positions into vb, 12 bytes a vertex in
// FormatR32G32B32Float: one copy of their bytes on a little-endian
// machine, else component by component.
func putPositions(vb []byte, positions []vec.Vec3) {
	_ = [1]struct{}{}[unsafe.Sizeof(vec.Vec3{})-12] // three float32s, no padding
	if nativeLittleEndian {
		copy(vb, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(positions))), 12*len(positions)))
		return
	}
	for i, p := range positions {
		b := vb[12*i:]
		binary.LittleEndian.PutUint32(b, math.Float32bits(p.X))
		binary.LittleEndian.PutUint32(b[4:], math.Float32bits(p.Y))
		binary.LittleEndian.PutUint32(b[8:], math.Float32bits(p.Z))
	}
}

// nativeLittleEndian reports whether this machine stores words little end
// first, as the buffers' formats are defined.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func decodeAABBs(where string, g *Geometry) (decodedGeometry, error) {
	a := &g.AABBs
	d := decodedGeometry{typ: GeometryProceduralAABBs, flags: g.Flags}
	stride := a.Stride
	if stride == 0 {
		stride = 24
	}
	if stride < 0 || int64(stride) > maxStride {
		return d, inputErr(where, "AABBs.Stride", "%d out of range [0, 2^32)", a.Stride)
	}
	if stride%4 != 0 {
		return d, inputErr(where, "AABBs.Stride", "%d is not a multiple of 4", a.Stride)
	}
	if a.Count < 0 || a.Count > maxPrimitives {
		return d, inputErr(where, "AABBs.Count", "%d out of range", a.Count)
	}
	if a.Count > 0 {
		need := int64(a.Count-1)*int64(stride) + 24
		if need > int64(len(a.Buffer)) {
			return d, inputErr(where, "AABBs.Buffer", "%d boxes at stride %d need %d bytes, have %d", a.Count, stride, need, len(a.Buffer))
		}
	}
	d.boxes = make([]AABB, a.Count)
	for i := range d.boxes {
		b := a.Buffer[i*stride:]
		f := func(k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])) }
		d.boxes[i] = AABB{vec.V3(f(0), f(1), f(2)), vec.V3(f(3), f(4), f(5))}
	}
	return d, nil
}

// readVertex decodes one vertex position. Formats with two components get
// z = 0; the fourth component of R16G16B16A16_FLOAT is ignored.
func readVertex(b []byte, f VertexFormat) vec.Vec3 {
	le := binary.LittleEndian
	switch f {
	case FormatR32G32B32Float:
		return vec.V3(math.Float32frombits(le.Uint32(b)), math.Float32frombits(le.Uint32(b[4:])), math.Float32frombits(le.Uint32(b[8:])))
	case FormatR32G32Float:
		return vec.V3(math.Float32frombits(le.Uint32(b)), math.Float32frombits(le.Uint32(b[4:])), 0)
	case FormatR16G16Float:
		return vec.V3(Float16(le.Uint16(b)), Float16(le.Uint16(b[2:])), 0)
	case FormatR16G16B16A16Float:
		return vec.V3(Float16(le.Uint16(b)), Float16(le.Uint16(b[2:])), Float16(le.Uint16(b[4:])))
	}
	return vec.Vec3{}
}

// Float16 converts an IEEE 754 binary16 value to float32 exactly.
func Float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(man) / (1 << 24) // subnormal: man * 2^-24
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// Float16Bits converts a float32 to the nearest binary16 (round to nearest
// even), for callers that build R16 vertex buffers.
func Float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := man >> shift
		rem := man & (1<<shift - 1)
		if rem > half || (rem == half && r&1 != 0) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 != 0) {
		r++
	}
	return sign | uint16(r)
}
