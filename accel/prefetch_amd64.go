//go:build !purego

package accel

import "unsafe"

// prefetchRef issues PREFETCHT0 for the node wide[ref] (256 bytes: four
// lines) or, for a leaf reference, for the lines of its leaf rows at rows
// (leafRows: 40 bytes a triangle). Go has no prefetch intrinsic outside
// the runtime, so this is a call to assembly: it costs a call and the
// spills around it, but no inline load could do the same without stalling
// retirement on the miss it is meant to hide.
//
//go:noescape
func prefetchRef(wide, rows unsafe.Pointer, ref uint32)

// prefetchLine issues PREFETCHT0 for the line holding p.
//
//go:noescape
func prefetchLine(p unsafe.Pointer)
