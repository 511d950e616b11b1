// Command raypipe renders scenes, traces ray batches, benchmarks the
// library and describes scenes.
//
//	raypipe render   [-scene FILE] [-o out.png|out.hdr] [-w 640 -h 360] [-spp N] ...
//	raypipe trace    -scene MESH -rays IN -o OUT [-any] [-quality fast|trace] [-threads N]
//	raypipe gen-rays -scene MESH -o OUT [-kind primary|incoherent|shadow] [-n N] [-seed N]
//	raypipe bench    [-json] [-quick]
//	raypipe info     [-scene FILE]
//
// Run `raypipe COMMAND -help` for a command's flags. Errors go to stderr
// and exit with status 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) error
}

var commands []command

func init() {
	commands = []command{
		{"render", "[-scene FILE] [-o FILE] [flags]", "path trace a scene to PNG or Radiance HDR", runRender},
		{"trace", "-scene MESH -rays IN -o OUT [flags]", "cast a batch of rays, write hit records", runTrace},
		{"gen-rays", "-scene MESH -o OUT [flags]", "write a sample ray batch for trace", runGenRays},
		{"bench", "[-json] [-quick]", "run the built-in benchmark suite", runBench},
		{"info", "[-scene FILE]", "describe a scene and its acceleration structures", runInfo},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: raypipe COMMAND [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nscenes (-scene): a .gltf, .glb or .obj file, or a built-in scene:\n%s\n", builtinHelp)
	fmt.Fprintf(w, "run 'raypipe COMMAND -help' for a command's flags\n")
}

// errUsage marks errors after which the usage was already printed.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 1
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 1
		}
		fmt.Fprintf(stderr, "raypipe %s: %v\n", c.name, err)
		return 1
	}
	fmt.Fprintf(stderr, "raypipe: unknown command %q\n\n", args[0])
	usage(stderr)
	return 1
}

// newFlags returns a FlagSet for command name that prints its usage to
// stderr on errors.
func newFlags(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: raypipe %s %s\n\nflags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; a bad flag or a stray argument becomes errUsage
// (the flag package has printed the message and usage already).
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}
