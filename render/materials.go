package render

import (
	"math"

	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// material is a scene.Material prepared for shading.
type material struct {
	kind      scene.MaterialKind
	base      rgb
	alpha     float32
	tex       *scene.Texture
	alphaMode scene.AlphaMode
	cutoff    float32
	emissive  rgb
	roughness float32
	ior       float32
}

func prepareMaterials(s *scene.Scene) []material {
	ms := make([]material, len(s.Materials)+1)
	for i := range ms {
		m := scene.DefaultMaterial()
		if i < len(s.Materials) {
			m = s.Materials[i]
		}
		p := material{kind: m.Kind, base: rgb{m.BaseColor[0], m.BaseColor[1], m.BaseColor[2]}, alpha: m.BaseColor[3],
			alphaMode: m.AlphaMode, cutoff: m.AlphaCutoff, emissive: m.Emissive, roughness: m.Roughness, ior: m.IOR}
		if m.BaseColorTexture >= 0 && m.BaseColorTexture < len(s.Textures) {
			p.tex = s.Textures[m.BaseColorTexture]
		}
		if p.ior <= 0 {
			p.ior = 1.5
		}
		if p.kind > scene.Emissive {
			p.kind = scene.Diffuse
		}
		ms[i] = p
	}
	return ms
}

// materialIndex maps a scene material index (-1: default) to the table.
func materialIndex(s *scene.Scene, i int) uint32 {
	if i < 0 || i >= len(s.Materials) {
		return uint32(len(s.Materials))
	}
	return uint32(i)
}

// baseColor returns the albedo and alpha at texture coordinates uv.
func (m *material) baseColor(uv [2]float32) (rgb, float32) {
	if m.tex == nil {
		return m.base, m.alpha
	}
	t := m.tex.Sample(uv[0], uv[1])
	return m.base.mul(rgb{t[0], t[1], t[2]}), m.alpha * t[3]
}

// footprintRadius is the radius, in texture coordinates, of the filtered
// lookups of filteredColor.
const footprintRadius = 1.0 / 48

// filteredColor returns the albedo averaged over taps bilinear lookups
// spread on a Vogel spiral of footprintRadius around uv: a box-filtered
// texture footprint (Options.TextureTaps), the kind of memory-heavy
// shading that Shader Execution Reordering is meant for.
func (m *material) filteredColor(uv [2]float32, taps int) rgb {
	if m.tex == nil || taps <= 1 {
		c, _ := m.baseColor(uv)
		return c
	}
	var sum [3]float32
	const golden = 2.39996323 // radians
	for i := 0; i < taps; i++ {
		r := footprintRadius * float32(math.Sqrt((float64(i)+0.5)/float64(taps)))
		a := golden * float64(i)
		t := m.tex.Sample(uv[0]+r*float32(math.Cos(a)), uv[1]+r*float32(math.Sin(a)))
		sum[0], sum[1], sum[2] = sum[0]+t[0], sum[1]+t[1], sum[2]+t[2]
	}
	inv := 1 / float32(taps)
	return m.base.mul(rgb{sum[0] * inv, sum[1] * inv, sum[2] * inv})
}

// Callable shader records, one per scattering material kind.
const (
	callDiffuse = iota
	callMetal
	callDielectric
	numCallables
)

// bsdfQuery is the parameter of the BSDF sampling callables: the
// surface, the direction the light leaves towards (Wo, unit) and the
// path's generator in; the sampled direction and its weight
// (f·cos/pdf) out.
type bsdfQuery struct {
	Wo, N    vec.Vec3 // N is the shading normal on Wo's side
	Albedo   rgb
	Rough    float32
	IOR      float32
	Entering bool // dielectric: the ray arrives from outside
	RNG      rng

	Wi       vec.Vec3
	Weight   rgb
	Specular bool // a delta or glossy lobe: no light sampling
	Transmit bool
	Valid    bool
}

func sampleDiffuse(q *bsdfQuery) {
	q.Wi = cosineHemisphere(q.N, q.RNG.float(), q.RNG.float())
	q.Weight, q.Specular, q.Valid = q.Albedo, false, true
}

func sampleMetal(q *bsdfQuery) {
	r := reflect(q.Wo.Neg(), q.N)
	if q.Rough > 0 {
		// Fuzzy reflection: perturb the mirror direction inside a sphere
		// whose radius grows with roughness.
		fuzz := uniformSphere(q.RNG.float(), q.RNG.float()).Scale(q.Rough * float32(math.Cbrt(float64(q.RNG.float()))))
		r = r.Add(fuzz).Normalize()
	}
	// Schlick's Fresnel for conductors: the tint fades to white at grazing
	// angles.
	c := max(0, q.N.Dot(q.Wo))
	f := float32(math.Pow(float64(1-c), 5))
	w := q.Albedo.add(rgb{1, 1, 1}.add(q.Albedo.scale(-1)).scale(f))
	q.Wi, q.Weight, q.Specular = r, w, true
	q.Valid = r.Dot(q.N) > 0
}

func sampleDielectric(q *bsdfQuery) {
	eta := q.IOR
	if q.Entering {
		eta = 1 / q.IOR
	}
	d := q.Wo.Neg()
	cosI := min(1, q.N.Dot(q.Wo))
	sin2T := eta * eta * (1 - cosI*cosI)
	var fr float32 = 1
	if sin2T < 1 {
		// Schlick's approximation of the dielectric Fresnel reflectance.
		r0 := (1 - q.IOR) / (1 + q.IOR)
		r0 *= r0
		c := cosI
		if !q.Entering {
			c = float32(math.Sqrt(float64(1 - sin2T)))
		}
		fr = r0 + (1-r0)*float32(math.Pow(float64(1-c), 5))
	}
	q.Specular, q.Valid = true, true
	if q.RNG.float() < fr {
		q.Wi, q.Weight, q.Transmit = reflect(d, q.N), rgb{1, 1, 1}, false
		return
	}
	cosT := float32(math.Sqrt(float64(1 - sin2T)))
	q.Wi = d.Scale(eta).Add(q.N.Scale(eta*cosI - cosT)).Normalize()
	q.Weight, q.Transmit = q.Albedo, true
}
