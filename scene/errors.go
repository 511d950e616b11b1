package scene

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by errors for valid files that use features
// this package does not implement (an unknown file extension, a required
// glTF extension).
var ErrUnsupported = errors.New("unsupported")

// LoadError reports a problem in a scene file.
type LoadError struct {
	File string // the file name as given to the loader
	Line int    // 1-based line for text formats, 0 when not applicable
	Err  error
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("scene: %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("scene: %s: %v", e.File, e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

func loadErr(file string, line int, format string, args ...any) *LoadError {
	return &LoadError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// recoverTo turns a panic (from a third-party decoder, as a last resort)
// into a LoadError stored in *err.
func recoverTo(file string, err *error) {
	if r := recover(); r != nil {
		*err = loadErr(file, 0, "internal error decoding file: %v", r)
	}
}
