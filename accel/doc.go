// Package accel implements the geometry half of the D3D12 raytracing model:
// bottom- and top-level acceleration structures and the one traversal that
// TraceRay, RayQuery and the plain closest-hit/occlusion queries all share.
//
// It follows "Geometry and acceleration structures" and "Acceleration
// structure properties" of the D3D12 raytracing functional spec:
//
//   - BuildBLAS takes triangle or AABB geometries (Geometry), in the spec's
//     vertex and index formats, with an optional per-geometry 3x4 transform.
//   - BuildTLAS takes Instances: a 3x4 transform, a 24-bit InstanceID, an
//     8-bit InstanceMask, a 24-bit InstanceContributionToHitGroupIndex,
//     instance flags and the BLAS (nil makes the instance inactive).
//   - Update and UpdateInto refit a structure built with BuildAllowUpdate,
//     within the spec's "Acceleration structure update constraints".
//   - Clone, Compact, Serialize/DeserializeBLAS/DeserializeTLAS and
//     Visualize are the copy modes of CopyRaytracingAccelerationStructure;
//     PostBuildInfo is EmitRaytracingAccelerationStructurePostBuildInfo.
//   - Traversal enumerates candidate intersections along a ray in
//     (TMin, TMax), commits opaque triangles itself and stops at the
//     candidates that need a decision (non-opaque triangles for any-hit,
//     procedural primitives for intersection shaders).
//
// Triangle intersection is watertight (Woop, Benthin and Wald 2013) with a
// top-left style tie-break, so that a ray through a shared edge or vertex of
// a manifold mesh reports exactly one incident triangle ("Fixed function
// ray-triangle intersection specification"). Builds and traversal are
// deterministic: the same inputs give the same hits in the same order, for
// any GOMAXPROCS.
//
// Traversal walks an 8-wide tree collapsed from the binary SAH tree (with
// spatial splits in its top levels, for BuildPreferFastTrace, where they
// pay: sbvh.go). The
// default walks are scalar Go, except on amd64, where small SSE assembly
// kernels test a node's eight children and a leaf's triangles four at a
// time (slab_amd64.s, leaftest_amd64.s), and where the processor has
// AVX2, Intersect and Occluded (of a BLAS, and of each instance a TLAS
// walk enters) run whole in AVX2 assembly, the ray's set-up included, in
// one call per ray and instance (rayIntersectAVX2 and rayOccludedAVX2
// for a BLAS's own rays and a TLAS's sole identity instance, which check
// and place the ray themselves; rayWalkAVX2 and rayOccludeAVX2 for rays
// placed in Go), eight children and eight triangles per test
// (fused_amd64.s); a TLAS of one instance skips its top level
// (soleQuery); BLAS batches, and those of a TLAS with one instance,
// interleave eight such walks in one call (batchWalkAVX2,
// batchOccludeAVX2); the other walks use its node and leaf tests. A
// build's wide nodes and leaf rows ask for transparent huge pages
// (hugepages.go). A build with GOEXPERIMENT=simd uses simd/archsimd
// walks instead (VectorWalks). Every variant answers bit for bit as the
// Go loops it replaces. On amd64 the build's bounds and binning run in
// SSE assembly (bounds_amd64.s), which gives the Go loops' trees bit for
// bit too. The build tag purego leaves every assembly file out, on amd64
// too: the walks and builds are then the Go loops that other
// architectures run (go test -tags purego tests them natively).
//
// Builds of 16k primitives or more run their parallel parts on a crew of
// GOMAXPROCS-1 worker goroutines (crew.go), which the build keeps
// spinning until it returns, so that its short parallel stages do not
// wait for sleeping threads to wake; idle workers spin 0.2 ms more, then
// park, and exit after a second parked. Smaller builds use goroutines.
//
// The package knows nothing about shaders.
package accel

// VectorWalks reports whether Intersect, Occluded and the plain TraceRay
// path use the vector walks: a build with GOEXPERIMENT=simd on amd64, run
// on a CPU with AVX2. They answer exactly as the scalar walks, the default.
func VectorWalks() bool { return useSIMD }

// Walks names the traversal code that Intersect, Occluded and the plain
// TraceRay path run on this processor, for benchmark reports: "vector
// (GOEXPERIMENT=simd)", "scalar, AVX2 assembly", "scalar, SSE assembly"
// or "scalar Go".
func Walks() string {
	switch {
	case useSIMD:
		return "vector (GOEXPERIMENT=simd)"
	case fusedAVX2:
		return "scalar, AVX2 assembly"
	case slabAsm:
		return "scalar, SSE assembly"
	}
	return "scalar Go"
}
