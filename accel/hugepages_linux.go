package accel

import (
	"syscall"
	"unsafe"
)

// madvise advice values (Linux's uapi/asm-generic/mman-common.h).
const (
	madvDontNeed = 4
	madvHugePage = 14
)

// hugePageSize is the size of a transparent huge page on amd64 and on
// arm64 with 4 KiB pages.
const hugePageSize = 2 << 20

// adviseHugePages marks the whole huge pages inside the n zero bytes at p
// for transparent huge pages (MADV_HUGEPAGE) and hands back to the kernel
// whatever small pages back them (MADV_DONTNEED), so that the next write
// to each faults in a huge page: memory that Go's heap reuses was touched
// (and zeroed) before, in small pages, and the advice alone would not
// change those. Private anonymous pages that were handed back read as
// zeros again, so the bytes stay what they were. Errors are ignored: the
// advice only changes how the memory is backed.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	start := (uintptr(p) + hugePageSize - 1) &^ (hugePageSize - 1)
	end := (uintptr(p) + n) &^ (hugePageSize - 1)
	if p == nil || end <= start {
		return
	}
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage); e != 0 {
		return // no transparent huge pages here: leave the pages alone
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvDontNeed)
}
