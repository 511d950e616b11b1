package accel

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// Instance is D3D12_RAYTRACING_INSTANCE_DESC: a placement of a BLAS in the
// world. A nil BLAS makes the instance inactive (it keeps its index and is
// never hit), as in current DXR and Vulkan.
type Instance struct {
	// Transform maps object space to world space (row-major 3x4).
	Transform vec.Mat3x4
	// InstanceID is the 24-bit value returned by InstanceID().
	InstanceID uint32
	// InstanceMask is ANDed with the ray's InstanceInclusionMask; zero
	// never hits.
	InstanceMask uint8
	// InstanceContributionToHitGroupIndex is the 24-bit per-instance term
	// of the hit group record index.
	InstanceContributionToHitGroupIndex uint32
	Flags                               InstanceFlags
	BLAS                                *BLAS
}

// instance is an Instance prepared for traversal.
type instance struct {
	objectToWorld vec.Mat3x4
	worldToObject vec.Mat3x4
	id            uint32
	contribution  uint32
	mask          uint8
	flags         InstanceFlags
	// identity: worldToObject equals vec.Identity3x4 up to the signs of
	// its zeros (the inverse of the identity has -0 translations), so a
	// walk of the ray placed as BLAS.Intersect places it gives the same
	// answers (see instance.querySole).
	identity bool
	blas     *BLAS
}

// TLAS is a top-level acceleration structure over instances. It references
// its BLASes: per the spec's data rules, rebuilding or updating a BLAS makes
// every TLAS over it stale until it is rebuilt or updated too.
type TLAS struct {
	flags     BuildFlags
	instances []instance
	nodes     []node     // binary BVH (canonical)
	wide      []wideNode // derived by widen; traversal walks it
	// opaqueOnly caches OpaqueTrianglesOnly.
	opaqueOnly bool
	// blasBytes is the traversal footprint of the distinct BLASes
	// (deriveBLASBytes): batches interleave from batchMinBytes.
	blasBytes uint64
	// sole: the TLAS has one active instance, over a BLAS of triangles
	// with leaf rows (deriveSole), whose queries may skip the top level
	// (soleQuery); soleUpdates is that BLAS's update count when the top
	// level was last built.
	sole        bool
	soleUpdates uint64
	order       []uint32 // leaf slot -> instance index
	// slots are the instances the leaf slots hold, as the assembly walks
	// read them (deriveSlots), in t's own array (Clone and Compact copy
	// it), which an update rewrites.
	slots []topSlot
	// wideSlots is the cut of nodes that wide takes, kept where the
	// structure is built for updates, as a BLAS keeps it (BLAS.wideSlots);
	// else nil.
	wideSlots []wideSlots
}

// topSlot is the instance of a leaf slot as the assembly TLAS walks
// (rayTLASWalkAVX2) read it: one 64-byte line, where the instance itself
// (120 bytes, found through order) took two dependent loads, the second
// a cache miss on a large top level (a tenth of the walk's samples at
// 10k instances). The world-to-object placement is stored by columns,
// so that the walks place a ray with vector operations, three lanes at
// once (PLACEVEC), where row by row took five times the instructions.
type topSlot struct {
	placeCols [4][3]float32 // column j: worldToObject[0..2][j]
	blas      *BLAS
	idx       uint32 // the instance's index
	mask      uint8
	flags     InstanceFlags
	_         [2]byte
}

// derive sets what t's queries read besides its trees, from its
// instances and order: opaqueOnly, blasBytes, sole and the slots. A
// build, an update and a deserialization end with it. (The slots come
// last: the passes before them read the instances in index order, which
// brings them into the caches for the slots' gather in tree order. Taken
// first, with opaqueOnly read in the same pass or from the slots after
// it, the stage took 7.8-8.9 ms instead of 4.5-5.4 for 100k instances,
// BenchmarkBuildTLASPhases with GOGC=off.)
func (t *TLAS) derive() {
	t.deriveOpacity()
	t.deriveBLASBytes()
	t.deriveSole()
	t.deriveSlots()
}

