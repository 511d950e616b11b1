package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/render"
)

func runRender(args []string, stdout, stderr io.Writer) error {
	def := render.DefaultOptions()
	fs := newFlags("render", "[-scene FILE] [-o out.png|out.hdr] [flags]", stderr)
	sceneArg := fs.String("scene", "default", "scene file (.gltf, .glb, .obj) or built-in scene name")
	out := fs.String("o", "out.png", "output image: .png (sRGB, tone mapped) or .hdr (linear Radiance RGBE)")
	w := fs.Int("w", def.Width, "image width in pixels")
	h := fs.Int("h", def.Height, "image height in pixels")
	spp := fs.Int("spp", def.SamplesPerPixel, "samples per pixel")
	bounces := fs.Int("bounces", def.MaxBounces, "maximum indirect bounces (0: direct light only)")
	seed := fs.Uint64("seed", def.Seed, "random seed")
	reorder := fs.String("reorder", "off", "Shader Execution Reordering: on or off (on costs time on the default scene; see bench)")
	window := fs.Int("window", 0, "in-flight invocations per worker with -reorder on (0: library default)")
	threads := fs.Int("threads", 0, "worker goroutines (0: all CPUs)")
	clamp := fs.Float64("clamp", float64(def.Clamp), "firefly clamp on indirect radiance (0: off)")
	coherence := fs.String("coherence", "auto", "simulated SIMT coherence statistics: on, off or auto (on unless -q)")
	quiet := fs.Bool("q", false, "quiet: no progress bar and no summary")
	if err := parse(fs, args); err != nil {
		return err
	}
	opt := def
	opt.Width, opt.Height, opt.SamplesPerPixel, opt.MaxBounces, opt.Seed = *w, *h, *spp, *bounces, *seed
	opt.Window, opt.Workers, opt.Clamp = *window, *threads, float32(*clamp)
	switch *coherence {
	case "on":
		opt.CoherenceStats = true
	case "off":
	case "auto":
		opt.CoherenceStats = !*quiet
	default:
		return fmt.Errorf("-coherence %q: want on, off or auto", *coherence)
	}
	switch *reorder {
	case "on":
		opt.Reorder = raypipe.ReorderOn
	case "off":
		opt.Reorder = raypipe.ReorderOff
	default:
		return fmt.Errorf("-reorder %q: want on or off", *reorder)
	}
	switch {
	case *w < 1 || *h < 1:
		return fmt.Errorf("-w %d -h %d: image size must be positive", *w, *h)
	case *spp < 1:
		return fmt.Errorf("-spp %d: must be at least 1", *spp)
	case *bounces < 0:
		return fmt.Errorf("-bounces %d: must not be negative", *bounces)
	case *threads < 0 || *window < 0:
		return fmt.Errorf("-threads and -window must not be negative")
	}
	if ext := strings.ToLower(filepath.Ext(*out)); ext != ".png" && ext != ".hdr" {
		return fmt.Errorf("-o %s: unknown image format %q (want .png or .hdr)", *out, ext)
	}
	s, err := loadScene(*sceneArg)
	if err != nil {
		return err
	}
	if !*quiet {
		for _, w := range s.Warnings {
			fmt.Fprintf(stderr, "raypipe render: warning: %s\n", w)
		}
	}
	r, err := render.NewRenderer(s)
	if err != nil {
		return err
	}
	var bar *progressBar
	if !*quiet && isTerminal(os.Stderr) {
		bar = newProgressBar(stderr, "rendering")
		opt.Progress = bar.update
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	img, res, err := r.Render(ctx, opt)
	bar.finish()
	if err != nil {
		return err
	}
	if err := img.Save(*out); err != nil {
		return err
	}
	if !*quiet {
		st := res.Stats
		fmt.Fprintf(stdout, "%s: %dx%d, %d spp, %d bounces, reorder %s: %.2fs (build %.2fs), %d rays, %.2f Mrays/s, %.0f samples/s, %d reorder points",
			*out, opt.Width, opt.Height, opt.SamplesPerPixel, opt.MaxBounces, *reorder, res.Elapsed.Seconds(), res.Build.Seconds(),
			res.Rays, res.MraysPerSec, res.SamplesPerSec, st.ReorderPoints)
		if opt.CoherenceStats {
			fmt.Fprintf(stdout, ", coherence %.2f -> %.2f records/wave", st.Coherence.LaunchOrder.RecordsPerWave(), st.Coherence.Executed.RecordsPerWave())
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressBar draws a one-line progress bar; a nil bar draws nothing.
type progressBar struct {
	w     io.Writer
	label string
	start time.Time
}

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, label: label, start: time.Now()}
}

func (b *progressBar) update(done, total int) {
	if b == nil || total <= 0 {
		return
	}
	const width = 30
	f := float64(done) / float64(total)
	n := int(f * width)
	elapsed := time.Since(b.start).Seconds()
	eta := ""
	if f > 0.02 && f < 1 {
		eta = fmt.Sprintf(" eta %.0fs", elapsed/f-elapsed)
	}
	fmt.Fprintf(b.w, "\r%s [%s%s] %3.0f%% %.1fs%s   ", b.label, strings.Repeat("#", n), strings.Repeat(" ", width-n), 100*f, elapsed, eta)
}

func (b *progressBar) finish() {
	if b == nil {
		return
	}
	fmt.Fprintf(b.w, "\r%s\r", strings.Repeat(" ", 70))
}
