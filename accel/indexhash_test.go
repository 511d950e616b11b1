package accel

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// hashIndicesSerial is hashIndices' definition computed in one loop: for
// each block of indexHashBlock indices, FNV-1a over the indices k of each
// lane k mod 4, then over the four lanes' hashes; then FNV-1a over the
// blocks' hashes.
func hashIndicesSerial(idx []int) uint64 {
	h := uint64(fnvOffset)
	for lo := 0; lo < len(idx); lo += indexHashBlock {
		lanes := [4]uint64{fnvOffset, fnvOffset, fnvOffset, fnvOffset}
		for k, x := range idx[lo:min(len(idx), lo+indexHashBlock)] {
			lanes[k%4] = (lanes[k%4] ^ uint64(x)) * fnvPrime
		}
		bh := uint64(fnvOffset)
		for _, l := range lanes {
			bh = (bh ^ l) * fnvPrime
		}
		h = (h ^ bh) * fnvPrime
	}
	return h
}

// encodeIndices writes idx as an index buffer of isize-byte indices.
func encodeIndices(idx []int, isize int) []byte {
	b := make([]byte, isize*len(idx))
	for k, x := range idx {
		if isize == 2 {
			binary.LittleEndian.PutUint16(b[2*k:], uint16(x))
		} else {
			binary.LittleEndian.PutUint32(b[4*k:], uint32(x))
		}
	}
	return b
}

// "Index buffer contents may not change" between a build and its
// updates: the hash that checks it is the same however many goroutines
// take it, changes with any one index, and the first index out of range
// is the one reported.
func TestIndexHashIsSerialBlockHashAndCatchesEveryIndex(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(71, 72))
	const verts = 5000
	for _, isize := range []int{2, 4} {
		for _, n := range []int{0, 1, indexHashBlock - 1, indexHashBlock, 5*indexHashBlock + 17, 40 * indexHashBlock} {
			idx := make([]int, n)
			for k := range idx {
				idx[k] = rng.IntN(verts)
			}
			want := hashIndicesSerial(idx)
			for _, procs := range []int{1, 2, 7} {
				runtime.GOMAXPROCS(procs)
				if h, bad := hashIndices(encodeIndices(idx, isize), isize, n, verts); h != want || bad != -1 {
					t.Fatalf("%d-byte indices, n %d, GOMAXPROCS %d: hash %x, bad %d; want %x, -1", isize, n, procs, h, bad, want)
				}
			}
			for _, k := range []int{0, n / 2, n - 1} {
				if k < 0 || k >= n {
					continue
				}
				changed := slices.Clone(idx)
				changed[k] = (idx[k] + 1) % verts
				if h, _ := hashIndices(encodeIndices(changed, isize), isize, n, verts); h == want {
					t.Errorf("%d-byte indices, n %d: changing index %d leaves the hash as it was", isize, n, k)
				}
				outside := slices.Clone(idx)
				outside[n-1] = verts // a later one out of range is not the one reported
				outside[k] = verts + 3
				if _, bad := hashIndices(encodeIndices(outside, isize), isize, n, verts); bad != k {
					t.Errorf("%d-byte indices, n %d: first index out of range at %d, reported %d", isize, n, k, bad)
				}
			}
		}
	}
}
