// Package vec holds the float32 value types shared by every layer of raypipe:
// Vec3 for positions and directions and Mat3x4 for the row-major 3x4 affine
// transforms of the D3D12 raytracing spec (instance and geometry transforms,
// ObjectToWorld3x4, WorldToObject3x4).
//
// All types are plain values; methods never allocate.
package vec
