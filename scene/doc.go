// Package scene describes what raypipe renders: triangle meshes, their
// instances, analytic spheres, materials, textures and a camera.
//
// A Scene is plain data. Each Mesh later becomes one bottom-level
// acceleration structure and each of its Primitives one geometry in it;
// each Instance becomes one top-level instance; each Sphere is a procedural
// primitive for an intersection shader. The package knows nothing about
// acceleration structures or shaders and imports only package vec, the
// standard library and a glTF decoder.
//
// Scenes come from three places:
//
//   - files: Load reads glTF 2.0 (.gltf, .glb) and Wavefront OBJ (+MTL);
//     LoadGLTF and LoadOBJ read from an io.Reader with related files
//     (buffers, images, material libraries) resolved in an fs.FS, which is
//     how the tests and fuzzers use them without touching the disk;
//   - procedural benchmark scenes: Terrain, RandomTriangles, SphereField
//     and ManyMaterials, all deterministic for a given seed;
//   - Default, the small embedded scene that `raypipe render` draws when
//     given no file, built from the IcoSphere, Box and Quad helpers.
//
// Scene.Flatten turns a scene into one triangle list in world space, for
// tracers and benchmarks without instancing.
//
// Conventions: right-handed, Y up (as glTF), float32 positions, linear RGB
// colors (sRGB color textures are decoded to linear on load). Loaders never
// panic on bad input; they return a *LoadError naming the file and, for
// text formats, the line.
package scene
