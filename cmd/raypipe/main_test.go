package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/raybatch"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage: raypipe COMMAND"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"render", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"render", "-reorder", "maybe"}, `-reorder "maybe"`},
		{[]string{"render", "-o", "x.jpg"}, "unknown image format"},
		{[]string{"render", "-spp", "0"}, "-spp 0"},
		{[]string{"render", "-scene", "missing.obj", "-o", filepath.Join(t.TempDir(), "a.png")}, "missing.obj"},
		{[]string{"render", "-scene", "terrain:x"}, "not an integer"},
		{[]string{"trace", "-scene", "default"}, "-scene, -rays and -o are required"},
		{[]string{"info", "stray"}, `unexpected argument "stray"`},
		{[]string{"gen-rays", "-scene", "default", "-o", filepath.Join(t.TempDir(), "r.bin"), "-kind", "wobbly"}, "-kind"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestRender(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.png", "a.hdr"} {
		p := filepath.Join(dir, name)
		code, stdout, stderr := runCmd(t, "render", "-w", "24", "-h", "16", "-spp", "1", "-bounces", "2", "-reorder", "on", "-o", p)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "Mrays/s") || !strings.Contains(stdout, "records/wave") {
			t.Errorf("summary %q", stdout)
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if code, stdout, _ := runCmd(t, "render", "-q", "-w", "8", "-h", "8", "-spp", "1", "-o", filepath.Join(dir, "q.png")); code != 0 || stdout != "" {
		t.Errorf("-q: exit %d, stdout %q", code, stdout)
	}
}

func TestTraceRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rays, hits := filepath.Join(dir, "rays.bin"), filepath.Join(dir, "hits.bin")
	if code, _, stderr := runCmd(t, "gen-rays", "-scene", "terrain:2000", "-w", "32", "-h", "32", "-o", rays); code != 0 {
		t.Fatal(stderr)
	}
	for _, extra := range [][]string{nil, {"-any", "-quality", "fast", "-threads", "3"}} {
		args := append([]string{"trace", "-scene", "terrain:2000", "-rays", rays, "-o", hits}, extra...)
		code, stdout, stderr := runCmd(t, args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		data, _ := os.ReadFile(hits)
		hs, err := raybatch.DecodeHits(data)
		if err != nil || len(hs) != 32*32 {
			t.Fatalf("%d hits, %v", len(hs), err)
		}
		n := 0
		for _, h := range hs {
			if h.Primitive != raybatch.NoPrimitive {
				n++
				if h.Primitive >= 2048 || !(h.T > 0) {
					t.Fatalf("bad hit %+v", h)
				}
			}
		}
		if n == 0 || !strings.Contains(stdout, "Mrays/s") {
			t.Errorf("%d hits; summary %q", n, stdout)
		}
	}
}

func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.bin")
	os.WriteFile(bad, make([]byte, 33), 0o644)
	out := filepath.Join(dir, "out.bin")
	for _, in := range []string{bad, filepath.Join(dir, "missing.bin")} {
		code, _, stderr := runCmd(t, "trace", "-scene", "terrain:100", "-rays", in, "-o", out)
		if code != 1 || stderr == "" {
			t.Errorf("%s: exit %d, stderr %q", in, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file left behind", in)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("dir holds %v", ents)
	}
}

func TestInfo(t *testing.T) {
	code, stdout, stderr := runCmd(t, "info")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"meshes", "triangles", "spheres     4", "bounds", "BLAS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("info output lacks %q:\n%s", want, stdout)
		}
	}
}
