package scene

import (
	"math"
	"math/rand/v2"
)

// CheckerTexture returns a size×size texture of cells×cells squares
// alternating between colors a and b (linear RGBA).
func CheckerTexture(name string, size, cells int, a, b [4]float32) *Texture {
	size, cells = max(size, 1), max(cells, 1)
	t := NewTexture(name, size, size)
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			c := a
			if (x*cells/size+y*cells/size)%2 == 1 {
				c = b
			}
			t.Set(x, y, c)
		}
	}
	return t
}

// fenceTexture returns a square wire-mesh texture: color bars on a grid
// of cells×cells, with transparent (alpha 0) round holes between them.
func fenceTexture(name string, size, cells int, bar [4]float32) *Texture {
	t := NewTexture(name, size, size)
	cell := float64(size) / float64(cells)
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			fx := math.Mod(float64(x)+0.5, cell)/cell - 0.5
			fy := math.Mod(float64(y)+0.5, cell)/cell - 0.5
			if fx*fx+fy*fy < 0.36*0.36 {
				continue // a hole: alpha stays 0
			}
			c := bar
			// A little shading darkens the middle of each bar.
			shade := float32(0.75 + 0.25*math.Abs(fx+fy))
			c[0], c[1], c[2] = c[0]*shade, c[1]*shade, c[2]*shade
			t.Set(x, y, c)
		}
	}
	return t
}

// patternTexture returns a size×size texture whose look (stripes, rings,
// checks or blobs), colors and frequency come from rng, so that every
// call gives a distinct texture.
func patternTexture(name string, size int, rng *rand.Rand) *Texture {
	t := NewTexture(name, size, size)
	hue := rng.Float64()
	c0 := hsv(hue, 0.7, 0.9)
	c1 := hsv(math.Mod(hue+0.3+0.4*rng.Float64(), 1), 0.6, 0.4)
	kind := rng.IntN(4)
	freq := 4 + rng.Float64()*12
	angle := rng.Float64() * math.Pi
	ca, sa := math.Cos(angle), math.Sin(angle)
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			u, v := (float64(x)+0.5)/float64(size), (float64(y)+0.5)/float64(size)
			ru, rv := u*ca-v*sa, u*sa+v*ca
			var f float64
			switch kind {
			case 0: // stripes
				f = 0.5 + 0.5*math.Sin(2*math.Pi*freq*ru)
			case 1: // rings
				du, dv := u-0.5, v-0.5
				f = 0.5 + 0.5*math.Sin(2*math.Pi*freq*math.Sqrt(du*du+dv*dv))
			case 2: // checks
				if (int(math.Floor(ru*freq))+int(math.Floor(rv*freq)))%2 == 0 {
					f = 1
				}
			default: // blobs
				f = 0.5 + 0.25*(math.Sin(2*math.Pi*freq*ru)+math.Sin(2*math.Pi*freq*rv*0.7))
			}
			f32 := float32(f)
			t.Set(x, y, [4]float32{
				c1[0] + (c0[0]-c1[0])*f32,
				c1[1] + (c0[1]-c1[1])*f32,
				c1[2] + (c0[2]-c1[2])*f32,
				1,
			})
		}
	}
	return t
}

// hsv converts hue, saturation, value in [0, 1] to linear RGB.
func hsv(h, s, v float64) [3]float32 {
	h = math.Mod(h, 1) * 6
	i := int(h)
	f := h - float64(i)
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch i {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return [3]float32{float32(srgbToLinear(r)), float32(srgbToLinear(g)), float32(srgbToLinear(b))}
}
