// Package reorder holds the pieces of Shader Execution Reordering that do
// not depend on shaders: an O(n) stable radix sort of 64-bit sort keys that
// returns a permutation, Morton codes for hit locality, and the simulated
// SIMT wave statistics.
package reorder

// Sorter sorts 64-bit keys with a stable least-significant-digit radix
// sort (11-bit digits), skipping digits on which all keys agree; small
// inputs use insertion sort. It reuses its buffers between calls and
// allocates only when n grows.
type Sorter struct {
	keys, tmpKeys []uint64
	idx, tmpIdx   []int
	counts        [1 << digitBits]int
}

const (
	digitBits = 11
	digitMask = 1<<digitBits - 1
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
	for shift := uint(0); shift < 64; shift += digitBits {
		if (diff>>shift)&digitMask == 0 {
			continue
		}
		c := &s.counts
		*c = [1 << digitBits]int{}
		for _, k := range keys {
			c[(k>>shift)&digitMask]++
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for i, k := range keys {
			d := (k >> shift) & digitMask
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

// Event is one Invoke: the invocation's launch-order sequence number, the
// how-manieth Invoke of that invocation it is, and the record it ran.
type Event struct {
	Seq     uint32
	Ordinal uint32
	Record  uint32
}

// ExecutedWaves packs events, in execution order, into consecutive waves
// of WaveSize.
func ExecutedWaves(ev []Event) Waves {
	var w Waves
	for i := 0; i < len(ev); i += WaveSize {
		w.add(ev[i:min(i+WaveSize, len(ev))])
	}
	return w
}

// LaunchOrderWaves groups events as a GPU without reordering would: lanes
// are WaveSize consecutive invocations in launch order, and the n-th
// Invoke of each lane runs in the same wave. It sorts ev.
func LaunchOrderWaves(ev []Event) Waves {
	sortEvents(ev)
	var w Waves
	for i := 0; i < len(ev); {
		j := i + 1
		for j < len(ev) && ev[j].Ordinal == ev[i].Ordinal && ev[j].Seq/WaveSize == ev[i].Seq/WaveSize {
			j++
		}
		w.add(ev[i:j])
		i = j
	}
	return w
}

func (w *Waves) add(wave []Event) {
	w.Count++
	w.ActiveLanes += uint64(len(wave))
	var seen [WaveSize]uint32
	n := 0
outer:
	for _, e := range wave {
		for _, r := range seen[:n] {
			if r == e.Record {
				continue outer
			}
		}
		seen[n] = e.Record
		n++
	}
	w.DistinctRecords += uint64(n)
}

func sortEvents(ev []Event) {
	var s Sorter
	keys := s.Keys(len(ev))
	for i, e := range ev {
		keys[i] = uint64(e.Ordinal)<<32 | uint64(e.Seq)
	}
	perm := s.Sort()
	sorted := make([]Event, len(ev))
	for i, p := range perm {
		sorted[i] = ev[p]
	}
	copy(ev, sorted)
}
