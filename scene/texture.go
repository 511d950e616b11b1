package scene

import "math"

// Texture is a linear RGBA float image, row 0 at the top (v = 0), as glTF.
type Texture struct {
	Name          string
	Width, Height int
	// Pix holds 4 floats (R, G, B, A) per texel, row by row.
	Pix []float32
}

// NewTexture returns a black transparent w×h texture.
func NewTexture(name string, w, h int) *Texture {
	return &Texture{Name: name, Width: w, Height: h, Pix: make([]float32, 4*w*h)}
}

// Set stores c at texel (x, y).
func (t *Texture) Set(x, y int, c [4]float32) {
	i := 4 * (y*t.Width + x)
	copy(t.Pix[i:i+4], c[:])
}

// At returns texel (x, y) with wrap-around addressing.
func (t *Texture) At(x, y int) [4]float32 {
	x, y = wrap(x, t.Width), wrap(y, t.Height)
	i := 4 * (y*t.Width + x)
	p := t.Pix[i : i+4 : i+4]
	return [4]float32{p[0], p[1], p[2], p[3]}
}

func wrap(i, n int) int {
	i %= n
	if i < 0 {
		i += n
	}
	return i
}

// Sample returns the bilinearly filtered color at (u, v) with repeat
// wrapping in both directions. Texel centers sit at half-integer
// coordinates ((x+0.5)/Width, (y+0.5)/Height). Non-finite coordinates
// sample (0, 0); an empty texture samples opaque white. Sample never
// allocates.
func (t *Texture) Sample(u, v float32) [4]float32 {
	if t.Width <= 0 || t.Height <= 0 || len(t.Pix) < 4*t.Width*t.Height {
		return [4]float32{1, 1, 1, 1}
	}
	fu, fv := float64(u), float64(v)
	if math.IsNaN(fu) || math.IsInf(fu, 0) {
		fu = 0
	}
	if math.IsNaN(fv) || math.IsInf(fv, 0) {
		fv = 0
	}
	// Reduce to [0,1) first so that huge coordinates do not overflow int.
	fu -= math.Floor(fu)
	fv -= math.Floor(fv)
	x := fu*float64(t.Width) - 0.5
	y := fv*float64(t.Height) - 0.5
	x0, y0 := math.Floor(x), math.Floor(y)
	ax, ay := float32(x-x0), float32(y-y0)
	ix, iy := int(x0), int(y0)
	c00, c10 := t.At(ix, iy), t.At(ix+1, iy)
	c01, c11 := t.At(ix, iy+1), t.At(ix+1, iy+1)
	var r [4]float32
	for k := range r {
		top := c00[k] + (c10[k]-c00[k])*ax
		bot := c01[k] + (c11[k]-c01[k])*ax
		r[k] = top + (bot-top)*ay
	}
	return r
}

// srgbToLinear8 maps an 8-bit sRGB value to linear.
var srgbToLinear8 = func() (lut [256]float32) {
	for i := range lut {
		lut[i] = float32(srgbToLinear(float64(i) / 255))
	}
	return lut
}()

func srgbToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}
