package scene

// MaterialKind is the broad shading model a renderer should use.
type MaterialKind uint8

const (
	// Diffuse is a Lambertian (or rough dielectric) surface.
	Diffuse MaterialKind = iota
	// Metal is a conductor: specular reflection tinted by BaseColor,
	// blurred by Roughness.
	Metal
	// Dielectric is glass-like: reflection and refraction with index IOR.
	Dielectric
	// Emissive is a light source radiating Emissive.
	Emissive
)

var kindNames = [...]string{"Diffuse", "Metal", "Dielectric", "Emissive"}

func (k MaterialKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "MaterialKind(?)"
}

// AlphaMode says how BaseColor's alpha (times the texture's) is used,
// as in glTF.
type AlphaMode uint8

const (
	// Opaque ignores alpha.
	Opaque AlphaMode = iota
	// Mask treats texels with alpha < AlphaCutoff as holes: an any-hit
	// shader ignores the hit.
	Mask
	// Blend is partial coverage; a path tracer may treat alpha as the
	// probability of a hit.
	Blend
)

var alphaNames = [...]string{"Opaque", "Mask", "Blend"}

func (a AlphaMode) String() string {
	if int(a) < len(alphaNames) {
		return alphaNames[a]
	}
	return "AlphaMode(?)"
}

// Material describes a surface. Colors are linear RGB(A).
type Material struct {
	Name string
	Kind MaterialKind
	// BaseColor is the albedo (Diffuse), the reflectance tint (Metal) or
	// the transmission tint (Dielectric), multiplied by the texture.
	BaseColor [4]float32
	// BaseColorTexture indexes Scene.Textures; -1 for none.
	BaseColorTexture int
	AlphaMode        AlphaMode
	// AlphaCutoff is the Mask threshold, 0.5 by default.
	AlphaCutoff float32
	// Emissive is the emitted radiance (Emissive kind; zero otherwise).
	Emissive  [3]float32
	Metallic  float32
	Roughness float32
	// IOR is the index of refraction (Dielectric), 1.5 by default.
	IOR float32
}

// DefaultMaterial returns the material used for Material index -1 and as
// the starting point of every loader: white, diffuse, opaque.
func DefaultMaterial() Material {
	return Material{
		Name:             "default",
		Kind:             Diffuse,
		BaseColor:        [4]float32{0.8, 0.8, 0.8, 1},
		BaseColorTexture: -1,
		AlphaCutoff:      0.5,
		Roughness:        1,
		IOR:              1.5,
	}
}

// MaterialOf returns the material of index i, or DefaultMaterial for -1
// and any out-of-range index.
func (s *Scene) MaterialOf(i int) Material {
	if i >= 0 && i < len(s.Materials) {
		return s.Materials[i]
	}
	return DefaultMaterial()
}

func diffuse(name string, r, g, b float32) Material {
	m := DefaultMaterial()
	m.Name = name
	m.BaseColor = [4]float32{r, g, b, 1}
	return m
}

func metal(name string, r, g, b, roughness float32) Material {
	m := diffuse(name, r, g, b)
	m.Kind, m.Metallic, m.Roughness = Metal, 1, roughness
	return m
}

func glass(name string, ior float32) Material {
	m := diffuse(name, 1, 1, 1)
	m.Kind, m.Roughness, m.IOR = Dielectric, 0, ior
	return m
}

func light(name string, r, g, b float32) Material {
	m := diffuse(name, 0, 0, 0)
	m.Kind, m.Emissive = Emissive, [3]float32{r, g, b}
	return m
}
