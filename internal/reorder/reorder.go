// Package reorder holds the pieces of Shader Execution Reordering that do
// not depend on shaders: an O(n) stable radix sort of 64-bit sort keys that
// returns a permutation, Morton codes for hit locality, and the simulated
// SIMT wave statistics.
package reorder

import (
	"math/bits"
	"slices"
)

// Sorter sorts 64-bit keys with a stable least-significant-digit radix
// sort over the bits in which the keys differ, with digits of 4 to 11 bits
// chosen for the count of keys (digitsFor); small inputs use insertion
// sort. It reuses its buffers between calls and allocates only when n
// grows.
type Sorter struct {
	keys, tmpKeys []uint64
	idx, tmpIdx   []int
	counts        [1 << maxDigitBits]uint32
}

const (
	minDigitBits = 4
	maxDigitBits = 11
	// insertionMax is the size up to which insertion sort beats the
	// radix passes.
	insertionMax = 48
)

// Keys returns a buffer of n keys to fill before Sort.
func (s *Sorter) Keys(n int) []uint64 {
	if cap(s.keys) < n {
		s.keys = make([]uint64, n)
		s.tmpKeys = make([]uint64, n)
		s.idx = make([]int, n)
		s.tmpIdx = make([]int, n)
	}
	s.keys = s.keys[:n]
	return s.keys
}

// Sort returns the permutation that orders the keys ascending, equal keys
// in their original order. The result is valid until the next call.
func (s *Sorter) Sort() []int {
	n := len(s.keys)
	keys, tk := s.keys, s.tmpKeys[:n]
	idx, ti := s.idx[:n], s.tmpIdx[:n]
	for i := range idx {
		idx[i] = i
	}
	if n < 2 {
		return idx
	}
	if n <= insertionMax {
		for i := 1; i < n; i++ {
			k, x := keys[i], idx[i]
			j := i
			for ; j > 0 && keys[j-1] > k; j-- {
				keys[j], idx[j] = keys[j-1], idx[j-1]
			}
			keys[j], idx[j] = k, x
		}
		return idx
	}
	var diff uint64
	for _, k := range keys[1:] {
		diff |= k ^ keys[0]
	}
	if diff == 0 {
		return idx
	}
	width := digitsFor(n, diff)
	mask := uint64(1)<<width - 1
	for shift := uint(bits.TrailingZeros64(diff)); shift < 64; shift += width {
		if (diff>>shift)&mask == 0 {
			continue
		}
		c := s.counts[:1<<width]
		clear(c)
		for _, k := range keys {
			c[(k>>shift)&mask]++
		}
		var sum uint32
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for i, k := range keys {
			d := (k >> shift) & mask
			tk[c[d]], ti[c[d]] = k, idx[i]
			c[d]++
		}
		keys, tk = tk, keys
		idx, ti = ti, idx
	}
	// Leave the sorted keys where Keys will find them next time.
	s.keys, s.tmpKeys = keys, tk
	s.idx, s.tmpIdx = idx, ti
	return idx
}

// digitsFor returns the digit width that sorts n keys differing in the
// bits of diff in the fewest steps: a pass costs its keys' two visits
// (count, scatter) and its counters' two (clear, prefix sum), and digits
// start at diff's lowest bit; passes whose digit all keys share are
// skipped. Fixed 11-bit digits spent 120 ns a key on 64 keys of the
// pipeline's shape (2048 counters a pass for 64 keys) against 15 ns on
// 64k (BenchmarkSort).
func digitsFor(n int, diff uint64) uint {
	best, bestCost := uint(maxDigitBits), -1
	for b := uint(minDigitBits); b <= maxDigitBits; b++ {
		passes := 0
		for shift := uint(bits.TrailingZeros64(diff)); shift < 64; shift += b {
			if (diff>>shift)&(1<<b-1) != 0 {
				passes++
			}
		}
		if cost := passes * (2*n + 2<<b); bestCost < 0 || cost < bestCost {
			best, bestCost = b, cost
		}
	}
	return best
}

// Morton3 interleaves the low bits bits of x, y and z (x lowest).
func Morton3(x, y, z uint64, bits uint) uint64 {
	var m uint64
	for i := uint(0); i < bits; i++ {
		m |= (x>>i&1)<<(3*i) | (y>>i&1)<<(3*i+1) | (z>>i&1)<<(3*i+2)
	}
	return m
}

// WaveSize is the simulated SIMT width.
const WaveSize = 32

