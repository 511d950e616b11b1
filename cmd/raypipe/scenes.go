package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/raypipe/raypipe/scene"
)

const builtinHelp = `  default              the embedded demo scene (the default)
  terrain[:N]          a heightfield of about N triangles (default 1000000)
  soup[:N]             N random triangles in the unit cube (default 100000)
  spheres[:N]          icosphere instances, about N triangles (default 100000)
  many-materials[:N]   N textured materials, the SER benchmark scene (default 16)`

// loadScene resolves a -scene argument: a built-in name or a file.
func loadScene(arg string) (*scene.Scene, error) {
	if arg == "" || arg == "default" {
		return scene.Default(), nil
	}
	name, num, hasNum := strings.Cut(arg, ":")
	gen := map[string]struct {
		def, max int
		fn       func(int) *scene.Scene
	}{
		"terrain":        {1_000_000, 1 << 26, func(n int) *scene.Scene { return scene.Terrain(n, 1) }},
		"soup":           {100_000, 1 << 26, func(n int) *scene.Scene { return scene.RandomTriangles(n, 1) }},
		"spheres":        {100_000, 1 << 26, func(n int) *scene.Scene { return scene.SphereField(n, 1) }},
		"many-materials": {16, 1024, func(n int) *scene.Scene { return scene.ManyMaterials(n, 1) }},
	}
	if g, ok := gen[name]; ok && filepath.Ext(arg) == "" || ok && hasNum {
		if _, err := os.Stat(arg); err != nil { // a file of that name wins
			n := g.def
			if hasNum {
				v, err := strconv.Atoi(num)
				if err != nil || v < 1 || v > g.max {
					return nil, fmt.Errorf("scene %q: size %q is not an integer in 1..%d", arg, num, g.max)
				}
				n = v
			}
			return g.fn(n), nil
		}
	}
	s, err := scene.Load(arg)
	if err != nil {
		return nil, err
	}
	return s, nil
}
