//go:build !amd64 || purego

package accel

import "unsafe"

// fetchAsm is false off amd64 and in purego builds: fetchR32x3U32Native's
// Go loop copies.
const fetchAsm = false

func fetchR32x3U32Asm(tris *triVerts, n int, vb unsafe.Pointer, stride int, idx *uint32, order *uint32, last uint32) (ok bool) {
	panic("accel: no assembly fetch on this architecture")
}