// deriveSlots sets slots from instances and order, in the array t has
// where it is large enough: an update rewrites it rather than allocating
// (and faulting in) another.
func (t *TLAS) deriveSlots() {
	slots := t.slots[:cap(t.slots)]
	if len(slots) < len(t.order) {
		slots = make([]topSlot, len(t.order))
	}
	clear(slots[len(t.order):]) // no BLAS kept alive by a slot no longer used
	slots = slots[:len(t.order)]
	for s, i := range t.order {
		in := &t.instances[i]
		slots[s] = topSlot{placeCols: columns(&in.worldToObject), blas: in.blas, idx: i, mask: in.mask, flags: in.flags}
	}
	t.slots = slots
}

// place returns the ray from o along d placed in the object space of the
// slot's instance: worldToObject's TransformPoint and TransformVector,
// the same operations in the same order, from its columns.
func (s *topSlot) place(o, d vec.Vec3) (org, dir vec.Vec3) {
	c := &s.placeCols
	org = vec.V3(
		float32(c[0][0]*o.X)+float32(c[1][0]*o.Y)+float32(c[2][0]*o.Z)+c[3][0],
		float32(c[0][1]*o.X)+float32(c[1][1]*o.Y)+float32(c[2][1]*o.Z)+c[3][1],
		float32(c[0][2]*o.X)+float32(c[1][2]*o.Y)+float32(c[2][2]*o.Z)+c[3][2])
	dir = vec.V3(
		float32(c[0][0]*d.X)+float32(c[1][0]*d.Y)+float32(c[2][0]*d.Z),
		float32(c[0][1]*d.X)+float32(c[1][1]*d.Y)+float32(c[2][1]*d.Z),
		float32(c[0][2]*d.X)+float32(c[1][2]*d.Y)+float32(c[2][2]*d.Z))
	return org, dir
}

// columns returns m's four columns.
func columns(m *vec.Mat3x4) (c [4][3]float32) {
	for j := range c {
		c[j] = [3]float32{m[0][j], m[1][j], m[2][j]}
	}
	return c
}

// topArgs returns t's arrays as the assembly TLAS walks take them.
func (t *TLAS) topArgs() (wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int) {
	return unsafe.Pointer(unsafe.SliceData(t.wide)), len(t.wide), unsafe.Pointer(unsafe.SliceData(t.slots)), len(t.slots)
}

// BuildTLAS builds a top-level acceleration structure
// (BuildRaytracingAccelerationStructure with TYPE_TOP_LEVEL).
func BuildTLAS(instances []Instance, flags BuildFlags) (*TLAS, error) {
	if err := checkBuildFlags(flags); err != nil {
		return nil, err
	}
	if len(instances) > maxPrimitives {
		return nil, inputErr("instances", "", "%d instances, more than %d", len(instances), maxPrimitives)
	}
	defer crewHold(len(instances))()
	buildPhase("start")
	prep, err := prepareInstances(instances)
	if err != nil {
		return nil, err
	}
	buildPhase("prepare")
	defer prep.release()
	t := &TLAS{flags: flags, instances: prep.instances}
	t.build(&prep)
	return t, nil
}

// preparedInstances are instances checked and prepared for traversal
// (prepareInstances), with the world box of each active one.
type preparedInstances struct {
	instances []instance
	// boxes[i] is instance i's worldBox where it is active, else an
	// empty box, in temporary memory (tempSlice) that release hands back.
	boxes   []AABB
	release func()
}

// active reports whether prepared instance i is active (instance.active),
// from its box: an active instance's world box is never empty (worldBox
// keeps it finite), an inactive one's always is. Builds and updates ask
// the boxes, which they read anyway, rather than the instances.
func (p *preparedInstances) active(i int) bool { return !p.boxes[i].IsEmpty() }

