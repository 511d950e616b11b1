package accel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/raypipe/raypipe/vec"
)

// Serialization implements COPY_MODE_SERIALIZE and COPY_MODE_DESERIALIZE of
// CopyRaytracingAccelerationStructure. The bytes start with a header in the
// shape of the spec's D3D12_SERIALIZED_RAYTRACING_ACCELERATION_STRUCTURE_
// HEADER, followed by one 64-bit slot per referenced bottom-level structure
// (NumBottomLevelAccelerationStructurePointersAfterHeader of them), followed
// by a body. All integers are little-endian; floats are stored as their
// IEEE bits.
//
//	offset size
//	0      8    magic "RPAS\r\n\x1a\n"
//	8      16   DriverMatchingIdentifier.DriverOpaqueGUID (driverGUID)
//	24     16   DriverMatchingIdentifier.DriverOpaqueVersioningData:
//	            uint32 format version, then 12 zero bytes
//	40     8    SerializedSizeInBytesIncludingHeader (= len(data))
//	48     8    DeserializedSizeInBytes (PostBuildInfo().CompactedSize of
//	            the source without the leaf rows, which only some
//	            architectures, builds and CPUs keep, so that the bytes do
//	            not depend on them; informational)
//	56     8    NumBottomLevelAccelerationStructurePointersAfterHeader (N)
//	64     8*N  bottom-level "pointers": written as 0..N-1; on
//	            deserialization the caller passes the structures instead
//
// The body is a layout-independent representation: geometry or instance
// descriptions, the primitives in leaf-slot order, and the binary node
// array, whose record is the only part that depends on the in-memory node
// layout (encodeNodes/decodeNodes). Format version 3:
//
//	BLAS body: uint32 type (1 = BOTTOM_LEVEL), build flags, geometry type,
//	  geometry count G, slot count S, node count M;
//	  G geometry records of 32 bytes: flags, primitive count, uint8
//	  has-transform, vertex format, index format, 0, vertex count, index
//	  count, uint32 0, uint64 index hash;
//	  S slots: uint32 geometry, uint32 primitive index, then 9 float32
//	  (triangle vertices in original order, after the geometry transform)
//	  or 6 float32 (AABB min, max);
//	  M node records.
//	TLAS body: uint32 type (0 = TOP_LEVEL), build flags, instance count I,
//	  slot count S, node count M, 0;
//	  I instance records of 64 bytes: 12 float32 transform (row-major),
//	  InstanceID, InstanceContributionToHitGroupIndex, uint8 mask, uint8
//	  flags, uint16 0, uint32 bottom-level reference (index into the N
//	  pointers, in first-use order, or 0xFFFFFFFF for none);
//	  S uint32 instance indices in leaf-slot order;
//	  M node records.
//	Node record (32 bytes): 6 float32 bounds (min, max), uint32 first,
//	  uint32 count (count 0: inner node with children first, first+1;
//	  count wideRootMark: the same, rooting a wide node of the recorded
//	  cut, which a structure built with BuildAllowUpdate keeps: the wide nodes
//	  it traverses are rooted at the marked nodes, deserialized as they
//	  were though updates refitted the bounds after the cut was planned;
//	  without marks the cut is planned from the bounds, as a build plans
//	  it).
//
// Deserialization never panics and never allocates more than the data can
// back: every count is checked against the bytes that remain before
// anything is allocated, and a decoded structure must pass the same
// invariants a build guarantees (children after parents, depth within the
// traversal stack, every node and every leaf slot referenced exactly once,
// bounds that contain their children and primitives, valid geometry and
// instance records) before it is returned, so no input can make a
// traversal crash or loop.

// ErrIncompatible is wrapped by deserialization errors for data written by
// another implementation or format version (the spec's
// D3D12_DRIVER_MATCHING_IDENTIFIER_INCOMPATIBLE_VERSION and
// _UNRECOGNIZED), or of the wrong type (_INCOMPATIBLE_TYPE).
var ErrIncompatible = errors.New("accel: serialized acceleration structure is incompatible")

// ErrCorrupt is wrapped by deserialization errors for malformed data.
var ErrCorrupt = errors.New("accel: serialized acceleration structure is corrupt")

