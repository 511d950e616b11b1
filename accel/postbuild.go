package accel

import "unsafe"

// PostBuildInfo is what EmitRaytracingAccelerationStructurePostBuildInfo
// reports about a structure, in bytes of its in-memory representation.
type PostBuildInfo struct {
	// CurrentSize is the memory the structure holds now: its fixed part
	// plus the capacity of each of its arrays.
	CurrentSize uint64
	// CompactedSize is the size after Compact
	// (POSTBUILD_INFO_COMPACTED_SIZE): the arrays' lengths. It is never
	// larger than CurrentSize. It is reported even without
	// BuildAllowCompaction, although only such structures may be compacted.
	CompactedSize uint64
	// SerializedSize is len(Serialize()), header included
	// (POSTBUILD_INFO_SERIALIZATION's SerializedSizeInBytes).
	SerializedSize uint64
	// NumBottomLevelPointers is the number of bottom-level structures a
	// serialized top-level structure refers to (0 for a BLAS): the length of
	// BottomLevels.
	NumBottomLevelPointers uint64
}

func sliceBytes[E any](s []E, capacity bool) uint64 {
	var e E
	n := len(s)
	if capacity {
		n = cap(s)
	}
	return uint64(n) * uint64(unsafe.Sizeof(e))
}

// memSize is b's memory: its arrays' lengths, or with capacity their
// capacities and the refit plan of its updates (refitPlan; Compact drops
// it, and a compacted copy's first update makes it again).
func (b *BLAS) memSize(capacity bool) uint64 {
	n := uint64(unsafe.Sizeof(*b)) + sliceBytes(b.geoms, capacity) + sliceBytes(b.nodes, capacity) + sliceBytes(b.wide, capacity) +
		sliceBytes(b.wideSlots, capacity) + sliceBytes(b.tris, capacity) + sliceBytes(b.rows, capacity) + sliceBytes(b.boxes, capacity) +
		sliceBytes(b.primGeom, capacity) + sliceBytes(b.primIndex, capacity)
	if capacity && b.plan != nil {
		n += uint64(unsafe.Sizeof(*b.plan)) + sliceBytes(b.plan.parts, true) + sliceBytes(b.plan.top, true) + sliceBytes(b.plan.wideTop, true)
	}
	return n
}

// memSize is t's memory: its arrays' lengths, or with capacity their
// capacities.
func (t *TLAS) memSize(capacity bool) uint64 {
	return uint64(unsafe.Sizeof(*t)) + sliceBytes(t.instances, capacity) + sliceBytes(t.nodes, capacity) + sliceBytes(t.wide, capacity) +
		sliceBytes(t.wideSlots, capacity) + sliceBytes(t.order, capacity) + sliceBytes(t.slots, capacity)
}

// PostBuildInfo reports b's sizes (EmitRaytracingAccelerationStructure
// PostBuildInfo).
func (b *BLAS) PostBuildInfo() PostBuildInfo {
	return PostBuildInfo{CurrentSize: b.memSize(true), CompactedSize: b.memSize(false), SerializedSize: uint64(b.serializedSize())}
}

// PostBuildInfo reports t's sizes (EmitRaytracingAccelerationStructure
// PostBuildInfo).
func (t *TLAS) PostBuildInfo() PostBuildInfo {
	n := len(t.BottomLevels())
	return PostBuildInfo{CurrentSize: t.memSize(true), CompactedSize: t.memSize(false),
		SerializedSize: uint64(t.serializedSize(n)), NumBottomLevelPointers: uint64(n)}
}
