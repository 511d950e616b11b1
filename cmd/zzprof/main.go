package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/render"
	"github.com/raypipe/raypipe/scene"
)

func main() {
	on := flag.Bool("on", false, "")
	win := flag.Int("w", 0, "")
	prof := flag.String("prof", "", "")
	W := flag.Int("W", 320, "")
	taps := flag.Int("taps", 1, "")
	H := flag.Int("H", 180, "")
	flag.Parse()
	r, err := render.NewRenderer(scene.ManyMaterials(32, 1))
	if err != nil {
		panic(err)
	}
	o := render.Options{Width: *W, Height: *H, SamplesPerPixel: 4, MaxBounces: 4, Seed: 1, Window: *win, TextureTaps: *taps}
	if *on {
		o.Reorder = raypipe.ReorderOn
	}
	r.Render(context.Background(), o)
	if *prof != "" {
		f, _ := os.Create(*prof)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	_, res, err := r.Render(context.Background(), o)
	fmt.Println(res.Elapsed, res.SamplesPerSec, err)
}