// DriverMatchingIdentifier is D3D12_SERIALIZED_DATA_DRIVER_MATCHING_
// IDENTIFIER: serialized data can only be deserialized by the
// implementation and format version that wrote it.
type DriverMatchingIdentifier struct {
	DriverOpaqueGUID           [16]byte
	DriverOpaqueVersioningData [16]byte
}

// SerializedHeader is the fixed header of serialized data
// (D3D12_SERIALIZED_RAYTRACING_ACCELERATION_STRUCTURE_HEADER).
type SerializedHeader struct {
	DriverMatchingIdentifier                               DriverMatchingIdentifier
	SerializedSizeInBytesIncludingHeader                   uint64
	DeserializedSizeInBytes                                uint64
	NumBottomLevelAccelerationStructurePointersAfterHeader uint64
}

// serialFormatVersion 3: an updatable structure's node records mark the wide
// cut (wideRootMark), and a block's index hash interleaves four chains
// (hashIndexBlock); 2 had no marks (updates planned the cut anew) and one
// chain a block. 2: the geometry records' index hash is taken in blocks
// (hashIndices), so that builds check and hash indices in parallel;
// version 1 hashed them in one chain.
const (
	serialMagic         = "RPAS\r\n\x1a\n"
	serialFormatVersion = 3
	serialHeaderSize    = 64
	bodyHeaderSize      = 24
	geomRecordSize      = 32
	instRecordSize      = 64
	nodeRecordSize      = 32
	triRecordSize       = 8 + 36
	boxRecordSize       = 8 + 24
	typeTopLevel        = 0 // D3D12_RAYTRACING_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL
	typeBottomLevel     = 1 // D3D12_RAYTRACING_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL
	noBLAS              = 0xFFFFFFFF
)

// driverGUID identifies raypipe's CPU implementation.
var driverGUID = [16]byte{0x9b, 0x1e, 0x52, 0x7a, 0x3c, 0x40, 0x4d, 0x11, 0xa6, 0x0f, 0x72, 0x61, 0x79, 0x70, 0x69, 0x70}

// CurrentDriverMatchingIdentifier returns the identifier that Serialize
// writes and Deserialize accepts.
func CurrentDriverMatchingIdentifier() DriverMatchingIdentifier {
	id := DriverMatchingIdentifier{DriverOpaqueGUID: driverGUID}
	binary.LittleEndian.PutUint32(id.DriverOpaqueVersioningData[:], serialFormatVersion)
	return id
}

