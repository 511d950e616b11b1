package raypipe

import (
	"encoding/binary"
	"fmt"
)

// ShaderTable is a region of shader records in a byte buffer, as
// D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE: records of a 32-byte shader
// identifier followed by local root arguments, Stride bytes apart, starting
// Start bytes into Data and spanning Size bytes. A zero Stride makes every
// index address the first record ("Shader record stride").
type ShaderTable struct {
	Data   []byte
	Start  uint64
	Size   uint64
	Stride uint64
}

func (t *ShaderTable) validate(name string) error {
	if t.Size == 0 {
		return nil
	}
	if t.Start > uint64(len(t.Data)) || t.Size > uint64(len(t.Data))-t.Start {
		return fmt.Errorf("raypipe: %s table: range [%d, %d+%d) exceeds its %d-byte buffer", name, t.Start, t.Start, t.Size, len(t.Data))
	}
	if t.Stride%ShaderRecordByteAlignment != 0 {
		return fmt.Errorf("raypipe: %s table: stride %d is not a multiple of %d", name, t.Stride, ShaderRecordByteAlignment)
	}
	if t.Size < ShaderIdentifierSize {
		return fmt.Errorf("raypipe: %s table: size %d is smaller than one shader identifier", name, t.Size)
	}
	return nil
}

// record returns the record at index i: its identifier and its local root
// arguments. ok is false when the record does not lie inside the table.
func (t *ShaderTable) record(i uint64) (id *ShaderIdentifier, args []byte, ok bool) {
	off := t.Stride * i
	if t.Stride != 0 && off/t.Stride != i { // overflow
		return nil, nil, false
	}
	if t.Size < ShaderIdentifierSize || off > t.Size-ShaderIdentifierSize {
		return nil, nil, false
	}
	end := t.Size
	if t.Stride != 0 && off+t.Stride < end {
		end = off + t.Stride
	}
	rec := t.Data[t.Start+off : t.Start+end]
	return (*ShaderIdentifier)(rec[:ShaderIdentifierSize]), rec[ShaderIdentifierSize:], true
}

// Records returns how many whole records the table holds.
func (t *ShaderTable) Records() uint64 {
	if t.Size < ShaderIdentifierSize {
		return 0
	}
	if t.Stride == 0 {
		return 1
	}
	return (t.Size-ShaderIdentifierSize)/t.Stride + 1
}

// ShaderTableBuilder lays out records with a common stride: the identifier
// plus the largest local argument block, rounded up to the record
// alignment.
type ShaderTableBuilder struct {
	ids  []ShaderIdentifier
	args [][]byte
}

// Add appends a record and returns its index.
func (b *ShaderTableBuilder) Add(id ShaderIdentifier, localRootArguments []byte) int {
	b.ids = append(b.ids, id)
	b.args = append(b.args, append([]byte(nil), localRootArguments...))
	return len(b.ids) - 1
}

// AddUint32s appends a record whose local root arguments are 32-bit
// constants (read back with LoadLocalRootTableConstant).
func (b *ShaderTableBuilder) AddUint32s(id ShaderIdentifier, constants ...uint32) int {
	args := make([]byte, 4*len(constants))
	for i, c := range constants {
		binary.LittleEndian.PutUint32(args[4*i:], c)
	}
	return b.Add(id, args)
}

// Build returns the table.
func (b *ShaderTableBuilder) Build() ShaderTable {
	stride := uint64(ShaderIdentifierSize)
	for _, a := range b.args {
		if s := uint64(ShaderIdentifierSize + len(a)); s > stride {
			stride = s
		}
	}
	stride = (stride + ShaderRecordByteAlignment - 1) &^ (ShaderRecordByteAlignment - 1)
	data := make([]byte, stride*uint64(len(b.ids)))
	for i, id := range b.ids {
		copy(data[uint64(i)*stride:], id[:])
		copy(data[uint64(i)*stride+ShaderIdentifierSize:], b.args[i])
	}
	return ShaderTable{Data: data, Size: uint64(len(data)), Stride: stride}
}

// loadConstant reads the 32-bit little-endian constant at offset in args
// (LoadLocalRootTableConstant); offset must be a multiple of 4.
func loadConstant(args []byte, offset uint32) (uint32, error) {
	if offset%4 != 0 {
		return 0, fmt.Errorf("LoadLocalRootTableConstant: offset %d is not a multiple of 4", offset)
	}
	if uint64(offset)+4 > uint64(len(args)) {
		return 0, fmt.Errorf("LoadLocalRootTableConstant: offset %d beyond the %d bytes of local root arguments", offset, len(args))
	}
	return binary.LittleEndian.Uint32(args[offset:]), nil
}
