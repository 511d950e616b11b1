// Package raybatch reads and writes the binary ray and hit files of
// `raypipe trace`.
//
// A ray file is a sequence of 32-byte records of eight little-endian
// float32: ox oy oz tmin dx dy dz tmax (the field order of accel.Ray). A
// hit file is a sequence of 16-byte records: t (float32, +Inf on a miss),
// primitive (uint32, NoPrimitive on a miss), u v (float32 barycentrics of
// vertices 1 and 2, 0 on a miss).
//
// DecodeRays accepts only rays a query can answer: finite origins and
// directions, a non-zero direction and 0 <= tmin <= tmax (tmax may be
// +Inf). Anything else is a *FormatError naming the record and field.
package raybatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// Record sizes in bytes.
const (
	RaySize = 32
	HitSize = 16
)

// NoPrimitive is the primitive of a miss.
const NoPrimitive = 0xFFFFFFFF

// ErrFormat is wrapped by every decoding error.
var ErrFormat = errors.New("malformed ray batch")

// FormatError describes a malformed ray or hit file.
type FormatError struct {
	Record int    // the record's index, -1 when the error is about the size
	Field  string // "ox", "tmin", ...; empty when about the size
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Record < 0 {
		return "raybatch: " + e.Msg
	}
	if e.Field == "" {
		return fmt.Sprintf("raybatch: record %d: %s", e.Record, e.Msg)
	}
	return fmt.Sprintf("raybatch: record %d: %s %s", e.Record, e.Field, e.Msg)
}

func (e *FormatError) Unwrap() error { return ErrFormat }

var rayFields = [8]string{"ox", "oy", "oz", "tmin", "dx", "dy", "dz", "tmax"}

// DecodeRays decodes and validates a ray file's contents.
func DecodeRays(data []byte) ([]accel.Ray, error) {
	if len(data)%RaySize != 0 {
		return nil, &FormatError{Record: -1, Msg: fmt.Sprintf("size %d bytes is not a multiple of the %d-byte ray record (truncated file? %d trailing bytes)", len(data), RaySize, len(data)%RaySize)}
	}
	rays := make([]accel.Ray, len(data)/RaySize)
	for i := range rays {
		var f [8]float32
		for k := range f {
			f[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[RaySize*i+4*k:]))
		}
		for k, v := range f {
			if v != v {
				return nil, &FormatError{Record: i, Field: rayFields[k], Msg: "is NaN"}
			}
			if k != 7 && math.IsInf(float64(v), 0) {
				return nil, &FormatError{Record: i, Field: rayFields[k], Msg: "is infinite"}
			}
		}
		r := accel.Ray{Origin: vec.V3(f[0], f[1], f[2]), TMin: f[3], Direction: vec.V3(f[4], f[5], f[6]), TMax: f[7]}
		switch {
		case r.TMin < 0:
			return nil, &FormatError{Record: i, Field: "tmin", Msg: fmt.Sprintf("%v is negative", r.TMin)}
		case r.TMax < r.TMin:
			return nil, &FormatError{Record: i, Field: "tmax", Msg: fmt.Sprintf("%v is less than tmin %v", r.TMax, r.TMin)}
		case r.Direction == vec.Vec3{}:
			return nil, &FormatError{Record: i, Msg: "direction is zero"}
		}
		rays[i] = r
	}
	return rays, nil
}

// AppendRays appends the records of rays to b.
func AppendRays(b []byte, rays []accel.Ray) []byte {
	for _, r := range rays {
		for _, v := range [8]float32{r.Origin.X, r.Origin.Y, r.Origin.Z, r.TMin, r.Direction.X, r.Direction.Y, r.Direction.Z, r.TMax} {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
	}
	return b
}

// WriteRays writes rays to w.
func WriteRays(w io.Writer, rays []accel.Ray) error {
	const chunk = 1 << 14
	buf := make([]byte, 0, chunk*RaySize)
	for len(rays) > 0 {
		n := min(len(rays), chunk)
		buf = AppendRays(buf[:0], rays[:n])
		if _, err := w.Write(buf); err != nil {
			return err
		}
		rays = rays[n:]
	}
	return nil
}

// Hit is one hit record.
type Hit struct {
	T         float32 // +Inf on a miss
	Primitive uint32  // NoPrimitive on a miss
	U, V      float32
}

// Miss is the record of a ray that hit nothing.
var Miss = Hit{T: float32(math.Inf(1)), Primitive: NoPrimitive}

// AppendHits appends the records of hits to b.
func AppendHits(b []byte, hits []Hit) []byte {
	for _, h := range hits {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(h.T))
		b = binary.LittleEndian.AppendUint32(b, h.Primitive)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(h.U))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(h.V))
	}
	return b
}

// WriteHits writes hits to w.
func WriteHits(w io.Writer, hits []Hit) error {
	const chunk = 1 << 14
	buf := make([]byte, 0, chunk*HitSize)
	for len(hits) > 0 {
		n := min(len(hits), chunk)
		buf = AppendHits(buf[:0], hits[:n])
		if _, err := w.Write(buf); err != nil {
			return err
		}
		hits = hits[n:]
	}
	return nil
}

// DecodeHits decodes a hit file's contents.
func DecodeHits(data []byte) ([]Hit, error) {
	if len(data)%HitSize != 0 {
		return nil, &FormatError{Record: -1, Msg: fmt.Sprintf("size %d bytes is not a multiple of the %d-byte hit record", len(data), HitSize)}
	}
	hits := make([]Hit, len(data)/HitSize)
	for i := range hits {
		b := data[HitSize*i:]
		hits[i] = Hit{
			T:         math.Float32frombits(binary.LittleEndian.Uint32(b)),
			Primitive: binary.LittleEndian.Uint32(b[4:]),
			U:         math.Float32frombits(binary.LittleEndian.Uint32(b[8:])),
			V:         math.Float32frombits(binary.LittleEndian.Uint32(b[12:])),
		}
	}
	return hits, nil
}