// ParseSerializedHeader reads and checks the header of serialized data, as
// CheckDriverMatchingIdentifier does before a deserialization: an error
// wraps ErrIncompatible when the identifier does not match this
// implementation, ErrCorrupt when the data is not a complete serialized
// structure.
func ParseSerializedHeader(data []byte) (SerializedHeader, error) {
	var h SerializedHeader
	if len(data) < serialHeaderSize {
		return h, corrupt("%d bytes, shorter than the %d-byte header", len(data), serialHeaderSize)
	}
	if string(data[:8]) != serialMagic {
		return h, corrupt("bad magic %q", data[:8])
	}
	copy(h.DriverMatchingIdentifier.DriverOpaqueGUID[:], data[8:24])
	copy(h.DriverMatchingIdentifier.DriverOpaqueVersioningData[:], data[24:40])
	le := binary.LittleEndian
	h.SerializedSizeInBytesIncludingHeader = le.Uint64(data[40:])
	h.DeserializedSizeInBytes = le.Uint64(data[48:])
	h.NumBottomLevelAccelerationStructurePointersAfterHeader = le.Uint64(data[56:])
	if h.DriverMatchingIdentifier.DriverOpaqueGUID != driverGUID {
		return h, fmt.Errorf("%w: unrecognized driver identifier %x", ErrIncompatible, h.DriverMatchingIdentifier.DriverOpaqueGUID)
	}
	if id := CurrentDriverMatchingIdentifier(); h.DriverMatchingIdentifier != id {
		return h, fmt.Errorf("%w: format version %x, this implementation reads %x", ErrIncompatible,
			h.DriverMatchingIdentifier.DriverOpaqueVersioningData, id.DriverOpaqueVersioningData)
	}
	if h.SerializedSizeInBytesIncludingHeader != uint64(len(data)) {
		return h, corrupt("header says %d bytes, have %d", h.SerializedSizeInBytesIncludingHeader, len(data))
	}
	if n := h.NumBottomLevelAccelerationStructurePointersAfterHeader; n > uint64(len(data)-serialHeaderSize)/8 {
		return h, corrupt("%d bottom-level pointers do not fit in %d bytes", n, len(data))
	}
	return h, nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// ---- writing ----

type writer struct{ b []byte }

func (w *writer) u8(x uint8)    { w.b = append(w.b, x) }
func (w *writer) u16(x uint16)  { w.b = binary.LittleEndian.AppendUint16(w.b, x) }
func (w *writer) u32(x uint32)  { w.b = binary.LittleEndian.AppendUint32(w.b, x) }
func (w *writer) u64(x uint64)  { w.b = binary.LittleEndian.AppendUint64(w.b, x) }
func (w *writer) f32(f float32) { w.u32(math.Float32bits(f)) }
func (w *writer) vec(v vec.Vec3) {
	w.f32(v.X)
	w.f32(v.Y)
	w.f32(v.Z)
}

func (w *writer) header(size, deserialized uint64, nblas int) {
	id := CurrentDriverMatchingIdentifier()
	w.b = append(w.b, serialMagic...)
	w.b = append(w.b, id.DriverOpaqueGUID[:]...)
	w.b = append(w.b, id.DriverOpaqueVersioningData[:]...)
	w.u64(size)
	w.u64(deserialized)
	w.u64(uint64(nblas))
	for i := 0; i < nblas; i++ {
		w.u64(uint64(i))
	}
}

// encodeNodes and decodeNodes are the only functions that know the node
// layout. A new layout changes them (and the format version), nothing else.
// Inner nodes that root a wide node of slots' cut (nil: none marked) are
// marked.
func encodeNodes(w *writer, nodes []node, slots []wideSlots) {
	var root []bool
	if slots != nil && hasWideCut(nodes) {
		root = make([]bool, len(nodes))
		root[0] = true
		for i := range slots {
			for _, n := range slots[i] {
				root[n] = root[n] || !nodes[n].isLeaf()
			}
		}
	}
	for i := range nodes {
		n := &nodes[i]
		w.vec(n.bounds.Min)
		w.vec(n.bounds.Max)
		w.u32(n.first)
		if root != nil && root[i] {
			w.u32(wideRootMark)
		} else {
			w.u32(n.count)
		}
	}
}

// decodeWide returns the wide nodes of a decoded tree: for a structure
// built with BuildAllowUpdate, the cut its marks record (widenByCut) and
// its wideSlots; else, where there must be no marks, widenFor's.
func decodeWide(flags BuildFlags, nodes []node, root []bool) ([]wideNode, []wideSlots, error) {
	switch {
	case flags&BuildAllowUpdate != 0:
		return widenByCut(nodes, root)
	case root != nil:
		return nil, nil, corrupt("wide-node marks in a structure not built with BuildAllowUpdate")
	}
	wide, slots := widenFor(flags, nodes)
	return wide, slots, nil
}

// wideRootMark is the count of a node record of an inner node that roots a
// wide node (encodeNodes).
const wideRootMark = math.MaxUint32

// decodeNodes returns the nodes and which are marked as roots of wide
// nodes (nil where none is).
func decodeNodes(r *reader, count int) ([]node, []bool) {
	nodes := make([]node, count)
	var root []bool
	for i := range nodes {
		n := &nodes[i]
		n.bounds.Min = r.vec()
		n.bounds.Max = r.vec()
		n.first = r.u32()
		n.count = r.u32()
		if n.count == wideRootMark {
			if root == nil {
				root = make([]bool, count)
			}
			root[i], n.count = true, 0
		}
	}
	return nodes, root
}

func (b *BLAS) primRecordSize() int {
	if b.typ == GeometryTriangles {
		return triRecordSize
	}
	return boxRecordSize
}

func (b *BLAS) serializedSize() int {
	return serialHeaderSize + bodyHeaderSize + geomRecordSize*len(b.geoms) +
		b.primRecordSize()*len(b.primGeom) + nodeRecordSize*len(b.nodes)
}

// Serialize encodes b (COPY_MODE_SERIALIZE); DeserializeBLAS decodes it.
// The result has PostBuildInfo().SerializedSize bytes.
func (b *BLAS) Serialize() []byte {
	size := b.serializedSize()
	w := writer{b: make([]byte, 0, size)}
	w.header(uint64(size), b.memSize(false)-sliceBytes(b.rows, false), 0)
	w.u32(typeBottomLevel)
	w.u32(uint32(b.flags))
	w.u32(uint32(b.typ))
	w.u32(uint32(len(b.geoms)))
	w.u32(uint32(len(b.primGeom)))
	w.u32(uint32(len(b.nodes)))
	for i := range b.geoms {
		g := &b.geoms[i]
		w.u32(uint32(g.flags))
		w.u32(uint32(g.prims))
		var ht uint8
		if g.hasTransform {
			ht = 1
		}
		w.u8(ht)
		w.u8(uint8(g.vertexFormat))
		w.u8(uint8(g.indexFormat))
		w.u8(0)
		w.u32(uint32(g.vertexCount))
		w.u32(uint32(g.indexCount))
		w.u32(0)
		w.u64(g.indexHash)
	}
	for s := range b.primGeom {
		w.u32(b.primGeom[s])
		w.u32(b.primIndex[s])
		if b.typ == GeometryTriangles {
			for _, v := range b.tris[s] {
				w.vec(v)
			}
		} else {
			w.vec(b.boxes[s].Min)
			w.vec(b.boxes[s].Max)
		}
	}
	encodeNodes(&w, b.nodes, b.wideSlots)
	return w.b
}

// BottomLevels returns the distinct bottom-level structures t's instances
// reference, in order of first use by instance index: the order of the
// bottom-level pointers in Serialize's header, and the order in which
// DeserializeTLAS expects them.
func (t *TLAS) BottomLevels() []*BLAS {
	idx := t.blasIndex()
	out := make([]*BLAS, len(idx))
	for b, i := range idx {
		out[i] = b
	}
	return out
}

func (t *TLAS) blasIndex() map[*BLAS]uint32 {
	idx := make(map[*BLAS]uint32)
	for i := range t.instances {
		if b := t.instances[i].blas; b != nil {
			if _, ok := idx[b]; !ok {
				idx[b] = uint32(len(idx))
			}
		}
	}
	return idx
}

func (t *TLAS) serializedSize(nblas int) int {
	return serialHeaderSize + 8*nblas + bodyHeaderSize + instRecordSize*len(t.instances) +
		4*len(t.order) + nodeRecordSize*len(t.nodes)
}

// Serialize encodes t (COPY_MODE_SERIALIZE). The bottom-level structures
// are not included: the header records how many there are
// (NumBottomLevelAccelerationStructurePointersAfterHeader, in the order of
// BottomLevels), and DeserializeTLAS takes them as arguments, as the spec
// has the application patch the pointers after the header.
func (t *TLAS) Serialize() []byte {
	idx := t.blasIndex()
	size := t.serializedSize(len(idx))
	w := writer{b: make([]byte, 0, size)}
	w.header(uint64(size), t.memSize(false), len(idx))
	w.u32(typeTopLevel)
	w.u32(uint32(t.flags))
	w.u32(uint32(len(t.instances)))
	w.u32(uint32(len(t.order)))
	w.u32(uint32(len(t.nodes)))
	w.u32(0)
	for i := range t.instances {
		in := &t.instances[i]
		for r := 0; r < 3; r++ {
			for c := 0; c < 4; c++ {
				w.f32(in.objectToWorld[r][c])
			}
		}
		w.u32(in.id)
		w.u32(in.contribution)
		w.u8(in.mask)
		w.u8(uint8(in.flags))
		w.u16(0)
		ref := uint32(noBLAS)
		if in.blas != nil {
			ref = idx[in.blas]
		}
		w.u32(ref)
	}
	for _, o := range t.order {
		w.u32(o)
	}
	encodeNodes(&w, t.nodes, t.wideSlots)
	return w.b
}

// ---- reading ----

// reader reads from data whose size was checked in advance; reads past
// the end return zeros and set err, so a missed check cannot panic.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || len(r.b)-r.off < n {
		if r.err == nil {
			r.err = corrupt("truncated at offset %d", r.off)
		}
		return make([]byte, n)
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() uint8   { return r.take(1)[0] }
func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) f32() float32 {
	return math.Float32frombits(r.u32())
}
func (r *reader) vec() vec.Vec3 {
	x := r.f32()
	y := r.f32()
	z := r.f32()
	return vec.V3(x, y, z)
}

