package render

import (
	"context"
	"os"
	"testing"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/scene"
)

func TestQuickLook(t *testing.T) {
	if os.Getenv("QUICKLOOK") == "" {
		t.Skip()
	}
	o := DefaultOptions()
	o.Width, o.Height, o.SamplesPerPixel = 320, 180, 8
	if os.Getenv("SER") != "" {
		o.Reorder = raypipe.ReorderOn
	}
	img, res, err := Render(context.Background(), scene.Default(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v %.2f Mrays/s", res.Elapsed, res.MraysPerSec)
	if err := img.Save("/tmp/rt/q.png"); err != nil {
		t.Fatal(err)
	}
}
