package render

import (
	"math"
	"sync/atomic"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// radiancePayload travels with radiance rays. The ray generation shader
// keeps the path's throughput; a closest-hit or miss shader reports what
// it adds at its vertex (Emitted, to be weighted by the throughput so
// far) and how the path continues (Weight, Origin, Dir).
type radiancePayload struct {
	RNG rng
	// In: the previous vertex was the camera or a specular bounce, so
	// emitters count when hit (diffuse vertices sample them directly).
	Specular bool
	// In: the path ends at this vertex; do not sample a next direction.
	Last bool

	Emitted     rgb
	Weight      rgb
	Origin, Dir vec.Vec3
	Done        bool
}

// shadowPayload travels with shadow rays; the shadow miss shader sets
// Visible.
type shadowPayload struct {
	Visible bool
}

// sphereAttr are the attributes the sphere intersection shader reports:
// the object-space unit normal at the hit.
type sphereAttr struct {
	Normal vec.Vec3
}

// Hit kinds reported for spheres.
const (
	sphereOutside = 0
	sphereInside  = 1
)

// Local root argument offsets of hit group records.
const (
	argMaterial = 0
	argGeometry = 4
)

// surface is what the closest-hit shaders know of a hit point.
type surface struct {
	p      vec.Vec3 // world position
	ng, ns vec.Vec3 // geometric and shading normals, facing the incoming ray
	uv     [2]float32
	front  bool // the ray hit the outside (front face)
	mat    *material
}

// frame is one Render call: the options and the image it fills. Shaders
// are closures over it.
type frame struct {
	r        *Renderer
	opt      Options
	cam      camera
	env      env
	pix      []float32
	done     *atomic.Int64
	rrStart  int
	clamp    float32
	inf      float32
	shadowFl accel.RayFlags
}

// transformNormal maps an object-space normal to world space with the
// inverse transpose, given the world-to-object matrix.
func transformNormal(w2o vec.Mat3x4, n vec.Vec3) vec.Vec3 {
	return vec.V3(
		w2o[0][0]*n.X+w2o[1][0]*n.Y+w2o[2][0]*n.Z,
		w2o[0][1]*n.X+w2o[1][1]*n.Y+w2o[2][1]*n.Z,
		w2o[0][2]*n.X+w2o[1][2]*n.Y+w2o[2][2]*n.Z,
	)
}

// triangleUV interpolates the texture coordinates of a triangle hit.
func triangleUV(p *scene.Primitive, prim uint32, b [2]float32) [2]float32 {
	if p.UVs == nil {
		return [2]float32{b[0], b[1]}
	}
	i0, i1, i2 := p.Indices[3*prim], p.Indices[3*prim+1], p.Indices[3*prim+2]
	w := 1 - b[0] - b[1]
	a, bb, c := p.UVs[i0], p.UVs[i1], p.UVs[i2]
	return [2]float32{w*a[0] + b[0]*bb[0] + b[1]*c[0], w*a[1] + b[0]*bb[1] + b[1]*c[1]}
}

func (f *frame) triangleSurface(c *raypipe.Context, a *raypipe.BuiltInTriangleIntersectionAttributes) surface {
	g := &f.r.geoms[c.LoadLocalRootTableConstant(argGeometry)]
	p := g.prim
	prim := c.PrimitiveIndex()
	i0, i1, i2 := p.Indices[3*prim], p.Indices[3*prim+1], p.Indices[3*prim+2]
	v0, v1, v2 := p.Positions[i0], p.Positions[i1], p.Positions[i2]
	b1, b2 := a.Barycentrics[0], a.Barycentrics[1]
	b0 := 1 - b1 - b2
	po := v0.Scale(b0).Add(v1.Scale(b1)).Add(v2.Scale(b2))
	w2o := c.WorldToObject3x4()
	s := surface{p: c.ObjectToWorld3x4().TransformPoint(po), mat: &f.r.mats[g.material]}
	s.ng = transformNormal(w2o, v1.Sub(v0).Cross(v2.Sub(v0))).Normalize()
	if p.Normals != nil {
		s.ns = transformNormal(w2o, p.Normals[i0].Scale(b0).Add(p.Normals[i1].Scale(b1)).Add(p.Normals[i2].Scale(b2))).Normalize()
		if !s.ns.IsFinite() || s.ns.Len() == 0 {
			s.ns = s.ng
		}
	} else {
		s.ns = s.ng
	}
	s.uv = triangleUV(p, prim, a.Barycentrics)
	d := c.WorldRayDirection()
	s.front = s.ng.Dot(d) < 0
	if !s.front {
		s.ng = s.ng.Neg()
	}
	if s.ns.Dot(s.ng) < 0 {
		s.ns = s.ns.Neg()
	}
	if !s.ng.IsFinite() {
		s.ng, s.ns = d.Neg().Normalize(), d.Neg().Normalize()
	}
	return s
}

func (f *frame) sphereSurface(c *raypipe.Context, a *sphereAttr) surface {
	g := &f.r.geoms[c.LoadLocalRootTableConstant(argGeometry)]
	sp := f.r.scene.Spheres[g.sphere]
	n := a.Normal
	s := surface{mat: &f.r.mats[g.material], front: c.HitKind() == sphereOutside}
	s.p = c.ObjectToWorld3x4().TransformPoint(sp.Center.Add(n.Scale(sp.Radius)))
	nw := transformNormal(c.WorldToObject3x4(), n).Normalize()
	s.uv = [2]float32{0.5 + float32(math.Atan2(float64(n.Z), float64(n.X)))/(2*math.Pi), float32(math.Acos(float64(max(-1, min(1, n.Y))))) / math.Pi}
	if !s.front {
		nw = nw.Neg()
	}
	s.ng, s.ns = nw, nw
	return s
}

// intersectSphere is the intersection shader of the analytic spheres
// (a robust quadratic, Haines et al., Ray Tracing Gems ch. 7).
func (f *frame) intersectSphere(c *raypipe.Context) {
	g := &f.r.geoms[c.LoadLocalRootTableConstant(argGeometry)]
	sp := f.r.scene.Spheres[g.sphere]
	o, d := c.ObjectRayOrigin(), c.ObjectRayDirection()
	ox, oy, oz := float64(o.X-sp.Center.X), float64(o.Y-sp.Center.Y), float64(o.Z-sp.Center.Z)
	dx, dy, dz := float64(d.X), float64(d.Y), float64(d.Z)
	a := dx*dx + dy*dy + dz*dz
	b := ox*dx + oy*dy + oz*dz // half the linear coefficient
	r := float64(sp.Radius)
	fx, fy, fz := ox-b/a*dx, oy-b/a*dy, oz-b/a*dz
	disc := a * (r*r - (fx*fx + fy*fy + fz*fz))
	if !(disc >= 0) || a == 0 {
		return
	}
	cc := ox*ox + oy*oy + oz*oz - r*r
	q := -(b + math.Copysign(math.Sqrt(disc), b))
	t0, t1 := cc/q, q/a
	if t0 > t1 {
		t0, t1 = t1, t0
	}
	report := func(t float64, kind uint32) bool {
		n := vec.V3(float32((ox+t*dx)/r), float32((oy+t*dy)/r), float32((oz+t*dz)/r))
		attr := sphereAttr{Normal: n.Normalize()}
		return raypipe.ReportHit(c, float32(t), kind, &attr)
	}
	// The near root is where the ray enters (it starts outside when
	// cc > 0); the far root is where it leaves.
	if cc > 0 && report(t0, sphereOutside) {
		return
	}
	report(t1, sphereInside)
}

// alphaTest is the any-hit shader body of cut-out materials: it ignores
// the hit where the texture's alpha is below the cutoff (an AnyHitFilter:
// a returned HitIgnore, where IgnoreHit would end the shader with a
// panic).
func (f *frame) alphaTest(c *raypipe.Context, a *raypipe.BuiltInTriangleIntersectionAttributes) raypipe.HitDecision {
	m := &f.r.mats[c.LoadLocalRootTableConstant(argMaterial)]
	g := &f.r.geoms[c.LoadLocalRootTableConstant(argGeometry)]
	_, alpha := m.baseColor(triangleUV(g.prim, c.PrimitiveIndex(), a.Barycentrics))
	cutoff := m.cutoff
	if m.alphaMode == scene.Blend {
		cutoff = 0.5
	}
	if alpha < cutoff {
		return raypipe.HitIgnore
	}
	return raypipe.HitAccept
}

// visible traces a shadow ray from p (offset along ng) in unit direction
// dir up to tmax.
func (f *frame) visible(c *raypipe.Context, p, ng, dir vec.Vec3, tmax float32) bool {
	pl := shadowPayload{}
	ray := accel.Ray{Origin: offsetRay(p, ng), Direction: dir, TMax: tmax}
	raypipe.TraceRay(c, f.r.tlas, f.shadowFl, 0xff, rayShadow, numRayTypes, missShadow, ray, &pl)
	return pl.Visible
}

// directLight is next-event estimation at a diffuse surface: the sun and
// one point on an emitter, each with a shadow ray.
func (f *frame) directLight(c *raypipe.Context, s *surface, albedo rgb, r *rng) rgb {
	var l rgb
	brdf := albedo.scale(1 / math.Pi)
	if e := &f.env; e.sun {
		if cos := s.ns.Dot(e.sunDir); cos > 0 && s.ng.Dot(e.sunDir) > 0 && f.visible(c, s.p, s.ng, e.sunDir, f.inf) {
			l = l.add(brdf.mul(e.sunE).scale(cos))
		}
	}
	if ls := f.r.lights; !ls.empty() {
		q, n, le := ls.sample(r)
		d := q.Sub(s.p)
		dist2 := d.Dot(d)
		dist := float32(math.Sqrt(float64(dist2)))
		wi := d.Scale(1 / dist)
		cosS := s.ns.Dot(wi)
		cosL := float32(math.Abs(float64(n.Dot(wi))))
		if cosS > 0 && cosL > 0 && s.ng.Dot(wi) > 0 && dist2 > 0 && f.visible(c, s.p, s.ng, wi, dist*(1-1e-3)) {
			l = l.add(brdf.mul(le).scale(cosS * cosL / dist2 * ls.total))
		}
	}
	return l
}

// shade is the body of every closest-hit shader: kind selects the
// material model, s is the hit.
func (f *frame) shade(c *raypipe.Context, pl *radiancePayload, kind scene.MaterialKind, s *surface) {
	m := s.mat
	pl.Done = true
	if kind == scene.Emissive {
		if pl.Specular {
			pl.Emitted = m.emissive
		}
		return
	}
	albedo := m.filteredColor(s.uv, f.opt.TextureTaps)
	wo := c.WorldRayDirection().Neg().Normalize()
	q := bsdfQuery{Wo: wo, N: s.ns, Albedo: albedo, Rough: m.roughness, IOR: m.ior, Entering: s.front, RNG: pl.RNG}
	var call uint32
	switch kind {
	case scene.Diffuse:
		pl.Emitted = f.directLight(c, s, albedo, &q.RNG)
		call = callDiffuse
	case scene.Metal:
		call = callMetal
	case scene.Dielectric:
		call = callDielectric
		// Refraction needs the true geometric side, not the shading one.
		q.N = s.ng
	}
	if pl.Last {
		pl.RNG = q.RNG
		return
	}
	raypipe.CallShader(c, call, &q)
	pl.RNG = q.RNG
	if !q.Valid || !q.Wi.IsFinite() {
		return
	}
	side := s.ng
	if q.Transmit {
		side = side.Neg()
	} else if q.Wi.Dot(s.ng) <= 0 {
		return // sampled below the geometric surface
	}
	pl.Weight, pl.Dir, pl.Origin = q.Weight, q.Wi, offsetRay(s.p, side)
	pl.Specular, pl.Done = q.Specular, false
}

func (f *frame) miss(c *raypipe.Context, pl *radiancePayload) {
	pl.Emitted = f.env.sky(c.WorldRayDirection().Normalize(), pl.Specular)
	pl.Done = true
}

var kindNames = [...]string{scene.Diffuse: "diffuse", scene.Metal: "metal", scene.Dielectric: "dielectric", scene.Emissive: "emissive"}

// shaders returns the pipeline's shaders and hit groups.
func (f *frame) shaders() ([]raypipe.Shader, []raypipe.HitGroup) {
	sh := []raypipe.Shader{
		raypipe.RayGeneration("raygen", f.rayGen),
		raypipe.Miss("miss", f.miss),
		raypipe.Miss("shadow_miss", func(c *raypipe.Context, pl *shadowPayload) { pl.Visible = true }),
		raypipe.AnyHitFilter("alpha_radiance", func(c *raypipe.Context, _ *radiancePayload, a *raypipe.BuiltInTriangleIntersectionAttributes) raypipe.HitDecision {
			return f.alphaTest(c, a)
		}),
		raypipe.AnyHitFilter("alpha_shadow", func(c *raypipe.Context, _ *shadowPayload, a *raypipe.BuiltInTriangleIntersectionAttributes) raypipe.HitDecision {
			return f.alphaTest(c, a)
		}),
		raypipe.Intersection[sphereAttr]("sphere", f.intersectSphere),
		raypipe.Callable("bsdf_diffuse", sampleDiffuse1),
		raypipe.Callable("bsdf_metal", sampleMetal1),
		raypipe.Callable("bsdf_dielectric", sampleDielectric1),
	}
	hg := []raypipe.HitGroup{
		{Name: "tri_shadow_alpha", AnyHit: "alpha_shadow"},
		{Name: "sphere_shadow", Type: raypipe.HitGroupProceduralPrimitive, Intersection: "sphere"},
	}
	for k, name := range kindNames {
		kind := scene.MaterialKind(k)
		sh = append(sh,
			raypipe.ClosestHit("tri_"+name, func(c *raypipe.Context, pl *radiancePayload, a *raypipe.BuiltInTriangleIntersectionAttributes) {
				s := f.triangleSurface(c, a)
				f.shade(c, pl, kind, &s)
			}),
			raypipe.ClosestHit("sphere_"+name, func(c *raypipe.Context, pl *radiancePayload, a *sphereAttr) {
				s := f.sphereSurface(c, a)
				f.shade(c, pl, kind, &s)
			}))
		hg = append(hg,
			raypipe.HitGroup{Name: "hg_tri_" + name, ClosestHit: "tri_" + name},
			raypipe.HitGroup{Name: "hg_tri_" + name + "_alpha", ClosestHit: "tri_" + name, AnyHit: "alpha_radiance"},
			raypipe.HitGroup{Name: "hg_sphere_" + name, Type: raypipe.HitGroupProceduralPrimitive, Intersection: "sphere", ClosestHit: "sphere_" + name})
	}
	return sh, hg
}

func sampleDiffuse1(_ *raypipe.Context, q *bsdfQuery)    { sampleDiffuse(q) }
func sampleMetal1(_ *raypipe.Context, q *bsdfQuery)      { sampleMetal(q) }
func sampleDielectric1(_ *raypipe.Context, q *bsdfQuery) { sampleDielectric(q) }

// rayGen is the ray generation shader: for each sample of its pixel it
// follows one path, in the style of hlsl-0027's Example 2: trace without
// shading, reorder by the hit and a "probably finished" hint, then invoke
// the closest-hit or miss shader.
func (f *frame) rayGen(c *raypipe.Context) {
	l := c.DispatchRaysIndex()
	x, y := l[0], l[1]
	o := &f.opt
	var sum [3]float64
	for smp := 0; smp < o.SamplesPerPixel; smp++ {
		pl := radiancePayload{RNG: pathRNG(x, y, uint32(smp), o.Seed), Specular: true}
		dir := f.cam.ray(float32(x)+pl.RNG.float(), float32(y)+pl.RNG.float())
		ray := accel.Ray{Origin: f.cam.eye, Direction: dir, TMax: f.inf}
		t := rgb{1, 1, 1}
		var radiance rgb
		for bounce := 0; ; bounce++ {
			h := raypipe.HitObjectTraceRay(c, f.r.tlas, 0, 0xff, rayRadiance, numRayTypes, missRadiance, ray, &pl)
			last := bounce >= o.MaxBounces
			finished := last || h.IsMiss()
			if !finished && bounce >= f.rrStart {
				// Russian roulette will probably end paths of low
				// throughput at dark materials: a hint, not a decision.
				m := &f.r.mats[h.LoadLocalRootTableConstant(c, argMaterial)]
				finished = m.kind == scene.Emissive || t.maxComp()*m.base.maxComp() < 0.25
			}
			raypipe.ReorderThreadHitHint(c, h, b2u(finished), 1)
			pl.Last, pl.Emitted = last, rgb{}
			raypipe.Invoke(c, h, &pl)
			contrib := t.mul(pl.Emitted)
			if f.clamp > 0 && bounce > 0 {
				if m := contrib.maxComp(); m > f.clamp {
					contrib = contrib.scale(f.clamp / m)
				}
			}
			if contrib.finite() {
				radiance = radiance.add(contrib)
			}
			if pl.Done || last {
				break
			}
			t = t.mul(pl.Weight)
			if bounce >= f.rrStart {
				p := min(t.maxComp(), 0.95)
				if pl.RNG.float() >= p {
					break
				}
				t = t.scale(1 / p)
			}
			ray = accel.Ray{Origin: pl.Origin, Direction: pl.Dir, TMax: f.inf}
		}
		for k := range sum {
			sum[k] += float64(radiance[k])
		}
	}
	i := 3 * (int(y)*f.opt.Width + int(x))
	inv := 1 / float64(o.SamplesPerPixel)
	for k := range sum {
		f.pix[i+k] = float32(sum[k] * inv)
	}
	f.done.Add(1)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