// readBodyHeader checks the structure type and reads the five counts.
func readBodyHeader(r *reader, want uint32) (flags BuildFlags, c [4]uint32, err error) {
	typ := r.u32()
	if typ != want {
		names := [2]string{"top-level", "bottom-level"}
		if typ > 1 {
			return 0, c, corrupt("unknown structure type %d", typ)
		}
		return 0, c, fmt.Errorf("%w: the data holds a %s structure, not a %s one", ErrIncompatible, names[typ], names[want])
	}
	flags = BuildFlags(r.u32())
	for i := range c {
		c[i] = r.u32()
	}
	if err := checkBuildFlags(flags); err != nil {
		return 0, c, corrupt("build flags: %v", err)
	}
	return flags, c, r.err
}

// DeserializeBLAS decodes data written by (*BLAS).Serialize
// (COPY_MODE_DESERIALIZE). The result traces exactly like the structure
// that was serialized, can be updated if that one could, and has no spare
// capacity. Errors wrap ErrIncompatible or ErrCorrupt.
func DeserializeBLAS(data []byte) (*BLAS, error) {
	h, err := ParseSerializedHeader(data)
	if err != nil {
		return nil, err
	}
	if h.NumBottomLevelAccelerationStructurePointersAfterHeader != 0 {
		r := reader{b: data, off: serialHeaderSize + 8*int(h.NumBottomLevelAccelerationStructurePointersAfterHeader)}
		if _, _, err := readBodyHeader(&r, typeBottomLevel); err != nil {
			return nil, err
		}
		return nil, corrupt("a bottom-level structure with %d bottom-level pointers", h.NumBottomLevelAccelerationStructurePointersAfterHeader)
	}
	r := reader{b: data, off: serialHeaderSize}
	flags, c, err := readBodyHeader(&r, typeBottomLevel)
	if err != nil {
		return nil, err
	}
	gtype, ng, ns, nn := c[0], uint64(c[1]), uint64(c[2]), uint64(c[3])
	if gtype > uint32(GeometryProceduralAABBs) {
		return nil, corrupt("unknown geometry type %d", gtype)
	}
	b := &BLAS{flags: flags, typ: GeometryType(gtype)}
	rec := uint64(b.primRecordSize())
	if want := uint64(bodyHeaderSize) + ng*geomRecordSize + ns*rec + nn*nodeRecordSize; want != uint64(len(data)-serialHeaderSize) {
		return nil, corrupt("%d geometries, %d primitives and %d nodes need %d body bytes, have %d", ng, ns, nn, want, len(data)-serialHeaderSize)
	}
	// The counts are now backed by bytes: allocations are at most a small
	// multiple of len(data).
	b.geoms = make([]geomInfo, ng)
	base := make([]uint64, ng+1)
	for i := range b.geoms {
		g, err := readGeomInfo(&r, b.typ)
		if err != nil {
			return nil, fmt.Errorf("%w (geometry %d)", err, i)
		}
		g.first = uint32(base[i])
		b.geoms[i] = g
		base[i+1] = base[i] + uint64(g.prims)
		if base[i+1] > maxPrimitives {
			return nil, corrupt("more than %d primitives", maxPrimitives)
		}
	}
	b.primGeom = hugeSlice[uint32](int(ns), int(ns))
	b.primIndex = hugeSlice[uint32](int(ns), int(ns))
	if b.typ == GeometryTriangles {
		b.tris = make([]triVerts, ns)
	} else {
		b.boxes = make([]AABB, ns)
	}
	keys := make([]uint64, ns)
	for s := range b.primGeom {
		g, p := r.u32(), r.u32()
		if uint64(g) >= ng || int64(p) >= int64(b.geoms[g].prims) {
			return nil, corrupt("slot %d: primitive %d of geometry %d does not exist", s, p, g)
		}
		b.primGeom[s], b.primIndex[s], keys[s] = g, p, base[g]+uint64(p)
		if b.typ == GeometryTriangles {
			t := &b.tris[s]
			for k := range t {
				t[k] = r.vec()
			}
			if !slotTriActive(t) && !allNaN(t) {
				return nil, corrupt("slot %d: triangle is neither finite nor inactive (all NaN)", s)
			}
		} else {
			x := &b.boxes[s]
			x.Min, x.Max = r.vec(), r.vec()
			if !slotBoxActive(x) && *x != inactiveBox {
				return nil, corrupt("slot %d: box is neither a finite box nor inactive", s)
			}
		}
	}
	var split []bool
	if b.active, split, err = distinctSlots(b, keys); err != nil {
		return nil, err
	}
	var root []bool
	b.nodes, root = decodeNodes(&r, int(nn))
	if r.err != nil {
		return nil, r.err
	}
	if err := validateTree(b.nodes, int(ns), b.slotBox, split, 0); err != nil {
		return nil, err
	}
	b.self = instance{objectToWorld: vec.Identity3x4, worldToObject: vec.Identity3x4, mask: 0xff, blas: b}
	if b.wide, b.wideSlots, err = decodeWide(b.flags, b.nodes, root); err != nil {
		return nil, err
	}
	b.rows = b.leafRows()
	return b, nil
}

