package accel

import "unsafe"

// Huge pages for the arrays that walks read at random.
//
// A walk's loads land anywhere in a BLAS's wide nodes and leaf rows, and
// on a large scene almost every node and leaf it visits lies on a page
// that the TLB does not hold: a 1M-triangle BLAS's rows take 36 MB, about
// 9000 pages of 4 KiB. Where Linux backs anonymous memory with huge pages
// only on request (transparent_hugepage set to madvise, as many
// distributions ship it), Go's heap gets 4 KiB pages; Embree asks for huge
// pages for everything it allocates (madvise MADV_HUGEPAGE). So do the
// builds here, for these two arrays (hugeSlice, settleHugePages):
// cmd/embreecmp on the 1M and 2M terrain and soup, two runs each way,
// ratios of the medians: shadow and incoherent single rays 1.04-1.28x,
// their batches 1.05-1.16x, primary rays 0.95-1.15x, builds 1.00-1.05x
// (a build advises the arrays before it writes them, so fresh memory
// faults in huge pages at no extra cost). Elsewhere, and where the kernel
// refuses, the arrays are ordinary memory; the advice changes no value in
// them. Memory Go's heap reuses was touched before the advice, in small
// pages, so the build then asks for huge pages outright (MADV_COLLAPSE,
// Linux 6.1), which copies it.

// hugeSlice returns make([]E, n, c) with the whole huge pages inside its
// capacity advised for huge pages (adviseHugePages) before anything is
// written to them: memory fresh from the kernel then comes in huge pages
// when it is first touched.
func hugeSlice[E any](n, c int) []E {
	s := make([]E, n, c)
	var e E
	adviseHugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(c)*unsafe.Sizeof(e))
	return s
}

// settleHugePages asks the kernel to back the whole huge pages inside s's
// capacity with huge pages now (collapseHugePages), once s is written:
// memory that Go's heap reused was touched, in small pages, before
// hugeSlice advised it. Pages already huge are left as they are.
func settleHugePages[E any](s []E) {
	var e E
	collapseHugePages(unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(e))
}

// cloneHuge returns a copy of s with capacity c (at least len(s)) in
// memory advised and settled as the build's (hugeSlice, settleHugePages);
// nil for nil.
func cloneHuge[E any](s []E, c int) []E {
	if s == nil {
		return nil
	}
	d := hugeSlice[E](len(s), c)
	copy(d, s)
	settleHugePages(d)
	return d
}
