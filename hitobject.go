package raypipe

import (
	"fmt"
	"unsafe"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

type hitObjectKind uint8

const (
	hitObjectNop hitObjectKind = iota
	hitObjectHit
	hitObjectMiss
)

// Record index widths (hlsl-0027 HitObject::SetShaderTableIndex).
const (
	hitRecordMask  = 1<<28 - 1
	missRecordMask = 1<<16 - 1
)

// HitObject encapsulates a hit or a miss (hlsl-0027 "HitObject"), or
// neither (a NOP object, also the zero value). It is a value: copies are
// independent. Make one with HitObjectTraceRay, HitObjectFromRayQuery,
// MakeMiss, MakeNop or the record forms of GL_NV_shader_invocation_reorder
// (HitObjectRecordHit, HitObjectRecordHitWithIndex, HitObjectRecordMiss),
// reorder with ReorderThread and run its closest hit or miss shader with
// Invoke.
type HitObject struct {
	kind      hitObjectKind
	hasRecord bool
	hitKind   uint8
	flags     accel.RayFlags
	ray       accel.Ray
	tCur      float32
	record    uint32
	hit       accel.Hit
	attrType  *TypeDesc
	attr      attrBuf
	time      float32
}

// HitObjectTraceRay runs traversal, any hit and intersection shaders, and
// returns the result without running closest hit or miss shaders
// (HitObject::TraceRay). The result is a hit or a miss, never NOP. It is
// available in ray generation, closest hit and miss shaders and must not be
// called at the maximum recursion depth.
func HitObjectTraceRay[P any](c *Context, tlas *accel.TLAS, flags accel.RayFlags, instanceInclusionMask, rayContribution, multiplier, missIndex uint32, ray accel.Ray, payload *P) HitObject {
	c.needIntrinsic(stagesTrace, "HitObject::TraceRay")
	own := payloadIn(c, payload, "HitObject::TraceRay") // as TraceRay's: the payload stays where the caller put it
	var h HitObject
	c.traceHitObject(&h, tlas, flags, instanceInclusionMask, rayContribution, multiplier, missIndex, ray, unsafe.Pointer(own), TypeOf[P]())
	*payload = *own
	return h
}

// MakeMiss returns a miss without tracing a ray (HitObject::MakeMiss); only
// the low 16 bits of missIndex are used.
func MakeMiss(flags accel.RayFlags, missIndex uint32, ray accel.Ray) HitObject {
	return HitObject{kind: hitObjectMiss, hasRecord: true, flags: flags, ray: ray, tCur: ray.TMax, record: missIndex & missRecordMask}
}

// MakeNop returns a NOP object (HitObject::MakeNop), equal to the zero
// HitObject.
func MakeNop() HitObject { return HitObject{} }

// CommittedHit is what HitObjectFromRayQuery needs of a finished inline
// ray query; *rayquery.RayQuery provides it.
type CommittedHit interface {
	WorldRayOrigin() vec.Vec3
	WorldRayDirection() vec.Vec3
	RayTMin() float32
	RayFlags() accel.RayFlags
	// Committed returns the committed hit; Kind is accel.KindNone when
	// nothing was committed.
	Committed() *accel.Hit
	// CommittedRayT returns the committed t (TMax when nothing was).
	CommittedRayT() float32
}

// HitObjectFromRayQuery returns a HitObject for the committed hit of a
// ray query (HitObject::FromRayQuery), a NOP object when nothing was
// committed. It has no shader table record until SetShaderTableIndex;
// until then Invoke runs nothing. A committed procedural hit gets hit kind
// 0 and no attributes; use HitObjectFromRayQueryWithAttributes to supply
// them.
func HitObjectFromRayQuery(q CommittedHit) HitObject {
	return fromRayQuery(q, 0, nil, nil)
}

// HitObjectFromRayQueryWithAttributes is the overload of
// HitObject::FromRayQuery that takes the committed procedural hit's
// attributes (and, as DXIL's HitObject_FromRayQueryWithAttrs, its hit
// kind). For triangle hits both are ignored and the built-in barycentrics
// are used. A must be plain data of at most 32 bytes; otherwise it panics
// with an error wrapping ErrInvalidArgument (inside a dispatch, a
// *DispatchError).
func HitObjectFromRayQueryWithAttributes[A any](q CommittedHit, hitKind uint8, attr *A) HitObject {
	at := TypeOf[A]()
	if at.Size > MaxAttributeSizeInBytes || !at.PointerFree {
		panic(fmt.Errorf("%w: HitObject::FromRayQuery attributes %s must be plain data of at most %d bytes", ErrInvalidArgument, at.Name, MaxAttributeSizeInBytes))
	}
	return fromRayQuery(q, hitKind, unsafe.Pointer(attr), at)
}

func fromRayQuery(q CommittedHit, hitKind uint8, attr unsafe.Pointer, at *TypeDesc) HitObject {
	com := q.Committed()
	if com == nil || com.Kind == accel.KindNone {
		return HitObject{}
	}
	h := HitObject{kind: hitObjectHit, flags: q.RayFlags(), hit: *com, tCur: q.CommittedRayT(),
		ray: accel.Ray{Origin: q.WorldRayOrigin(), Direction: q.WorldRayDirection(), TMin: q.RayTMin()}}
	h.ray.TMax = h.tCur
	if com.Kind == accel.KindTriangle {
		h.hitKind = com.HitKind()
		a := BuiltInTriangleIntersectionAttributes{Barycentrics: [2]float32{com.U, com.V}}
		h.attr.set(unsafe.Pointer(&a), unsafe.Sizeof(a))
		h.attrType = builtinAttrType
		return h
	}
	h.hitKind = hitKind
	if attr != nil {
		h.attr.set(attr, at.Size)
		h.attrType = at
	}
	return h
}

// HitObjectRecordHit records a hit without tracing
// (hitObjectRecordHitNV): the hit of instance instanceIndex of tlas,
// geometry and primitive, at t, with hitKind and attributes, and a hit
// group record computed from sbtRecordOffset and sbtRecordStride as
// TraceRay would.
func HitObjectRecordHit[A any](c *Context, tlas *accel.TLAS, instanceIndex, primitiveIndex, geometryIndex int, hitKind uint8, sbtRecordOffset, sbtRecordStride uint32, ray accel.Ray, t float32, attr *A) HitObject {
	h := c.recordHit(tlas, instanceIndex, primitiveIndex, geometryIndex, hitKind, ray, t, unsafe.Pointer(attr), TypeOf[A]())
	h.record = uint32(hitGroupIndex(sbtRecordOffset, sbtRecordStride, &h.hit))
	return h
}

// HitObjectRecordHitWithIndex records a hit with an explicit hit group
// record index (hitObjectRecordHitWithIndexNV); only 28 bits are used.
func HitObjectRecordHitWithIndex[A any](c *Context, tlas *accel.TLAS, instanceIndex, primitiveIndex, geometryIndex int, hitKind uint8, recordIndex uint32, ray accel.Ray, t float32, attr *A) HitObject {
	h := c.recordHit(tlas, instanceIndex, primitiveIndex, geometryIndex, hitKind, ray, t, unsafe.Pointer(attr), TypeOf[A]())
	h.record = recordIndex & hitRecordMask
	return h
}

// HitObjectRecordMiss records a miss (hitObjectRecordMissNV); it is
// MakeMiss under its GLSL name.
func HitObjectRecordMiss(flags accel.RayFlags, missIndex uint32, ray accel.Ray) HitObject {
	return MakeMiss(flags, missIndex, ray)
}

// HitObjectRecordEmpty records a NOP object (hitObjectRecordEmptyNV).
func HitObjectRecordEmpty() HitObject { return HitObject{} }

func (c *Context) recordHit(tlas *accel.TLAS, inst, prim, geom int, hitKind uint8, ray accel.Ray, t float32, attr unsafe.Pointer, at *TypeDesc) HitObject {
	c.needIntrinsic(stagesTrace, "hitObjectRecordHit")
	hit, err := accel.RecordedHit(tlas, inst, geom, prim, ray)
	if err != nil {
		c.fail(fmt.Errorf("%w: %v", ErrInvalidArgument, err))
	}
	hit.T = t
	if at.Size > MaxAttributeSizeInBytes || !at.PointerFree {
		c.fail(fmt.Errorf("%w: attributes %s must be plain data of at most %d bytes", ErrInvalidArgument, at.Name, MaxAttributeSizeInBytes))
	}
	h := HitObject{kind: hitObjectHit, hasRecord: true, flags: 0, ray: ray, tCur: t, hit: hit, hitKind: hitKind, attrType: at}
	h.attr.set(attr, at.Size)
	if hit.Kind == accel.KindTriangle && at == builtinAttrType {
		b := (*BuiltInTriangleIntersectionAttributes)(unsafe.Pointer(&h.attr))
		h.hit.U, h.hit.V = b.Barycentrics[0], b.Barycentrics[1]
		h.hit.FrontFace = hitKind == accel.HitKindTriangleFrontFace
	}
	return h
}

// Invoke runs the closest hit or miss shader that h encodes with payload
// type P (HitObject::Invoke); NOP objects and objects from a ray query
// without a shader table index run nothing. It counts towards the
// recursion depth and is available in ray generation, closest hit and miss
// shaders. P may differ from the payload type used to trace h.
func Invoke[P any](c *Context, h HitObject, payload *P) {
	c.needIntrinsic(stagesTrace, "HitObject::Invoke")
	own := payloadIn(c, payload, "HitObject::Invoke") // as TraceRay's: the payload stays where the caller put it
	c.invokeHitObject(&h, unsafe.Pointer(own), TypeOf[P]())
	*payload = *own
}

func (c *Context) invokeHitObject(h *HitObject, payload unsafe.Pointer, pt *TypeDesc) {
	w := c.w
	if c.depth >= w.d.p.maxDepth {
		c.fail(fmt.Errorf("%w (%d)", ErrRecursionLimit, w.d.p.maxDepth))
	}
	if w.coherence != nil && c.stage == KindRayGeneration {
		w.coherence.observe(c, h)
	}
	if !h.hasRecord {
		return
	}
	var s *Shader
	var args []byte
	switch h.kind {
	case hitObjectHit:
		if h.flags&accel.RayFlagSkipClosestHitShader != 0 {
			return
		}
		g, a := c.hitGroup(uint64(h.record))
		if g == nil {
			return
		}
		checkGroupType(c, g, h.hit.Kind, uint64(h.record))
		if g.chs == nil {
			return
		}
		s, args = g.chs, a
		if s.Attributes != h.attrType {
			c.fail(fmt.Errorf("%w: closest hit shader %q takes attributes %s, the hit has %v", ErrTypeMismatch, s.Name, s.Attributes.Name, typeName(h.attrType)))
		}
	case hitObjectMiss:
		g, a := c.missGroup(uint64(h.record))
		if g == nil {
			return
		}
		s, args = g.shader, a
	default:
		return
	}
	if s.Payload != pt {
		c.fail(fmt.Errorf("%w: %s shader %q takes payload %s, the caller passed %s", ErrTypeMismatch, s.Kind, s.Name, s.Payload.Name, pt.Name))
	}
	nc := w.nested()
	defer w.release()
	*nc = Context{w: w, launch: c.launch, stage: s.Kind, shader: s, depth: c.depth + 1, calls: c.calls, args: args,
		ray: h.ray, flags: h.flags, tCur: h.tCur, hit: h.hit, hitKind: h.hitKind, rg: c.rg}
	var attr unsafe.Pointer
	if h.kind == hitObjectHit {
		nc.attr = h.attr
		attr = unsafe.Pointer(&nc.attr)
	}
	w.invoke(c, nc, s, payload, attr)
}

func typeName(t *TypeDesc) string {
	if t == nil {
		return "none"
	}
	return t.Name
}

// IsHit reports whether h encodes a hit.
func (h *HitObject) IsHit() bool { return h.kind == hitObjectHit }

// IsMiss reports whether h encodes a miss.
func (h *HitObject) IsMiss() bool { return h.kind == hitObjectMiss }

// IsNop reports whether h is a NOP object.
func (h *HitObject) IsNop() bool { return h.kind == hitObjectNop }

// RayFlags returns the ray flags (0 for NOP).
func (h *HitObject) RayFlags() accel.RayFlags { return h.flags }

// RayTMin returns the ray's TMin (0 for NOP).
func (h *HitObject) RayTMin() float32 { return h.ray.TMin }

// RayTCurrent returns the hit t, or TMax for a miss (0 for NOP).
func (h *HitObject) RayTCurrent() float32 { return h.tCur }

// WorldRayOrigin returns the world-space ray origin (zero for NOP).
func (h *HitObject) WorldRayOrigin() vec.Vec3 { return h.ray.Origin }

// WorldRayDirection returns the world-space ray direction (zero for NOP).
func (h *HitObject) WorldRayDirection() vec.Vec3 { return h.ray.Direction }

// ObjectRayOrigin returns the object-space origin for a hit, the world
// origin for a miss and zero for NOP.
func (h *HitObject) ObjectRayOrigin() vec.Vec3 {
	if h.kind == hitObjectHit {
		return h.hit.ObjectRayOrigin
	}
	return h.ray.Origin
}

// ObjectRayDirection returns the object-space direction for a hit, the
// world direction for a miss and zero for NOP.
func (h *HitObject) ObjectRayDirection() vec.Vec3 {
	if h.kind == hitObjectHit {
		return h.hit.ObjectRayDirection
	}
	return h.ray.Direction
}

// ObjectToWorld3x4 returns the instance transform for a hit and the
// identity otherwise.
func (h *HitObject) ObjectToWorld3x4() vec.Mat3x4 {
	if h.kind == hitObjectHit {
		return h.hit.ObjectToWorld()
	}
	return vec.Identity3x4
}

// ObjectToWorld4x3 is the transpose of ObjectToWorld3x4.
func (h *HitObject) ObjectToWorld4x3() vec.Mat4x3 { return h.ObjectToWorld3x4().Transpose() }

// WorldToObject3x4 returns the inverse instance transform for a hit and
// the identity otherwise.
func (h *HitObject) WorldToObject3x4() vec.Mat3x4 {
	if h.kind == hitObjectHit {
		return h.hit.WorldToObject()
	}
	return vec.Identity3x4
}

// WorldToObject4x3 is the transpose of WorldToObject3x4.
func (h *HitObject) WorldToObject4x3() vec.Mat4x3 { return h.WorldToObject3x4().Transpose() }

// InstanceIndex returns the hit instance's index (0 unless a hit).
func (h *HitObject) InstanceIndex() uint32 {
	if h.kind != hitObjectHit {
		return 0
	}
	return h.hit.InstanceIndex
}

// InstanceID returns the hit instance's InstanceID (0 unless a hit).
func (h *HitObject) InstanceID() uint32 {
	if h.kind != hitObjectHit {
		return 0
	}
	return h.hit.InstanceID()
}

// GeometryIndex returns the hit geometry's index (0 unless a hit).
func (h *HitObject) GeometryIndex() uint32 {
	if h.kind != hitObjectHit {
		return 0
	}
	return h.hit.GeometryIndex
}

// PrimitiveIndex returns the hit primitive's index (0 unless a hit).
func (h *HitObject) PrimitiveIndex() uint32 {
	if h.kind != hitObjectHit {
		return 0
	}
	return h.hit.PrimitiveIndex
}

// HitKind returns the hit kind (0 unless a hit).
func (h *HitObject) HitKind() uint8 {
	if h.kind != hitObjectHit {
		return 0
	}
	return h.hitKind
}

// Attributes copies the hit's attributes into *attr (HitObject::GetAttributes)
// and reports whether A is the attribute type of the hit; attr is zeroed
// otherwise (and for misses and NOP objects).
func Attributes[A any](h *HitObject, attr *A) bool {
	var zero A
	*attr = zero
	at := TypeOf[A]()
	if h.kind != hitObjectHit || h.attrType != at {
		return false
	}
	*attr = *(*A)(unsafe.Pointer(&h.attr))
	return true
}

// ShaderTableIndex returns the hit group or miss record index (0 for NOP
// and for ray-query objects without one).
func (h *HitObject) ShaderTableIndex() uint32 {
	if !h.hasRecord {
		return 0
	}
	return h.record
}

// SetShaderTableIndex sets the record index used by Invoke: 28 bits for
// hits, 16 for misses; ignored for NOP objects.
func (h *HitObject) SetShaderTableIndex(i uint32) {
	switch h.kind {
	case hitObjectHit:
		h.record, h.hasRecord = i&hitRecordMask, true
	case hitObjectMiss:
		h.record, h.hasRecord = i&missRecordMask, true
	}
}

// LoadLocalRootTableConstant reads a 32-bit constant from the local root
// arguments of h's shader record (0 for NOP and record-less objects);
// offset must be a multiple of 4.
func (h *HitObject) LoadLocalRootTableConstant(c *Context, offset uint32) uint32 {
	if offset%4 != 0 {
		c.fail(fmt.Errorf("%w: LoadLocalRootTableConstant offset %d is not a multiple of 4", ErrInvalidArgument, offset))
	}
	args := h.recordArgs(c)
	if args == nil {
		return 0
	}
	v, err := loadConstant(args, offset)
	if err != nil {
		c.fail(fmt.Errorf("%w: %v", ErrInvalidArgument, err))
	}
	return v
}

// ShaderRecordBufferHandle returns the local root arguments of h's record
// (hitObjectGetShaderRecordBufferHandleNV); nil for NOP and record-less
// objects.
func (h *HitObject) ShaderRecordBufferHandle(c *Context) []byte { return h.recordArgs(c) }

// recordArgs returns the local root arguments of h's shader record, nil
// for NOP and record-less objects.
func (h *HitObject) recordArgs(c *Context) []byte {
	if !h.hasRecord || h.kind == hitObjectNop {
		return nil
	}
	if h.kind == hitObjectHit {
		_, args := c.hitGroup(uint64(h.record))
		return args
	}
	_, args := c.missGroup(uint64(h.record))
	return args
}

// TriangleObjectPositions returns the hit triangle's object-space vertex
// positions (hlsl-0041 on HitObject, hitObjectGetTriangleVertexPositionsEXT).
func (h *HitObject) TriangleObjectPositions() ([3]vec.Vec3, error) {
	if h.kind != hitObjectHit {
		return [3]vec.Vec3{}, accel.ErrNoTriangle
	}
	return h.hit.TrianglePositions()
}

// CurrentTime returns the ray time for motion blur
// (hitObjectGetCurrentTimeNV); raypipe has no motion, so it is 0.
func (h *HitObject) CurrentTime() float32 { return h.time }