func allNaN(t *triVerts) bool {
	for _, v := range t {
		if !(v.X != v.X && v.Y != v.Y && v.Z != v.Z) {
			return false
		}
	}
	return true
}

func readGeomInfo(r *reader, typ GeometryType) (geomInfo, error) {
	g := geomInfo{flags: GeometryFlags(r.u32())}
	prims := r.u32()
	ht, vf, ifmt, pad := r.u8(), r.u8(), r.u8(), r.u8()
	vc, ic, pad2 := r.u32(), r.u32(), r.u32()
	g.indexHash = r.u64()
	g.prims, g.hasTransform, g.vertexFormat, g.indexFormat = int(prims), ht == 1, VertexFormat(vf), IndexFormat(ifmt)
	g.vertexCount, g.indexCount = int(vc), int(ic)
	switch {
	case r.err != nil:
		return g, r.err
	case g.flags&^(GeometryOpaque|GeometryNoDuplicateAnyHitInvocation) != 0:
		return g, corrupt("unknown geometry flags %#x", uint32(g.flags))
	case prims > maxPrimitives:
		return g, corrupt("%d primitives", prims)
	case ht > 1 || pad != 0 || pad2 != 0:
		return g, corrupt("bad padding or transform flag")
	}
	if typ == GeometryProceduralAABBs {
		if ht != 0 || vf != 0 || ifmt != 0 || vc != 0 || ic != 0 || g.indexHash != 0 {
			return g, corrupt("triangle fields set on procedural geometry")
		}
		return g, nil
	}
	if g.vertexFormat.Size() == 0 || g.indexFormat > IndexUint32 {
		return g, corrupt("unknown vertex format %d or index format %d", vf, ifmt)
	}
	if vc > maxPrimitives*3 || ic > maxPrimitives*3 {
		return g, corrupt("vertex count %d or index count %d out of range", vc, ic)
	}
	n := ic
	if g.indexFormat == IndexNone {
		n = vc
	}
	if n%3 != 0 || n/3 != prims {
		return g, corrupt("%d primitives do not match the vertex/index counts %d/%d", prims, vc, ic)
	}
	return g, nil
}

