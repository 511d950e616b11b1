package raybatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

func TestRoundTrip(t *testing.T) {
	rays := []accel.Ray{
		{Origin: vec.V3(1, 2, 3), TMin: 0, Direction: vec.V3(0, 0, -1), TMax: float32(math.Inf(1))},
		{Origin: vec.V3(-1, 0.5, 1e6), TMin: 0.25, Direction: vec.V3(1, 1, 1), TMax: 10},
	}
	var buf bytes.Buffer
	if err := WriteRays(&buf, rays); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 64 {
		t.Fatalf("%d bytes", buf.Len())
	}
	got, err := DecodeRays(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i := range rays {
		if got[i] != rays[i] {
			t.Errorf("ray %d: %+v, want %+v", i, got[i], rays[i])
		}
	}
	hits := []Hit{{T: 2, Primitive: 7, U: 0.25, V: 0.5}, Miss}
	buf.Reset()
	WriteHits(&buf, hits)
	gh, err := DecodeHits(buf.Bytes())
	if err != nil || len(gh) != 2 || gh[0] != hits[0] || !math.IsInf(float64(gh[1].T), 1) || gh[1].Primitive != NoPrimitive {
		t.Errorf("hits %+v, %v", gh, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := AppendRays(nil, []accel.Ray{{Direction: vec.V3(0, 0, 1), TMax: 1}, {Direction: vec.V3(0, 0, 1), TMax: 1}})
	set := func(rec, field int, v float32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[32*rec+4*field:], math.Float32bits(v))
		return b
	}
	nan := float32(math.NaN())
	for _, c := range []struct {
		data []byte
		want string
	}{
		{good[:40], "not a multiple of the 32-byte"},
		{set(1, 0, nan), "record 1: ox is NaN"},
		{set(0, 7, nan), "record 0: tmax is NaN"},
		{set(0, 4, float32(math.Inf(-1))), "record 0: dx is infinite"},
		{set(1, 3, -1), "record 1: tmin -1 is negative"},
		{set(1, 3, 2), "record 1: tmax 1 is less than tmin 2"},
		{set(0, 6, 0), "record 0: direction is zero"},
	} {
		_, err := DecodeRays(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if r, err := DecodeRays(nil); err != nil || len(r) != 0 {
		t.Errorf("empty: %v, %v", r, err)
	}
}

func FuzzDecodeRays(f *testing.F) {
	f.Add(AppendRays(nil, []accel.Ray{{Direction: vec.V3(0, 0, 1), TMax: float32(math.Inf(1))}}))
	f.Add([]byte("short"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		rays, err := DecodeRays(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		if len(rays)*RaySize != len(data) {
			t.Fatalf("%d rays from %d bytes", len(rays), len(data))
		}
		for _, r := range rays {
			if !r.Origin.IsFinite() || !r.Direction.IsFinite() || !(r.TMin >= 0) || !(r.TMax >= r.TMin) {
				t.Fatalf("accepted invalid ray %+v", r)
			}
		}
		if out := AppendRays(nil, rays); !bytes.Equal(out, data) {
			t.Fatalf("re-encoding differs")
		}
	})
}
