package accel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// serialScene returns BLASes of every kind (triangles with a transform and
// a non-opaque geometry, procedural, empty, updated with an inactive slot)
// and a TLAS over them with every kind of instance.
func serialScene(t testing.TB) ([]*BLAS, *TLAS, []Instance) {
	rng := rand.New(rand.NewPCG(41, 42))
	tri := mustBLAS(t, soupGeoms(rng, 3, 60), BuildAllowUpdate|BuildAllowDataAccess)
	boxes := randomBoxes(rng, 30)
	box := mustBLAS(t, []Geometry{AABBGeometry(boxes)}, BuildAllowUpdate)
	boxes[4].Min.X = nanF()
	if err := box.Update([]Geometry{AABBGeometry(boxes)}); err != nil {
		t.Fatal(err)
	}
	pos, idx := randomSoup(rng, 20, 0.2)
	upd := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildAllowUpdate|BuildPreferFastBuild)
	pos[idx[6]].Y = nanF()
	if err := upd.Update([]Geometry{TriangleGeometry(pos, idx)}); err != nil {
		t.Fatal(err)
	}
	empty := mustBLAS(t, nil, 0)
	blases := []*BLAS{tri, box, upd, empty}
	var insts []Instance
	for i := 0; i < 9; i++ {
		in := Instance{Transform: randomRotation(rng), InstanceID: uint32(i) << 20, InstanceMask: uint8(0xff >> (i % 3)),
			InstanceContributionToHitGroupIndex: uint32(i) * 0x10101, Flags: InstanceFlags(i % 4), BLAS: blases[(i*3)%4]}
		insts = append(insts, in)
	}
	insts = append(insts, Instance{Transform: vec.Identity3x4, InstanceMask: 0xff}) // nil BLAS
	insts = append(insts, Instance{Transform: vec.Mat3x4{}, InstanceMask: 0xff})    // nil BLAS, singular
	return blases, mustTLAS(t, insts, BuildAllowUpdate), insts
}

// COPY_MODE_DESERIALIZE: "an acceleration structure that is functionally
// equivalent to the acceleration structure that was originally serialized".
func TestSerializeRoundTripTracesIdentically(t *testing.T) {
	blases, tl, insts := serialScene(t)
	rng := rand.New(rand.NewPCG(43, 44))
	rays := randRays(rng, 600, 3)
	var copies []*BLAS
	for bi, b := range blases {
		data := b.Serialize()
		d, err := DeserializeBLAS(data)
		if err != nil {
			t.Fatalf("BLAS %d: %v", bi, err)
		}
		if err := d.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d.Serialize(), data) {
			t.Fatalf("BLAS %d: re-serialization differs", bi)
		}
		if got := d.PostBuildInfo().CurrentSize; got != b.PostBuildInfo().CompactedSize {
			t.Fatalf("BLAS %d: deserialized size %d, want the compacted size %d", bi, got, b.PostBuildInfo().CompactedSize)
		}
		h, _ := ParseSerializedHeader(data)
		// The header leaves out the leaf rows, which only some processes keep.
		if h.DeserializedSizeInBytes != d.PostBuildInfo().CurrentSize-sliceBytes(d.rows, true) || h.SerializedSizeInBytesIncludingHeader != uint64(len(data)) {
			t.Fatalf("header %+v", h)
		}
		for i, r := range rays {
			for _, f := range []RayFlags{0, RayFlagForceNonOpaque, RayFlagCullBackFacingTriangles} {
				if !equalKeys(traceBLAS(b, r, f), traceBLAS(d, r, f)) {
					t.Fatalf("BLAS %d ray %d flags %#x: deserialized structure traces differently", bi, i, f)
				}
			}
			// The plain query too, whose hit names its geometry and
			// primitive from the primitive id in the leaf rows (primID).
			want, okW := b.Intersect(r, 0)
			got, okG := d.Intersect(r, 0)
			if okW != okG || got.T != want.T || got.GeometryIndex != want.GeometryIndex || got.PrimitiveIndex != want.PrimitiveIndex {
				t.Fatalf("BLAS %d ray %d: deserialized Intersect %v %+v, want %v %+v", bi, i, okG, got, okW, want)
			}
		}
		copies = append(copies, d)
	}
	data := tl.Serialize()
	if got := tl.BottomLevels(); len(got) != 4 {
		t.Fatalf("%d bottom levels", len(got))
	}
	order := tl.BottomLevels()
	m := map[*BLAS]*BLAS{}
	for i, b := range blases {
		m[b] = copies[i]
	}
	var newOrder []*BLAS
	for _, b := range order {
		newOrder = append(newOrder, m[b])
	}
	d, err := DeserializeTLAS(data, newOrder)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.Serialize(), data) {
		t.Fatal("TLAS re-serialization differs")
	}
	for i := range insts {
		want := insts[i]
		if want.BLAS != nil {
			want.BLAS = m[want.BLAS]
		}
		if got := d.Instance(i); got != want {
			t.Fatalf("instance %d: %+v, want %+v", i, got, want)
		}
	}
	for i, r := range rays {
		for _, mask := range []uint32{0xff, 0x0f, 0x80} {
			if !equalKeys(traceTLAS(tl, r, 0, mask), traceTLAS(d, r, 0, mask)) {
				t.Fatalf("ray %d mask %#x: deserialized TLAS traces differently", i, mask)
			}
		}
	}
	// The deserialized structures can be updated like the originals.
	if err := d.Update(d.Visualize()); err != nil {
		t.Fatal(err)
	}
}

