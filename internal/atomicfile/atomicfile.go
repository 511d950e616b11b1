// Package atomicfile writes files so that readers never see a partial
// file: the data goes to a temporary file in the same directory, which is
// synced and renamed into place only when everything succeeded.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write calls write on a temporary file next to path and renames it to
// path when write, Sync and Close succeed; otherwise it removes the
// temporary file, leaves path untouched and returns the error.
func Write(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
