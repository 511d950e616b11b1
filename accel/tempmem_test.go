package accel

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// tempSlice's memory holds what is written to it, on each of its paths
// (make, the pool, a mapping of its own), and slices live at the same time
// do not share memory, even of one size class.
func TestTempSliceHoldsWhatIsWritten(t *testing.T) {
	size := int(unsafe.Sizeof(bref{}))
	for _, n := range []int{0, 1, 1000, tempPoolMin/size + 1, tempMapMin/size - 1, tempMapMin/size + 1, 3 * tempMapMin / size} {
		a, releaseA := tempSlice[bref](n)
		b, releaseB := tempSlice[bref](n)
		if len(a) != n || len(b) != n {
			t.Fatalf("n %d: len %d and %d", n, len(a), len(b))
		}
		for i := range a {
			a[i] = bref{minX: float32(i), id: uint32(i)}
			b[i] = bref{minX: -float32(i), id: ^uint32(i)}
		}
		for i := range a {
			if a[i].minX != float32(i) || a[i].id != uint32(i) || b[i].minX != -float32(i) || b[i].id != ^uint32(i) {
				t.Fatalf("n %d: element %d reads %+v and %+v after the writes", n, i, a[i], b[i])
			}
		}
		releaseA()
		releaseB()
	}
}

// A released middle-sized buffer is the next one of its size class, on
// any goroutine, and the pool lets go of what stays unused through two
// garbage collections.
func TestTempPoolReusesThenForgets(t *testing.T) {
	n := tempPoolMin/int(unsafe.Sizeof(bref{})) + 1
	a, release := tempSlice[bref](n)
	release()
	done := make(chan *bref)
	go func() {
		b, release := tempSlice[bref](n)
		release()
		done <- &b[0]
	}()
	if got := <-done; got != &a[0] {
		t.Fatal("a released buffer was not reused on another goroutine")
	}
	held := func() int {
		tempPool.mu.Lock()
		defer tempPool.mu.Unlock()
		k := 0
		for c := range tempPool.new {
			k += len(tempPool.new[c]) + len(tempPool.old[c])
		}
		return k
	}
	for deadline := time.Now().Add(5 * time.Second); held() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the pool still holds %d buffers after collections for 5 s", held())
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // the ager reads the collector's count every agePollMin
	}
}

// Builds write every element of their scratch memory before they read
// it: tempSlice hands out memory as earlier builds left it, so a build
// must not depend on what it holds. Each scene is built with its scratch
// filled with zeros and with two other bytes (NaN and large ids; negative
// coordinates and ids), on one goroutine and on several, and every
// structure must come out the same, byte for byte.
func TestTempSliceContentsDoNotMatter(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func() { testTempFill = nil }()
	rng := rand.New(rand.NewPCG(91, 92))
	// A soup with inactive triangles and a second geometry without
	// indices: refs and decoded triangles from the pool.
	pos, idx := randomSoup(rng, 6000, 0.05)
	for k := 0; k < len(idx)/3; k += 97 {
		pos[idx[3*k]].X = nanF()
	}
	pos2, _ := randomSoup(rng, 3000, 0.05)
	soup := []Geometry{TriangleGeometry(pos, idx), TriangleGeometry(pos2, nil)}
	tpos, tidx := terrain(40000)
	boxes := randomBoxes(rng, 5000)
	boxes[17].Min.X, boxes[17].Max.X = 1, -1 // inverted: inactive
	slivers := TriangleGeometry(slivers(rand.New(rand.NewPCG(8, 1)), sbvhMin+sbvhMin/4), nil)
	slivers.Flags = GeometryOpaque
	small := mustBLAS(t, soupGeoms(rng, 1, 20), 0)
	var insts []Instance
	for i := range 5000 {
		insts = append(insts, Instance{Transform: randomRotation(rng), InstanceID: uint32(i), InstanceMask: 0xff, BLAS: small})
	}
	type built struct {
		serialized []byte
		wide       []wideNode
		rows       []float32
	}
	blas := func(geoms []Geometry, flags BuildFlags) func() built {
		return func() built {
			b := mustBLAS(t, geoms, flags)
			return built{b.Serialize(), b.wide, b.rows}
		}
	}
	scenes := []struct {
		name  string
		build func() built
	}{
		{"soup", blas(soup, BuildPreferFastBuild)},
		{"terrain", blas([]Geometry{TriangleGeometry(tpos, tidx)}, BuildPreferFastTrace)},
		{"boxes", blas([]Geometry{AABBGeometry(boxes)}, 0)},
		{"slivers, spatial splits", blas([]Geometry{slivers}, BuildPreferFastTrace)},
		{"instances", func() built {
			tl := mustTLAS(t, insts, 0)
			return built{tl.Serialize(), tl.wide, nil}
		}},
	}
	for _, sc := range scenes {
		var want built
		for i, fill := range []byte{0x00, 0xff, 0xa5} {
			for _, procs := range []int{1, 4} {
				runtime.GOMAXPROCS(procs)
				testTempFill = &fill
				got := sc.build()
				testTempFill = nil
				if i == 0 && procs == 1 {
					want = got
					continue
				}
				if !bytes.Equal(got.serialized, want.serialized) || !slices.Equal(got.wide, want.wide) || !slices.Equal(got.rows, want.rows) {
					t.Fatalf("%s: scratch filled with %#x, GOMAXPROCS %d: a different structure than with zeros", sc.name, fill, procs)
				}
			}
		}
	}
}
