package scene

// Wavefront OBJ is parsed by hand: there is no well-kept pure-Go OBJ
// library, and the subset a ray tracer needs is small.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/raypipe/raypipe/vec"
)

// maxOBJLine bounds the length of one OBJ or MTL line.
const maxOBJLine = 1 << 20

// LoadOBJ reads a Wavefront OBJ file from r. name is used in error
// messages and as the scene name. Material libraries (mtllib) and their
// textures (map_Kd) are read from fsys, relative to its root (the OBJ
// file's directory); fsys may be nil, in which case mtllib statements are
// skipped with a warning, as are missing libraries and textures.
//
// Supported statements: v (x y z, extra values such as vertex colors are
// ignored), vt, vn, f (v, v/vt, v//vn, v/vt/vn; negative indices count
// back from the latest vertex; polygons are fan-triangulated), usemtl,
// mtllib. o, g, s, l, p and unknown statements are ignored. The result is
// one Mesh with one identity Instance; faces are grouped into one
// Primitive per material, in order of first use.
func LoadOBJ(r io.Reader, name string, fsys fs.FS) (s *Scene, err error) {
	defer recoverTo(name, &err)
	p := objParser{name: name, fsys: fsys, groups: map[string]*objGroup{}}
	if err := p.parse(r); err != nil {
		return nil, err
	}
	return p.build()
}

type objParser struct {
	name string
	fsys fs.FS

	v  []vec.Vec3
	vt [][2]float32
	vn []vec.Vec3

	groups  map[string]*objGroup // by material name
	order   []*objGroup
	current *objGroup
	libs    []string
	line    int
	face    []objVert // scratch
}

// objVert is one face corner: 0-based indices, -1 when absent.
type objVert struct{ v, vt, vn int32 }

// objGroup accumulates the faces that use one material.
type objGroup struct {
	material string
	line     int // line of first use, for warnings
	dedup    map[objVert]uint32
	verts    []objVert
	indices  []uint32
	hasVT    bool
	hasVN    bool
}

func (p *objParser) errorf(format string, args ...any) error {
	return loadErr(p.name, p.line, format, args...)
}

func (p *objParser) parse(r io.Reader) error {
	br := bufio.NewReader(r)
	if bom, _ := br.Peek(2); len(bom) == 2 && (bom[0] == 0xFE && bom[1] == 0xFF || bom[0] == 0xFF && bom[1] == 0xFE) {
		utf8, err := decodeUTF16(br)
		if err != nil {
			return p.errorf("%v", err)
		}
		r = bytes.NewReader(utf8)
	} else {
		r = br
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxOBJLine)
	for sc.Scan() {
		p.line++
		line := sc.Bytes()
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(string(line))
		if len(fields) == 0 {
			continue
		}
		if err := p.statement(fields, string(line)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		p.line++
		if errors.Is(err, bufio.ErrTooLong) {
			return p.errorf("line longer than %d bytes", maxOBJLine)
		}
		return p.errorf("%v", err)
	}
	return nil
}

func (p *objParser) statement(f []string, line string) error {
	switch f[0] {
	case "v":
		x, err := p.floats(f, 3, 3)
		if err != nil {
			return err
		}
		p.v = append(p.v, vec.Vec3{X: x[0], Y: x[1], Z: x[2]})
	case "vt":
		x, err := p.floats(f, 1, 2)
		if err != nil {
			return err
		}
		p.vt = append(p.vt, [2]float32{x[0], x[1]})
	case "vn":
		x, err := p.floats(f, 3, 3)
		if err != nil {
			return err
		}
		p.vn = append(p.vn, vec.Vec3{X: x[0], Y: x[1], Z: x[2]})
	case "f":
		return p.faceStatement(f[1:])
	case "usemtl":
		p.use(restOf(line, "usemtl"))
	case "mtllib":
		// Library names may contain spaces; most files name one library.
		p.libs = append(p.libs, restOf(line, "mtllib"))
	}
	return nil
}

// restOf returns the text after the keyword, trimmed.
func restOf(line, keyword string) string {
	line = strings.TrimSpace(line)
	return strings.TrimSpace(strings.TrimPrefix(line, keyword))
}

// floats parses at least need and at most want values after the keyword;
// missing optional values are zero, extra values are ignored.
func (p *objParser) floats(f []string, need, want int) ([3]float32, error) {
	var out [3]float32
	if len(f)-1 < need {
		return out, p.errorf("%s: %d values, want at least %d", f[0], len(f)-1, need)
	}
	for i := 0; i < want && i+1 < len(f); i++ {
		x, err := strconv.ParseFloat(f[i+1], 32)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return out, p.errorf("%s: bad number %q", f[0], f[i+1])
		}
		out[i] = float32(x)
	}
	return out, nil
}

func (p *objParser) use(material string) {
	g := p.groups[material]
	if g == nil {
		g = &objGroup{material: material, line: p.line, dedup: map[objVert]uint32{}}
		p.groups[material] = g
		p.order = append(p.order, g)
	}
	p.current = g
}