func TestSerializeDriverMatchingIdentifier(t *testing.T) {
	blases, tl, _ := serialScene(t)
	data := blases[0].Serialize()
	for _, off := range []int{8, 23, 24, 39} { // GUID and versioning data
		bad := bytes.Clone(data)
		bad[off] ^= 1
		if _, err := DeserializeBLAS(bad); !errors.Is(err, ErrIncompatible) {
			t.Fatalf("byte %d of the identifier changed: %v, want ErrIncompatible", off, err)
		}
	}
	bad := bytes.Clone(data)
	bad[0] = 'X'
	if _, err := DeserializeBLAS(bad); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("bad magic: %v, want ErrCorrupt", err)
	}
	if _, err := DeserializeBLAS(tl.Serialize()); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("TLAS data to DeserializeBLAS: %v, want ErrIncompatible", err)
	}
	if _, err := DeserializeTLAS(data, nil); !errors.Is(err, ErrIncompatible) {
		t.Fatalf("BLAS data to DeserializeTLAS: %v, want ErrIncompatible", err)
	}
	if h, err := ParseSerializedHeader(data); err != nil || h.DriverMatchingIdentifier != CurrentDriverMatchingIdentifier() {
		t.Fatalf("%+v %v", h, err)
	}
}

func TestDeserializeTLASBottomLevelPointers(t *testing.T) {
	blases, tl, _ := serialScene(t)
	data := tl.Serialize()
	order := tl.BottomLevels()
	_, err := DeserializeTLAS(data, order[:3])
	wantInputError(t, err, "DeserializeTLAS", "blases", "refers to 4")
	_, err = DeserializeTLAS(data, []*BLAS{order[0], nil, order[2], order[3]})
	wantInputError(t, err, "DeserializeTLAS", "blases", "nil")
	// The wrong order puts BLASes whose bounds do not fit the tree.
	swapped := []*BLAS{order[1], order[0], order[2], order[3]}
	if _, err := DeserializeTLAS(data, swapped); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("swapped BLASes: %v, want ErrCorrupt", err)
	}
	_ = blases
}

// Every truncation and many corruptions give an error or a valid
// structure, never a panic.
func TestDeserializeCorruptDataNeverPanics(t *testing.T) {
	blases, tl, _ := serialScene(t)
	order := tl.BottomLevels()
	for bi, b := range blases {
		data := b.Serialize()
		for n := 0; n < len(data); n++ {
			if _, err := DeserializeBLAS(data[:n]); err == nil {
				t.Fatalf("BLAS %d truncated to %d bytes decoded", bi, n)
			}
		}
	}
	tdata := tl.Serialize()
	for n := 0; n < len(tdata); n++ {
		if _, err := DeserializeTLAS(tdata[:n], order); err == nil {
			t.Fatalf("TLAS truncated to %d bytes decoded", n)
		}
	}
	rng := rand.New(rand.NewPCG(45, 46))
	for i := 0; i < 3000; i++ {
		data := bytes.Clone(blases[i%4].Serialize())
		if i%2 == 1 {
			data = bytes.Clone(tdata)
		}
		for k := 0; k < 1+rng.IntN(3); k++ {
			data[serialHeaderSize+rng.IntN(len(data)-serialHeaderSize)] ^= byte(1 << rng.IntN(8))
		}
		if i%2 == 0 {
			if b, err := DeserializeBLAS(data); err == nil {
				exercise(b, nil)
			}
		} else if tl2, err := DeserializeTLAS(data, order); err == nil {
			exercise(nil, tl2)
		}
	}
}

