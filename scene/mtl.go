package scene

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// mtlMaterial collects the MTL statements that decide a Material.
type mtlMaterial struct {
	m        Material
	ks       [3]float32
	ns       float32
	ni       float32
	hasNi    bool
	illum    int
	dissolve float32
	mapKd    string
	line     int
}

// parseMTL reads a Wavefront material library into s. Statements used:
// newmtl, Kd, Ks, Ke, Ns, Ni, d, Tr, illum, map_Kd; others are ignored.
// Colors are taken as linear. The kind is decided as follows:
//   - any Ke component > 0: Emissive;
//   - illum 4, 6 or 7, or d < 1 with Ni set (and not 1): Dielectric, IOR Ni;
//   - illum 3 or 5, or Ns >= 200 with a bright Ks (max >= 0.5): Metal,
//     tinted by Ks where Kd is black; Roughness = sqrt(2/(Ns+2));
//   - otherwise Diffuse; d < 1 then means AlphaMode Blend.
func parseMTL(r io.Reader, lib string, fsys fs.FS, s *Scene, mats, textures map[string]int) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxOBJLine)
	var cur *mtlMaterial
	var all []*mtlMaterial
	line := 0
	errorf := func(format string, args ...any) error { return loadErr(lib, line, format, args...) }
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if f[0] == "newmtl" {
			cur = &mtlMaterial{m: DefaultMaterial(), dissolve: 1, illum: -1, line: line}
			cur.m.Name = restOf(text, "newmtl")
			all = append(all, cur)
			continue
		}
		if cur == nil {
			continue // statements before the first newmtl
		}
		num := func(i int) (float32, error) {
			if i >= len(f) {
				return 0, errorf("%s: missing value", f[0])
			}
			x, err := strconv.ParseFloat(f[i], 32)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, errorf("%s: bad number %q", f[0], f[i])
			}
			return float32(x), nil
		}
		color := func() ([3]float32, error) {
			var c [3]float32
			if len(f) > 1 && (f[1] == "spectral" || f[1] == "xyz") {
				return c, errorf("%s: %s colors not supported", f[0], f[1])
			}
			for i := range c {
				if i+1 >= len(f) && i > 0 {
					c[i] = c[0] // "Kd r" means gray
					continue
				}
				x, err := num(i + 1)
				if err != nil {
					return c, err
				}
				c[i] = x
			}
			return c, nil
		}
		var err error
		switch f[0] {
		case "Kd":
			var c [3]float32
			c, err = color()
			cur.m.BaseColor = [4]float32{c[0], c[1], c[2], 1}
		case "Ks":
			cur.ks, err = color()
		case "Ke":
			cur.m.Emissive, err = color()
		case "Ns":
			cur.ns, err = num(1)
		case "Ni":
			cur.ni, err = num(1)
			cur.hasNi = true
		case "d":
			cur.dissolve, err = num(1)
		case "Tr":
			var tr float32
			tr, err = num(1)
			cur.dissolve = 1 - tr
		case "illum":
			var x float32
			x, err = num(1)
			cur.illum = int(x)
		case "map_Kd":
			cur.mapKd = mapFilename(f[1:])
		}
		if err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		line++
		if errors.Is(err, bufio.ErrTooLong) {
			return errorf("line longer than %d bytes", maxOBJLine)
		}
		return errorf("%v", err)
	}
	for _, mm := range all {
		m := mm.finish()
		if mm.mapKd != "" {
			ti, ok := textures[mm.mapKd]
			if !ok {
				ti = -1
				data, err := readRelated(fsys, mm.mapKd)
				var t *Texture
				if err == nil {
					t, err = decodeTexture(mm.mapKd, data)
				}
				if err != nil {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%d: texture skipped: %v", lib, mm.line, err))
				} else {
					ti = s.addTexture(t)
				}
				textures[mm.mapKd] = ti
			}
			m.BaseColorTexture = ti
		}
		if _, dup := mats[m.Name]; !dup {
			mats[m.Name] = s.addMaterial(m)
		}
	}
	return nil
}

// mapFilename returns the file name of a map_* statement, skipping
// options such as "-s 1 1 1" or "-clamp on". Names may contain spaces.
func mapFilename(args []string) string {
	optionArgs := map[string]int{
		"-blendu": 1, "-blendv": 1, "-bm": 1, "-boost": 1, "-cc": 1, "-clamp": 1,
		"-imfchan": 1, "-mm": 2, "-o": 3, "-s": 3, "-t": 3, "-texres": 1, "-type": 1,
	}
	i := 0
	for i < len(args) {
		n, ok := optionArgs[args[i]]
		if !ok {
			break
		}
		i++
		// -o, -s and -t take one to three numbers.
		for k := 0; k < n && i < len(args); k++ {
			if k > 0 && n == 3 {
				if _, err := strconv.ParseFloat(args[i], 64); err != nil {
					break
				}
			}
			i++
		}
	}
	return strings.Join(args[i:], " ")
}

func (mm *mtlMaterial) finish() Material {
	m := mm.m
	maxKs := max(mm.ks[0], mm.ks[1], mm.ks[2])
	if mm.ns > 0 {
		m.Roughness = float32(math.Sqrt(2 / (float64(mm.ns) + 2)))
	}
	switch {
	case m.Emissive[0] > 0 || m.Emissive[1] > 0 || m.Emissive[2] > 0:
		m.Kind = Emissive
	case mm.illum == 4 || mm.illum == 6 || mm.illum == 7 || (mm.dissolve < 1 && mm.hasNi && mm.ni != 1):
		m.Kind = Dielectric
		m.Roughness = 0
		if mm.hasNi && mm.ni >= 1 {
			m.IOR = mm.ni
		}
	case mm.illum == 3 || mm.illum == 5 || (mm.ns >= 200 && maxKs >= 0.5):
		m.Kind = Metal
		m.Metallic = 1
		if max(m.BaseColor[0], m.BaseColor[1], m.BaseColor[2]) == 0 {
			m.BaseColor = [4]float32{mm.ks[0], mm.ks[1], mm.ks[2], 1}
		}
	default:
		if mm.dissolve < 1 {
			m.AlphaMode = Blend
			m.BaseColor[3] = max(0, mm.dissolve)
		}
	}
	return m
}