func (p *objParser) faceStatement(corners []string) error {
	if len(corners) < 3 {
		return p.errorf("face with %d vertices, want at least 3", len(corners))
	}
	if p.current == nil {
		p.use("")
	}
	g := p.current
	p.face = p.face[:0]
	for _, c := range corners {
		parts := strings.SplitN(c, "/", 3)
		var fv objVert
		var err error
		if fv.v, err = p.index(parts[0], len(p.v), "vertex", "vertices", true); err != nil {
			return err
		}
		fv.vt, fv.vn = -1, -1
		if len(parts) > 1 {
			if fv.vt, err = p.index(parts[1], len(p.vt), "texture coordinate", "texture coordinates", false); err != nil {
				return err
			}
		}
		if len(parts) > 2 {
			if fv.vn, err = p.index(parts[2], len(p.vn), "normal", "normals", false); err != nil {
				return err
			}
		}
		p.face = append(p.face, fv)
	}
	for i := 1; i+1 < len(p.face); i++ {
		for _, fv := range [3]objVert{p.face[0], p.face[i], p.face[i+1]} {
			g.indices = append(g.indices, g.vertex(fv))
		}
	}
	return nil
}

// index resolves a 1-based (or negative, relative) OBJ index against n
// defined elements and returns it 0-based; an empty optional field is -1.
func (p *objParser) index(tok string, n int, what, plural string, required bool) (int32, error) {
	if tok == "" {
		if required {
			return 0, p.errorf("face corner without a %s index", what)
		}
		return -1, nil
	}
	i, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return 0, p.errorf("bad face %s index %q", what, tok)
	}
	switch {
	case i > 0 && i <= int64(n):
		return int32(i - 1), nil
	case i < 0 && -i <= int64(n):
		return int32(int64(n) + i), nil
	}
	return 0, p.errorf("face %s index %d out of range (%d %s)", what, i, n, plural)
}

// vertex returns the group-local index of face corner fv, adding it once.
func (g *objGroup) vertex(fv objVert) uint32 {
	if i, ok := g.dedup[fv]; ok {
		return i
	}
	i := uint32(len(g.verts))
	g.dedup[fv] = i
	g.verts = append(g.verts, fv)
	g.hasVT = g.hasVT || fv.vt >= 0
	g.hasVN = g.hasVN || fv.vn >= 0
	return i
}

func (p *objParser) build() (*Scene, error) {
	s := &Scene{Name: p.name}
	mats, err := p.loadLibraries(s)
	if err != nil {
		return nil, err
	}
	var mesh Mesh
	mesh.Name = p.name
	for _, g := range p.order {
		if len(g.indices) == 0 {
			continue
		}
		prim := Primitive{Indices: g.indices, Material: -1, Positions: make([]vec.Vec3, len(g.verts))}
		if g.hasVT {
			prim.UVs = make([][2]float32, len(g.verts))
		}
		if g.hasVN {
			prim.Normals = make([]vec.Vec3, len(g.verts))
		}
		for i, fv := range g.verts {
			prim.Positions[i] = p.v[fv.v]
			if g.hasVT && fv.vt >= 0 {
				// OBJ's v grows upwards; glTF's (ours) downwards.
				prim.UVs[i] = [2]float32{p.vt[fv.vt][0], 1 - p.vt[fv.vt][1]}
			}
			if g.hasVN && fv.vn >= 0 {
				prim.Normals[i] = p.vn[fv.vn]
			}
		}
		if g.material != "" {
			mi, ok := mats[g.material]
			if !ok {
				m := DefaultMaterial()
				m.Name = g.material
				mi = s.addMaterial(m)
				mats[g.material] = mi
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: material %q not defined; using the default", p.name, g.line, g.material))
			}
			prim.Material = mi
		}
		mesh.Primitives = append(mesh.Primitives, prim)
	}
	if len(mesh.Primitives) > 0 {
		s.addMesh(mesh)
	}
	return s, nil
}

// loadLibraries reads every mtllib into s.Materials and returns the
// material index by name.
func (p *objParser) loadLibraries(s *Scene) (map[string]int, error) {
	mats := map[string]int{}
	textures := map[string]int{}
	for _, lib := range p.libs {
		if p.fsys == nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: material library %q skipped: no directory given", p.name, lib))
			continue
		}
		data, err := readRelated(p.fsys, lib)
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: material library skipped: %v", p.name, err))
			continue
		}
		if err := parseMTL(bytes.NewReader(data), lib, p.fsys, s, mats, textures); err != nil {
			return nil, err
		}
	}
	return mats, nil
}

// decodeUTF16 reads a UTF-16 text with a byte order mark and returns it
// as UTF-8 (some exporters write OBJ files that way).
func decodeUTF16(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(data)%2 != 0 {
		data = data[:len(data)-1]
	}
	big := data[0] == 0xFE
	units := make([]uint16, 0, len(data)/2-1)
	for i := 2; i+1 < len(data); i += 2 {
		if big {
			units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
		} else {
			units = append(units, uint16(data[i+1])<<8|uint16(data[i]))
		}
	}
	return []byte(string(utf16.Decode(units))), nil
}
