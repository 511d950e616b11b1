package accel

import (
	"errors"
	"fmt"
)

// ErrInvalidInput is wrapped by every error that reports bad build input.
var ErrInvalidInput = errors.New("accel: invalid input")

// InputError says which part of a build input is wrong and why.
type InputError struct {
	Where string // e.g. "geometry 3", "instance 12"
	Field string // e.g. "IndexBuffer", "Transform"
	Msg   string
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("accel: %s: %s", e.Where, e.Msg)
	}
	return fmt.Sprintf("accel: %s: %s: %s", e.Where, e.Field, e.Msg)
}

func (e *InputError) Unwrap() error { return ErrInvalidInput }

func inputErr(where, field, format string, args ...any) error {
	return &InputError{Where: where, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ErrNoTriangle is returned by position fetch on a hit that is not a
// triangle.
var ErrNoTriangle = errors.New("accel: position fetch: the hit is not a triangle")

// ErrNoDataAccess is returned by position fetch on a BLAS built without
// BuildAllowDataAccess (hlsl-0041 requires ALLOW_DATA_ACCESS).
var ErrNoDataAccess = errors.New("accel: position fetch: the BLAS was not built with BuildAllowDataAccess")
