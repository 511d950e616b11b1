package accel

import "unsafe"

// Scratch memory for builds.
//
// A build's largest temporaries (the decoded triangles, 36 bytes each,
// and the refs and the builder's second buffer of them, 28 bytes a
// primitive each) are filled by parallel chunks, yet Go's make zeroes
// them first on the allocating goroutine, page fault by page fault where
// the heap's pages went back to the kernel: about 3.4 GB/s on a Zen 3
// core, 8 ms for a 1M-triangle build's refs, all of it on one core.
// Large ones are therefore mapped from the kernel directly (tempSlice):
// a fresh anonymous mapping reads as zeros, and each page is zeroed when
// first written, on the core that writes it. Go's runtime does not count
// such a mapping: a large build's peak is above what runtime/metrics or
// a GOMEMLIMIT sees by up to 92 bytes a triangle (the refs, their second
// buffer and the decoded triangles), more with spatial splits, for as
// long as the build runs.

// tempMapMin is the size from which tempSlice maps memory of its own.
// Below it, make's zeroing costs about what the page faults of a fresh
// mapping do, and a heap that keeps its pages costs none of them.
const tempMapMin = 8 << 20

// tempSlice returns n zero Es and a function that releases them: the
// slice, and anything sliced from it, must not be used after that call.
// E must hold no pointers (the garbage collector does not see a mapping's
// memory).
func tempSlice[E any](n int) ([]E, func()) {
	var e E
	size := uintptr(n) * unsafe.Sizeof(e)
	if n > 0 && size >= tempMapMin && size/unsafe.Sizeof(e) == uintptr(n) {
		if p, release := mapAnon(size); p != nil {
			return unsafe.Slice((*E)(p), n), release
		}
	}
	return make([]E, n), func() {}
}