// DeserializeTLAS decodes data written by (*TLAS).Serialize
// (COPY_MODE_DESERIALIZE). blases are the bottom-level structures the
// instances point to, in the order of the serialized header's pointers
// (the source's BottomLevels order): the spec's "pointers must be
// initialized by the app in the serialized data ... to the new locations of
// the equivalent acceleration structures". Passing the wrong number, or nil,
// is an *InputError; structures whose bounds do not fit the serialized
// tree (the wrong order, or not equivalent) give ErrCorrupt.
func DeserializeTLAS(data []byte, blases []*BLAS) (*TLAS, error) {
	h, err := ParseSerializedHeader(data)
	if err != nil {
		return nil, err
	}
	nb := h.NumBottomLevelAccelerationStructurePointersAfterHeader
	r := reader{b: data, off: serialHeaderSize + 8*int(nb)}
	flags, c, err := readBodyHeader(&r, typeTopLevel)
	if err != nil {
		return nil, err
	}
	if uint64(len(blases)) != nb {
		return nil, inputErr("DeserializeTLAS", "blases", "%d bottom-level structures given, the data refers to %d", len(blases), nb)
	}
	for i, b := range blases {
		if b == nil {
			return nil, inputErr("DeserializeTLAS", "blases", "bottom-level structure %d is nil", i)
		}
	}
	ni, ns, nn := uint64(c[0]), uint64(c[1]), uint64(c[2])
	if c[3] != 0 {
		return nil, corrupt("bad padding")
	}
	if want := uint64(bodyHeaderSize) + ni*instRecordSize + ns*4 + nn*nodeRecordSize; want != uint64(len(data)-r.off+bodyHeaderSize) {
		return nil, corrupt("%d instances, %d slots and %d nodes need %d body bytes, have %d", ni, ns, nn, want, len(data)-r.off+bodyHeaderSize)
	}
	if ni > maxPrimitives {
		return nil, corrupt("%d instances", ni)
	}
	t := &TLAS{flags: flags, instances: make([]instance, ni)}
	next := uint32(0) // the next new bottom-level reference, in first-use order
	for i := range t.instances {
		var in Instance
		for row := 0; row < 3; row++ {
			for col := 0; col < 4; col++ {
				in.Transform[row][col] = r.f32()
			}
		}
		in.InstanceID, in.InstanceContributionToHitGroupIndex = r.u32(), r.u32()
		in.InstanceMask, in.Flags = r.u8(), InstanceFlags(r.u8())
		pad, ref := r.u16(), r.u32()
		if pad != 0 {
			return nil, corrupt("instance %d: bad padding", i)
		}
		switch {
		case ref == noBLAS:
		case ref < next:
			in.BLAS = blases[ref]
		case ref == next && uint64(ref) < nb:
			in.BLAS = blases[ref]
			next++
		default:
			return nil, corrupt("instance %d: bottom-level reference %d out of first-use order", i, ref)
		}
		p, err := prepareInstance(i, &in)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		t.instances[i] = p
	}
	if uint64(next) != nb {
		return nil, corrupt("%d bottom-level pointers, %d referenced", nb, next)
	}
	t.order = make([]uint32, ns)
	used := make([]bool, ni)
	for s := range t.order {
		o := r.u32()
		if uint64(o) >= ni || used[o] {
			return nil, corrupt("slot %d: instance %d missing or referenced twice", s, o)
		}
		if !t.instances[o].active() {
			return nil, corrupt("slot %d: instance %d is inactive", s, o)
		}
		used[o] = true
		t.order[s] = o
	}
	var root []bool
	t.nodes, root = decodeNodes(&r, int(nn))
	if r.err != nil {
		return nil, r.err
	}

	if err := validateTree(t.nodes, int(ns), t.slotBox, nil, 1); err != nil {
		return nil, err
	}
	if t.wide, t.wideSlots, err = decodeWide(t.flags, t.nodes, root); err != nil {
		return nil, err
	}
	t.derive()
	return t, nil
}

