//go:build !linux

package accel

import "unsafe"

// mapAnon maps no memory here: tempSlice makes its slices.
func mapAnon(size uintptr) (unsafe.Pointer, func()) { return nil, nil }
