package accel

import (
	"bufio"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// TestBuildAdvisesHugePages checks that a build's leaf rows, wide nodes and
// per-slot primitive and geometry indices lie in memory advised for
// transparent huge pages (see hugepages.go): the mapping that holds their
// first whole huge page carries the "hg" flag (VM_HUGEPAGE) in
// /proc/self/smaps.
func TestBuildAdvisesHugePages(t *testing.T) {
	if mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("transparent huge pages are off or unknown here")
	}
	if !(simdAvailable || leafAsm) {
		t.Skip("no leaf rows on this build")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	// Rows of 37.8 MB, wide nodes of about 9 MB, indices of 4.2 MB each: four
	// megabytes and more hold a whole huge page wherever they start.
	pos, idx := randomSoup(rng, 1050000, 0.01)
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		name string
		p    unsafe.Pointer
		n    uintptr
	}{
		{"rows", unsafe.Pointer(unsafe.SliceData(b.rows)), uintptr(cap(b.rows)) * 4},
		{"wide", unsafe.Pointer(unsafe.SliceData(b.wide)), uintptr(cap(b.wide)) * unsafe.Sizeof(wideNode{})},
		{"primIndex", unsafe.Pointer(unsafe.SliceData(b.primIndex)), uintptr(cap(b.primIndex)) * 4},
		{"primGeom", unsafe.Pointer(unsafe.SliceData(b.primGeom)), uintptr(cap(b.primGeom)) * 4},
	} {
		page := (uintptr(a.p) + hugePageSize - 1) &^ (hugePageSize - 1)
		if page+hugePageSize > uintptr(a.p)+a.n {
			t.Fatalf("%s: %d bytes hold no whole huge page; the test needs a larger scene", a.name, a.n)
		}
		flags, err := vmFlagsAt(page)
		if err != nil {
			t.Skip(err)
		}
		if !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("%s: the mapping at %#x has VmFlags %q, without hg (MADV_HUGEPAGE)", a.name, page, flags)
		}
	}
}

// vmFlagsAt returns the VmFlags line of the mapping in /proc/self/smaps
// that holds address a.
func vmFlagsAt(a uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok && !strings.HasSuffix(line, ":") {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(a) >= l && uint64(a) < h
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", os.ErrNotExist
}

// TestHugeSliceFaultsItsHugePagesIn checks that hugeSlice hands back its
// advised huge pages faulted in (mincore: resident), each once by a part
// of its own rather than by whichever stage writes first, and the whole
// slice zero.
func TestHugeSliceFaultsItsHugePagesIn(t *testing.T) {
	// A heap of garbage first, so that the slice may reuse written memory.
	junk := make([]uint64, 3<<20)
	for i := range junk {
		junk[i] = uint64(i) | 1
	}
	junk = nil
	runtime.GC()
	if mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("transparent huge pages are off or unknown here")
	}
	s := hugeSlice[uint64](5<<18, 5<<18) // 10 MiB: four whole huge pages at least
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	start := (p + hugePageSize - 1) &^ (hugePageSize - 1)
	pages := int((p + uintptr(len(s))*8 - start) / hugePageSize)
	vec := make([]byte, pages*hugePageSize/os.Getpagesize())
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, start, uintptr(pages*hugePageSize), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Skip("mincore:", e)
	}
	for k := range pages {
		if vec[k*hugePageSize/os.Getpagesize()]&1 == 0 {
			t.Errorf("huge page %d of %d not resident", k, pages)
		}
	}
	for i, v := range s {
		if v != 0 {
			t.Fatalf("s[%d] = %#x, want 0", i, v)
		}
	}
	runtime.KeepAlive(junk)
}
