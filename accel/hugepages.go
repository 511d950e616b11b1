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
// builds here, for these two arrays (hugeSlice): cmd/embreecmp on the 1M
// and 2M terrain and soup, two runs each way, ratios of the medians:
// shadow and incoherent single rays 1.04-1.28x, their batches
// 1.05-1.16x, primary rays 0.95-1.15x; raypipe bench (1M terrain), nine
// runs against twelve: shadow and incoherent rays 1.14x and 1.17x
// (medians), builds within the runs' swing. Builds back to back into
// memory the heap reuses pay for it (Go zeroes the span, the advice hands
// the pages back, the first writes fault huge pages in and zero them
// again): BenchmarkBuild on one Zen 3 core, the 1M terrain 308 ms against
// 277 without the advice, the 1M soup 342 against 310, 100k within 1%
// (docs/performance.md).
//
// A hit reads one more array at random: the primitive index of its slot
// (primIndex, and primGeom where a BLAS has several geometries), which the
// assembly walks prefetch at each commit. A 1M-triangle BLAS's take 4 MB,
// a thousand small pages; in huge pages, too, the incoherent rays of
// BenchmarkTrace's 1M terrain and soup ran 1.04x (six rounds alternated),
// where the profile had charged 7% of the terrain's walk to the stall
// behind that prefetch.
//
// Elsewhere, and where the kernel has no huge page to give, the arrays
// are ordinary memory; the advice changes no value in them.

// hugePageSize is the size of a transparent huge page on amd64 and on
// arm64 with 4 KiB pages.
const hugePageSize = 2 << 20

// hugeSlice returns make([]E, n, c) with the whole huge pages inside its
// capacity advised for transparent huge pages (adviseHugePages) and
// faulted in, one goroutine a page (faultIn). E must hold no pointers
// (adviseHugePages may hand the pages back to the kernel, which the
// garbage collector does not expect of memory it scans).
func hugeSlice[E any](n, c int) []E {
	s := make([]E, n, c)
	var e E
	p := unsafe.Pointer(unsafe.SliceData(s))
	first, pages := adviseHugePages(p, uintptr(c)*unsafe.Sizeof(e))
	faultIn(p, first, pages)
	return s
}

// hugePagesIn returns the offset from p of the first whole huge page in
// the n bytes at p, and how many whole huge pages they hold.
func hugePagesIn(p unsafe.Pointer, n uintptr) (first uintptr, pages int) {
	start := (uintptr(p) + hugePageSize - 1) &^ (hugePageSize - 1)
	end := (uintptr(p) + n) &^ (hugePageSize - 1)
	if end <= start {
		return 0, 0
	}
	return start - uintptr(p), int((end - start) / hugePageSize)
}

// faultIn writes a zero over the zero byte at the start of each of the
// pages huge pages from first bytes past p, each page on a crew part of
// its own, so that each is faulted in once. Left to the parallel stages
// that fill the arrays, the first writes came from many processors at
// once, and Linux allocates and zeroes a huge page for each fault that
// finds none there, keeping one: on 16 processors of a Xeon the CAD
// engine's leaf rows (5.8 MB) took 0.85-0.96 ms to fill, 0.27 ms with
// their huge pages faulted in first (builds after a collection).
func faultIn(p unsafe.Pointer, first uintptr, pages int) {
	if pages == 0 {
		return // no closure for crewRun to make
	}
	crewRun(pages, func(i int) {
		*(*byte)(unsafe.Add(p, first+uintptr(i)*hugePageSize)) = 0
	})
}

// touchPages writes a zero over the zero byte at the start of every 4 KiB
// page of the capacity of s (an array just allocated), on the calling
// goroutine, so that its later writes fault no page in. Pages faulted in
// by a parallel stage's first writes cost many times more: the faults of
// neighboring chunks queue on one lock of the page table and, where a
// page is mapped to the zero page first, on flushing every processor's
// TLB (two Zen 3 processors, the CAD engine's fast build after a
// collection: its wide nodes' parallel fill 3.3 ms against 0.5 ms on one).
func touchPages[E any](s []E) {
	var e E
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(cap(s))*unsafe.Sizeof(e))
	for i := 0; i < len(b); i += 4096 {
		b[i] = 0
	}
}

// cloneHuge returns a copy of s with capacity c (at least len(s)) in a
// hugeSlice; nil for nil.
func cloneHuge[E any](s []E, c int) []E {
	if s == nil {
		return nil
	}
	d := hugeSlice[E](len(s), c)
	copy(d, s)
	return d
}
