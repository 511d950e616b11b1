// Package raygen generates deterministic ray batches over a triangle mesh for
// benchmarks and cross-checks: coherent primary rays from a pinhole camera,
// incoherent rays with random origins and directions, and shadow rays from
// points on the surface toward a point light.
//
// Every generator is a pure function of its arguments; the random ones take a
// seed for a math/rand/v2 PCG source, so the same call always returns the
// same rays on every platform.
package raygen