// Waves accumulates simulated SIMT waves: how many there were, how many
// lanes were active and how many distinct shader records they invoked.
type Waves struct {
	Count           uint64
	ActiveLanes     uint64
	DistinctRecords uint64
}

// Add merges o into w.
func (w *Waves) Add(o Waves) {
	w.Count += o.Count
	w.ActiveLanes += o.ActiveLanes
	w.DistinctRecords += o.DistinctRecords
}

// RecordsPerWave is the mean number of distinct records per wave: 1 is
// perfectly coherent, 32 fully divergent.
func (w Waves) RecordsPerWave() float64 {
	if w.Count == 0 {
		return 0
	}
	return float64(w.DistinctRecords) / float64(w.Count)
}

// ActiveFraction is the mean fraction of active lanes per wave.
func (w Waves) ActiveFraction() float64 {
	if w.Count == 0 {
		return 0
	}
	return float64(w.ActiveLanes) / float64(w.Count*WaveSize)
}

// ExecutedCounter packs Invokes, in execution order, into consecutive
// waves of WaveSize. Its memory is constant.
type ExecutedCounter struct {
	wave  [WaveSize]uint32
	n     int
	waves Waves
}

// Observe records the next Invoke's record.
func (e *ExecutedCounter) Observe(record uint32) {
	e.wave[e.n] = record
	e.n++
	if e.n == WaveSize {
		e.waves.add(e.wave[:e.n])
		e.n = 0
	}
}

// Result flushes a partial last wave and returns the totals.
func (e *ExecutedCounter) Result() Waves {
	if e.n > 0 {
		e.waves.add(e.wave[:e.n])
		e.n = 0
	}
	return e.waves
}

// LaunchOrderCounter groups Invokes as a GPU without reordering would:
// lanes are WaveSize consecutive invocations in launch order (their
// sequence numbers), and the n-th Invoke of each lane runs in the same
// wave. A wave is counted once every invocation of its lane group has
// finished, so memory stays proportional to the invocations in flight.
type LaunchOrderCounter struct {
	waves Waves
	open  map[uint64]*openWave // (lane group, ordinal) -> wave so far
	group map[uint32]*laneGroup
}

type openWave struct {
	records [WaveSize]uint32
	lanes   int
}

type laneGroup struct {
	finished int
	ordinals uint32 // 1 + the largest ordinal seen
}

// Observe records that invocation seq made its ordinal-th Invoke of record.
func (c *LaunchOrderCounter) Observe(seq, ordinal, record uint32) {
	if c.open == nil {
		c.open, c.group = map[uint64]*openWave{}, map[uint32]*laneGroup{}
	}
	g := seq / WaveSize
	lg := c.group[g]
	if lg == nil {
		lg = &laneGroup{}
		c.group[g] = lg
	}
	lg.ordinals = max(lg.ordinals, ordinal+1)
	key := uint64(g)<<32 | uint64(ordinal)
	w := c.open[key]
	if w == nil {
		w = &openWave{}
		c.open[key] = w
	}
	w.records[w.lanes] = record
	w.lanes++
}

// Finished records that invocation seq has returned.
func (c *LaunchOrderCounter) Finished(seq uint32) {
	if c.group == nil {
		return
	}
	g := seq / WaveSize
	lg := c.group[g]
	if lg == nil {
		return // it never invoked anything
	}
	lg.finished++
	if lg.finished == WaveSize {
		c.flush(g, lg)
	}
}

func (c *LaunchOrderCounter) flush(g uint32, lg *laneGroup) {
	for k := uint32(0); k < lg.ordinals; k++ {
		key := uint64(g)<<32 | uint64(k)
		if w := c.open[key]; w != nil {
			c.waves.add(w.records[:w.lanes])
			delete(c.open, key)
		}
	}
	delete(c.group, g)
}

// Result counts the waves still open (partial lane groups) and returns
// the totals, in lane group order.
func (c *LaunchOrderCounter) Result() Waves {
	groups := make([]uint32, 0, len(c.group))
	for g := range c.group {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		c.flush(g, c.group[g])
	}
	return c.waves
}

func (w *Waves) add(records []uint32) {
	w.Count++
	w.ActiveLanes += uint64(len(records))
	var seen [WaveSize]uint32
	n := 0
outer:
	for _, r := range records {
		for _, x := range seen[:n] {
			if x == r {
				continue outer
			}
		}
		seen[n] = r
		n++
	}
	w.DistinctRecords += uint64(n)
}
