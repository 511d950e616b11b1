package render

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/raypipe/raypipe/internal/atomicfile"
)

// Image is a linear RGB float image, row 0 at the top.
type Image struct {
	Width, Height int
	// Pix holds 3 floats (R, G, B) per pixel, row by row.
	Pix []float32
}

// NewImage returns a black w×h image.
func NewImage(w, h int) *Image {
	return &Image{Width: w, Height: h, Pix: make([]float32, 3*w*h)}
}

// At returns the color of pixel (x, y).
func (m *Image) At(x, y int) [3]float32 {
	i := 3 * (y*m.Width + x)
	return [3]float32{m.Pix[i], m.Pix[i+1], m.Pix[i+2]}
}

// Mean returns the average color.
func (m *Image) Mean() [3]float64 {
	var s [3]float64
	for i, v := range m.Pix {
		s[i%3] += float64(v)
	}
	n := float64(m.Width * m.Height)
	if n == 0 {
		return s
	}
	return [3]float64{s[0] / n, s[1] / n, s[2] / n}
}

// toneMap maps linear radiance to display [0, 1] with the ACES filmic
// curve fit of Narkowicz (2015).
func toneMap(x float32) float32 {
	if !(x > 0) {
		return 0
	}
	const a, b, c, d, e = 2.51, 0.03, 2.43, 0.59, 0.14
	return min(1, (x*(a*x+b))/(x*(c*x+d)+e))
}

// srgbEncode applies the sRGB transfer function to a [0, 1] value.
func srgbEncode(v float32) float32 {
	if v <= 0.0031308 {
		return 12.92 * v
	}
	return float32(1.055*math.Pow(float64(v), 1/2.4) - 0.055)
}

// RGBA returns the image tone mapped (ACES filmic, exposure 1) and
// encoded as 8-bit sRGB.
func (m *Image) RGBA() *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, m.Width, m.Height))
	var lut [4097]uint8 // tone mapped values on a fine grid of [0, 1]
	for i := range lut {
		lut[i] = uint8(math.Round(float64(srgbEncode(float32(i)/4096)) * 255))
	}
	for y := 0; y < m.Height; y++ {
		for x := 0; x < m.Width; x++ {
			c := m.At(x, y)
			var px [3]uint8
			for k, v := range c {
				px[k] = lut[int(toneMap(v)*4096+0.5)]
			}
			out.SetNRGBA(x, y, color.NRGBA{px[0], px[1], px[2], 255})
		}
	}
	return out
}

// WritePNG writes the tone mapped sRGB image as PNG.
func (m *Image) WritePNG(w io.Writer) error {
	return png.Encode(w, m.RGBA())
}

// WriteHDR writes the linear image as a Radiance RGBE (.hdr) file with
// flat (uncompressed) scanlines.
func (m *Image) WriteHDR(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\nSOFTWARE=raypipe\n\n-Y %d +X %d\n", m.Height, m.Width)
	for i := 0; i < len(m.Pix); i += 3 {
		e := rgbe(m.Pix[i], m.Pix[i+1], m.Pix[i+2])
		bw.Write(e[:])
	}
	return bw.Flush()
}

// rgbe encodes a linear color as Radiance's shared-exponent RGBE.
func rgbe(r, g, b float32) [4]byte {
	clean := func(v float32) float64 {
		if !(v > 0) {
			return 0
		}
		return math.Min(float64(v), 1e38)
	}
	rf, gf, bf := clean(r), clean(g), clean(b)
	v := math.Max(rf, math.Max(gf, bf))
	if v < 1e-32 {
		return [4]byte{}
	}
	frac, exp := math.Frexp(v)
	s := frac * 256 / v
	return [4]byte{byte(rf * s), byte(gf * s), byte(bf * s), byte(exp + 128)}
}

// Save writes m to path, as PNG for .png and Radiance HDR for .hdr. The
// file is written to a temporary file in the same directory and renamed
// into place, so that path never holds a partial image.
func (m *Image) Save(path string) error {
	var write func(io.Writer) error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		write = m.WritePNG
	case ".hdr":
		write = m.WriteHDR
	default:
		return fmt.Errorf("render: %s: unknown image format %q (want .png or .hdr)", path, ext)
	}
	return atomicfile.Write(path, write)
}
