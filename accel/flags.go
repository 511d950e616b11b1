package accel

// GeometryFlags are D3D12_RAYTRACING_GEOMETRY_FLAGS.
type GeometryFlags uint32

const (
	// GeometryOpaque: the geometry acts as opaque, any-hit shaders are not
	// invoked for it (unless overridden by instance or ray flags).
	GeometryOpaque GeometryFlags = 0x1
	// GeometryNoDuplicateAnyHitInvocation: any-hit runs at most once per
	// primitive per ray. raypipe duplicates primitives only where spatial
	// splits put a triangle in several leaves, which it does only in
	// PREFER_FAST_TRACE builds whose geometries are all opaque and without
	// this flag (sbvh.go); a BLAS with this flag on any geometry is never
	// split, so the rule always holds.
	GeometryNoDuplicateAnyHitInvocation GeometryFlags = 0x2
)

// InstanceFlags are D3D12_RAYTRACING_INSTANCE_FLAGS (8 bits).
type InstanceFlags uint8

const (
	// InstanceTriangleCullDisable makes the CULL_BACK/FRONT_FACING ray flags
	// have no effect on this instance.
	InstanceTriangleCullDisable InstanceFlags = 0x1
	// InstanceTriangleFrontCounterClockwise reverses front and back facing.
	InstanceTriangleFrontCounterClockwise InstanceFlags = 0x2
	// InstanceForceOpaque acts as if every geometry were GeometryOpaque.
	InstanceForceOpaque InstanceFlags = 0x4
	// InstanceForceNonOpaque acts as if no geometry were GeometryOpaque.
	InstanceForceNonOpaque InstanceFlags = 0x8
)

// BuildFlags are D3D12_RAYTRACING_ACCELERATION_STRUCTURE_BUILD_FLAGS.
type BuildFlags uint32

const (
	// BuildAllowUpdate permits later updates (refits) of the structure:
	// Update keeps its trees, binary and wide, and refits their bounds in
	// the memory it has (the structure keeps its wide cut for that, 32
	// bytes a wide node; in a BLAS the flag rules out spatial splits).
	BuildAllowUpdate BuildFlags = 0x1
	// BuildAllowCompaction permits Compact.
	BuildAllowCompaction BuildFlags = 0x2
	// BuildPreferFastTrace spends more build time for faster traversal:
	// binned SAH with many bins, and, in a triangle BLAS of 16k or more
	// opaque triangles that is not updatable, spatial splits in the top
	// levels where the SAH says they pay (long thin triangles across the
	// axes, as in CAD meshes; see sbvh.go). Without a preference a build
	// makes the same tree without spatial splits.
	BuildPreferFastTrace BuildFlags = 0x4
	// BuildPreferFastBuild trades traversal speed for build speed.
	BuildPreferFastBuild BuildFlags = 0x8
	// BuildMinimizeMemory keeps the structure small (larger leaves, no
	// per-primitive precomputation beyond what tracing needs).
	BuildMinimizeMemory BuildFlags = 0x10
	// BuildPerformUpdate asks Update to refit rather than rebuild; it is
	// implied by Update and rejected by BuildBLAS/BuildTLAS.
	BuildPerformUpdate BuildFlags = 0x20
	// BuildAllowDataAccess keeps vertex positions readable through
	// triangle position fetch (hlsl-0041).
	BuildAllowDataAccess BuildFlags = 0x800
)

// RayFlags are the HLSL RAY_FLAG values that affect traversal.
type RayFlags uint32

const (
	RayFlagNone                       RayFlags = 0x00
	RayFlagForceOpaque                RayFlags = 0x01
	RayFlagForceNonOpaque             RayFlags = 0x02
	RayFlagAcceptFirstHitAndEndSearch RayFlags = 0x04
	RayFlagSkipClosestHitShader       RayFlags = 0x08
	RayFlagCullBackFacingTriangles    RayFlags = 0x10
	RayFlagCullFrontFacingTriangles   RayFlags = 0x20
	RayFlagCullOpaque                 RayFlags = 0x40
	RayFlagCullNonOpaque              RayFlags = 0x80
	RayFlagSkipTriangles              RayFlags = 0x100
	RayFlagSkipProceduralPrimitives   RayFlags = 0x200
)

// Validate reports ray flag combinations the spec declares mutually
// exclusive ("Ray flags"): at most one of FORCE_OPAQUE, FORCE_NON_OPAQUE,
// CULL_OPAQUE, CULL_NON_OPAQUE; at most one of the two facing culls; and
// SKIP_TRIANGLES excludes the facing culls and SKIP_PROCEDURAL_PRIMITIVES.
func (f RayFlags) Validate() error {
	opacity := f & (RayFlagForceOpaque | RayFlagForceNonOpaque | RayFlagCullOpaque | RayFlagCullNonOpaque)
	if opacity&(opacity-1) != 0 {
		return inputErr("ray flags", "", "%#x: FORCE_OPAQUE, FORCE_NON_OPAQUE, CULL_OPAQUE and CULL_NON_OPAQUE are mutually exclusive", uint32(f))
	}
	if f&RayFlagCullBackFacingTriangles != 0 && f&RayFlagCullFrontFacingTriangles != 0 {
		return inputErr("ray flags", "", "%#x: CULL_BACK_FACING_TRIANGLES and CULL_FRONT_FACING_TRIANGLES are mutually exclusive", uint32(f))
	}
	if f&RayFlagSkipTriangles != 0 && f&(RayFlagCullBackFacingTriangles|RayFlagCullFrontFacingTriangles|RayFlagSkipProceduralPrimitives) != 0 {
		return inputErr("ray flags", "", "%#x: SKIP_TRIANGLES excludes CULL_*_FACING_TRIANGLES and SKIP_PROCEDURAL_PRIMITIVES", uint32(f))
	}
	return nil
}
