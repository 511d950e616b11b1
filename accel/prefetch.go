package accel

import "unsafe"

// Software prefetch for the wide walks.
//
// On scenes larger than the caches, a walk is a chain of dependent misses
// (node, child node, ..., leaf triangles). When a walk pushes a child it
// will only visit after the subtree it continues with, prefetching the
// child then overlaps that miss with the work in between. Measured against
// the same loops without it (in one process, alternating batches), the
// 1M-triangle soup gets 10-16% faster on incoherent and shadow rays, 100k
// triangles 6-9%, 1M-triangle terrain shadow rays 13%; scenes that fit in
// the caches, and coherent primary rays, pay the call: within +-3%.
// Leaves prefetch all their triangle lines (up to 288 bytes), inner nodes
// all of their lines (measured with 4-wide nodes of two lines): each did
// better than prefetching less.
//
// A prefetch is only a hint: it never faults and never changes a result,
// so the walks stay bit-identical.

// prefetchChild prefetches what the walk will read when it visits ref, a
// child reference of a node of wide: all four cache lines of an inner node, or
// every line of a leaf's rows from leaves (BLAS.leafLines).
func prefetchChild(wide []wideNode, leaves unsafe.Pointer, ref uint32) {
	prefetchRef(unsafe.Pointer(unsafe.SliceData(wide)), leaves, ref)
}

// leafLines returns what the walks read a leaf's triangles from, for
// prefetchChild: the leaf rows (leafRows), which every BLAS with
// triangles keeps where prefetchRef prefetches (amd64: leafAsm), and
// from which the vector walks read leaves too.
func (b *BLAS) leafLines() unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(b.rows))
}

// The assembly hard-codes the layout: these fail to compile if it changes.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(wideNode{})-256]
	_ = [1]struct{}{}[rowsPerSlot*4-40]
	_ = [1]struct{}{}[leafBit-1<<31]
	_ = [1]struct{}{}[leafCountBits-3]
)
