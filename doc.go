// Package raypipe implements the programmable half of the D3D12 raytracing
// model on CPU cores: shaders, hit groups, pipeline state objects, shader
// tables, DispatchRays, TraceRay, CallShader, ReportHit, IgnoreHit,
// AcceptHitAndEndSearch and the system value intrinsics, plus Shader
// Execution Reordering (HitObject and ReorderThread, hlsl-0027).
//
// Shaders are Go functions registered under export names with typed
// payloads, attributes and callable parameters (RayGeneration, ClosestHit,
// AnyHit, Miss, Intersection, Callable; AnyHitFilter for an any hit shader
// that returns its decision rather than end with IgnoreHit's panic).
// Underneath, the core passes them as
// untyped memory plus a TypeDesc, so a shader need not be a Go closure: a
// SPIR-V executor can supply its own Shader values.
//
// A dispatch runs the ray generation grid on GOMAXPROCS workers. Errors
// inside a dispatch — recursion deeper than MaxTraceRecursionDepth, payload
// or attribute type mismatches, a system value read from a stage that
// lacks it, a shader table index beyond its table, a panic in a shader —
// stop the dispatch and come back as a *DispatchError naming the launch
// index and the shader.
//
// The geometry half (acceleration structures and traversal) is package
// accel; inline ray queries are package rayquery.
package raypipe