// prepareInstances checks and prepares the instances (prepareInstance) in
// parallel chunks, each active one's world box beside it while its BLAS
// and transform are at hand, and returns the error of the first instance
// in index order that has one, whatever the chunks. (Builds and refits
// took the boxes in slot order, from instances scattered over an array of
// 120 bytes each: a cache miss an instance from a few thousand on, and on
// two processors a line the other core's chunk had written.)
func prepareInstances(instances []Instance) (preparedInstances, error) {
	prep := make([]instance, len(instances))
	boxes, release := tempSlice[AABB](len(instances))
	k := workChunks(len(instances), instanceGrain)
	errs := make([]error, k)
	parallelParts(len(instances), k, func(c, lo, hi int) {
		for i := lo; i < hi; i++ {
			in, err := prepareInstance(i, &instances[i])
			if err != nil {
				errs[c] = err
				return
			}
			prep[i] = in
			boxes[i] = emptyAABB()
			if in.active() {
				boxes[i] = in.worldBox()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			release()
			return preparedInstances{}, err
		}
	}
	return preparedInstances{instances: prep, boxes: boxes, release: release}, nil
}

// instanceGrain is the number of instances prepareInstances prepares per
// chunk at least (a transform's inverse and checks, about 0.1 us each).
const instanceGrain = 1 << 11

func prepareInstance(i int, in *Instance) (instance, error) {
	if in.InstanceID>>24 != 0 {
		return instance{}, inputErr(instanceWhere(i), "InstanceID", "%#x does not fit in 24 bits", in.InstanceID)
	}
	if in.InstanceContributionToHitGroupIndex>>24 != 0 {
		return instance{}, inputErr(instanceWhere(i), "InstanceContributionToHitGroupIndex", "%#x does not fit in 24 bits", in.InstanceContributionToHitGroupIndex)
	}
	if in.Flags&^0xf != 0 {
		return instance{}, inputErr(instanceWhere(i), "Flags", "unknown bits %#x", uint8(in.Flags))
	}
	if in.Flags&InstanceForceOpaque != 0 && in.Flags&InstanceForceNonOpaque != 0 {
		return instance{}, inputErr(instanceWhere(i), "Flags", "FORCE_OPAQUE and FORCE_NON_OPAQUE are mutually exclusive")
	}
	if !in.Transform.IsFinite() {
		return instance{}, inputErr(instanceWhere(i), "Transform", "not finite: %v", in.Transform)
	}
	p := instance{objectToWorld: in.Transform, id: in.InstanceID, contribution: in.InstanceContributionToHitGroupIndex,
		mask: in.InstanceMask, flags: in.Flags, blas: in.BLAS}
	if in.BLAS != nil {
		inv, ok := in.Transform.Inverse()
		if !ok {
			return instance{}, inputErr(instanceWhere(i), "Transform", "singular (determinant %g)", in.Transform.Det())
		}
		p.worldToObject = inv
		p.identity = inv == vec.Identity3x4
	}
	return p, nil
}

// instanceWhere names instance i in an error, spelled out only when
// there is one (every instance's name allocated twice a build).
func instanceWhere(i int) string { return "instance " + strconv.Itoa(i) }

// active reports whether the instance can ever be hit.
func (in *instance) active() bool {
	return in.blas != nil && in.mask != 0 && !in.blas.Bounds().IsEmpty()
}

// worldBox returns the instance's BLAS bounds carried into world space
// (AABB.Transform), with each side that is not a finite number (products
// of a finite transform that overflow, or infinities of opposite signs
// summed) moved out to the largest float32: every finite point, so every
// hit, still lies inside, and the box's centroid is a number. A box from
// -Inf to +Inf has none, and the builder's binning and partition then
// placed its instance on different sides of a split, so that a node's box
// left it out (FuzzBuildTLAS: a transform entry of -2.3e38).
func (in *instance) worldBox() AABB {
	b := in.blas.Bounds().Transform(in.objectToWorld)
	if b.Min.IsFinite() && b.Max.IsFinite() {
		return b
	}
	lo := func(x float32) float32 {
		if x >= -math.MaxFloat32 {
			return min(x, math.MaxFloat32)
		}
		return -math.MaxFloat32 // -Inf or NaN
	}
	hi := func(x float32) float32 {
		if x <= math.MaxFloat32 {
			return max(x, -math.MaxFloat32)
		}
		return math.MaxFloat32 // +Inf or NaN
	}
	return AABB{vec.V3(lo(b.Min.X), lo(b.Min.Y), lo(b.Min.Z)), vec.V3(hi(b.Max.X), hi(b.Max.Y), hi(b.Max.Z))}
}

// build builds t's tree over its active instances, prepared in prep
// (prepareInstances).
func (t *TLAS) build(prep *preparedInstances) {
	refs, release := tempSlice[bref](len(t.instances))
	defer release()
	n := 0
	for i := range t.instances {
		if prep.active(i) {
			refs[n] = brefOf(&prep.boxes[i], uint32(i))
			n++
		}
	}
	refs = refs[:n]
	p := paramsFor(t.flags)
	p.maxLeaf = 1 // traversal enters one instance per leaf
	bb, cb := rangeBounds(refs)
	buildPhase("refs")
	t.nodes, t.order = buildBVHRefs(refs, bb, cb, p)
	buildPhase("tree")
	t.wide, t.wideSlots = widenFor(t.flags, t.nodes)
	buildPhase("widefill")
	t.derive()
	buildPhase("derived")
}

// deriveSole sets sole and soleUpdates.
func (t *TLAS) deriveSole() {
	t.sole, t.soleUpdates = false, 0
	if len(t.instances) == 1 {
		in := &t.instances[0]
		t.sole = in.active() && in.blas.typ == GeometryTriangles && in.blas.rows != nil
		if t.sole {
			t.soleUpdates = in.blas.updates
		}
	}
}

// soleQuery returns t's only instance when a query under mask may skip
// the top level and walk the instance's BLAS alone, in assembly: the
// instance is active under mask, its BLAS holds triangles, its queries
// run in assembly (queriesInAsm), and it has not been updated since the
// top level was built. The top level would only test the instance's world
// box, which then holds every hit the BLAS's walk can find, so it culls no
// ray that the walk does not miss anyway. (After the BLAS is updated, the
// stale top level must keep culling as it did: queries walk the same
// stale boxes.) Else it returns nil. What depends on the structures is
// decided when the top level is built (deriveSole), and a query compares
// the BLAS's update count with the one it was built with: comparing the
// BLAS's bounds with the top level's, as queries did, chased five pointers
// and six floats a ray (BenchmarkSoleInstance, the TLAS's shadow and
// incoherent rays 1.05x and 1.06x; BenchmarkTrace 1k and 100k 0.98-1.08x,
// most 1.03-1.07x).
func (t *TLAS) soleQuery(mask uint8) *instance {
	if t == nil || !t.sole || !fusedAVX2 || useSIMD {
		return nil
	}
	in := &t.instances[0]
	if in.mask&mask == 0 || in.blas.updates != t.soleUpdates {
		return nil
	}
	return in
}

// Bounds returns the world-space box around every active instance.
func (t *TLAS) Bounds() AABB { return t.nodes[0].bounds }

// Flags returns the build flags.
func (t *TLAS) Flags() BuildFlags { return t.flags }

// InstanceCount returns the number of instances, active or not.
func (t *TLAS) InstanceCount() int { return len(t.instances) }

// Instance returns instance i as it was given to the build (or update).
func (t *TLAS) Instance(i int) Instance {
	in := &t.instances[i]
	return Instance{Transform: in.objectToWorld, InstanceID: in.id, InstanceMask: in.mask,
		InstanceContributionToHitGroupIndex: in.contribution, Flags: in.flags, BLAS: in.blas}
}
