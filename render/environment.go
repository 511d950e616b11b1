package render

import (
	"math"

	"github.com/raypipe/raypipe/vec"
)

// Environment is what rays that leave the scene see: a sky gradient and
// an optional sun. The sun is a small disk that is sampled directly from
// diffuse surfaces (next-event estimation) and shows up in the image
// only through camera rays and specular bounces.
type Environment struct {
	// Zenith, Horizon and Ground are the sky's radiance straight up, at
	// the horizon and below it (linear RGB).
	Zenith, Horizon, Ground [3]float32
	// SunDirection points towards the sun; zero means no sun.
	SunDirection vec.Vec3
	// SunIrradiance is the irradiance the sun casts on a surface facing it.
	SunIrradiance [3]float32
	// SunAngularRadius is the radius of the sun's disk, in radians.
	SunAngularRadius float32
}

// DefaultEnvironment is a clear sky with a warm sun from the left.
func DefaultEnvironment() Environment {
	return Environment{
		Zenith:           [3]float32{0.1, 0.22, 0.55},
		Horizon:          [3]float32{0.5, 0.58, 0.72},
		Ground:           [3]float32{0.16, 0.15, 0.14},
		SunDirection:     vec.V3(-0.75, 0.55, -0.25),
		SunIrradiance:    [3]float32{3.2, 2.9, 2.5},
		SunAngularRadius: 0.03,
	}
}

// UniformEnvironment returns a sky of constant radiance c and no sun
// (a "white furnace" for c = 1).
func UniformEnvironment(c float32) Environment {
	return Environment{Zenith: [3]float32{c, c, c}, Horizon: [3]float32{c, c, c}, Ground: [3]float32{c, c, c}}
}

// env is an Environment prepared for shading.
type env struct {
	zenith, horizon, ground rgb
	sun                     bool
	sunDir                  vec.Vec3
	sunE                    rgb // irradiance
	sunL                    rgb // radiance of the disk
	sunCos                  float32
}

func prepareEnv(e Environment) env {
	p := env{zenith: e.Zenith, horizon: e.Horizon, ground: e.Ground}
	if l := e.SunDirection.Len(); l > 0 && !rgb(e.SunIrradiance).isBlack() {
		p.sun = true
		p.sunDir = e.SunDirection.Scale(1 / l)
		r := float64(max(e.SunAngularRadius, 1e-3))
		p.sunCos = float32(math.Cos(r))
		solid := 2 * math.Pi * (1 - math.Cos(r))
		p.sunE = e.SunIrradiance
		p.sunL = rgb(e.SunIrradiance).scale(float32(1 / solid))
	}
	return p
}

// sky returns the radiance seen in unit direction d; the sun disk is
// included when withSun is set.
func (e *env) sky(d vec.Vec3, withSun bool) rgb {
	var c rgb
	if d.Y >= 0 {
		t := float32(math.Sqrt(float64(d.Y)))
		c = e.horizon.scale(1 - t).add(e.zenith.scale(t))
	} else {
		t := min(-d.Y*4, 1)
		c = e.horizon.scale(1 - t).add(e.ground.scale(t))
	}
	if withSun && e.sun && d.Dot(e.sunDir) >= e.sunCos {
		c = c.add(e.sunL)
	}
	return c
}
