//go:build !amd64 || purego

package accel

// leafRowsFast is false off amd64 and in purego builds: the Go loops lay
// out leaf rows.
var leafRowsFast = false

func leafRowsAVX(tris *triVerts, n int, rows *float32, box *AABB) (finite bool) {
	panic("accel: no assembly leaf rows on this architecture")
}
