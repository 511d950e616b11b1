package accel

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestFetchAsmMatchesDefinition checks the assembly copy of float32 xyz
// vertices through 32-bit indices against the triangles' definition
// (vertex j of triangle p is the three floats at stride bytes times
// index 3p+j), bit for bit (NaN payloads and all), in index order and in
// a slot order, at strides of 12 bytes and more, the buffer's last vertex
// included; and that an index above the last vertex stops it with false.
func TestFetchAsmMatchesDefinition(t *testing.T) {
	if !fetchAsm {
		t.Skip("no assembly fetch here")
	}
	rng := rand.New(rand.NewPCG(9, 2))
	for _, stride := range []int{12, 16, 28} {
		const nv, nt = 50, 300
		vb := make([]byte, stride*(nv-1)+12) // the last vertex ends the buffer
		for i := range vb {
			vb[i] = byte(rng.Uint32())
		}
		ib := make([]byte, 12*nt)
		for i := 0; i < 3*nt; i++ {
			binary.LittleEndian.PutUint32(ib[4*i:], uint32(rng.IntN(nv)))
		}
		binary.LittleEndian.PutUint32(ib[4:], nv-1)
		order := make([]uint32, nt)
		for i := range order {
			order[i] = uint32(rng.IntN(nt))
		}
		idx := (*uint32)(unsafe.Pointer(&ib[0]))
		for _, ord := range [][]uint32{nil, order} {
			got := make([]triVerts, nt)
			var op *uint32
			if ord != nil {
				op = &ord[0]
			}
			if !fetchR32x3U32Asm(&got[0], nt, unsafe.Pointer(&vb[0]), stride, idx, op, nv-1) {
				t.Fatalf("stride %d: false with every index in range", stride)
			}
			for i := range got {
				p := i
				if ord != nil {
					p = int(ord[i])
				}
				for j := range 3 {
					v := int(binary.LittleEndian.Uint32(ib[12*p+4*j:]))
					c := [3]float32{got[i][j].X, got[i][j].Y, got[i][j].Z}
					for k := range 3 {
						if want := binary.LittleEndian.Uint32(vb[stride*v+4*k:]); math.Float32bits(c[k]) != want {
							t.Fatalf("stride %d, order %v: triangle %d vertex %d component %d: %#x, want %#x", stride, ord != nil, i, j, k, math.Float32bits(c[k]), want)
						}
					}
				}
			}
		}
		binary.LittleEndian.PutUint32(ib[12*7+8:], nv)
		got := make([]triVerts, nt)
		if fetchR32x3U32Asm(&got[0], nt, unsafe.Pointer(&vb[0]), stride, idx, nil, nv-1) {
			t.Fatalf("stride %d: true with index %d above the last vertex %d", stride, nv, nv-1)
		}
		if fetchR32x3U32Asm(&got[0], 0, unsafe.Pointer(&vb[0]), stride, idx, nil, 0) != true {
			t.Fatalf("stride %d: false for no triangles", stride)
		}
	}
}