// exercise traces a few rays, which must terminate without panicking.
func exercise(b *BLAS, tl *TLAS) {
	rng := rand.New(rand.NewPCG(1, 1))
	var tr Traversal
	for _, r := range randRays(rng, 20, 3) {
		if b != nil {
			tr.BeginBLAS(b, r, RayFlagForceNonOpaque)
		} else {
			tr.Begin(tl, r, RayFlagForceNonOpaque, 0xff)
		}
		for tr.Next() {
		}
	}
}

// A claimed count far beyond the data fails before anything is allocated.
func TestDeserializeHugeCountsFailFast(t *testing.T) {
	blases, tl, _ := serialScene(t)
	data := blases[0].Serialize()
	tdata := tl.Serialize()
	toff := serialHeaderSize + 8*len(tl.BottomLevels())
	cases := []struct {
		data []byte
		off  int
		v    uint64
		blas bool
	}{
		{data, serialHeaderSize + 12, 0xFFFFFFFF, true}, // geometry count
		{data, serialHeaderSize + 16, 0xFFFFFFFF, true}, // slot count
		{data, serialHeaderSize + 20, 0xFFFFFFFF, true}, // node count
		{data, 56, 1 << 61, true},                       // bottom-level pointers
		{tdata, toff + 8, 0xFFFFFFFF, false},            // instance count
		{tdata, toff + 12, 0xFFFFFFFF, false},           // slot count
		{tdata, toff + 16, 0xFFFFFFFF, false},           // node count
		{tdata, 56, 1<<64 - 1, false},                   // bottom-level pointers
	}
	for i, c := range cases {
		bad := bytes.Clone(c.data)
		if c.off == 56 {
			binary.LittleEndian.PutUint64(bad[c.off:], c.v)
		} else {
			binary.LittleEndian.PutUint32(bad[c.off:], uint32(c.v))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		if c.blas {
			_, err = DeserializeBLAS(bad)
		} else {
			_, err = DeserializeTLAS(bad, tl.BottomLevels())
		}
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("case %d: %v, want ErrCorrupt", i, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Fatalf("case %d: allocated %d bytes for a claimed count", i, d)
		}
	}
}

func fuzzSeeds(f *testing.F, datas ...[]byte) {
	for _, d := range datas {
		f.Add(d)
		f.Add(d[:len(d)/2])
	}
}

func FuzzDeserializeBLAS(f *testing.F) {
	blases, tl, _ := serialScene(f)
	for _, b := range blases {
		fuzzSeeds(f, b.Serialize())
	}
	fuzzSeeds(f, tl.Serialize())
	split, _ := sliverBLAS(f, 12, GeometryOpaque, BuildPreferFastTrace) // triangles in several slots
	fuzzSeeds(f, split.Serialize())
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DeserializeBLAS(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrIncompatible) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrIncompatible", err)
			}
			return
		}
		if err := b.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if !sameSerialized(b.Serialize(), data) {
			t.Fatal("a decoded structure re-serializes differently")
		}
		exercise(b, nil)
	})
}

func FuzzDeserializeTLAS(f *testing.F) {
	_, tl, _ := serialScene(f)
	order := tl.BottomLevels()
	fuzzSeeds(f, tl.Serialize())
	small := mustTLAS(f, []Instance{{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: order[0]}}, 0)
	fuzzSeeds(f, small.Serialize(), mustTLAS(f, nil, 0).Serialize())
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseSerializedHeader(data)
		if err != nil {
			return
		}
		// Hand it as many distinct BLASes as it asks for, when we have them.
		n := h.NumBottomLevelAccelerationStructurePointersAfterHeader
		if n > uint64(len(order)) {
			n = uint64(len(order))
		}
		blases := order[:n]
		tl, err := DeserializeTLAS(data, blases)
		if err != nil {
			var ie *InputError
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrIncompatible) && !errors.As(err, &ie) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if err := tl.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if !sameSerialized(tl.Serialize(), data) {
			t.Fatal("a decoded structure re-serializes differently")
		}
		exercise(nil, tl)
	})
}