// boundsOK accepts the empty box of an empty subtree and boxes without NaN
// whose min does not exceed their max.
func boundsOK(b *AABB) bool {
	if *b == emptyAABB() {
		return true
	}
	return !b.Min.HasNaN() && !b.Max.HasNaN() && !b.IsEmpty()
}

// validateTree checks a decoded node array against the invariants that a
// build guarantees and the traversal relies on; it never panics.
// leafSize, when nonzero, is the exact primitive count of every leaf.
func validateTree(nodes []node, slots int, leafBox func(uint32) AABB, split []bool, leafSize uint32) error {
	if len(nodes) == 0 {
		return corrupt("no root node")
	}
	if slots == 0 {
		if len(nodes) != 1 || nodes[0] != (node{bounds: emptyAABB()}) {
			return corrupt("a structure without primitives must be one empty root")
		}
		return nil
	}
	visited := make([]bool, len(nodes))
	seen := make([]bool, slots)
	type item struct {
		n     uint32
		depth int
	}
	stack := []item{{0, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited[it.n] {
			return corrupt("node %d referenced twice", it.n)
		}
		visited[it.n] = true
		if it.depth > maxTreeDepth {
			return corrupt("tree deeper than %d", maxTreeDepth)
		}
		nd := &nodes[it.n]
		if !boundsOK(&nd.bounds) {
			return corrupt("node %d: bad bounds %v", it.n, nd.bounds)
		}
		if nd.isLeaf() {
			if nd.count > maxLeafCount {
				return corrupt("node %d: leaf of %d primitives, more than %d", it.n, nd.count, maxLeafCount)
			}
			if leafSize != 0 && nd.count != leafSize {
				return corrupt("node %d: leaf of %d primitives, want %d", it.n, nd.count, leafSize)
			}
			if uint64(nd.first)+uint64(nd.count) > uint64(slots) {
				return corrupt("node %d: leaf range [%d, +%d) beyond %d slots", it.n, nd.first, nd.count, slots)
			}
			for s := nd.first; s < nd.first+nd.count; s++ {
				if seen[s] {
					return corrupt("slot %d referenced twice", s)
				}
				seen[s] = true
				switch box := leafBox(s); {
				case split != nil && split[s]:
					// A fragment of a triangle cut by spatial splits: the
					// leaf holds the part of it inside its bounds.
					if box.intersection(nd.bounds).IsEmpty() {
						return corrupt("node %d: bounds do not meet slot %d", it.n, s)
					}
				case !nd.bounds.Contains(box):
					return corrupt("node %d: bounds do not contain slot %d", it.n, s)
				}
			}
			continue
		}
		if nd.first <= it.n || uint64(nd.first)+1 >= uint64(len(nodes)) {
			return corrupt("node %d: children %d, %d must follow it inside %d nodes", it.n, nd.first, uint64(nd.first)+1, len(nodes))
		}
		for _, ch := range [2]uint32{nd.first, nd.first + 1} {
			if !nd.bounds.Contains(nodes[ch].bounds) {
				return corrupt("node %d: bounds do not contain child %d", it.n, ch)
			}
			stack = append(stack, item{ch, it.depth + 1})
		}
	}
	for i, v := range visited {
		if !v {
			return corrupt("node %d unreachable", i)
		}
	}
	for s, v := range seen {
		if !v {
			return corrupt("slot %d in no leaf", s)
		}
	}
	return nil
}

// distinctSlots returns the number of primitives among the slots, whose
// keys (global primitive indices, below 2^28) are given, and which slots
// hold a primitive that is in several (nil if none is). A primitive may be
// in several slots only as a triangle cut by spatial splits (sbvhBuild):
// in a build that makes them, of a geometry they may cut, with the same
// vertices in every slot.
func distinctSlots(b *BLAS, keys []uint64) (int, []bool, error) {
	for s := range keys {
		keys[s] = keys[s]<<32 | uint64(s)
	}
	slices.Sort(keys)
	var split []bool
	n := 0
	for i, k := range keys {
		if i == 0 || k>>32 != keys[i-1]>>32 {
			n++
			continue
		}
		f, s := int(uint32(keys[i-1])), int(uint32(k))
		if b.typ != GeometryTriangles || !splitsFor(b.flags) || !splittable(b.geoms[b.primGeom[s]].flags) {
			return 0, nil, corrupt("a primitive occupies two slots (%d and %d)", f, s)
		}
		if b.tris[s] != b.tris[f] {
			return 0, nil, corrupt("slots %d and %d hold one primitive with different vertices", f, s)
		}
		if split == nil {
			split = make([]bool, len(keys))
		}
		split[f], split[s] = true, true
	}
	return n, split, nil
}
