// Package render is a small path tracer built only on raypipe's public
// pipeline API, the way a user of the library would write one.
//
// A scene.Scene becomes one bottom-level acceleration structure per mesh
// (one geometry per primitive; geometries whose material uses AlphaMode
// Mask or Blend are not opaque, so an any-hit shader cuts them out), one
// procedural BLAS for the analytic spheres (one AABB geometry per sphere,
// hit by an intersection shader) and a TLAS over the scene's instances.
//
// Shading uses every shader stage: a ray generation shader that runs the
// path loop in the style of the SER examples (HitObjectTraceRay,
// ReorderThreadHitHint, Invoke); a closest-hit shader per material kind
// (diffuse, metal, dielectric, emissive) that reads its material from the
// hit group record's local root arguments and samples the BSDF through a
// callable shader; an any-hit shader for alpha cut-outs; an intersection
// shader for spheres; and miss shaders for the sky (and for shadow rays).
//
// There are two ray types, radiance (0) and shadow (1): the hit group
// table holds two records per geometry, indexed by the spec's formula
// RayContributionToHitGroupIndex + 2·GeometryIndex +
// InstanceContributionToHitGroupIndex, where each instance's contribution
// is twice the index of its mesh's first geometry in the scene.
//
// Rendering is deterministic: every path draws its random numbers from a
// generator seeded by a hash of its pixel, sample and Options.Seed, and
// every pixel is written by exactly one invocation, so the image is
// bit-identical for any number of workers and with reordering on or off.
//
// The package never prints; progress goes to Options.Progress.
package render
