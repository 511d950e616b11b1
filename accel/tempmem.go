package accel

import (
	"math/bits"
	"runtime/metrics"
	"sync"
	"time"
	"unsafe"
)

// Scratch memory for builds.
//
// A build's largest temporaries (the decoded triangles, 36 bytes each,
// and the refs and the builder's second buffer of them, 28 bytes a
// primitive each) are filled by parallel chunks, yet Go's make zeroes
// them first on the allocating goroutine, page fault by page fault where
// the heap's pages went back to the kernel: about 3.4 GB/s on a Zen 3
// core, 8 ms for a 1M-triangle build's refs, all of it on one core, and
// on 16 cores most of a 100k-triangle build's decode (1.3 of 8.3 ms).
// So tempSlice hands them out without zeroing:
//
//   - Large ones are mapped from the kernel directly: a fresh anonymous
//     mapping is zeroed page by page when first written, on the core that
//     writes it. Go's runtime does not count such a mapping: a large
//     build's peak is above what runtime/metrics or a GOMEMLIMIT sees by
//     up to 92 bytes a triangle (the refs, their second buffer and the
//     decoded triangles), more with spatial splits, for as long as the
//     build runs.
//   - Middle-sized ones come from a pool of buffers that earlier builds
//     released (tempPool), as they left them: a program that builds
//     again and again (frames of an animation, the meshes of a scene)
//     reuses memory already faulted in, and nothing zeroes it. The pool
//     is Go heap memory, and what stays unused through two garbage
//     collections is left to the collector.

// tempMapMin is the size from which tempSlice maps memory of its own.
// Below it, make's zeroing costs about what the page faults of a fresh
// mapping do, and a heap that keeps its pages costs none of them.
const tempMapMin = 1 << tempMapShift

const tempMapShift = 23 // 8 MiB

// tempPoolMin is the size from which tempSlice takes memory from tempPool
// (below it, make's zeroing is a few microseconds).
const tempPoolMin = 64 << 10

// tempPool holds released scratch buffers by size class: class c holds
// buffers of 1<<c bytes, for requests of more than half that.
//
// It is not a sync.Pool: a sync.Pool keeps what one processor put in a
// slot only that processor reads, and a build's goroutine moves between
// processors as it waits on its workers, so on 16 processors a fifth of
// the gets missed and zeroed 4 MB anew. Like a sync.Pool, it forgets
// what stays unused through two garbage collections (ager).
var tempPool struct {
	mu       sync.Mutex
	new, old [tempMapShift + 1][]*[]uint64 // released since the last collection, before it
	aging    bool                          // an ager runs
}

// getTemp returns a released buffer of class c, or nil.
func getTemp(c int) *[]uint64 {
	p := &tempPool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, list := range []*[]*[]uint64{&p.new[c], &p.old[c]} {
		if k := len(*list); k > 0 {
			buf := (*list)[k-1]
			(*list)[k-1] = nil
			*list = (*list)[:k-1]
			return buf
		}
	}
	return nil
}

// putTemp releases buf, of class c, to the pool.
func putTemp(c int, buf *[]uint64) {
	p := &tempPool
	p.mu.Lock()
	defer p.mu.Unlock()
	p.new[c] = append(p.new[c], buf)
	if !p.aging {
		p.aging = true
		go ager(gcCycles())
	}
}

// ager ages the pool once after each garbage collection, while the pool
// holds buffers: it reads the collector's count of cycles
// (runtime/metrics) every agePollMin, backing off to agePollMax while no
// collection comes, and returns once age has emptied the pool. Several
// collections between two reads count as one, so a buffer goes after
// two reads that each follow one at least.
//
// Until 2026-11-27 a cleanup did this (runtime.AddCleanup on a fresh
// object, age re-arming it): in about one full run of the accel tests in
// ten (GOEXPERIMENT=simd; once under CI) the armed object outlived every
// later collection and the pool kept its buffers for good; a cleanup
// armed afresh then still ran, and arming two objects at a time failed
// the same way (both kept). Why is not known; the runtime promises
// cleanups no promptness ("may never run"), the count of cycles is exact.
func ager(seen uint64) {
	wait := agePollMin
	for {
		time.Sleep(wait)
		if c := gcCycles(); c != seen {
			seen, wait = c, agePollMin
			if !age() {
				return
			}
		} else {
			wait = min(2*wait, agePollMax)
		}
	}
}

// The ager's reads of the collector's count: every agePollMin while
// collections come, at most agePollMax apart while none does.
const (
	agePollMin = 10 * time.Millisecond
	agePollMax = time.Second
)

// gcCycles returns how many garbage collections have completed.
func gcCycles() uint64 {
	s := [1]metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// age drops the buffers released before the last collection and unused
// since, and reports whether the pool still holds any (else the ager
// stops, and the next putTemp starts another).
func age() bool {
	p := &tempPool
	p.mu.Lock()
	defer p.mu.Unlock()
	held := false
	for c := range p.new {
		clear(p.old[c])
		p.old[c], p.new[c] = p.new[c], p.old[c][:0]
		held = held || len(p.old[c]) > 0
	}
	p.aging = held
	return held
}

// testTempFill, where tests set it, is written to every byte of what
// tempSlice returns, so that a reader of scratch memory it did not write
// first shows up as a different build (TestTempSliceContentsDoNotMatter).
var testTempFill *byte

// tempSlice returns n Es whose contents are unspecified (whatever an
// earlier build left, or zeros) and a function that releases them: the
// slice, and anything sliced from it, must not be used after that call,
// and every element must be written before it is read. E must hold no
// pointers (the garbage collector does not see a mapping's memory, nor
// the pool's as Es).
func tempSlice[E any](n int) ([]E, func()) {
	s, release := tempMemory[E](n)
	if testTempFill != nil && n > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(n)*unsafe.Sizeof(s[0]))
		for i := range b {
			b[i] = *testTempFill
		}
	}
	return s, release
}

// releaseNothing is tempMemory's release of memory it made: a function
// value of the package, where a func literal in the generic function
// captured its type dictionary and cost every small call an allocation.
var releaseNothing = func() {}

// tempMemory is tempSlice without the tests' fill.
func tempMemory[E any](n int) ([]E, func()) {
	var e E
	size := uintptr(n) * unsafe.Sizeof(e)
	if n <= 0 || size < tempPoolMin || size/unsafe.Sizeof(e) != uintptr(n) {
		return make([]E, n), releaseNothing
	}
	if size >= tempMapMin {
		if p, release := mapAnon(size); p != nil {
			return unsafe.Slice((*E)(p), n), release
		}
		return make([]E, n), releaseNothing
	}
	class := bits.Len(uint(size - 1)) // 1<<class >= size
	buf := getTemp(class)
	if buf == nil {
		b := make([]uint64, 1<<class/8)
		buf = &b
	}
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(*buf))), n), func() { putTemp(class, buf) }
}
