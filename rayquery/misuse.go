package rayquery

import (
	"errors"
	"fmt"

	"github.com/raypipe/raypipe/accel"
)

// ErrMisuse is wrapped by every *MisuseError.
var ErrMisuse = errors.New("rayquery: misuse")

// MisuseError is the panic value of a RayQuery method called in a state
// where the spec leaves it undefined (see "Misuse" in the package
// documentation).
type MisuseError struct {
	// Method is the RayQuery method that was called, e.g.
	// "CommitNonOpaqueTriangleHit".
	Method string
	// State describes the query's state at the call, e.g. "candidate:
	// procedural primitive" or "search ended".
	State string
	// Reason says what is wrong.
	Reason string
	// Err is an underlying error, when there is one (an invalid ray flag
	// combination).
	Err error
}

func (e *MisuseError) Error() string {
	return "rayquery: " + e.Method + ": " + e.Reason + " (state: " + e.State + ")"
}

// Unwrap returns ErrMisuse and, when set, Err.
func (e *MisuseError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMisuse, e.Err}
	}
	return []error{ErrMisuse}
}

// state is the position of a RayQuery in the spec's state machine.
type state uint8

const (
	// stateIdle: TraceRayInline has not been called.
	stateIdle state = iota
	// stateReady: TraceRayInline was called, Proceed not yet.
	stateReady
	// stateCandidate: the last Proceed returned true; a candidate awaits.
	stateCandidate
	// stateDone: Proceed returned false or Abort was called.
	stateDone
)

// describe returns the state for a MisuseError.
func (q *RayQuery) describe() string {
	switch q.state {
	case stateIdle:
		return "before TraceRayInline"
	case stateReady:
		return "traced, Proceed not called yet"
	case stateCandidate:
		if q.tr.Candidate().Kind == kindProcedural {
			return "candidate: procedural primitive"
		}
		return "candidate: non-opaque triangle"
	}
	if q.aborted {
		return "search aborted"
	}
	return "search ended (Proceed returned false)"
}

// misuse panics with a *MisuseError. It is kept out of line so that the
// checks on the fast paths stay small.
//
//go:noinline
func (q *RayQuery) misuse(method, reason string) {
	panic(&MisuseError{Method: method, State: q.describe(), Reason: reason})
}

//go:noinline
func (q *RayQuery) misusef(method, format string, args ...any) {
	panic(&MisuseError{Method: method, State: q.describe(), Reason: fmt.Sprintf(format, args...)})
}

// badFlags resets q (so that a recovered caller cannot use the previous
// search by mistake) and panics about an invalid flag combination.
//
//go:noinline
func (q *RayQuery) badFlags(rayFlags accel.RayFlags, err error) {
	q.state, q.aborted = stateIdle, false
	panic(&MisuseError{Method: "TraceRayInline",
		State:  fmt.Sprintf("template flags %#x, TraceRayInline flags %#x", uint32(q.template), uint32(rayFlags)),
		Reason: "invalid ray flag combination", Err: err})
}
