//go:build !purego

package accel

import "unsafe"

// fetchAsm says whether fetchR32x3U32Native copies with
// fetchR32x3U32Asm: the Go loop spilled its indices to the stack and
// took about twice as long (a 10k-terrain update 1.12-1.17x faster with
// the assembly, BenchmarkUpdate 1.05-1.17x).
const fetchAsm = true

// fetchR32x3U32Asm copies to tris[0:n] the triangles order[0:n] (0 to
// n-1 where order is nil) of the 32-bit indices at idx, each vertex's
// float32 x, y, z from vb at stride bytes a vertex, bit for bit; it
// returns false, having copied only some, if an index is above last
// (TestFetchAsmMatchesDefinition).
//
//go:noescape
func fetchR32x3U32Asm(tris *triVerts, n int, vb unsafe.Pointer, stride int, idx *uint32, order *uint32, last uint32) (ok bool)
