package accel

import (
	"testing"
	"unsafe"
)

// tempSlice's memory reads as zeros, as make's does, and holds what is
// written to it, below and above the size from which it maps memory of
// its own.
func TestTempSliceIsZeroedAndWritable(t *testing.T) {
	size := int(unsafe.Sizeof(bref{}))
	for _, n := range []int{0, 1, 1000, tempMapMin/size - 1, tempMapMin/size + 1, 3 * tempMapMin / size} {
		s, release := tempSlice[bref](n)
		if len(s) != n {
			t.Fatalf("n %d: len %d", n, len(s))
		}
		for i := range s {
			if s[i] != (bref{}) {
				t.Fatalf("n %d: element %d is %+v, want zero", n, i, s[i])
			}
			s[i] = bref{minX: float32(i), id: uint32(i)}
		}
		for i := range s {
			if s[i].minX != float32(i) || s[i].id != uint32(i) {
				t.Fatalf("n %d: element %d reads %+v after the write", n, i, s[i])
			}
		}
		release()
	}
}
