//go:build !amd64 || purego

package accel

import "unsafe"

// prefetchRef is a no-op where there is no assembly prefetch.
func prefetchRef(wide, rows unsafe.Pointer, ref uint32) {}

// prefetchLine is a no-op where there is no assembly prefetch.
func prefetchLine(p unsafe.Pointer) {}
