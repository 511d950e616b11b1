package scene

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // glTF and MTL textures
	_ "image/png"
)

// MaxTexturePixels bounds the size of a decoded texture image (64 MiB of
// linear float RGBA at this limit). The size an image header claims is
// checked before any pixel memory is allocated.
const MaxTexturePixels = 4096 * 4096

// decodeTexture decodes a PNG or JPEG image into a linear texture. Color
// channels are decoded from sRGB; alpha is kept linear.
func decodeTexture(name string, data []byte) (*Texture, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("image %q: %w", name, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MaxTexturePixels/cfg.Height {
		return nil, fmt.Errorf("image %q: %s of %dx%d pixels is empty or larger than %d pixels", name, format, cfg.Width, cfg.Height, MaxTexturePixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("image %q: %w", name, err)
	}
	return textureFromImage(name, img), nil
}

// textureFromImage converts img to a linear float texture.
func textureFromImage(name string, img image.Image) *Texture {
	b := img.Bounds()
	t := NewTexture(name, b.Dx(), b.Dy())
	i := 0
	switch m := img.(type) {
	case *image.NRGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				p := row[4*x : 4*x+4 : 4*x+4]
				t.Pix[i+0] = srgbToLinear8[p[0]]
				t.Pix[i+1] = srgbToLinear8[p[1]]
				t.Pix[i+2] = srgbToLinear8[p[2]]
				t.Pix[i+3] = float32(p[3]) / 255
				i += 4
			}
		}
		return t
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
			t.Pix[i+0] = srgb16(c.R)
			t.Pix[i+1] = srgb16(c.G)
			t.Pix[i+2] = srgb16(c.B)
			t.Pix[i+3] = float32(c.A) / 65535
			i += 4
		}
	}
	return t
}

func srgb16(v uint16) float32 {
	if v&0xff == v>>8 { // exact 8-bit value widened
		return srgbToLinear8[v>>8]
	}
	return float32(srgbToLinear(float64(v) / 65535))
}
