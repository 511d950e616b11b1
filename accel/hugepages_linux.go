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

// adviseHugePages marks the whole huge pages inside the n zero bytes at p
// for transparent huge pages (MADV_HUGEPAGE) and hands back to the kernel
// whatever small pages back them (MADV_DONTNEED), so that the next write
// to each faults in a huge page: memory that Go's heap reuses was touched
// (and zeroed) before, in small pages, and the advice alone would not
// change those. Private anonymous pages that were handed back read as
// zeros again, so the bytes stay what they were. Errors are ignored: the
// advice only changes how the memory is backed.
//
// It returns the offset from p of the first huge page advised and how many
// there are (none where the kernel took no advice).
func adviseHugePages(p unsafe.Pointer, n uintptr) (first uintptr, pages int) {
	first, pages = hugePagesIn(p, n)
	if p == nil || pages == 0 {
		return 0, 0
	}
	start, size := uintptr(p)+first, uintptr(pages)*hugePageSize
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, size, madvHugePage); e != 0 {
		return 0, 0 // no transparent huge pages here: leave the pages alone
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, size, madvDontNeed)
	return first, pages
}
