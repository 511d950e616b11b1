package accel

import (
	"syscall"
	"unsafe"
)

// madvise advice values (Linux's uapi/asm-generic/mman-common.h):
// MADV_COLLAPSE is Linux 6.1's; older kernels answer EINVAL.
const (
	madvHugePage = 14
	madvCollapse = 25
)

// hugePageSize is the size of a transparent huge page on amd64 and on
// arm64 with 4 KiB pages.
const hugePageSize = 2 << 20

// adviseHugePages marks the whole huge pages inside the n bytes at p for
// transparent huge pages (MADV_HUGEPAGE). Errors are ignored: the advice
// only changes how the memory is backed.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	madviseHuge(p, n, madvHugePage)
}

// collapseHugePages backs the whole huge pages inside the n bytes at p
// with huge pages now (MADV_COLLAPSE), best effort as adviseHugePages.
func collapseHugePages(p unsafe.Pointer, n uintptr) {
	madviseHuge(p, n, madvCollapse)
}

// madviseHuge applies advice to the whole huge pages inside the n bytes
// at p, if there are any.
func madviseHuge(p unsafe.Pointer, n uintptr, advice uintptr) {
	start := (uintptr(p) + hugePageSize - 1) &^ (hugePageSize - 1)
	end := (uintptr(p) + n) &^ (hugePageSize - 1)
	if p == nil || end <= start {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, advice)
}