// sameSerialized compares serialized data except for the fields that
// deserialization ignores: DeserializedSizeInBytes (informational) and the
// bottom-level pointer slots (the caller passes the structures).
func sameSerialized(a, b []byte) bool {
	if len(a) != len(b) || len(a) < serialHeaderSize {
		return false
	}
	n := 8 * int(binary.LittleEndian.Uint64(a[56:]))
	return bytes.Equal(a[:48], b[:48]) && bytes.Equal(a[56:64], b[56:64]) && bytes.Equal(a[64+n:], b[64+n:])
}

// The serialized bytes do not depend on whether this process keeps the
// vector walks' leaf rows (GOEXPERIMENT=simd on AVX2): the header's
// deserialized size leaves them out.
func TestSerializeDoesNotDependOnLeafRows(t *testing.T) {
	pos, idx := randomSoup(rand.New(rand.NewPCG(3, 4)), 200, 0.2)
	b, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	with := b.Serialize()
	c := *b
	c.rows = nil
	if without := c.Serialize(); !bytes.Equal(with, without) {
		t.Fatal("serialized bytes change with the leaf rows")
	}
}

// The wide cut's marks (format version 3) decode only where they make a
// cut of an updatable BLAS: the root marked, no wide node of more than
// eight children, none in a structure built without BuildAllowUpdate or in
// a TLAS; each wrong one is an ErrCorrupt, not a panic.
func TestDeserializeChecksTheWideCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	geoms := soupGeoms(rng, 1, 500)
	upd := mustBLAS(t, geoms, BuildAllowUpdate)
	plain := mustBLAS(t, geoms, 0)
	_, tl, _ := serialScene(t)
	// counts returns the offsets of the node records' count fields.
	counts := func(data []byte, nodes int) []int {
		var at []int
		for i := range nodes {
			at = append(at, len(data)-nodeRecordSize*(nodes-i)+28)
		}
		return at
	}
	marked := func(data []byte, at int) bool { return binary.LittleEndian.Uint32(data[at:]) == wideRootMark }
	mark := func(data []byte, at int) { binary.LittleEndian.PutUint32(data[at:], wideRootMark) }
	unmark := func(data []byte, at int) { binary.LittleEndian.PutUint32(data[at:], 0) }

	good := upd.Serialize()
	at := counts(good, len(upd.nodes))
	n := 0
	for _, a := range at {
		if marked(good, a) {
			n++
		}
	}
	if n != len(upd.wide) {
		t.Fatalf("%d marks for %d wide nodes", n, len(upd.wide))
	}
	cases := map[string][]byte{}
	d := bytes.Clone(good)
	unmark(d, at[0])
	cases["root unmarked"] = d
	d = bytes.Clone(good)
	for _, a := range at[1:] {
		if marked(d, a) {
			unmark(d, a)
		}
	}
	cases["one wide node for every leaf"] = d
	d = bytes.Clone(good)
	for _, a := range at {
		if marked(d, a) {
			unmark(d, a)
		}
	}
	cases["no marks"] = d
	d = plain.Serialize()
	mark(d, counts(d, len(plain.nodes))[0])
	cases["a mark without BuildAllowUpdate"] = d
	for name, data := range cases {
		if _, err := DeserializeBLAS(data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	if b, err := DeserializeBLAS(good); err != nil || !sameBytes(b.wide, upd.wide) {
		t.Errorf("the marks as written: %v", err)
	}

	// A TLAS the same: tl is built for updates, so it carries marks.
	descs := make([]Instance, tl.InstanceCount())
	for i := range descs {
		descs[i] = tl.Instance(i)
	}
	plainTop := mustTLAS(t, descs, 0)
	d = plainTop.Serialize()
	mark(d, counts(d, len(plainTop.nodes))[0])
	if _, err := DeserializeTLAS(d, plainTop.BottomLevels()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a TLAS built without BuildAllowUpdate with a mark: %v, want ErrCorrupt", err)
	}
	d = tl.Serialize()
	if a := counts(d, len(tl.nodes))[0]; !marked(d, a) {
		t.Fatal("an updatable TLAS's root is not marked")
	} else {
		unmark(d, a)
	}
	if _, err := DeserializeTLAS(d, tl.BottomLevels()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a TLAS with its root unmarked: %v, want ErrCorrupt", err)
	}
}
