package raypipe

import (
	"errors"
	"fmt"
)

// Causes of a *DispatchError, for errors.Is.
var (
	ErrRecursionLimit    = errors.New("trace recursion deeper than MaxTraceRecursionDepth")
	ErrStackOverflow     = errors.New("pipeline stack size exceeded")
	ErrCallableNesting   = errors.New("callable shaders nested deeper than MaxCallableNesting")
	ErrTypeMismatch      = errors.New("payload, attribute or parameter type mismatch")
	ErrSystemValue       = errors.New("system value not available in this shader stage")
	ErrIntrinsicStage    = errors.New("intrinsic not available in this shader stage")
	ErrRecordOutOfRange  = errors.New("shader record index beyond its table")
	ErrHitGroupType      = errors.New("hit group type does not match the geometry")
	ErrShaderIdentifier  = errors.New("invalid shader identifier")
	ErrInvalidArgument   = errors.New("invalid argument")
	ErrShaderPanic       = errors.New("shader panicked")
	ErrDispatchInvalid   = errors.New("invalid dispatch")
	errDispatchCancelled = errors.New("dispatch cancelled")
)

// DispatchError is a spec violation or shader panic inside a dispatch. It
// names the launch index (DispatchRaysIndex) and the innermost shader that
// was running.
type DispatchError struct {
	LaunchIndex [3]uint32
	Shader      string
	Kind        ShaderKind
	Err         error
	// Stack is the goroutine stack of a shader panic, for debugging.
	Stack []byte
}

func (e *DispatchError) Error() string {
	return fmt.Sprintf("raypipe: launch (%d,%d,%d): %s shader %q: %v", e.LaunchIndex[0], e.LaunchIndex[1], e.LaunchIndex[2], e.Kind, e.Shader, e.Err)
}

func (e *DispatchError) Unwrap() error { return e.Err }

// PanicError carries the value a shader panicked with.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("shader panicked: %v", e.Value) }

func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return errors.Join(ErrShaderPanic, err)
	}
	return ErrShaderPanic
}
