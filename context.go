package raypipe

import (
	"fmt"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// Context is what a shader invocation sees: its system values and the
// intrinsics (TraceRay, CallShader, ReportHit, ...). A Context is valid only
// during the invocation it was passed to.
//
// System values follow the spec's table ("System value intrinsics"):
// DispatchRaysIndex and DispatchRaysDimensions in every stage; the ray
// values (WorldRayOrigin, WorldRayDirection, RayTMin, RayTCurrent,
// RayFlags) in intersection, any hit, closest hit and miss; the
// primitive/object values (InstanceIndex, InstanceID, GeometryIndex,
// PrimitiveIndex, ObjectRayOrigin, ObjectRayDirection, ObjectToWorld,
// WorldToObject) in intersection, any hit and closest hit; HitKind in any
// hit and closest hit. Reading one elsewhere stops the dispatch with
// ErrSystemValue.
type Context struct {
	w      *worker
	launch [3]uint32
	stage  ShaderKind
	shader *Shader
	depth  uint32 // trace recursion depth: 0 in ray generation
	calls  int    // CallShader nesting
	stack  uint64 // pipeline stack in use, this invocation included
	args   []byte // local root arguments of the invoking record

	// Ray and hit state (intersection, any hit, closest hit, miss).
	ray     accel.Ray
	flags   accel.RayFlags
	tCur    float32
	hit     accel.Hit
	hitKind uint8
	trace   *traceState  // intersection and any hit: the traversal in progress
	attr    attrBuf      // any hit and closest hit: this invocation's copy of the attributes
	ended   anyHitSignal // any hit: the intrinsic that ended the shader (invoke), anyHitAccept if none

	rg      *rayGen // ray generation under ReorderOn: the coroutine
	seq     uint32  // launch-order sequence number within the worker
	invokes uint32  // Invoke calls so far (coherence statistics)
}

// Stage sets of the system value table.
const (
	stagesAll    = 1<<KindRayGeneration | 1<<KindIntersection | 1<<KindAnyHit | 1<<KindClosestHit | 1<<KindMiss | 1<<KindCallable
	stagesRay    = 1<<KindIntersection | 1<<KindAnyHit | 1<<KindClosestHit | 1<<KindMiss
	stagesObject = 1<<KindIntersection | 1<<KindAnyHit | 1<<KindClosestHit
	stagesHit    = 1<<KindAnyHit | 1<<KindClosestHit
	// HitObject is available in the stages that may call TraceRay
	// (hlsl-0027 "Valid Shader Stages").
	stagesTrace = 1<<KindRayGeneration | 1<<KindClosestHit | 1<<KindMiss
)

// SystemValueStages maps each system value intrinsic to the bit set of
// shader kinds (1<<ShaderKind) where the spec makes it available.
var SystemValueStages = map[string]uint{
	"DispatchRaysIndex":       stagesAll,
	"DispatchRaysDimensions":  stagesAll,
	"WorldRayOrigin":          stagesRay,
	"WorldRayDirection":       stagesRay,
	"RayTMin":                 stagesRay,
	"RayTCurrent":             stagesRay,
	"RayFlags":                stagesRay,
	"InstanceIndex":           stagesObject,
	"InstanceID":              stagesObject,
	"GeometryIndex":           stagesObject,
	"PrimitiveIndex":          stagesObject,
	"ObjectRayOrigin":         stagesObject,
	"ObjectRayDirection":      stagesObject,
	"ObjectToWorld3x4":        stagesObject,
	"ObjectToWorld4x3":        stagesObject,
	"WorldToObject3x4":        stagesObject,
	"WorldToObject4x3":        stagesObject,
	"HitKind":                 stagesHit,
	"TriangleObjectPositions": stagesHit,
}

func (c *Context) need(stages uint, name string) {
	if stages&(1<<c.stage) == 0 {
		c.fail(fmt.Errorf("%w: %s in a %s shader", ErrSystemValue, name, c.stage))
	}
}

func (c *Context) needIntrinsic(stages uint, name string) {
	if stages&(1<<c.stage) == 0 {
		c.fail(fmt.Errorf("%w: %s in a %s shader", ErrIntrinsicStage, name, c.stage))
	}
}

// fail stops the dispatch with err, attributed to this invocation.
func (c *Context) fail(err error) {
	panic(&DispatchError{LaunchIndex: c.launch, Shader: c.shader.Name, Kind: c.stage, Err: err})
}

// DispatchRaysIndex returns the launch index (all stages).
func (c *Context) DispatchRaysIndex() [3]uint32 { return c.launch }

// DispatchRaysDimensions returns the dispatch's width, height and depth.
func (c *Context) DispatchRaysDimensions() [3]uint32 { return c.w.d.dims }

// WorldRayOrigin returns the world-space ray origin.
func (c *Context) WorldRayOrigin() vec.Vec3 {
	c.need(stagesRay, "WorldRayOrigin")
	return c.ray.Origin
}

// WorldRayDirection returns the world-space ray direction.
func (c *Context) WorldRayDirection() vec.Vec3 {
	c.need(stagesRay, "WorldRayDirection")
	return c.ray.Direction
}

// RayTMin returns the ray's TMin.
func (c *Context) RayTMin() float32 {
	c.need(stagesRay, "RayTMin")
	return c.ray.TMin
}

// RayTCurrent returns the current end of the ray: the closest hit so far
// in intersection shaders, the candidate's t in any hit, the committed t in
// closest hit and TMax in miss.
func (c *Context) RayTCurrent() float32 {
	c.need(stagesRay, "RayTCurrent")
	if c.stage == KindIntersection {
		return c.trace.tr.TMax()
	}
	return c.tCur
}

// RayFlags returns the ray flags of the current trace.
func (c *Context) RayFlags() accel.RayFlags {
	c.need(stagesRay, "RayFlags")
	return c.flags
}

// InstanceIndex returns the index of the instance in the TLAS.
func (c *Context) InstanceIndex() uint32 {
	c.need(stagesObject, "InstanceIndex")
	return c.hit.InstanceIndex
}

// InstanceID returns the instance's 24-bit InstanceID.
func (c *Context) InstanceID() uint32 {
	c.need(stagesObject, "InstanceID")
	return c.hit.InstanceID()
}

// GeometryIndex returns the geometry's index in its BLAS.
func (c *Context) GeometryIndex() uint32 {
	c.need(stagesObject, "GeometryIndex")
	return c.hit.GeometryIndex
}

// PrimitiveIndex returns the triangle or AABB index within its geometry.
func (c *Context) PrimitiveIndex() uint32 {
	c.need(stagesObject, "PrimitiveIndex")
	return c.hit.PrimitiveIndex
}

// ObjectRayOrigin returns the ray origin in object space.
func (c *Context) ObjectRayOrigin() vec.Vec3 {
	c.need(stagesObject, "ObjectRayOrigin")
	return c.hit.ObjectRayOrigin
}

// ObjectRayDirection returns the ray direction in object space.
func (c *Context) ObjectRayDirection() vec.Vec3 {
	c.need(stagesObject, "ObjectRayDirection")
	return c.hit.ObjectRayDirection
}

// ObjectToWorld3x4 returns the instance's object-to-world transform.
func (c *Context) ObjectToWorld3x4() vec.Mat3x4 {
	c.need(stagesObject, "ObjectToWorld3x4")
	return c.hit.ObjectToWorld()
}

// ObjectToWorld4x3 returns the transpose of ObjectToWorld3x4.
func (c *Context) ObjectToWorld4x3() vec.Mat4x3 {
	c.need(stagesObject, "ObjectToWorld4x3")
	return c.hit.ObjectToWorld().Transpose()
}

// WorldToObject3x4 returns the instance's world-to-object transform.
func (c *Context) WorldToObject3x4() vec.Mat3x4 {
	c.need(stagesObject, "WorldToObject3x4")
	return c.hit.WorldToObject()
}

// WorldToObject4x3 returns the transpose of WorldToObject3x4.
func (c *Context) WorldToObject4x3() vec.Mat4x3 {
	c.need(stagesObject, "WorldToObject4x3")
	return c.hit.WorldToObject().Transpose()
}

// HitKind returns the hit kind: HIT_KIND_TRIANGLE_FRONT_FACE (0xFE) or
// HIT_KIND_TRIANGLE_BACK_FACE (0xFF) for triangles, the value passed to
// ReportHit for procedural primitives.
func (c *Context) HitKind() uint8 {
	c.need(stagesHit, "HitKind")
	return c.hitKind
}

// TriangleObjectPositions returns the object-space positions of the hit
// triangle's vertices in their original order (hlsl-0041), in any hit and
// closest hit shaders. The BLAS must have been built with
// accel.BuildAllowDataAccess and the hit must be a triangle.
func (c *Context) TriangleObjectPositions() [3]vec.Vec3 {
	c.need(stagesHit, "TriangleObjectPositions")
	p, err := c.hit.TrianglePositions()
	if err != nil {
		c.fail(err)
	}
	return p
}

// LocalRootArguments returns the local root arguments of the shader record
// that invoked this shader (the bytes after the shader identifier).
func (c *Context) LocalRootArguments() []byte { return c.args }

// LoadLocalRootTableConstant reads a 32-bit constant from the local root
// arguments; offset must be a multiple of 4.
func (c *Context) LoadLocalRootTableConstant(offset uint32) uint32 {
	v, err := loadConstant(c.args, offset)
	if err != nil {
		c.fail(fmt.Errorf("%w: %v", ErrInvalidArgument, err))
	}
	return v
}

// Stage returns the kind of the running shader.
func (c *Context) Stage() ShaderKind { return c.stage }

// ShaderName returns the export name of the running shader.
func (c *Context) ShaderName() string { return c.shader.Name }
