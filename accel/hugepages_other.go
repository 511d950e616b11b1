//go:build !linux

package accel

import "unsafe"

// adviseHugePages does nothing here (see hugepages.go).
func adviseHugePages(p unsafe.Pointer, n uintptr) (first uintptr, pages int) { return 0, 0 }
